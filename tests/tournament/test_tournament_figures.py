"""Tournament figures on sessions written by hand, every expected number worked out below; and a real
tournament in which a clearly stronger agent must come first, separated from ``random``.

The hand-made tournament: entrants a, b, c (indices 0, 1, 2); 2 blocks; 2 sessions per block of 2
deals each, so every entrant plays 4 deals per block. Chips per session (zero-sum), by seat:

    block 0  g1 seats (a, b, c): +6 -2 -4     outs 2 0 0
             g2 seats (b, c, a): +3 -1 -2     outs 1 1 0
    block 1  g3 seats (a, b, c): +2 -5 +3     outs 0 1 1
             g4 seats (c, a, b): -4 +5 -1     outs 0 2 0

Chips per block: a 6-2=4 and 2+5=7; b -2+3=1 and -5-1=-6; c -4-1=-5 and 3-4=-1.
Chips per deal (4 deals a block): a 1.0, 1.75 (mean 1.375); b 0.25, -1.5 (mean -0.625);
c -1.25, -0.25 (mean -0.75). So the standings are a, b, c.
Deals went out first, per deal: a 2/4, 2/4 (0.5); b 1/4, 1/4 (0.25); c 1/4, 1/4 (0.25).

With 2 blocks a bootstrap mean is block 0's value, block 1's, or their average; each extreme has
probability 1/4, far above the 2.5% tail, so the 95% percentile interval is exactly
[min, max] of the two block values. Paired differences per block:
a-b 0.75, 3.25 -> mean 2.0 [0.75, 3.25] separated; a-c 2.25, 2.0 -> 2.125 [2.0, 2.25] separated;
b-c 1.5, -1.25 -> 0.125 [-1.25, 1.5] not separated (the interval holds 0).

Ratings (Plackett-Luce, one update per session ranked by chips): the finishing orders are
g1 a>b>c, g2 b>c>a, g3 c>a>b, g4 a>b>c: a wins twice, b's average place is 2.0, c's 2.25,
so by mu the order is a, b, c.
"""

from __future__ import annotations

import pytest

from newmarket_env.eval.tournament.accounting import PARTS
from newmarket_env.eval.tournament.leaderboard import leaderboard_rows, pairwise_matrix
from newmarket_env.eval.tournament.play import GameResult
from newmarket_env.eval.tournament.schedule import GameSpec
from newmarket_env.eval.tournament.summary import speed, standings

LABELS = ["a", "b", "c"]
SESSIONS = [  # block, seats, chips, outs
    (0, (0, 1, 2), [6, -2, -4], [2, 0, 0]),
    (0, (1, 2, 0), [3, -1, -2], [1, 1, 0]),
    (1, (0, 1, 2), [2, -5, 3], [0, 1, 1]),
    (1, (2, 0, 1), [-4, 5, -1], [0, 2, 0]),
]
DEALS = 2


def _results() -> list[GameResult]:
    results = []
    for n, (block, seats, chips, outs) in enumerate(SESSIONS):
        spec = GameSpec(block=block, lineup=0, seating=n % 2, seats=seats, game_seed=block, agent_seeds=(0, 0, 0))
        # All chips booked as card payments, but one chip of each winner's as boodles: the parts add up.
        parts = [dict.fromkeys(PARTS, 0) for _ in seats]
        for seat, c in enumerate(chips):
            parts[seat]["cards"] = c - 1 if c > 0 else c
            parts[seat]["boodles"] = 1 if c > 0 else 0
        results.append(
            GameResult(spec, DEALS, chips, parts, outs, decisions=[10, 20, 30], think_seconds=[1.0, 2.0, 4.0])
        )
    return results


@pytest.fixture(scope="module")
def figures():
    return standings(_results(), LABELS, blocks=2, resamples=2000, seed=0)


def test_standings_order_and_counts(figures):
    rows, _ = figures
    assert [row["agent"] for row in rows] == ["a", "b", "c"]
    assert [(row["games"], row["deals"]) for row in rows] == [(4, 8)] * 3


def test_decisions_are_summed_by_entrant_not_by_seat(figures):
    rows, _ = figures
    # decisions [10, 20, 30] by seat; a sat at seats 0, 2, 0, 1; b at 1, 0, 1, 2; c at 2, 1, 2, 0.
    assert {row["agent"]: row["decisions"] for row in rows} == {
        "a": 10 + 30 + 10 + 20,
        "b": 20 + 10 + 20 + 30,
        "c": 30 + 20 + 30 + 10,
    }


@pytest.mark.parametrize(
    "agent, mean, low, high", [("a", 1.375, 1.0, 1.75), ("b", -0.625, -1.5, 0.25), ("c", -0.75, -1.25, -0.25)]
)
def test_chips_per_deal_and_its_interval(figures, agent, mean, low, high):
    rows, _ = figures
    row = next(r for r in rows if r["agent"] == agent)
    assert row["chips_per_deal"] == pytest.approx({"mean": mean, "low": low, "high": high})


@pytest.mark.parametrize("agent, share", [("a", 0.5), ("b", 0.25), ("c", 0.25)])
def test_won_share(figures, agent, share):
    rows, _ = figures
    row = next(r for r in rows if r["agent"] == agent)
    assert row["won_share"] == pytest.approx({"mean": share, "low": share, "high": share})


def test_parts_per_deal_add_up_to_chips_per_deal(figures):
    rows, _ = figures
    a = next(r for r in rows if r["agent"] == "a")
    # a won g1 (+6) and g4 (+5): boodles 1 + 1, cards 5 + 4 - 2 (g2) + 1 (g3: +2 -> cards 1, boodles 1).
    assert a["parts_per_deal"]["boodles"] == pytest.approx(3 / 8)
    assert a["parts_per_deal"]["cards"] == pytest.approx((5 - 2 + 1 + 4) / 8)
    assert sum(a["parts_per_deal"].values()) == pytest.approx(11 / 8)


@pytest.mark.parametrize(
    "agent, opponent, mean, low, high, separated",
    [
        ("a", "b", 2.0, 0.75, 3.25, True),
        ("a", "c", 2.125, 2.0, 2.25, True),
        ("b", "c", 0.125, -1.25, 1.5, False),
        ("b", "a", -2.0, -3.25, -0.75, True),
        ("c", "a", -2.125, -2.25, -2.0, True),
        ("c", "b", -0.125, -1.5, 1.25, False),
    ],
)
def test_paired_differences_intervals_and_separation(figures, agent, opponent, mean, low, high, separated):
    _, pairs = figures
    pair = next(p for p in pairs if (p["agent"], p["opponent"]) == (agent, opponent))
    assert pair["difference"] == pytest.approx({"mean": mean, "low": low, "high": high})
    assert pair["separated"] is separated


def test_rating_order(figures):
    rows, _ = figures
    by_mu = sorted(rows, key=lambda row: -row["rating"]["mu"])
    assert [row["agent"] for row in by_mu] == ["a", "b", "c"]
    assert all(
        row["rating"]["ordinal"] == pytest.approx(row["rating"]["mu"] - 3 * row["rating"]["sigma"]) for row in rows
    )


def test_leaderboard_and_matrix_show_the_same_figures(figures):
    rows, pairs = figures
    table = leaderboard_rows(rows, speed(_results(), LABELS, wall_seconds=2.0))
    assert [(line[0], line[1], line[2], line[3]) for line in table] == [
        ("1", "a", "+1.38 [+1.00, +1.75]", "50.0"),
        ("2", "b", "-0.62 [-1.50, +0.25]", "25.0"),
        ("3", "c", "-0.75 [-1.25, -0.25]", "25.0"),
    ]
    # Chips per deal by source for a: boodles 3/8, cards 8/8, nothing else (see the parts test).
    assert table[0][4:9] == ("+0.38", "+0.00", "+1.00", "+0.00", "+0.00")
    mu, sigma = rows[0]["rating"]["mu"], rows[0]["rating"]["sigma"]
    assert table[0][9] == f"{mu:.1f}±{sigma:.1f}"
    # decisions per second of thinking: a 70 decisions in 1+4+1+2 = 8 s.
    assert table[0][-1] == f"{70 / 8:,.0f}"
    matrix = pairwise_matrix(rows, pairs)
    assert matrix == [["a", "", "+2.00*", "+2.12*"], ["b", "-2.00*", "", "+0.12"], ["c", "-2.12*", "-0.12", ""]]


@pytest.mark.slow
def test_a_real_tournament_ranks_the_stronger_agent_first_and_separates_it_from_random():
    """control plans its leads; random plays any legal card. Over 30 duplicate blocks control must come
    first, and the paired interval of control minus random must exclude zero. (At 30 blocks the interval
    still reached below zero on seed 0: 3-player sessions of 3 deals are noisy; 100 blocks, 300 sessions,
    give control - random about +2.2 [+1.4, +3.0] chips per deal.)"""
    from newmarket_env.eval.tournament import TournamentConfig, run_tournament

    result = run_tournament(
        TournamentConfig(agents=("random", "lowest", "control"), players=3, blocks=100, resamples=1000)
    )
    assert result.standings[0]["agent"] == "control"
    pair = next(p for p in result.pairwise if (p["agent"], p["opponent"]) == ("control", "random"))
    assert pair["separated"] and pair["difference"]["low"] > 0
