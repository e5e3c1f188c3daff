"""One parser for ``newmarket``: built once, parsed once, each command's module imported only for it.

The option lists below are written out by hand from the README and each command's documentation,
not read from the parsers, so a lost or renamed option is noticed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import shlex
import subprocess
import sys
import types

import pytest

from newmarket_env import cli
from newmarket_env.util import cli_common

OPTIONS = {
    "play": ["--variant", "--players", "--seat", "--seed", "--agents", "--set", "--save"],
    "replay": ["FILE", "--game", "--gif", "--all", "--deal", "--verify"],
    "watch": [
        "--variant",
        "--players",
        "--agents",
        "--seed",
        "--set",
        "--seat",
        "--delay",
        "--table",
        "--thoughts",
        "--save",
    ],
    "tournament": [
        "--agents",
        "--variant",
        "--players",
        "--blocks",
        "--seed",
        "--workers",
        "--backend",
        "--address",
        "--out",
        "--overwrite",
        "--set",
        "--permutations",
        "--agent-option",
        "--decision-timeout",
        "--resamples",
        "--save-records",
        "--quiet",
    ],
    "train": [
        "config",
        "--resume",
        "--overwrite",
        "--set",
        "--total-steps",
        "--max-minutes",
        "--out-dir",
        "--seed",
        "--no-progress",
        "--verbose",
        "--describe",
    ],
    "export": ["MODEL.zip", "OUT.npz", "--variant", "--players", "--set", "--name", "--overwrite"],
    "bench": [
        "--repeats",
        "--seconds",
        "--presets",
        "--peers",
        "--no-planes",
        "--no-reference",
        "--no-extras",
        "--memory-envs",
        "--clock",
        "--rows",
        "--seed",
        "--json",
        "--markdown",
    ],
    "serve": ["--host", "--port", "--allow-host", "--agent"],
}
# The commands a module runs on its own too: python -m MODULE.
STANDALONE = {
    "tournament": "newmarket_env.eval.tournament",
    "train": "newmarket_env.train",
    "bench": "newmarket_env.eval.bench",
}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def test_the_table_is_every_command_once():
    assert list(cli.COMMANDS) == list(OPTIONS)


@pytest.mark.parametrize("command", OPTIONS)
def test_each_commands_help_lists_its_options(command, capsys):
    assert cli.main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: newmarket {command} ")
    options = out.split("\noptions:\n")[1]  # argparse's heading of the options block
    for option in OPTIONS[command]:
        assert f"\n  {option}" in out, f"{option} is not explained in newmarket {command} --help"
        assert option.startswith("-") or option in out.split("\npositional arguments:\n")[1]
    listed = {line.split()[0].rstrip(",") for line in options.splitlines() if line.startswith("  -")}
    assert listed == {"-h"} | {o for o in OPTIONS[command] if o.startswith("-")}


@pytest.mark.parametrize("command", OPTIONS)
def test_an_unknown_option_is_one_line_naming_the_command(command, capsys):
    required = {"replay": ["game.json"], "export": ["m.zip", "o.npz", "--variant", "newmarket"]}
    assert cli.main([command, *required.get(command, []), "--no-such-option"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"newmarket {command}: error: unrecognized arguments: --no-such-option (see newmarket {command} --help)\n"
    )


def test_a_stray_word_after_play_is_play_s_error(capsys):
    assert cli.main(["play", "extra"]) == 2
    assert capsys.readouterr().err == (
        "newmarket play: error: unrecognized arguments: extra (see newmarket play --help)\n"
    )


@pytest.mark.parametrize("argv", [["frobnicate"], ["--frobnicate"]])
def test_an_unknown_command_is_one_line_listing_the_commands(argv, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("newmarket: error: ") and err.count("\n") == 1
    if argv == ["frobnicate"]:
        assert "choose from " + ", ".join(repr(c) for c in OPTIONS) in err


def test_no_command_prints_the_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert capsys.readouterr().out.startswith("usage: newmarket ")


def test_version_is_the_installed_distribution_s(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"newmarket {importlib.metadata.version('newmarket-env')}\n"


def _holder(command: str):
    """Where ``command``'s add_arguments and run live: (module, attribute holding a Subcommand, or None)."""
    module_name, _, attribute = cli.COMMANDS[command][0].partition(":")
    return importlib.import_module(module_name), attribute or None


@pytest.mark.parametrize("command", OPTIONS)
def test_argv_is_parsed_once_and_run_gets_the_namespace(command, monkeypatch):
    """The command's options are added to one parser, once; its run receives that parse's namespace."""
    module, attribute = _holder(command)
    real_add_arguments = (getattr(module, attribute) if attribute else module).add_arguments
    built, received = [], []

    def add_arguments(parser):
        built.append(parser)
        return real_add_arguments(parser)

    def run(args):
        received.append(args)
        return 7

    if attribute:
        monkeypatch.setattr(module, attribute, cli_common.Subcommand(add_arguments, run))
    else:
        monkeypatch.setattr(module, "add_arguments", add_arguments)
        monkeypatch.setattr(module, "run", run)
    monkeypatch.setitem(cli.NEEDS, command, ())  # this test is about parsing, not the extras
    option, dest = {"replay": ("--deal", "deal"), "serve": ("--port", "port"), "export": ("--players", "players")}.get(
        command, ("--seed", "seed")
    )
    required = {"replay": ["game.json"], "export": ["m.zip", "o.npz", "--variant", "newmarket"]}
    assert cli.main([command, *required.get(command, []), option, "11"]) == 7
    assert len(built) == 1 and len(received) == 1
    args = received[0]
    assert isinstance(args, argparse.Namespace) and getattr(args, dest) == 11
    assert args.command == command and args.prog == f"newmarket {command}" == built[0].prog
    assert args.run is run


def test_a_command_s_own_parser_types_each_value_once(monkeypatch):
    """A converter sees each value once: argv is not parsed a second time before or inside run."""
    seen, received = [], []

    def count(text):
        seen.append(text)
        return int(text)

    probe = types.ModuleType("newmarket_probe_command")
    probe.add_arguments = lambda parser: parser.add_argument("--value", type=count)
    probe.run = lambda args: received.append(args.value) or 0
    monkeypatch.setitem(sys.modules, probe.__name__, probe)
    monkeypatch.setitem(cli.COMMANDS, "probe", (probe.__name__, "a probe", None))
    assert cli.main(["probe", "--value", "5"]) == 0
    assert seen == ["5"] and received == [5]


def test_run_exit_codes_and_interruption_pass_through(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    probe = types.ModuleType("newmarket_probe_command")
    probe.add_arguments = lambda parser: None
    probe.run = interrupted
    monkeypatch.setitem(sys.modules, probe.__name__, probe)
    monkeypatch.setitem(cli.COMMANDS, "probe", (probe.__name__, "a probe", None))
    assert cli.main(["probe"]) == cli.EXIT_INTERRUPTED == 130
    assert capsys.readouterr().err == "\ninterrupted\n"


# Modules that only some commands need: none of them may be imported for another command.
HEAVY = (
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "ray",
    "rich",
    "openskill",
    "yaml",
    "fastapi",
    "uvicorn",
    "matplotlib",
    "tensorboard",
    "newmarket_env.eval.tournament.cli",
    "newmarket_env.train.cli",
    "newmarket_env.eval.bench.cli",
    "newmarket_env.web.cli",
)
IMPORTED = (
    "import contextlib, io, json, sys\nfrom newmarket_env.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
    "    code = main({argv!r})\n"
    "print(code, json.dumps(sorted(name for name in {heavy!r} if name in sys.modules)))"
)


@pytest.mark.parametrize(
    "argv,code,allowed",
    [
        (["--help"], 0, ()),
        (["play", "--help"], 0, ()),
        (["play", "--players", "9"], 2, ()),
        (["replay", "/no/such/record.json"], 2, ()),
        (["watch", "--help"], 0, ()),
        (["tournament", "--help"], 0, ("newmarket_env.eval.tournament.cli", "rich", "openskill", "yaml", "matplotlib")),
    ],
    ids=["help", "play help", "play bad seat count", "replay missing file", "watch help", "tournament help"],
)
def test_a_command_imports_only_what_it_needs(argv, code, allowed):
    done = _run("-c", IMPORTED.format(argv=argv, heavy=HEAVY))
    assert done.returncode == 0, done.stderr
    exit_code, imported = done.stdout.split(" ", 1)
    assert int(exit_code) == code
    assert set(json.loads(imported)) <= set(allowed), f"newmarket {' '.join(argv)} imported {imported}"
    if argv[0] == "tournament":
        assert "newmarket_env.eval.tournament.cli" in imported


@pytest.mark.parametrize("command", STANDALONE)
def test_python_dash_m_uses_the_same_options_and_one_line_errors(command):
    module = STANDALONE[command]
    helped = _run("-m", module, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith(f"usage: python -m {module} ")
    for option in OPTIONS[command]:
        assert f"\n  {option}" in helped.stdout
    bad = _run("-m", module, "--no-such-option")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == (
        f"python -m {module}: error: unrecognized arguments: --no-such-option (see python -m {module} --help)\n"
    )


def test_every_parser_is_the_one_line_parser():
    from newmarket_env.eval.bench.cli import build_parser as bench
    from newmarket_env.eval.tournament.cli import build_parser as tournament
    from newmarket_env.train.cli import build_parser as train
    from newmarket_env.web.cli import build_parser as serve

    for build in (cli.build_parser, tournament, train, bench, serve):
        assert isinstance(build(), cli_common.OneLineParser)
    assert cli.OneLineParser is cli_common.OneLineParser and cli.EXIT_NOT_AVAILABLE == 1


def test_train_records_a_command_that_parses_back_to_the_same_options():
    from newmarket_env.train.cli import build_parser, command_line

    argv = [
        "configs/tiny_test.yaml",
        "--resume",
        "--set",
        "ppo.net_arch=[64, 64]",
        "--set",
        "run.note=it's",
        "--total-steps",
        "512",
        "--max-minutes",
        "1.5",
        "--out-dir",
        "runs/a b",
        "--seed",
        "3",
        "--no-progress",
    ]
    args = build_parser().parse_args(argv)
    words = shlex.split(command_line(args))
    assert words[:3] == ["python", "-m", "newmarket_env.train"]
    assert vars(build_parser().parse_args(words[3:])) == vars(args)
    plain = build_parser().parse_args(["configs/tiny_test.yaml"])
    assert command_line(plain) == "python -m newmarket_env.train configs/tiny_test.yaml"
