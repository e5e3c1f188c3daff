"""How much of its teacher a student keeps: agreement and regret on labelled decisions.

Each label holds the teacher's choice and its score of every candidate it compared (``means``: mean
chips over its worlds, plus the network's bonus for a ``guided_prior`` teacher; NaN elsewhere). A
network's *regret* on a decision is the best score minus the score of the network's greedy choice:
the chips a decision it gives up by the teacher's own reckoning. Agreement alone hides how costly the
disagreements are; regret counts them in chips.

The same states labelled a second time with other seeds measure the teacher's own noise: how often it
agrees with itself, and its regret under the first labelling's scores. A student cannot be expected to
agree more often than that.

    python -m newmarket_env.train.expert.student runs/R/labels/iter_0003.npz --network runs/R/final.npz
    python -m newmarket_env.train.expert.student LABELS --network NET --relabel 10000 --config configs/C.yaml
    python -m newmarket_env.train.expert.student runs/R/labels/iter_0007.npz --checkpoint 700000 --by-kind --by-gap

``--checkpoint N`` scores the labels' own run's network as it was after N labelled decisions (before
it was fitted on these labels, when N is what came before them: a held-out score). ``--by-kind``
splits the score by the kind of decision (bid, lead, ...) and ``--by-gap`` by how far apart the
teacher put its two best candidates: where the student's regret comes from.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from newmarket_env.agents.saved import SavedAgent, read_saved
from newmarket_env.engine.types import DECISION_ORDER
from newmarket_env.game.rules import rules_from_dict
from newmarket_env.observation.layout import offsets
from newmarket_env.train.config import load_config
from newmarket_env.train.curve import network_at
from newmarket_env.train.expert.label import label_states
from newmarket_env.train.expert.learner import teacher_of
from newmarket_env.train.expert.method import METHOD


@dataclass(frozen=True)
class Report:
    """A player's choices scored against one labelling."""

    decisions: int
    agreement: float  # share of decisions where it chose as the teacher did
    regret: float  # mean chips a decision below the teacher's best score (decisions inside the candidates)
    outside: float  # share of decisions where it chose an action the teacher did not score

    def line(self, who: str) -> str:
        return (
            f"{who}: agreement {self.agreement:.3f}, regret {self.regret:.3f} chips a decision, "
            f"outside the candidates {self.outside:.3f} ({self.decisions} decisions)"
        )


def score(choices: np.ndarray, actions: np.ndarray, means: np.ndarray) -> Report:
    """Agreement with ``actions`` and regret under ``means`` (``(K, 79)``, NaN = not scored) of ``choices``.

    >>> means = np.full((2, 79), np.nan); means[0, [3, 5]] = [1.0, 0.25]; means[1, [7, 9]] = [2.0, 2.5]
    >>> r = score(np.array([5, 9]), np.array([3, 9]), means)
    >>> r.agreement, r.regret, r.outside
    (0.5, 0.375, 0.0)
    """
    each = regrets(choices, means)
    inside = ~np.isnan(each)
    return Report(
        decisions=len(choices),
        agreement=float(np.mean(choices == actions)),
        regret=float(np.mean(each[inside])) if inside.any() else float("nan"),
        outside=float(np.mean(~inside)),
    )


def regrets(choices: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Each decision's regret: the teacher's best score minus the score of the choice (NaN where the teacher
    did not score the choice)."""
    return np.nanmax(means, axis=1) - means[np.arange(len(choices)), choices]


#: Edges (chips) of the ``--by-gap`` bins of the gap between the teacher's two best scores.
GAP_EDGES = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


def decision_kinds(obs: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Each decision's kind as an index into the names (``Decision`` values: ``"lead"``, ``"bid"``, ...),
    read from its observation, and the names."""
    return obs[:, offsets()["decision"]].argmax(axis=1), [kind.value for kind in DECISION_ORDER]


def teacher_gaps(means: np.ndarray) -> np.ndarray:
    """The teacher's best score minus its second best (NaN where it scored fewer than two candidates).

    >>> means = np.full((2, 79), np.nan); means[0, [3, 5, 6]] = [1.0, 2.5, 0.0]; means[1, 4] = 0.0
    >>> teacher_gaps(means)
    array([1.5, nan])
    """
    ordered = -np.sort(-np.where(np.isnan(means), -np.inf, means), axis=1)
    with np.errstate(invalid="ignore"):  # -inf - -inf where nothing was scored
        gaps = ordered[:, 0] - ordered[:, 1]
    return np.where(np.isfinite(gaps), gaps, np.nan)


def gap_bins(gaps: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Each decision's ``GAP_EDGES`` bin as an index into the names, and the names (the last: one candidate).
    A bin holds its lower edge: a gap of exactly 2 is in "gap 2 to 4".

    >>> gap_bins(np.array([0.05, 0.1, 3.0, 9.0, np.nan]))[0]
    array([0, 1, 5, 6, 7])
    """
    names = [f"gap {lo:g} to {hi:g}" for lo, hi in zip((0.0, *GAP_EDGES), GAP_EDGES, strict=False)]
    names += [f"gap {GAP_EDGES[-1]:g} or more", "one candidate"]
    index = np.searchsorted(GAP_EDGES, np.nan_to_num(gaps), side="right")
    return np.where(np.isnan(gaps), len(names) - 1, index), names


def breakdown(
    choices: np.ndarray, actions: np.ndarray, means: np.ndarray, groups: np.ndarray, names: Sequence[str]
) -> list[str]:
    """One line per group that has decisions: its share of them, its score, and its share of the regret
    (chips given up in the group over chips given up in all)."""
    given_up = np.nan_to_num(regrets(choices, means))  # choices the teacher did not score count 0, as in score
    total = given_up.sum()
    lines = []
    for group, name in enumerate(names):
        inside = groups == group
        if inside.any():
            share = given_up[inside].sum() / total if total else float("nan")
            who = f"  {name} ({inside.mean():.3f} of the decisions, {share:.3f} of the regret)"
            lines.append(score(choices[inside], actions[inside], means[inside]).line(who))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m newmarket_env.train.expert.student",
        description="Score a network's choices against an expert-iteration run's labels: agreement with the "
        "teacher and regret (chips a decision below the teacher's best score); optionally label the same "
        "states again to measure the teacher's own noise.",
    )
    parser.add_argument("labels", help="a labels file of an expert-iteration run (RUN/labels/iter_NNNN.npz)")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--network", help="a saved agent (.npz) to score")
    which.add_argument(
        "--checkpoint",
        type=int,
        metavar="N",
        help="score the labels' run's network after N labelled decisions (RUN/checkpoints/exit_N_steps.pt)",
    )
    parser.add_argument(
        "--relabel",
        type=int,
        default=0,
        metavar="N",
        help="label the first N decisions again with other seeds (needs --config: the run's teacher, "
        "with --network in it) and score that labelling too",
    )
    parser.add_argument("--config", help="the run's config (its expert section builds the teacher)")
    parser.add_argument("--workers", type=int, default=2, help="label processes for --relabel (default 2)")
    parser.add_argument("--by-kind", action="store_true", help="also score each kind of decision (bid, lead, ...)")
    parser.add_argument(
        "--by-gap",
        action="store_true",
        help="also score the decisions by the gap between the teacher's two best scores (chips)",
    )
    args = parser.parse_args(argv)
    if args.relabel and not args.config:
        parser.error("--relabel needs --config (the run whose teacher labels again)")
    if args.relabel < 0 or args.workers < 1:
        parser.error("--relabel must be >= 0 and --workers >= 1")
    try:
        with np.load(args.labels, allow_pickle=False) as data:
            obs, masks, actions, means = (data[k] for k in ("obs", "masks", "actions", "means"))
    except (OSError, KeyError, ValueError) as err:
        parser.error(f"{args.labels}: not an expert-iteration labels file ({type(err).__name__}: {err})")
    if args.checkpoint is not None:
        network = _checkpoint_network(parser, Path(args.labels), args.checkpoint)
        who = f"the network after {args.checkpoint} labelled decisions"
    else:
        try:
            metadata, layers = read_saved(args.network)
        except (OSError, ValueError) as err:
            parser.error(f"--network {args.network}: {err}")
        rules = rules_from_dict(metadata["rules"])
        network = SavedAgent(rules, 0, metadata, layers, sample=False, name="student")  # greedy, as it plays
        who = args.network
    rules, layers = network.rules, network.layers
    choices = network.act_batch(obs, masks)
    print(score(choices, actions, means).line(who))
    if args.by_kind:
        print("by the kind of decision:")
        print("\n".join(breakdown(choices, actions, means, *decision_kinds(obs))))
    if args.by_gap:
        print("by the gap between the teacher's two best scores (chips):")
        print("\n".join(breakdown(choices, actions, means, *gap_bins(teacher_gaps(means)))))
    if args.relabel:
        n = min(args.relabel, len(actions))
        teacher = teacher_of(load_config(args.config), rules, layers)
        seeds = [2**40 + k for k in range(n)]  # other seeds than any run's labels (derive_seed stays below 2**32)
        again, _ = label_states(teacher, obs[:n], masks[:n], seeds, args.workers)
        print(score(again, actions[:n], means[:n]).line("the teacher labelling again"))
    return 0


def _checkpoint_network(parser: argparse.ArgumentParser, labels: Path, steps: int) -> SavedAgent:
    """The greedy network of the labels' run (``RUN/labels/iter_NNNN.npz``) checkpointed after ``steps``."""
    run_dir = labels.resolve().parents[1]
    saved = METHOD.curve_points(run_dir)
    if steps not in saved:
        shown = ", ".join(map(str, saved)) or "none"
        parser.error(f"--checkpoint {steps}: {run_dir} has no such checkpoint; it has: {shown}")
    return network_at(run_dir, steps, load_config(run_dir / "config.yaml"))


if __name__ == "__main__":  # label processes (spawn) re-import this module: only the parent runs main
    raise SystemExit(main())
