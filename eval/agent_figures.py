"""Figures for the baselines and the search agent: duplicate matches over seeded deals.

For each preset at ``players`` seats, a *hero* agent plays against copies of a
*villain*; every seeded session is played ``players`` times with the hero in
each seat in turn over the same deals (duplicate), so the luck of the cards
cancels. The figure is the hero's result per deal minus the table's mean per
deal (in chip presets the table's mean is 0, so this is the hero's chips per
deal; in Newbury, where the house adds points, it is points above the table
average), with a 95% bootstrap interval over the seeds.

Run ``python -m newmarket_env.eval.agent_figures`` (``--help`` for sizes).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from newmarket_env import VARIANTS, load_agent, raw_env
from newmarket_env.eval.tournament import stats

BASELINES = ("lowest", "greedy", "control")


@dataclass
class FigureConfig:
    """Sizes of the runs (kept small: the project's CPUs are shared)."""

    variants: tuple[str, ...] = tuple(VARIANTS)
    players: int = 4
    seeds: int = 40  # seeded sessions per baseline-vs-random match
    search_seeds: int = 6  # seeded sessions for search vs the strongest baseline
    budget: int = 16  # worlds per search decision
    strongest: str = "control"
    villain: str = "random"
    deals: dict[str, int] = field(default_factory=lambda: {"newbury": 4})  # shorter sessions where deals are long
    resamples: int = 4000


def play_session(
    variant: str, players: int, agents: list[Any], seed: int, num_deals: int | None
) -> tuple[np.ndarray, int]:
    """Play one seeded session; each seat's change of balance and the number of deals."""
    extra: dict[str, Any] = {} if num_deals is None else {"num_deals": num_deals}
    e = raw_env(variant=variant, num_players=players, **extra)
    e.reset(seed=seed)
    for agent in agents:
        agent.reset()
    game = e.game
    while not game.over:
        seat = game.to_act
        e.step(agents[seat].act(e.observe(e.possible_agents[seat])))
    start = e.rules.starting_chips
    return np.array(game.balances, dtype=float) - start, e.rules.num_deals


def duplicate_scores(
    variant: str, hero: str, villain: str, cfg: FigureConfig, seeds: int, hero_kwargs: dict[str, Any] | None = None
) -> np.ndarray:
    """Per seed: the hero's mean advantage per deal over the ``players`` seat rotations."""
    e = raw_env(variant=variant, num_players=cfg.players)
    out = []
    for seed in range(seeds):
        total = 0.0
        for hero_seat in range(cfg.players):
            agents = [
                load_agent(
                    hero if s == hero_seat else villain,
                    env=e,
                    seed=1000 * seed + s,
                    **((hero_kwargs or {}) if s == hero_seat else {}),
                )
                for s in range(cfg.players)
            ]
            changes, deals = play_session(variant, cfg.players, agents, seed, cfg.deals.get(variant))
            total += (changes[hero_seat] - changes.mean()) / deals
        out.append(total / cfg.players)
    return np.array(out)


def bootstrap_interval(values: np.ndarray, resamples: int, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean (the tournament's, over sessions instead of blocks)."""
    interval = stats.bootstrap_interval(values, stats.resample_indices(len(values), resamples, seed))
    if interval.low is None or interval.high is None:  # a single session: a zero-width interval at its value
        return interval.mean, interval.mean
    return interval.low, interval.high


def figure_rows(cfg: FigureConfig) -> list[dict[str, Any]]:
    """Every baseline against the villain, then search against the strongest baseline, per preset."""
    rows = []
    for variant in cfg.variants:
        matches: list[tuple[str, str, int, dict[str, Any] | None]] = [
            (b, cfg.villain, cfg.seeds, None) for b in BASELINES
        ]
        if cfg.search_seeds > 0:  # 0 skips the (slow) search match
            matches.append(("search", cfg.strongest, cfg.search_seeds, {"budget": cfg.budget}))
        for hero, villain, seeds, kwargs in matches:
            start = time.time()
            values = duplicate_scores(variant, hero, villain, cfg, seeds, kwargs)
            low, high = bootstrap_interval(values, cfg.resamples)
            rows.append(
                {
                    "variant": variant,
                    "hero": hero if not kwargs else f"search(budget={cfg.budget})",
                    "villain": villain,
                    "seeds": seeds,
                    "mean": float(values.mean()),
                    "low": low,
                    "high": high,
                    "seconds": time.time() - start,
                }
            )
            print(_row_text(rows[-1]), flush=True)
    return rows


def _row_text(row: dict[str, Any]) -> str:
    verdict = "above 0" if row["low"] > 0 else ("below 0" if row["high"] < 0 else "spans 0")
    return (
        f"| {row['variant']} | {row['hero']} | 3 x {row['villain']} | {row['seeds']} x 4 seats | "
        f"{row['mean']:+.3f} | [{row['low']:+.3f}, {row['high']:+.3f}] | {verdict} | {row['seconds']:.0f} s |"
    )


HEADER = (
    "| preset | hero | opponents | sessions | per deal vs table | 95% CI | CI | time |\n"
    "|---|---|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--seeds", type=int, default=FigureConfig.seeds)
    parser.add_argument("--search-seeds", type=int, default=FigureConfig.search_seeds, help="0 skips search")
    parser.add_argument("--budget", type=int, default=FigureConfig.budget)
    parser.add_argument("--newbury-deals", type=int, default=4, help="deals per Newbury session (preset: 12)")
    args = parser.parse_args(argv)
    cfg = FigureConfig(
        variants=tuple(args.variants),
        seeds=args.seeds,
        search_seeds=args.search_seeds,
        budget=args.budget,
        deals={"newbury": args.newbury_deals},
    )
    print(HEADER, flush=True)
    figure_rows(cfg)


if __name__ == "__main__":
    main()
