"""The sdist and the wheel that ``python -m build`` makes (the wheel built from the sdist, as a user's pip builds
one from PyPI): one top-level package with agents/, train/, eval/ inside it, every compiled module, the shipped
agents and the web page; the wheel installs into a fresh virtual environment and plays on the compiled engine.

One build for the whole module (compiling the engine takes a minute or more): ``pip wheel .`` runs the same
setuptools backend on the same setup.py, from the tree instead of the sdist.
"""

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from newmarket_env.engine.choice import compiled_available

ROOT = Path(__file__).resolve().parents[1]
HANG_GUARD_S = 900  # only so a hung build fails instead of hanging; never an assertion on speed


def compiled_modules() -> list[str]:
    """Every extension setup.py declares, as its path inside the wheel (no suffix): read from setup.py itself."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    table = next(node.value for node in tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "COMPILED")
    return [name.replace(".", "/") for name in ast.literal_eval(table)]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path, str]:
    """The wheel and the sdist ``python -m build`` makes from a copy of the sources, and what the build printed."""
    # Build from a copy: setuptools leaves build/ behind, and a stale build/ would leak old files into wheels.
    source = tmp_path_factory.mktemp("src") / "project"
    # The compiled modules are rebuilt from their .pyx: the in-place build products are not copied.
    skip = shutil.ignore_patterns(
        ".git", ".venv", "build", "runs", "results", "*.egg-info", "__pycache__", "*.so", "*.pyd", "_*.c", "_build"
    )
    shutil.copytree(ROOT, source, ignore=skip)
    out = tmp_path_factory.mktemp("dist")
    # No isolation and no dependency check: the test venv has setuptools and Cython (the dev extra); an isolated
    # build would download them.
    cmd = [sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check", "-o", str(out), str(source)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=HANG_GUARD_S)
    (wheel,) = out.glob("newmarket_env-*.whl")
    (sdist,) = out.glob("newmarket_env-*.tar.gz")
    return wheel, sdist, done.stdout + done.stderr


@pytest.fixture(scope="module")
def build(built) -> tuple[Path, str]:
    return built[0], built[2]


@pytest.fixture(scope="module")
def wheel(built) -> Path:
    return built[0]


def test_the_build_prints_no_setuptools_warning(build):
    """A warning on every install (a package left out of ``packages``, an experimental table) hides real ones."""
    warned = [line.strip() for line in build[1].splitlines() if "Warning:" in line and "setuptools" in line]
    assert not warned, "\n".join(warned)


def test_only_one_top_level_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"newmarket_env"}


def test_mapped_folders_are_inside_the_package(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for sub in ("agents", "train", "eval"):
        assert f"newmarket_env/{sub}/__init__.py" in names


def test_every_source_package_is_listed(wheel):
    """A folder with __init__.py that pyproject forgot would silently be left out of the wheel."""
    names = set(zipfile.ZipFile(wheel).namelist())
    mapped = {
        "agents": "newmarket_env/agents",
        "train": "newmarket_env/train",
        "eval": "newmarket_env/eval",
        "newmarket_env": "newmarket_env",
    }
    for folder, target in mapped.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.relative_to(ROOT / folder).as_posix()
            assert f"{target}/{rel}" in names, f"{folder}/{rel} is missing from the wheel: add it to pyproject packages"


@pytest.mark.skipif(not compiled_available(), reason="the compiled engine is not built here (no C compiler)")
def test_the_wheel_carries_its_license_and_type_marker(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "newmarket_env/py.typed" in names  # PEP 561
    license_files = [n for n in names if n.endswith("/LICENSE") and ".dist-info/" in n]
    assert license_files, names
    assert zipfile.ZipFile(wheel).read(license_files[0]).decode().startswith("MIT License")
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata


@pytest.mark.skipif(not compiled_available(), reason="the compiled engine is not built here (no C compiler)")
def test_the_wheel_carries_the_compiled_engine(wheel):
    """Where this install has the compiled engine, a wheel built from the sdist has every module setup.py declares."""
    names = zipfile.ZipFile(wheel).namelist()
    assert len(compiled_modules()) >= 8
    for module in compiled_modules():
        assert any(n.startswith(module + ".") and n.endswith((".so", ".pyd")) for n in names), (
            f"the wheel has no {module}: is Cython installed and a C compiler present?"
        )


def test_the_sdist_carries_what_the_compiled_modules_are_built_from(built):
    """A wheel built from the sdist compiles the modules only with every .pyx and the .pxd they cimport
    (without a .pxd the optional build fails quietly and the install falls back to the Python engine)."""
    with tarfile.open(built[1]) as archive:
        carried = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    needed = {
        str(path.relative_to(ROOT))
        for folder in ("newmarket_env", "agents")
        for pattern in ("*.pyx", "*.pxd")
        for path in (ROOT / folder).rglob(pattern)
    }
    assert {"newmarket_env/engine/_table.pxd", "agents/_search.pyx"} <= needed
    assert needed <= carried, sorted(needed - carried)


def test_the_wheel_carries_every_shipped_agent(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = sorted(path.name for path in (ROOT / "agents" / "trained").iterdir() if path.suffix in (".npz", ".json"))
    assert shipped and {f"newmarket_env/agents/trained/{name}" for name in shipped} <= names


# A fresh virtual environment: the wheel, and the test venv's libraries (numpy, gymnasium, ...) through a .pth
# naming its site-packages. A .pth is not read in a folder a .pth adds, so the test venv's editable install of
# newmarket_env (its own .pth) stays out: the package can only come from the wheel.
PLAY = """
import sys
from pathlib import Path

import newmarket_env
from newmarket_env import env, load_agent, vector_env
from newmarket_env.engine.choice import compiled_available

here = Path(newmarket_env.__file__).resolve()
assert here.is_relative_to(Path(sys.prefix).resolve()), f"newmarket_env imported from {here}, not the venv"
assert compiled_available(), "the wheel's compiled engine did not load"
e = env(variant="newmarket", num_players=4)
seats = [load_agent(name, env=e, seed=i) for i, name in enumerate(["exit-newmarket", "control", "greedy", "random"])]
e.reset(seed=3)
for agent in e.agent_iter():
    observation, _, done, truncated, _ = e.last()
    e.step(None if done or truncated else seats[int(agent.split("_")[1])].act(observation))
game = e.unwrapped.game
assert type(game).__module__ == "newmarket_env.engine._fast", type(game)
envs = vector_env(num_envs=4, opponents=["control"], seed=0)
envs.reset(seed=0)
print(type(game).__name__, len(game.deals), envs.num_envs)
"""


@pytest.mark.slow
@pytest.mark.skipif(not compiled_available(), reason="the compiled engine is not built here (no C compiler)")
def test_the_wheel_installs_into_a_fresh_venv_and_plays_on_the_compiled_engine(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=HANG_GUARD_S)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())  # fmt: skip
    (site / "test_venv_libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)]
    done = subprocess.run(install, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr[-2000:]
    away = {**os.environ, "PYTHONPATH": ""}  # run outside the repository: no source tree on the path
    played = subprocess.run([python, "-c", PLAY], cwd=tmp_path, env=away, capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr[-3000:]
    assert played.stdout.split() == ["FastGame", "4", "4"]  # the compiled game, newmarket's 4 deals, 4 tables
    command = subprocess.run(
        [venv / "bin" / "newmarket", "--help"], cwd=tmp_path, env=away, capture_output=True, text=True, timeout=300
    )
    assert command.returncode == 0 and "tournament" in command.stdout


def test_the_web_page_is_in_the_wheel(wheel):
    """newmarket serve reads its page from the package: a wheel without it would serve nothing."""
    names = zipfile.ZipFile(wheel).namelist()
    assert "newmarket_env/web/static/index.html" in names
