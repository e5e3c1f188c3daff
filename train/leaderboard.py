"""The algorithm leaderboard: runs of several training methods on one preset, compared at one wall-clock budget.

Each run (of any method: :mod:`~newmarket_env.train.curve` reads them all) is measured by the clock, not
by its steps: a checkpoint's time is when its file was saved, counted from the run's start (``run.json``).
For each run this measures, in a duplicate evaluation against each opponent, the last checkpoint saved by
each of ``--points`` evenly spaced times up to ``--budget`` minutes, draws all runs on one picture (one
panel per opponent, minutes across), exports each run's network at the budget (its last checkpoint saved
within it) as a plain saved agent for the final tournament, and writes ``leaderboard.json`` beside those
files:

``python -m newmarket_env.train.leaderboard --budget 10 --run ppo=runs/lb/newmarket_ppo --run
dmc=runs/lb/newmarket_dmc --opponents control,search --points 5 --boards 100 --out runs/lb/newmarket``

Measured points are kept in each run folder's ``leaderboard.csv`` (the format of ``curve.csv``), so a
stopped measurement resumes where it stopped. A run that was resumed is refused: its checkpoint times would
count the pause. In house-stake rules (Newbury) the panels show the margin over the opponent playing the
tested seat, the figure that compares (as ``train.curve``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from newmarket_env.agents import available_agents
from newmarket_env.agents.saved import save_policy
from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import TrainConfig, load_config
from newmarket_env.train.curve import house_stakes, measure_points, network_at
from newmarket_env.train.methods import get_method
from newmarket_env.train.rundir import write_atomic

#: The file of measured points in each run folder (the columns of ``curve.csv``).
POINTS_FILE = "leaderboard.csv"


@dataclass(frozen=True)
class Entry:
    """One method's run on the leaderboard: its label, folder and config, and each checkpoint's minute."""

    label: str
    run_dir: Path
    config: TrainConfig
    minutes: dict[int, float]  # checkpoint steps -> minutes after the run started that it was saved


def run_start(run_dir: Path) -> float:
    """When the run started (``run.json``), in seconds since the epoch; a resumed run is refused."""
    run = json.loads((run_dir / "run.json").read_text())
    if run.get("resumed"):
        raise ValueError(f"{run_dir} was resumed; its checkpoint times would count the pause (use unresumed runs)")
    return datetime.strptime(run["started"], "%Y-%m-%dT%H:%M:%S%z").timestamp()


def load_entry(label: str, run_dir: Path) -> Entry:
    """A run folder as a leaderboard entry: its config and the minute each checkpoint was saved."""
    config = load_config(run_dir / "config.yaml")
    method = get_method(config.method)
    began = run_start(run_dir)
    steps = method.curve_points(run_dir)
    if not steps:
        raise ValueError(method.no_curve_points(run_dir))
    minutes = {s: (method.curve_file(run_dir, s).stat().st_mtime - began) / 60 for s in steps}
    return Entry(label, run_dir, config, minutes)


def budget_points(minutes: dict[int, float], budget: float, points: int) -> list[int]:
    """The last checkpoint saved by each of ``points`` evenly spaced times up to ``budget`` minutes.

    >>> budget_points({100: 0.5, 200: 2.5, 300: 4.0, 400: 6.1, 500: 9.9, 600: 10.2}, 10, 5)
    [100, 300, 400, 500]
    >>> budget_points({100: 11.0}, 10, 5)
    []
    """
    chosen: list[int] = []
    for k in range(1, points + 1):
        within = [s for s, m in minutes.items() if m <= budget * k / points]
        if within and max(within) not in chosen:
            chosen.append(max(within))
    return chosen


def export_network(entry: Entry, steps: int, path: Path) -> Path:
    """The network of checkpoint ``steps`` as a plain saved agent at ``path`` (a tournament entrant)."""
    network = network_at(entry.run_dir, steps, entry.config)
    config = entry.config
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    training = {**network.metadata.get("training", {}), "leaderboard_steps": steps}
    activation = network.metadata["activation"]
    save_policy(path, network.layers, rules, config.env.variant, activation, training, name=entry.label)
    return path


def plot_leaderboard(
    curves: dict[str, list[dict[str, Any]]], opponents: Sequence[str], png: Path, title: str, value: str, budget: float
) -> None:
    """One panel per opponent: each method's points (minutes across, chips per deal or margin up, 95% bars)."""
    import matplotlib  # optional: needs matplotlib (train/eval extra)

    matplotlib.use("Agg")  # files only: runs headless
    import matplotlib.pyplot as plt  # optional: needs matplotlib (train/eval extra)

    spread = "ci95" if value == "mean" else f"{value}_ci95"
    figure, axes = plt.subplots(1, len(opponents), figsize=(5.2 * len(opponents), 3.8), sharex=True, squeeze=False)
    for axis, opponent in zip(axes[0], opponents, strict=True):
        for label, rows in curves.items():
            mine = sorted((r for r in rows if r["opponent"] == opponent), key=lambda r: r["minutes"])
            xs = [r["minutes"] for r in mine]
            ys = [float(r[value]) for r in mine]
            errors = [float(r[spread]) for r in mine]
            axis.errorbar(xs, ys, yerr=errors, marker="o", markersize=4, capsize=3, label=label)
        axis.axhline(0.0, color="grey", linewidth=0.8)
        axis.set_xlim(0, budget * 1.05)
        word = "chips per deal" if value == "mean" else "margin over it (chips per deal)"
        axis.set_title(f"against {opponent}")
        axis.set_xlabel("minutes of training (wall clock, from the run's start)")
        axis.set_ylabel(word)
        axis.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png, dpi=110)
    plt.close(figure)


def build(
    runs: Sequence[tuple[str, Path]],
    budget: float,
    opponents: Sequence[str],
    points: int,
    boards: int,
    seed: int,
    out: Path,
) -> dict[str, Any]:
    """Measure, draw and export every run (see the module's text); return what ``leaderboard.json`` holds."""
    unknown = [o for o in opponents if o not in available_agents()]
    if unknown:
        raise ValueError(f"unknown opponent {unknown[0]!r}; allowed: {', '.join(available_agents())}")
    entries = [load_entry(label, run_dir) for label, run_dir in runs]
    presets = {(e.config.env.variant, e.config.env.num_players, json.dumps(e.config.env.rules)) for e in entries}
    if len(presets) > 1:
        raise ValueError(f"the runs play different games {sorted(presets)}; a leaderboard compares one preset")
    first = entries[0].config
    value = "margin" if house_stakes(first) else "mean"
    plan = [(entry, budget_points(entry.minutes, budget, points)) for entry in entries]
    for entry, chosen in plan:  # every run checked before anything is measured or written
        if not chosen:
            raise ValueError(f"{entry.run_dir} saved no checkpoint within {budget:g} minutes of its start")
    out.mkdir(parents=True, exist_ok=True)
    curves: dict[str, list[dict[str, Any]]] = {}
    summary: dict[str, Any] = {
        "variant": first.env.variant,
        "num_players": first.env.num_players,
        "budget_minutes": budget,
        "boards": boards,
        "seed": seed,
        "value": value,
        "runs": [],
    }
    for entry, chosen in plan:
        print(f"{entry.label}: {entry.run_dir} ({entry.config.method}), checkpoints {chosen}", flush=True)
        rows = measure_points(entry.run_dir, entry.config, chosen, opponents, boards, seed, entry.run_dir / POINTS_FILE)
        rows = [{**r, "minutes": entry.minutes[int(r["steps"])]} for r in rows if int(r["steps"]) in chosen]
        curves[entry.label] = rows
        last = chosen[-1]
        agent = export_network(entry, last, out / f"{entry.label}.npz")
        finals = {r["opponent"]: float(r[value]) for r in rows if int(r["steps"]) == last}
        spreads = {
            r["opponent"]: float(r["ci95" if value == "mean" else "margin_ci95"])
            for r in rows
            if int(r["steps"]) == last
        }
        summary["runs"].append(
            {
                "label": entry.label,
                "run_dir": str(entry.run_dir),
                "method": entry.config.method,
                "config": entry.config.name,
                "steps": last,
                "minutes": round(entry.minutes[last], 2),
                "agent": str(agent),
                "final": finals,
                "final_ci95": spreads,
            }
        )
    title = (
        f"{first.env.variant}, {first.env.num_players} players: {budget:g} minutes a method, {boards} deal sets a point"
    )
    plot_leaderboard(curves, opponents, out / "leaderboard.png", title, value, budget)
    write_atomic(out / "leaderboard.json", json.dumps(summary, indent=2))
    return summary


def parse_run(text: str) -> tuple[str, Path]:
    """``LABEL=RUN_DIR`` from the command line."""
    label, sep, folder = text.partition("=")
    if not sep or not label or not folder:
        raise argparse.ArgumentTypeError(f"--run {text!r} is not LABEL=RUN_DIR, e.g. dmc=runs/newmarket_dmc")
    return label, Path(folder)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m newmarket_env.train.leaderboard", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--run", type=parse_run, action="append", required=True, help="LABEL=RUN_DIR, once a method")
    parser.add_argument("--budget", type=float, required=True, help="minutes of training each method gets")
    parser.add_argument("--opponents", default="control,search", help="comma-separated agent names")
    parser.add_argument("--points", type=int, default=5, help="evenly spaced times measured up to the budget")
    parser.add_argument("--boards", type=int, default=100, help="deal sets a point (default 100)")
    parser.add_argument("--seed", type=int, default=2026, help="deal seed (default 2026)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the picture, agents and leaderboard.json")
    args = parser.parse_args(argv)
    if args.budget <= 0:
        parser.error(f"--budget {args.budget:g} is not allowed; allowed: more than 0 minutes")
    if args.points < 1:
        parser.error(f"--points {args.points} is not allowed; allowed: 1 or more")
    if args.boards < 2:
        parser.error(f"--boards {args.boards} is not allowed; allowed: 2 or more")
    labels = [label for label, _ in args.run]
    if len(set(labels)) != len(labels):
        parser.error(f"--run labels repeat ({', '.join(labels)}); give each method its own label")
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if not opponents:
        parser.error("--opponents is empty; give agent names separated by commas, e.g. control,search")
    try:
        summary = build(args.run, args.budget, opponents, args.points, args.boards, args.seed, args.out)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for run in summary["runs"]:
        shown = ", ".join(f"vs {o} {v:+.3f} +- {run['final_ci95'][o]:.3f}" for o, v in run["final"].items())
        print(f"{run['label']:<12} {run['steps']:>10} steps at {run['minutes']:5.1f} min  {shown}")
    agents = ",".join(run["agent"] for run in summary["runs"])
    print(
        f"final tournament: newmarket tournament --variant {summary['variant']} --players {summary['num_players']} "
        f"--agents {agents} --blocks 300 --seed {args.seed}"
    )
    print(args.out / "leaderboard.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
