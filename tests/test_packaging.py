"""The wheel installs one top-level package; agents/, train/, eval/ live inside it."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from newmarket_env.engine.choice import compiled_available

ROOT = Path(__file__).resolve().parents[1]
# Every extension setup.py declares, as its path inside the wheel (no suffix).
COMPILED_MODULES = (
    "newmarket_env/engine/_table",
    "newmarket_env/engine/_fast",
    "newmarket_env/engine/_policies",
    "newmarket_env/engine/_batch",
    "newmarket_env/agents/_search",
)


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> tuple[Path, str]:
    """The wheel built from a copy of the sources, and what the build printed (pip's -v shows the backend's)."""
    # Build from a copy: setuptools leaves build/ behind, and a stale build/ would leak old files into wheels.
    source = tmp_path_factory.mktemp("src") / "project"
    # The compiled modules are rebuilt from their .pyx: the in-place build products are not copied.
    skip = shutil.ignore_patterns(
        ".git", ".venv", "build", "runs", "results", "*.egg-info", "__pycache__", "*.so", "*.pyd", "_*.c"
    )
    shutil.copytree(ROOT, source, ignore=skip)
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-v", "-w", str(out)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    (path,) = out.glob("newmarket_env-*.whl")
    return path, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(build) -> Path:
    return build[0]


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


def test_the_wheel_carries_the_compiled_engine(wheel):
    """Where this install has the compiled engine, a wheel built from the sources has it too."""
    names = zipfile.ZipFile(wheel).namelist()
    for module in COMPILED_MODULES:
        assert any(n.startswith(module + ".") and n.endswith((".so", ".pyd")) for n in names), (
            f"the wheel has no {module}: is Cython installed and a C compiler present?"
        )


def test_the_sdist_carries_what_the_compiled_modules_are_built_from(tmp_path):
    """A wheel built from the sdist compiles the modules only with every .pyx and the .pxd they cimport
    (without a .pxd the optional build fails quietly and the install falls back to the Python engine)."""
    import tarfile

    source = tmp_path / "project"
    skip = shutil.ignore_patterns(
        ".git", ".venv", "build", "runs", "results", "*.egg-info", "__pycache__", "*.so", "*.pyd", "_*.c"
    )
    shutil.copytree(ROOT, source, ignore=skip)
    out = tmp_path / "sdist"
    cmd = [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--skip-dependency-check", "-o", str(out)]
    subprocess.run([*cmd, str(source)], check=True, capture_output=True, text=True)
    (sdist,) = out.glob("newmarket_env-*.tar.gz")
    with tarfile.open(sdist) as archive:
        carried = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    needed = {
        str(path.relative_to(ROOT))
        for folder in ("newmarket_env", "agents")
        for pattern in ("*.pyx", "*.pxd")
        for path in (ROOT / folder).rglob(pattern)
    }
    assert {"newmarket_env/engine/_table.pxd", "agents/_search.pyx"} <= needed
    assert needed <= carried, sorted(needed - carried)


def test_the_web_page_is_in_the_wheel(wheel):
    """newmarket serve reads its page from the package: a wheel without it would serve nothing."""
    names = zipfile.ZipFile(wheel).namelist()
    assert "newmarket_env/web/static/index.html" in names
