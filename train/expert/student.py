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
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from newmarket_env.agents.saved import SavedAgent, read_saved
from newmarket_env.rules import rules_from_dict
from newmarket_env.train.config import load_config
from newmarket_env.train.expert.label import label_states
from newmarket_env.train.expert.loop import teacher_of


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
    rows = np.arange(len(choices))
    chosen = means[rows, choices]
    inside = ~np.isnan(chosen)
    best = np.nanmax(means, axis=1)
    return Report(
        decisions=len(choices),
        agreement=float(np.mean(choices == actions)),
        regret=float(np.mean((best - chosen)[inside])) if inside.any() else float("nan"),
        outside=float(np.mean(~inside)),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m newmarket_env.train.expert.student",
        description="Score a network's choices against an expert-iteration run's labels: agreement with the "
        "teacher and regret (chips a decision below the teacher's best score); optionally label the same "
        "states again to measure the teacher's own noise.",
    )
    parser.add_argument("labels", help="a labels file of an expert-iteration run (RUN/labels/iter_NNNN.npz)")
    parser.add_argument("--network", required=True, help="a saved agent (.npz) to score")
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
    try:
        metadata, layers = read_saved(args.network)
    except (OSError, ValueError) as err:
        parser.error(f"--network {args.network}: {err}")
    rules = rules_from_dict(metadata["rules"])
    network = SavedAgent(rules, 0, metadata, layers, sample=False, name="student")  # greedy, as it plays
    print(score(network.act_batch(obs, masks), actions, means).line(args.network))
    if args.relabel:
        n = min(args.relabel, len(actions))
        teacher = teacher_of(load_config(args.config), rules, layers)
        seeds = [2**40 + k for k in range(n)]  # other seeds than any run's labels (derive_seed stays below 2**32)
        again, _ = label_states(teacher, obs[:n], masks[:n], seeds, args.workers)
        print(score(again, actions[:n], means[:n]).line("the teacher labelling again"))
    return 0


if __name__ == "__main__":  # label processes (spawn) re-import this module: only the parent runs main
    raise SystemExit(main())
