"""How a tournament runs, apart from its figures: the command that reproduces it, its help, the progress
bar, a worker process's set-up, and the one-line reason given when Ray fails remotely."""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys

import pytest

from newmarket_env.eval.tournament import TournamentConfig, plan_tournament, run_tournament, runner
from newmarket_env.eval.tournament.cli import (
    _run_with_progress,
    build_parser,
    config_from_args,
    main,
    reproduce_command,
)
from newmarket_env.eval.tournament.play import TablePlayer
from newmarket_env.execution.backends import _last_line

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def test_the_reproduce_command_spells_out_every_setting_and_parses_back_to_the_same_run():
    config = TournamentConfig(
        agents=("greedy", "search", "random"),
        players=3,
        blocks=2,
        seed=5,
        rules={"boodles": ("AS", "KS", "QS", "JS"), "widow_fee": 2},
        agent_options={"search": {"budget": 2}},
        permutations=True,
    )
    command = reproduce_command(plan_tournament(config))
    assert command == (
        "newmarket tournament --agents greedy,search,random --variant newmarket --players 3 --blocks 2 "
        "--seed 5 --set boodles=AS,KS,QS,JS --set widow_fee=2 --agent-option search:budget=2 --permutations"
    )
    words = shlex.split(command)
    again = config_from_args(build_parser().parse_args(words[2:]))
    assert plan_tournament(again).specs == plan_tournament(config).specs
    assert (again.agents, dict(again.rules), dict(again.agent_options), again.permutations) == (
        config.agents,
        dict(config.rules),
        dict(config.agent_options),
        True,
    )


def test_help_says_what_a_duplicate_tournament_is_and_how_to_override_rules(capsys):
    assert main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Duplicate tournament: the same seeded deals replayed with every agent in every seat" in out
    assert "rules override, repeatable (e.g. --set widow=dealer_buy --set boodles=AS,KS,QS,JS)" in out


def test_the_progress_bar_counts_every_session_to_the_end(monkeypatch):
    import rich.progress

    seen = []
    stop = rich.progress.Progress.stop

    def record_then_stop(self):  # what the bar held when the run ended
        seen.extend((task.description, task.total, task.completed) for task in self.tasks)
        stop(self)

    monkeypatch.setattr(rich.progress.Progress, "stop", record_then_stop)
    plan = plan_tournament(TournamentConfig(agents=("greedy", "random", "lowest"), players=3, blocks=2, resamples=50))
    result = _run_with_progress(plan, quiet=False)
    assert len(result.games) == 6
    assert seen == [("newmarket: sessions", 6, 6)]


def test_a_worker_process_is_set_up_to_play_as_this_process_does(monkeypatch):
    """A worker's loop, run here on a pipe: one BLAS thread, Ctrl-C ignored, and the same sessions as an
    in-process player, each answered with its index; it ends at None."""
    import multiprocessing

    from newmarket_env.eval.tournament import workers

    for name in THREAD_VARIABLES:
        monkeypatch.setenv(name, "8")
    plan = plan_tournament(TournamentConfig(agents=("greedy", "random", "control"), players=3, blocks=1))
    ours, theirs = multiprocessing.Pipe()
    for index, spec in enumerate(plan.specs):
        ours.send((index, spec))
    ours.send(None)
    slots = multiprocessing.RawArray("d", 4)
    # The loop sets this process's Ctrl-C handling (and torch's threads, if loaded); put them back, or every
    # later test in this process, and the programs it starts, would ignore Ctrl-C.
    handler = signal.getsignal(signal.SIGINT)
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch else None
    try:
        workers._serve(theirs, plan.setup, slots, None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # the main process alone decides to stop
    finally:
        signal.signal(signal.SIGINT, handler)
        if torch and threads:
            torch.set_num_threads(threads)
    assert [os.environ[name] for name in THREAD_VARIABLES] == ["1", "1", "1"]
    assert slots[3] == 0.0  # no decision in progress
    here = TablePlayer(plan.setup)
    for index, spec in enumerate(plan.specs):
        kind, answered, in_worker = ours.recv()
        local = here.play(spec)
        assert (kind, answered) == ("done", index)
        assert (in_worker.chips, in_worker.outs, in_worker.decisions, in_worker.parts) == (
            local.chips,
            local.outs,
            local.decisions,
            local.parts,
        )
    assert not ours.poll()


def test_a_pool_of_two_gives_the_schedule_in_order():
    plan = plan_tournament(TournamentConfig(agents=("greedy", "random", "lowest"), players=3, blocks=3))
    played = runner.play_schedule(plan.setup, plan.specs, workers=2, start_method="fork")
    assert [r.spec for r in played] == sorted(plan.specs, key=lambda s: (s.block, s.lineup, s.seating))
    assert [r.chips for r in played] == [r.chips for r in run_tournament(plan.config, plan=plan).games]


@pytest.mark.parametrize(
    "text, line",
    [
        (
            "Traceback (most recent call last):\n  File 'x', line 1\nConnectionError: no GCS at 1.2.3.4\n\n",
            "ConnectionError: no GCS at 1.2.3.4",
        ),
        ("  one line only  ", "one line only"),
        ("", ""),
    ],
)
def test_a_remote_error_is_reported_by_its_last_line(text, line):
    assert _last_line(text) == line


def test_the_defaults_the_help_states_are_the_defaults_used():
    """Every "(default X)" of --help is what an empty command line gives, and no --agents means the
    default field (an empty tuple), not an agent called ''."""
    parser = build_parser()
    args = parser.parse_args([])
    stated = {}
    for action in parser._actions:  # each option's help, as --help prints it
        found = re.search(r"\bdefault ([^)\s;,]+)", action.help or "")
        if found and action.dest != "out":  # --out's default is a pattern (results/tournament-VARIANT-...)
            stated[action.dest] = found.group(1)
    assert {"variant", "players", "blocks", "seed", "workers"} <= set(stated)
    for dest, value in stated.items():
        assert str(getattr(args, dest)) == value, dest
    assert (args.variant, args.players, args.blocks, args.seed, args.workers) == ("newmarket", 4, 20, 0, 2)
    config = config_from_args(args)
    assert config.agents == () and config.seed == 0


def test_the_finished_run_says_where_each_file_was_written(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--agents", "greedy,random,lowest", "--players", "3", "--blocks", "1", "--workers", "1"]
    assert main([*argv, "--resamples", "20", "--out", str(out)]) == 0
    wrote = [line for line in capsys.readouterr().out.splitlines() if line.startswith("wrote ")]
    names = ("results.json", "games.csv", "leaderboard.md", "chips_per_deal.png", "pairwise.png")
    assert wrote == ["wrote " + ", ".join(str(out / name) for name in names)]


def test_every_command_line_option_reaches_the_config():
    argv = ["--agents", "greedy,random,search", "--variant", "michigan", "--players", "3", "--blocks", "7"]
    argv += ["--seed", "9", "--workers", "1", "--permutations", "--resamples", "123", "--save-records"]
    argv += ["--set", "widow_fee=2", "--agent-option", "search:budget=5"]
    argv += ["--backend", "ray", "--address", "auto"]
    config = config_from_args(build_parser().parse_args(argv))
    assert (config.agents, config.variant, config.players, config.blocks, config.seed, config.workers) == (
        ("greedy", "random", "search"),
        "michigan",
        3,
        7,
        9,
        1,
    )
    assert (config.permutations, config.resamples, config.save_records) == (True, 123, True)
    assert (dict(config.rules), dict(config.agent_options)) == ({"widow_fee": 2}, {"search": {"budget": 5}})
    assert (config.backend, config.address) == ("ray", "auto")
