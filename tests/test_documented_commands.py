"""Every ``python -m MODULE`` the docs and the README show starts without a RuntimeWarning.

``python -m a.b.c`` imports the package ``a.b`` first; when that import already imports ``a.b.c``, runpy warns
(``'a.b.c' found in sys.modules after import of package 'a.b'``) and runs a second copy of the module. This
checks runpy's condition in a fresh interpreter for each documented module, without running the module.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMAND = re.compile(r"python -m ((?:newmarket_env)(?:\.\w+)*)")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# In a fresh interpreter: import what runpy imports before it runs MODULE, then say whether MODULE is loaded.
CHECK = """
import importlib, importlib.util, sys
name = sys.argv[1]
if importlib.util.find_spec(name).submodule_search_locations is not None:  # a package runs its __main__
    name += ".__main__"
importlib.import_module(name.rpartition(".")[0])
print(name in sys.modules)
"""


def documented_modules() -> list[str]:
    return sorted({m for page in PAGES if page.is_file() for m in COMMAND.findall(page.read_text(encoding="utf-8"))})


def loaded_before_run(module: str) -> bool:
    done = subprocess.run([sys.executable, "-c", CHECK, module], capture_output=True, text=True, check=True, cwd=ROOT)
    return done.stdout.strip() == "True"


def test_the_pages_name_the_commands():
    assert {"newmarket_env.eval.bench.guided", "newmarket_env.train"} <= set(documented_modules())


@pytest.mark.parametrize("module", documented_modules())
def test_documented_module_is_not_imported_by_its_package(module):
    assert not loaded_before_run(module), f"importing the package of {module} imports it: python -m would warn"
