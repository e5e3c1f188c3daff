"""Smaller parts of a tournament's plan, each against a figure worked out by hand: balanced line-ups
when there are too many combinations, the pinned seeds of the deals, the default results folder's
name, the ``--set`` values, the options the slow agents play with, and a load failure's message."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from newmarket_env import raw_env
from newmarket_env.agents import registry
from newmarket_env.eval.tournament.config import SLOW_AGENT_OPTIONS, parse_set_value
from newmarket_env.eval.tournament.entrants import Entrant, check_entrant, make_entrants
from newmarket_env.eval.tournament.output import MAX_AGENTS_PART, default_folder
from newmarket_env.eval.tournament.schedule import build_schedule, cyclic_design, meetings


def _pair_meetings(tables, entrants):
    count = meetings(tables, entrants)
    return {int(count[a, b]) for a, b in combinations(range(entrants), 2)}


@pytest.mark.parametrize(
    "entrants, players, room, tables, meets",
    [
        # 13 agents at 4 seats, room for 13 line-ups: the projective plane of order 3 (13 lines of 4
        # points, each pair of points on exactly one line) is a cyclic difference set, {0, 1, 3, 9} mod 13.
        (13, 4, 13, 13, {1}),
        # 9 agents at 4 seats, room for 18: 36 pairs, 18 tables of 6 pairs = 108 = 36 x 3, and two base
        # tables can cover every difference mod 9 three times, so every pair meets exactly 3 times.
        (9, 4, 18, 18, {3}),
        # 7 agents at 4 seats, room for 10: the (7, 4, 2) design (the Fano plane's complements), 7 tables.
        (7, 4, 10, 7, {2}),
    ],
)
def test_a_cyclic_design_meets_every_pair_equally_often_when_it_can(entrants, players, room, tables, meets):
    design = cyclic_design(entrants, players, room)
    assert len(design) == tables
    assert all(len(set(table)) == players for table in design)  # no agent twice at a table
    plays = Counter(e for table in design for e in table)
    assert set(plays) == set(range(entrants)) and len(set(plays.values())) == 1
    assert _pair_meetings(design, entrants) == meets


def test_too_many_combinations_switch_to_the_cyclic_design():
    # C(9, 4) = 126 combinations > 18 allowed line-ups: the balanced design of 18 above is used instead.
    tables, specs = build_schedule(9, 4, blocks=1, seed=0, max_lineups=18)
    assert len(tables) == 18 and _pair_meetings(tables, 9) == {3}
    assert len(specs) == 18 * 4  # each line-up in its 4 rotations


def test_the_deals_of_a_block_are_pinned():
    """The game seeds of seed 0 are those of the results already published (README's leaderboard,
    docs/training): a different derivation would make earlier runs impossible to repeat."""
    _, specs = build_schedule(4, 4, blocks=2, seed=0)
    assert sorted({(s.block, s.game_seed) for s in specs}) == [(0, 3964924996), (1, 901243215)]
    _, other = build_schedule(4, 4, blocks=1, seed=5)
    assert {s.game_seed for s in other} == {3796490668}
    # agents' seeds come from another stream: none equals a block's deal seed
    assert not {s.game_seed for s in specs} & {seed for s in specs for seed in s.agent_seeds}


def test_a_long_agent_list_gives_a_short_distinct_folder_name():
    many = [f"runs/experiment_{n}/final.npz" for n in range(12)]
    first, second = default_folder("newmarket", 4, 0, many), default_folder("newmarket", 4, 0, many[::-1])
    agent_part = first.removeprefix("results/tournament-newmarket-4p-").removesuffix("-seed0")
    name, digest = agent_part.rsplit("-", 1)
    assert len(name) <= MAX_AGENTS_PART and name.startswith("final-final-final")
    assert len(digest) == 8 and int(digest, 16) >= 0
    assert first != second  # same names, another order: another folder


def test_a_folder_name_keeps_only_safe_characters():
    name = default_folder("michigan", 5, 2, ["runs/my run (v2)/best net.npz", "greedy"])
    assert name == "results/tournament-michigan-5p-best_net-greedy-seed2"


@pytest.mark.parametrize(
    "text, value",
    [
        ("Yes", True),
        ("TRUE", True),
        ("On", True),
        ("No", False),
        ("OFF", False),
        ("false", False),
        (" 12 ", 12),
        ("-1", -1),
        ("AS,KS", ("AS", "KS")),
        ("[AS KS]", ("AS", "KS")),
        ("(AS, KS,)", ("AS", "KS")),
        ("dealer_buy", "dealer_buy"),
    ],
)
def test_set_values_are_read_as_the_rules_expect(text, value):
    assert parse_set_value(text) == value


def test_slow_agents_play_tournaments_at_their_tournament_options():
    """search at its default budget (64) would make the shipped tournament take an hour; a tournament
    seats it at budget 8 unless told otherwise, and says so in its results."""
    assert SLOW_AGENT_OPTIONS == {"search": {"budget": 8}}
    entrants = make_entrants(["search", "greedy", "search"], {})
    assert [(e.label, dict(e.options)) for e in entrants] == [
        ("search", {"budget": 8}),
        ("greedy", {}),
        ("search#2", {"budget": 8}),
    ]
    told = make_entrants(["search"], {"search": {"budget": 2}})
    assert dict(told[0].options) == {"budget": 2}


def test_ray_workers_get_absolute_paths_for_files_and_names_for_registered_agents(tmp_path, monkeypatch):
    """Ray workers run in other folders: a saved agent's relative path is made absolute. A registered
    name stays a name even when a file of that name lies in the folder (load_agent prefers the name)."""
    from newmarket_env.eval.tournament.backends import _portable
    from newmarket_env.eval.tournament.play import TableSetup

    monkeypatch.chdir(tmp_path)
    (tmp_path / "greedy").write_text("not an agent")
    (tmp_path / "mine.npz").write_bytes(b"")
    entrants = (Entrant("greedy", "greedy"), Entrant("mine", "mine.npz"), Entrant("random", "random"))
    setup = _portable(TableSetup("newmarket", 3, {}, entrants))
    assert [e.spec for e in setup.entrants] == ["greedy", str(tmp_path / "mine.npz"), "random"]
    assert [e.label for e in setup.entrants] == ["greedy", "mine", "random"]


@pytest.mark.parametrize("item", ["search:budget", "search=budget", ":budget=3", "search:=3", "budget=3"])
def test_an_agent_option_must_be_agent_colon_key_equals_value(item):
    from newmarket_env.eval.tournament.config import parse_agent_options

    with pytest.raises(ValueError) as caught:
        parse_agent_options([item])
    assert str(caught.value) == f"--agent-option {item!r} is not AGENT:KEY=VALUE, e.g. --agent-option search:budget=50"
    assert parse_agent_options(["search:budget=3", " greedy : engine = python "]) == {
        "search": {"budget": 3},
        "greedy": {"engine": "python"},
    }


@pytest.mark.parametrize(
    "error, message",
    [
        # a TypeError that is not about an option
        (
            TypeError("cannot unpack non-iterable int object"),
            "agent 'failing' could not be loaded (TypeError: cannot unpack non-iterable int object)",
        ),
        # any other error, its message on one line
        (
            FileNotFoundError("weights.bin:\n  not found"),
            "agent 'failing' could not be loaded (FileNotFoundError: weights.bin: not found)",
        ),
    ],
)
def test_a_load_failure_names_the_agent_and_the_error_on_one_line(monkeypatch, error, message):
    def failing(rules, seed=None, **options):
        raise error

    monkeypatch.setitem(registry._REGISTRY, "failing", failing)
    with pytest.raises(ValueError) as caught:
        check_entrant(Entrant("failing", "failing", {}), raw_env(variant="newmarket"))
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "block_differences, separated",
    [
        ([-0.5, 0.5], False),  # interval [-0.5, +0.5]: holds 0, high end below 1
        ([0.25, 0.75], True),  # [+0.25, +0.75]: above 0
        ([-0.75, -0.25], True),  # below 0
        ([-2.0, 0.0], False),  # touches 0: not separated
    ],
)
def test_a_pair_is_separated_only_when_its_interval_excludes_zero(block_differences, separated):
    """Two blocks: a bootstrap mean is block 0's value, block 1's or their average, so the 95% interval
    is exactly [min, max] of the two (see test_tournament_figures)."""
    import numpy as np

    from newmarket_env.eval.tournament.stats import resample_indices
    from newmarket_env.eval.tournament.summary import BlockTotals, _pair_row

    chips = np.array([[d, 0.0] for d in block_differences]) * 4  # 4 deals a block for both entrants
    totals = BlockTotals(chips=chips, deals=np.full((2, 2), 4.0), outs=np.zeros((2, 2)))
    row = _pair_row(["x", "y"], 0, 1, totals, resample_indices(2, 2000, seed=0))
    low, high = min(block_differences), max(block_differences)
    assert row["difference"] == pytest.approx({"mean": sum(block_differences) / 2, "low": low, "high": high})
    assert row["separated"] is separated
