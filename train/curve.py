"""Learning curves after the fact: a run's checkpoints, of any method, measured against baselines and ``search``.

A run's own ``eval.csv`` has few points (``eval.every``) against its ``eval.opponents``; this measures the
points its method saved (:meth:`Method.curve_points`: ``checkpoints/exit_<steps>_steps.pt``,
``dmc_<steps>_steps.pt``, the ``policy.npz`` in ``rllib_<steps>_steps/``, for PPO the self-play pool's
``snapshots/snapshot_<steps>.npz``, a plugin method's checkpoints), each as a saved agent, so a finished
run gets a curve against any opponent, ``search`` at its default budget included:

``python -m newmarket_env.train.curve runs/newmarket_exit_long --opponents control,search --every 5 --boards 300``

writes ``curve.csv`` (the rows of ``eval.csv``, plus the margin over the opponent playing the tested seat
itself) and ``curve.png`` in the run folder (or ``--png``). Each point is the greedy network of one
checkpoint, or with ``--guided exit-newmarket-search`` that shipped guided search's settings on the
checkpoint's network (files ``guided_curve.csv`` and ``guided_curve.png``), in a duplicate evaluation
(:func:`~newmarket_env.train.evaluate.duplicate_eval`, seed ``--seed``). Points already in the CSV are
kept, so a stopped measurement resumes where it stopped; the file is rewritten whole through a temporary
name after each point. In house-stake rules (Newbury: every seat gains chips) the curve shows the margin,
the only figure that says who plays better.
"""

from __future__ import annotations

import argparse
import csv
import functools
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from newmarket_env.agents import available_agents
from newmarket_env.agents.guided_search import GuidedSearchAgent, shipped_guided
from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import load_config
from newmarket_env.train.evaluate import duplicate_eval, saved_agent_maker
from newmarket_env.train.methods import get_method
from newmarket_env.train.plot import plot_curve

FIELDS = ["steps", "opponent", "mean", "ci95", "low", "high", "boards", "games", "margin", "margin_ci95", "seed"]


def chosen_steps(steps: list[int], every: int) -> list[int]:
    """Every ``every``-th checkpoint, counted from the first, and always the last.

    >>> chosen_steps([10, 20, 30, 40, 50, 60, 70], 3)
    [10, 40, 70]
    >>> chosen_steps([10, 20, 30, 40, 50], 3)
    [10, 40, 50]
    """
    picked = steps[::every]
    if steps and picked[-1] != steps[-1]:
        picked.append(steps[-1])
    return picked


def network_at(run_dir: Path, steps: int, config: Any) -> Any:
    """The greedy network of the run's point after ``steps`` training steps, as a saved agent."""
    return get_method(config.method).network_at(config, run_dir, steps)


def guided_on(entry: dict[str, Any], network: Any, env: Any, seed: int) -> Any:
    """A guided search with the options of a shipped entry (agents/trained/guided.json) on ``network``."""
    return GuidedSearchAgent(env.unwrapped.rules, seed, network, **entry["options"])


def read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """The whole CSV through a temporary file in the same folder: a kill leaves the old file or the new one."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(handle, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows({k: row.get(k, "") for k in FIELDS} for row in rows)
    os.replace(temporary, path)


def guided_maker(entry: dict[str, Any], network: Any) -> Any:
    """An agent maker: the shipped guided search ``entry``'s settings on ``network``."""
    return functools.partial(guided_on, entry, network)


def house_stakes(config: Any) -> bool:
    """Whether the run's rules pay from a house pot: every seat can gain, so the margin decides."""
    return make_rules(config.env.variant, config.env.num_players, **config.env.rules).stake_mode == "house"


def measure_points(
    run_dir: Path,
    config: Any,
    points: Sequence[int],
    opponents: Sequence[str],
    boards: int,
    seed: int,
    csv_path: Path,
    maker: Any = saved_agent_maker,
) -> list[dict[str, Any]]:
    """Each checkpoint of ``points`` (step counts) against each opponent, in ``csv_path``; return its rows.

    Rows already in the file with the same boards and seed are kept, not measured again; the file is
    rewritten whole after each new row. ``maker(network)`` gives the agent maker that plays a checkpoint.
    """
    house = house_stakes(config)
    word = get_method(config.method).word
    rows = read_rows(csv_path)
    # Rows measured with other boards or another seed are measured again: a curve is one setting throughout.
    done = {(int(r["steps"]), r["opponent"]) for r in rows if (int(r["boards"]), r["seed"]) == (boards, str(seed))}
    rows = [r for r in rows if (int(r["steps"]), r["opponent"]) in done]
    for point in points:
        missing = [o for o in opponents if (point, o) not in done]
        if not missing:
            continue
        network = network_at(run_dir, point, config)
        for opponent in missing:
            result = duplicate_eval(
                maker(network),
                opponent,
                config.env.variant,
                config.env.num_players,
                boards=boards,
                seed=seed,
                rules=config.env.rules,
                reference=house,  # every seat gains: the margin over the opponent itself decides
            )
            rows.append({"steps": point, **result.as_row(), "seed": seed})
            write_rows(csv_path, rows)
            shown = f"margin {result.margin:+.3f}" if house else f"{result.mean:+.3f} +- {result.ci95:.3f}"
            print(f"{point:>9} {word}  vs {opponent:<8} {shown}", flush=True)
    return rows


def measure(
    run_dir: Path,
    opponents: list[str],
    every: int,
    boards: int,
    seed: int,
    png: Path | None,
    guided: str | None = None,
) -> Path:
    """Measure the chosen checkpoints against each opponent (skipping rows already measured); return the PNG."""
    config = load_config(run_dir / "config.yaml")
    method = get_method(config.method)
    entry = None
    if guided is not None:
        entry = shipped_guided().get(guided)
        if entry is None:
            raise ValueError(
                f"--guided {guided!r} is not a shipped guided search; allowed: {', '.join(shipped_guided())}"
            )
    unknown = [o for o in opponents if o not in available_agents()]
    if unknown:
        raise ValueError(f"unknown opponent {unknown[0]!r}; allowed: {', '.join(available_agents())}")
    steps = method.curve_points(run_dir)
    if not steps:
        raise ValueError(method.no_curve_points(run_dir))
    stem = "guided_curve" if guided else "curve"
    csv_path = run_dir / f"{stem}.csv"
    maker = functools.partial(guided_maker, entry) if entry else saved_agent_maker
    measure_points(run_dir, config, chosen_steps(steps, every), opponents, boards, seed, csv_path, maker)
    house = house_stakes(config)
    png = png or run_dir / f"{stem}.png"
    tested = f"{guided} on each checkpoint" if guided else f"{config.name}: greedy network"
    title = f"{tested}, {boards} deal sets a point"
    plot_curve(csv_path, png, title=title, value="margin" if house else "mean", xlabel=method.xlabel)
    return png


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m newmarket_env.train.curve", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path, help="a run folder of any method (with its checkpoints)")
    parser.add_argument("--opponents", default="control,search", help="comma-separated agent names")
    parser.add_argument("--every", type=int, default=5, help="measure every N-th checkpoint and the last")
    parser.add_argument("--boards", type=int, default=300, help="deal sets a point (default 300)")
    parser.add_argument("--seed", type=int, default=2026, help="deal seed (default 2026)")
    parser.add_argument("--png", type=Path, help="the picture (default RUN_DIR/curve.png)")
    parser.add_argument(
        "--guided", help="measure this shipped guided search's settings on each checkpoint, e.g. exit-newmarket-search"
    )
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error(f"--every {args.every} is not allowed; allowed: 1 or more")
    if args.boards < 2:
        parser.error(f"--boards {args.boards} is not allowed; allowed: 2 or more")
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if not opponents:
        parser.error("--opponents is empty; give agent names separated by commas, e.g. control,search")
    try:
        print(measure(args.run_dir, opponents, args.every, args.boards, args.seed, args.png, args.guided))
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
