"""Type-check the package with mypy as it is installed: ``python scripts/typecheck.py [mypy options]``.

Why a script and not plain ``mypy``: pyproject maps the repository folders agents/, train/ and eval/
to ``newmarket_env.agents``, ``newmarket_env.train`` and ``newmarket_env.eval`` (package-dir), and
the editable install reaches them through an import hook, which mypy cannot follow. So this script
lays out the installed package as a tree of symbolic links under ``build/mypy-tree/`` (rebuilt on
every run, so new files are seen), points mypy there (``mypy_path`` in pyproject), and writes the
repository paths (``agents/base.py``, not ``build/mypy-tree/newmarket_env/agents/base.py``) in the
report, so editors and people find the files. The settings themselves live in ``[tool.mypy]``.

Exit status: mypy's (0 clean, 1 type errors, 2 a usage or crash).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # mypy itself depends on tomli there
    import tomli as tomllib

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
TREE = Path("build") / "mypy-tree"
PACKAGE = "newmarket_env"
# "path:line: error: ..." and "path: note: ..." at the start of a report line
REPORTED_PATH = re.compile(r"^(?P<path>[^\s:]+\.pyi?)(?=:)", re.MULTILINE)


def package_dirs() -> dict[str, str]:
    """The subpackages pyproject maps from other folders: {"agents": "agents", ...}."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        mapping = tomllib.load(file)["tool"]["setuptools"].get("package-dir", {})
    prefix = PACKAGE + "."
    return {name[len(prefix) :]: folder for name, folder in mapping.items() if name.startswith(prefix)}


def lay_out_tree() -> None:
    """build/mypy-tree/newmarket_env: a link to every entry of newmarket_env/ plus the mapped folders."""
    package = ROOT / TREE / PACKAGE
    shutil.rmtree(ROOT / TREE, ignore_errors=True)
    package.mkdir(parents=True)
    links = {entry.name: entry for entry in (ROOT / PACKAGE).iterdir() if entry.name != "__pycache__"}
    links.update({name: ROOT / folder for name, folder in package_dirs().items()})
    for name, target in links.items():
        (package / name).symlink_to(os.path.relpath(target, package))


def repository_path(match: re.Match[str]) -> str:
    """A reported path through the link tree, as the repository path of the file it links to."""
    path = Path(match["path"])
    if not path.is_absolute():
        path = ROOT / path
    real = path.resolve()
    return str(real.relative_to(ROOT)) if real.is_relative_to(ROOT) else match["path"]


def main(argv: list[str]) -> int:
    os.chdir(ROOT)  # pyproject's [tool.mypy] and the relative mypy_path are read from here
    lay_out_tree()
    stdout, stderr, status = api.run(argv)
    sys.stdout.write(REPORTED_PATH.sub(repository_path, stdout))
    sys.stderr.write(REPORTED_PATH.sub(repository_path, stderr))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
