"""Command line: ``python -m newmarket_env.eval.tournament`` and ``newmarket tournament``.

``add_arguments(parser)`` and ``run(args) -> int`` are the command (``newmarket tournament`` calls them);
``main(argv) -> int`` runs it on its own. Bad input ends with one line on stderr and exit code 2, before
any game is played.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence

from newmarket_env.eval.tournament.api import Plan, TournamentResult, plan_tournament, run_tournament
from newmarket_env.eval.tournament.backends import BACKENDS
from newmarket_env.eval.tournament.config import (
    DEFAULT_BACKEND,
    DEFAULT_BLOCKS,
    DEFAULT_DECISION_TIMEOUT_S,
    DEFAULT_PLAYERS,
    DEFAULT_RESAMPLES,
    DEFAULT_VARIANT,
    DEFAULT_WORKERS,
    SLOW_AGENT_OPTIONS,
    TournamentConfig,
    parse_agent_options,
    parse_set_options,
)
from newmarket_env.eval.tournament.leaderboard import MIN_BLOCKS_FOR_INTERVALS
from newmarket_env.eval.tournament.output import OutputFolder, default_folder
from newmarket_env.eval.tournament.play import GameResult
from newmarket_env.eval.tournament.report import GamesLog, WriteFailed, write_outputs
from newmarket_env.eval.tournament.runner import TournamentStopped
from newmarket_env.eval.tournament.table import print_leaderboard
from newmarket_env.execution.ray_probe import RAY_CONNECT_TIMEOUT_S
from newmarket_env.util.cli_common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    Terminated,
    command_parser,
    print_error,
    sigterm_raises,
)

PROG = "python -m newmarket_env.eval.tournament"
DESCRIPTION = (
    "Duplicate tournament: the same seeded deals replayed with every agent in every seat; leaderboard "
    "with bootstrap intervals."
)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give ``parser`` the tournament's description and options (``newmarket tournament``, ``main``)."""
    parser.description = DESCRIPTION
    add = parser.add_argument
    add(
        "--agents",
        default="",
        help="comma-separated agents: names, saved-agent .npz or stable-baselines3 .zip paths, or "
        "MODULE:ATTR references; repeats allowed (e.g. greedy,random,random,random). Default: every "
        "non-oracle agent",
    )
    add("--variant", default=DEFAULT_VARIANT, help=f"rules preset (default {DEFAULT_VARIANT})")
    add("--players", type=int, default=DEFAULT_PLAYERS, help=f"seats at the table (default {DEFAULT_PLAYERS})")
    add("--blocks", type=int, default=DEFAULT_BLOCKS, help=f"deal blocks (seeded sessions, default {DEFAULT_BLOCKS})")
    add("--seed", type=int, default=0, help="master seed (default 0)")
    add(
        "--workers",
        type=int,
        default=DEFAULT_WORKERS,
        help=f"worker processes; 1 = this process (default {DEFAULT_WORKERS}); figures do not depend on it",
    )
    add(
        "--backend",
        default=DEFAULT_BACKEND,
        choices=BACKENDS,
        help="where sessions are played: local (this "
        "process or --workers processes) or ray (one Ray task per deal block; needs the ray extra); figures do "
        f"not depend on it (default {DEFAULT_BACKEND})",
    )
    add(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: 'auto' or HOST:PORT joins a running "
        "cluster (ray start --head / ray start --address); a HOST:PORT where no cluster answers within "
        f"{RAY_CONNECT_TIMEOUT_S:g} s is an error; default: start a local Ray with --workers CPUs",
    )
    add(
        "--out",
        default=None,
        help="output folder, checked before any game (default "
        "results/tournament-VARIANT-Np-AGENTS-seedS, AGENTS = the --agents list or 'all')",
    )
    add(
        "--overwrite",
        action="store_true",
        help="replace the results already in the output folder (without it, an existing results folder is an error)",
    )
    add(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="rules override, repeatable (e.g. --set widow=dealer_buy --set boodles=AS,KS,QS,JS)",
    )
    add(
        "--permutations",
        action="store_true",
        help="seat each line-up in every order (up to 4 seats), not just its rotations",
    )
    add(
        "--agent-option",
        action="append",
        default=[],
        metavar="AGENT:KEY=VALUE",
        help="keyword option for one agent, repeatable (e.g. search:budget=50); defaults: "
        + (", ".join(f"{a}:{k}={v}" for a, o in SLOW_AGENT_OPTIONS.items() for k, v in o.items()) or "none"),
    )
    add(
        "--decision-timeout",
        type=float,
        default=DEFAULT_DECISION_TIMEOUT_S,
        metavar="SECONDS",
        help="longest an agent may think over one decision; past it the tournament stops in one line naming "
        "the agent and the decision, keeping the sessions played. Sessions are then played in worker "
        "processes (one at least), since only another process can stop an agent that never answers; "
        f"0 = no limit (--workers 1 then plays in this process). Not applied with --backend ray "
        f"(default {DEFAULT_DECISION_TIMEOUT_S:g})",
    )
    add("--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples")
    add(
        "--save-records",
        action="store_true",
        help="also write every session's record to OUT/records.jsonl.gz "
        "(replay session K with: newmarket replay OUT/records.jsonl.gz --game K, or in newmarket serve)",
    )
    add("--quiet", action="store_true", help="no progress bar and no table; just write the files")
    return parser


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The tournament's argument parser, on its own."""
    return command_parser(add_arguments, prog)


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """A :class:`TournamentConfig` from parsed arguments (ValueError on a bad --set or --agent-option)."""
    agents = tuple(name.strip() for name in args.agents.split(",")) if args.agents.strip() else ()
    return TournamentConfig(
        agents=agents,
        variant=args.variant,
        players=args.players,
        rules=parse_set_options(args.set),
        blocks=args.blocks,
        seed=args.seed,
        workers=args.workers,
        permutations=args.permutations,
        agent_options=parse_agent_options(args.agent_option),
        resamples=args.resamples,
        save_records=args.save_records,
        backend=args.backend,
        address=args.address,
        decision_timeout=_decision_timeout(args.decision_timeout),
    )


def _decision_timeout(seconds: float) -> float | None:
    """``--decision-timeout``: 0 is no limit; anything else but a finite number > 0 is refused."""
    if seconds == 0:
        return None
    if not seconds > 0 or seconds == float("inf"):  # nan is not > 0
        raise ValueError(f"--decision-timeout {seconds:g} is out of range; allowed: seconds > 0, or 0 for no limit")
    return seconds


def reproduce_command(plan: Plan) -> str:
    """The explicit command that replays this plan (every default spelled out)."""
    cfg = plan.config
    words = [
        "newmarket",
        "tournament",
        "--agents",
        ",".join(e.spec for e in plan.setup.entrants),
        "--variant",
        cfg.variant,
        "--players",
        str(plan.setup.players),
        "--blocks",
        str(cfg.blocks),
        "--seed",
        str(cfg.seed),
    ]
    for key, value in dict(cfg.rules).items():
        text = ",".join(value) if isinstance(value, tuple) else str(value)
        words += ["--set", f"{key}={text}"]
    for agent, options in dict(cfg.agent_options).items():
        words += [w for k, v in options.items() for w in ("--agent-option", f"{agent}:{k}={v}")]
    if cfg.permutations:
        words.append("--permutations")
    return shlex.join(words)


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run a tournament from the command line; returns the exit code."""
    try:
        args = build_parser(prog).parse_args(argv)
    except SystemExit as stop:  # --help, or a one-line argument error already printed
        return int(stop.code or 0)
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Check every option, play the tournament, write the results; returns the exit code."""
    prog = args.prog
    try:
        config = config_from_args(args)
        _cap_workers(config, args, prog)
        plan = plan_tournament(config)
        folder = args.out or default_folder(args.variant, plan.setup.players, args.seed, config.agents)
        output = OutputFolder(folder, overwrite=args.overwrite)  # checked before the first game
    except ValueError as err:
        print_error(prog, str(err))
        return EXIT_BAD_INPUT
    _note_small_run(plan, prog)
    total = len(plan.specs)
    try:
        log = GamesLog(os.path.join(output.staging, "games.csv"), plan.labels, [e.spec for e in plan.setup.entrants])
    except OSError as err:
        output.discard()
        print_error(prog, f"cannot write games.csv in {output.folder}: {err.strerror or err}; nothing was played")
        return EXIT_FAILED
    try:
        with sigterm_raises():  # the worker processes are stopped on the way out, then one line
            result = _run_with_progress(plan, quiet=args.quiet, on_game=log.add)
    except TournamentStopped as err:  # an agent failed or ran out of time: not bad input, but still one line
        return _stopped(prog, output, log, str(err), total)
    except WriteFailed as err:  # games.csv could not take the next session: a full disk
        return _stopped(prog, output, log, _cannot_write(err, output), total)
    except KeyboardInterrupt:
        output.discard()
        print("interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        output.discard()
        print("terminated (SIGTERM); nothing written", file=sys.stderr)
        return EXIT_TERMINATED
    finally:
        log.close()
    return _finish(result, output, reproduce_command(plan), quiet=args.quiet, prog=prog)


def _cannot_write(err: OSError, output: OutputFolder) -> str:
    name = os.path.basename(err.filename) if isinstance(err.filename, str) else "the results"
    return f"cannot write {name} in {output.folder}: {err.strerror or err}"


def _stopped(prog: str, output: OutputFolder, log: GamesLog, why: str, total: int) -> int:
    """The one line of a run that stopped before its end, with what it kept: games.csv of the sessions played."""
    if log.sessions == 0:
        output.discard()
        print_error(prog, f"{why}; no session was finished, nothing kept")
    else:
        where = output.keep()
        print_error(prog, f"{why}; kept games.csv with {log.sessions} of {total} sessions in {where}")
    return EXIT_FAILED


def available_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _cap_workers(config: TournamentConfig, args: argparse.Namespace, prog: str) -> None:
    """More local worker processes than cores only thrash the machine: use the cores, and say so."""
    cores = available_cores()
    if isinstance(config.workers, int) and config.workers > cores and getattr(args, "address", None) is None:
        print(
            f"{prog}: note: --workers {config.workers} is more than the {cores} CPU cores here; using {cores}",
            file=sys.stderr,
        )
        config.workers = cores


def _note_small_run(plan: Plan, prog: str) -> None:
    if plan.config.blocks < MIN_BLOCKS_FOR_INTERVALS:
        print(
            f"{prog}: note: only {plan.config.blocks} deal block(s): the 95% intervals are rough guesses; "
            f"use --blocks {MIN_BLOCKS_FOR_INTERVALS} or more for figures to rely on",
            file=sys.stderr,
        )


def _run_with_progress(
    plan: Plan, quiet: bool, on_game: Callable[[GameResult], None] = lambda game: None
) -> TournamentResult:
    if quiet:
        return run_tournament(plan.config, progress=on_game, plan=plan)
    # optional: needs rich (eval extra)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(f"{plan.config.variant}: sessions", total=len(plan.specs))

        def arrived(game: GameResult) -> None:
            on_game(game)
            bar.advance(task)

        return run_tournament(plan.config, progress=arrived, plan=plan)


def _finish(result: TournamentResult, output: OutputFolder, command: str, quiet: bool, prog: str) -> int:
    try:
        written = write_outputs(result, output.staging, command)
        output.publish()  # all files at once: never a half-replaced results folder
    except OSError as err:  # a full disk: the files written whole are kept, and named
        kept = sorted(name for name in os.listdir(output.staging) if not name.startswith("."))
        where = output.keep()
        what = f"kept {', '.join(kept)} ({len(result.games)} sessions) in {where}" if kept else "nothing kept"
        if not kept:
            output.discard()
        print_error(prog, f"{_cannot_write(err, output)}; {what}")
        return EXIT_FAILED
    except BaseException:
        output.discard()
        raise
    paths = [output.path(os.path.basename(p)) for p in written]
    if not quiet:
        print_leaderboard(result, command, small_run_noted=True)  # _note_small_run said it before the run
        print(f"wrote {', '.join(paths)}")
    return EXIT_OK
