"""The wheel installs one top-level package; agents/, train/, eval/ live inside it."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    # Build from a copy: setuptools leaves build/ behind, and a stale build/ would leak old files into wheels.
    source = tmp_path_factory.mktemp("src") / "project"
    skip = shutil.ignore_patterns(".git", ".venv", "build", "runs", "results", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT, source, ignore=skip)
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    (path,) = out.glob("newmarket_env-*.whl")
    return path


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
    mapped = {"agents": "newmarket_env/agents", "train": "newmarket_env/train", "eval": "newmarket_env/eval",
              "newmarket_env": "newmarket_env"}
    for folder, target in mapped.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.relative_to(ROOT / folder).as_posix()
            assert f"{target}/{rel}" in names, f"{folder}/{rel} is missing from the wheel: add it to pyproject packages"
