"""Load a tutorial script of examples/tutorials/ as a module, so a test can call its main() at a small size."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[2] / "examples" / "tutorials"


@pytest.fixture
def tutorial():
    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"tutorial_{name}", TUTORIALS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
