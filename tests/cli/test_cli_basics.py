"""--version, ``python -m newmarket_env``, one error prefix for every command, a missing extra named in one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

import newmarket_env
from newmarket_env import cli


def _run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"newmarket {newmarket_env.__version__}\n"


def test_python_dash_m_newmarket_env_is_the_newmarket_command():
    done = _run("-m", "newmarket_env", "--version")
    assert done.returncode == 0 and done.stdout == f"newmarket {newmarket_env.__version__}\n"
    done = _run("-m", "newmarket_env", "play", "--players", "9")
    assert done.returncode == 2 and done.stderr.startswith("newmarket play: error: ")


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "--agents", "greedy,nope", "--quiet"],
        ["tournament", "--agents", "random,random,random,random", "--blocks", "0", "--quiet"],
        ["train", "no/such/config.yaml"],
        ["train"],
        ["train", "configs/tiny_test.yaml", "--set", "ppo.learning_rate=.nan"],
        ["play", "--set", "num_deals=two"],
        ["replay", "no/such/record.json"],
    ],
)
def test_every_command_errs_with_the_same_prefix(argv, capsys, tmp_path):
    assert cli.main([*argv, *(["--out", str(tmp_path / "x")] if argv[0] == "tournament" else [])]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"newmarket {argv[0]}: error: ") and err.count("\n") == 1, err


def test_a_wrong_type_is_not_called_out_of_range(capsys):
    assert cli.main(["play", "--set", "num_deals=two"]) == 2
    err = capsys.readouterr().err
    assert "num_deals='two' is not an int (got str); allowed: an int 1..1000" in err and "out of range" not in err


# A minimal install (pip install -e . without extras) lacks these modules; hiding them from the import
# system is what their absence looks like to the command.
HIDE = (
    "import sys\nfor name in {names!r}: sys.modules[name] = None\n"
    "from newmarket_env.cli import main\nsys.exit(main({argv!r}))"
)


@pytest.mark.parametrize(
    "command,names,extra",
    [
        ("tournament", ["rich", "openskill", "yaml"], "eval"),
        ("train", ["yaml", "rich"], "train"),
        ("bench", ["openskill"], "eval"),
    ],
)
def test_a_missing_extra_is_named_in_one_line(command, names, extra, tmp_path):
    argv = [command] + (["configs/tiny_test.yaml", "--out-dir", str(tmp_path / "run")] if command == "train" else [])
    argv += ["--out", str(tmp_path / "t")] if command == "tournament" else []
    done = _run("-c", HIDE.format(names=names, argv=argv))
    assert done.returncode == cli.EXIT_NOT_AVAILABLE
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"newmarket {command}: error: needs the Python module")
    assert f"pip install 'newmarket-env[{extra}]'" in done.stderr
    assert not list(tmp_path.iterdir())  # nothing started


def test_help_points_to_the_rules_page_a_user_has(capsys):
    cli.main(["play", "--help"])
    out = capsys.readouterr().out
    assert "docs/rules.md" in out and "RULES.md" not in out.replace("docs/rules.md", "")
