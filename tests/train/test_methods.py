"""The methods' registry (newmarket_env.train.methods) and what the shared run loop does for every method:
the unknown method refused in one line, plug-ins found by their entry points (a real dist-info folder on
the path, read by importlib.metadata) and refused when they would take a name or a section that is not
theirs, ``run.device``, and what a run prints by default and with ``--verbose``.
"""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.train import methods
from newmarket_env.train.cli import main
from newmarket_env.train.config import config_from_dict
from tests.train.tiny_run import TINY

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
BUILT_IN = ["ppo", "expert_iteration", "dmc", "rllib_ppo"]


def test_the_built_in_methods_are_available_each_with_its_own_sections():
    assert methods.available_methods() == BUILT_IN
    owners = methods.section_owners()
    assert owners == {
        "pretrain": "ppo",
        "ppo": "ppo",
        "privileged": "ppo",
        "expert": "expert_iteration",
        "dmc": "dmc",
        "rllib": "rllib_ppo",
    }
    for name in BUILT_IN:
        method = methods.get_method(name)
        assert isinstance(method, methods.Method) and method.name == name
        assert not set(method.sections) & set(methods.SHARED_SECTIONS)


def test_an_unknown_method_is_refused_in_one_line_naming_the_available_ones(tmp_path, capsys):
    message = "method = 'reinforce' is not allowed; allowed: ppo, expert_iteration, dmc, rllib_ppo"
    with pytest.raises(ValueError) as caught:
        methods.get_method("reinforce")
    assert str(caught.value) == message
    with pytest.raises(ValueError) as caught:
        config_from_dict({"method": "reinforce"})
    assert str(caught.value) == message
    assert main([str(TINY), "--out-dir", str(tmp_path / "x"), "--set", "method=reinforce"]) == 2
    err = capsys.readouterr().err
    assert err == f"python -m newmarket_env.train: error: {message}\n"
    assert not (tmp_path / "x").exists()


def test_a_section_of_another_method_is_refused_unless_it_holds_only_defaults():
    """Older run folders' config.yaml hold the ppo and pretrain sections for every method, at their
    defaults: they load. A setting there would go unused, so it is refused, naming whose it is."""
    config = config_from_dict({"method": "dmc", "ppo": {"learning_rate": 3e-4}, "pretrain": {"teacher": ""}})
    assert list(config.sections) == ["dmc"] and list(config.to_dict()) == [
        "name",
        "method",
        "env",
        "opponents",
        "dmc",
        "network",
        "run",
        "eval",
    ]
    with pytest.raises(ValueError) as caught:
        config_from_dict({"method": "dmc", "ppo": {"n_steps": 64}})
    assert str(caught.value) == (
        "ppo.n_steps is for method ppo; method dmc reads its own sections (dmc) besides env, opponents, network, run, "
        "eval"
    )
    with pytest.raises(AttributeError, match="a config of method 'dmc' has no section 'expert'"):
        _ = config.expert


# ---------------------------------------------------------------- plug-ins, as importlib.metadata finds them


def _plugin(folder: Path, name: str, entries: dict[str, str], module: str) -> None:
    """An installed distribution as pip leaves one: the module and a dist-info with its entry points."""
    (folder / f"{name}.py").write_text(textwrap.dedent(module))
    info = folder / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = "\n".join(f"{key} = {value}" for key, value in entries.items())
    (info / "entry_points.txt").write_text(f"[newmarket_env.methods]\n{lines}\n")


PLUGIN = """
    from dataclasses import dataclass
    from newmarket_env.train.config import spec
    from newmarket_env.train.methods import Method

    @dataclass
    class Mine:
        '''a plug-in's section'''
        width: int = spec(3, "a width", int, low=1, high=9)

    class Good(Method):
        name = "good"
        sections = {"mine": Mine}

    class Thief(Method):
        name = "thief"
        sections = {"dmc": Mine}

    class Shared(Method):
        name = "shared"
        sections = {"run": Mine}

    class Renamed(Method):
        name = "other"

    class PPOAgain(Method):
        name = "ppo"
"""


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    _plugin(
        tmp_path,
        "nm_methods_probe",
        {
            "good": "nm_methods_probe:Good",
            "thief": "nm_methods_probe:Thief",
            "shared": "nm_methods_probe:Shared",
            "renamed": "nm_methods_probe:Renamed",
            "missing": "nm_methods_probe:Nowhere",
            "ppo": "nm_methods_probe:PPOAgain",
        },
        PLUGIN,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.setattr(methods, "_loaded", {})  # this test's own registry state, dropped after it
    monkeypatch.setattr(methods, "_warned", set())
    yield
    sys.modules.pop("nm_methods_probe", None)


def test_plugins_are_found_by_their_entry_points_and_checked_when_loaded(plugins):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = methods.available_methods()
    assert names == [*BUILT_IN, "good", "missing", "renamed", "shared", "thief"]
    assert [str(w.message) for w in caught] == [
        "method plugin 'ppo' of nm_methods_probe 0.1 is ignored: the name belongs to a method of newmarket-env"
    ]
    good = methods.get_method("good")
    with warnings.catch_warnings(record=True) as loading:  # the others fail to load: warned, left out
        warnings.simplefilter("always")
        assert good.name == "good" and methods.section_owners()["mine"] == "good"
        config = config_from_dict({"method": "good", "mine": {"width": 5}})
    assert config.mine.width == 5 and config.to_dict()["mine"] == {"width": 5}
    where = "of nm_methods_probe 0.1 (nm_methods_probe:"
    refusals = {
        "thief": f"method 'thief' {where}Thief) declares config section 'dmc', which belongs to dmc",
        "shared": f"method 'shared' {where}Shared) declares config section 'run', which belongs to every method",
        "renamed": f"method 'renamed' {where}Renamed) calls itself 'other'; its entry point must carry the same name",
        "missing": f"method 'missing' {where}Nowhere) cannot be loaded (AttributeError: module 'nm_methods_probe' "
        "has no attribute 'Nowhere')",
    }
    assert sorted(str(w.message) for w in loading) == sorted(refusals.values())
    for name, message in refusals.items():
        with pytest.raises(ValueError) as refused:
            methods.get_method(name)
        assert str(refused.value) == message


# ---------------------------------------------------------------- run.device


def test_cuda_where_torch_finds_none_is_one_line_before_anything_is_written(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device: the GPU test below runs instead")
    assert main([str(TINY), "--out-dir", str(tmp_path / "x"), "--set", "run.device=cuda"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "python -m newmarket_env.train: error: run.device = 'cuda' is not allowed here: "
        f"torch {torch.__version__} finds no CUDA device; allowed: auto, cpu\n"
    )
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match=r"run\.device = 'gpu' is not allowed; allowed: auto, cpu, cuda"):
        config_from_dict({"run": {"device": "gpu"}})


TINY_RUNS = {  # each torch method's tiny config, at its smallest
    "ppo": (TINY, ["--set", "pretrain.teacher=", "--set", "run.vec_env=dummy", "--total-steps", "128"]),
    "expert_iteration": (CONFIGS / "tiny_exit.yaml", ["--total-steps", "48"]),
    "dmc": (CONFIGS / "tiny_dmc.yaml", ["--total-steps", "64"]),
}


@pytest.mark.skipif(not compiled_available(), reason="expert iteration and DMC play compiled tables")
@pytest.mark.parametrize("method", list(TINY_RUNS))
def test_each_torch_method_trains_on_the_device_run_device_names(method, tmp_path):
    """``auto`` is CUDA where torch finds a device, else the CPU; the run records where it trained. On a
    machine with CUDA the same runs train there (``run.device: cuda``)."""
    import json

    import torch

    config, extra = TINY_RUNS[method]
    quiet = ["--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert main([str(config), "--out-dir", str(tmp_path / "auto"), *quiet, *extra]) == 0
    assert json.loads((tmp_path / "auto" / "final.json").read_text())["training"]["device"] == expected
    assert main([str(config), "--out-dir", str(tmp_path / "cpu"), *quiet, *extra, "--set", "run.device=cpu"]) == 0
    assert json.loads((tmp_path / "cpu" / "final.json").read_text())["training"]["device"] == "cpu"
    if torch.cuda.is_available():
        assert main([str(config), "--out-dir", str(tmp_path / "cuda"), *quiet, *extra, "--set", "run.device=cuda"]) == 0
        assert json.loads((tmp_path / "cuda" / "final.json").read_text())["training"]["device"] == "cuda"


# ---------------------------------------------------------------- what a run prints


def test_a_run_prints_a_line_per_evaluation_and_sb3s_tables_only_when_verbose(tmp_path, capsys):
    """The tiny PPO run (a warm start, 2 rollouts, an evaluation before training and after each rollout):
    seven lines by default, and none of SB3's table rows; ``--verbose`` adds SB3's tables (and a bar on
    stderr)."""
    args = [str(TINY), "--set", "run.vec_env=dummy", "--set", "eval.sessions=1", "--set", "eval.final_sessions=2"]
    assert main([*args, "--out-dir", str(tmp_path / "quiet"), "--set", "run.progress_bar=true"]) == 0
    lines = capsys.readouterr().out.splitlines()
    patterns = [
        r"warm start: imitated 'greedy' on \d+ decisions, agreement [\d.]+, [\d.]+ s",
        r"training tiny_test \(ppo\) into \S+: 256 learner decisions",
        r"0 of 256 learner decisions \(0%\)  \d+/s  \d+s  eval at 0: vs random [-+][\d.]+ ±[\d.]+",
        r"128 of 256 learner decisions \(50%\)  \d+/s  \d+s  chips_per_deal \S+  eval at 128: vs random .+",
        r"256 of 256 learner decisions \(100%\)  \d+/s  \d+s  chips_per_deal \S+  eval at 256: vs random .+",
        r"final evaluation of tiny_test vs random: .+ over 2 deal sets, seats rotated",
        r"saved agent: \S+final\.npz",
    ]
    assert len(lines) == len(patterns), lines
    for line, pattern in zip(lines, patterns, strict=True):
        assert re.fullmatch(pattern, line), (line, pattern)
    assert main([*args, "--out-dir", str(tmp_path / "loud"), "--set", "run.progress_bar=true", "--verbose"]) == 0
    captured = capsys.readouterr()
    assert "| rollout/" in captured.out and "| train/" in captured.out  # SB3's own table rows
    assert "256/256" in captured.err  # the progress bar, done


@pytest.mark.skipif(not compiled_available(), reason="DMC plays compiled tables")
def test_every_method_prints_through_the_same_progress_lines(tmp_path, capsys):
    """DMC's per-iteration line is --verbose's; by default it prints the loop's lines like PPO."""
    args = [str(CONFIGS / "tiny_dmc.yaml"), "--set", "run.progress_bar=true", "--set", "eval.every=0"]
    assert main([*args, "--out-dir", str(tmp_path / "quiet")]) == 0
    out = capsys.readouterr().out
    assert "iteration 0:" not in out and out.splitlines()[0].startswith("training tiny_dmc (dmc) into ")
    assert main([*args, "--out-dir", str(tmp_path / "loud"), "--verbose"]) == 0
    assert "iteration 0: 64 recorded decisions, mean return" in capsys.readouterr().out
