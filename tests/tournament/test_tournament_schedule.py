"""Duplicate scheduling: every agent holds every seat equally often, on the same deals."""

from collections import Counter
from itertools import combinations

import pytest

from newmarket_env.eval.tournament.entrants import Entrant
from newmarket_env.eval.tournament.play import TablePlayer, TableSetup, block_deals
from newmarket_env.eval.tournament.schedule import build_schedule, meetings, seatings
from newmarket_env.game.rules import make_rules


def seat_counts(specs):
    """(block, entrant, seat) -> sessions."""
    return Counter((s.block, e, seat) for s in specs for seat, e in enumerate(s.seats))


@pytest.mark.parametrize("entrants,players,permutations", [(4, 4, False), (4, 4, True), (6, 4, False), (5, 3, True)])
def test_each_agent_sits_in_each_seat_equally_often(entrants, players, permutations):
    _tables, specs = build_schedule(entrants, players, blocks=3, seed=1, permutations=permutations)
    counts = seat_counts(specs)
    assert set(counts) == {(b, e, s) for b in range(3) for e in range(entrants) for s in range(players)}
    assert len(set(counts.values())) == 1


def test_all_combinations_meet_each_pair_equally_often():
    tables, _ = build_schedule(6, 4, blocks=1, seed=0)
    assert sorted(tables) == list(combinations(range(6), 4))
    count = meetings(tables, 6)
    assert {count[a, b] for a, b in combinations(range(6), 2)} == {6}


@pytest.mark.parametrize("entrants,max_lineups,spread", [(7, 20, 0), (9, 20, 0), (9, 15, 1), (12, 20, 1)])
def test_balanced_design_when_combinations_are_too_many(entrants, max_lineups, spread):
    tables, specs = build_schedule(entrants, 4, blocks=1, seed=0, max_lineups=max_lineups)
    assert len(tables) <= max(max_lineups, entrants) < len(list(combinations(range(entrants), 4)))
    plays = Counter(e for t in tables for e in t)
    assert len(plays) == entrants and len(set(plays.values())) == 1
    count = [meetings(tables, entrants)[a, b] for a, b in combinations(range(entrants), 2)]
    assert min(count) >= 1 and max(count) - min(count) == spread
    assert len(set(seat_counts(specs).values())) == 1


def test_permutations_refused_above_four_seats():
    with pytest.raises(ValueError, match="at most 4 seats"):
        seatings(5, permutations=True)


def test_every_session_of_a_block_plays_the_block_deals_and_seeds():
    setup = TableSetup("newmarket", 4, {}, tuple(Entrant(f"r{i}", "random") for i in range(4)))
    _, specs = build_schedule(4, 4, blocks=2, seed=5)
    player = TablePlayer(setup)
    rules = make_rules("newmarket", 4)
    for spec in specs:
        player.play(spec)
        dealt = [{k: d[k] for k in ("dealer", "hands", "dead")} for d in player.env.record()["deals"]]
        assert dealt == block_deals(rules, spec.game_seed)
    by_block = {}
    for spec in specs:
        by_block.setdefault(spec.block, set()).add(spec.game_seed)
    assert all(len(seeds) == 1 for seeds in by_block.values()) and len(by_block) == 2
    assert len({s.agent_seeds for s in specs}) == len(specs)  # agents re-seeded per session
