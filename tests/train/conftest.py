"""Fixtures of the run-folder tests: one finished tiny run per module, and a private copy per test."""

import shutil

import pytest

from tests.train.tiny_run import train_tiny


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished tiny run (256 steps, checkpoints at 128 and 256)."""
    out = tmp_path_factory.mktemp("finished") / "run"
    assert train_tiny(out) == 0
    return out


@pytest.fixture
def run(finished, tmp_path):
    """A private copy of the finished run, to damage."""
    copy = tmp_path / "run"
    shutil.copytree(finished, copy)
    return copy
