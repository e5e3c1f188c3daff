"""Saved agents by path, and seatings in every order, through the real tournament."""

import numpy as np
import pytest

from newmarket_env.agents.saved import save_policy
from newmarket_env.eval.tournament import TournamentConfig, run_tournament
from newmarket_env.eval.tournament.cli import main
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import FLAT_SIZE


def write_agent(path, variant="newmarket"):
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(NUM_ACTIONS, FLAT_SIZE)).astype(np.float32), np.zeros(NUM_ACTIONS, np.float32))]
    save_policy(path, layers, make_rules(variant, 4), variant, "tanh")
    return str(path)


def test_saved_agent_by_path_plays_against_copies_of_random(tmp_path):
    path = write_agent(tmp_path / "tiny-net.npz")
    result = run_tournament(TournamentConfig(agents=(path, "random", "random", "random"), blocks=2, resamples=50))
    assert sorted(row["agent"] for row in result.standings) == ["random", "random#2", "random#3", "tiny-net"]
    total = sum(row["chips_per_deal"]["mean"] for row in result.standings)
    assert total == pytest.approx(0.0, abs=1e-9)  # chips are conserved, and every entrant plays as many deals


def test_saved_agent_for_other_rules_is_bad_input(tmp_path, capsys):
    path = write_agent(tmp_path / "for-michigan.npz", variant="michigan")
    assert main(["--agents", f"{path},random,random,random", "--quiet", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "for-michigan.npz" in err


def test_permutations_seat_every_order():
    result = run_tournament(
        TournamentConfig(agents=("random",) * 3, players=3, blocks=1, permutations=True, resamples=20)
    )
    assert len(result.games) == 6
    assert sorted(g.spec.seats for g in result.games) == sorted(
        [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    )
