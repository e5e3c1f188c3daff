"""The AEC env's per-step bookkeeping (rewards, masks) against figures read straight from its game.

The env updates only what changed at a step (the rewards when a balance moved, the masks of the
seat that held the legal mask and of the seat to act); these tests recompute every agent's mask
and reward from the game at every step and check that no mask handed out is written to later.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from newmarket_env import env
from newmarket_env.engine.choice import compiled_available
from newmarket_env.game import actions as A

ENGINES = ["python", "compiled"] if compiled_available() else ["python"]


def expected_mask(game, seat: int) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    if not game.over and game.to_act == seat:
        mask[list(game.legal)] = 1
    return mask


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("variant", "players", "present_forced"),
    [("newmarket", 4, False), ("michigan", 3, True), ("newbury", 4, False), ("newmarket", 7, True)],
)
def test_masks_and_rewards_follow_the_game_at_every_step(engine, variant, players, present_forced):
    aec = env(variant=variant, num_players=players, engine=engine, present_forced=present_forced)
    handed_out: list[tuple[np.ndarray, np.ndarray]] = []  # (the mask given, a copy taken then)
    rng = random.Random(7)
    nonzero_steps = 0
    for session in range(6):
        aec.reset(seed=None if session % 2 else session)  # unseeded resets too, as a training loop does
        game = aec.unwrapped.game
        start = aec.unwrapped.rules.starting_chips
        seen = [start] * players  # stakes paid inside reset are rewarded at the first step
        if not game.over:  # (a session that ended inside reset is paid out at once)
            assert all(r == 0 for r in aec.rewards.values()), "rewards right after reset must be zero"
        totals = dict.fromkeys(aec.possible_agents, 0.0)
        for _agent in aec.agent_iter():
            observation, _cumulative, termination, truncation, info = aec.last()
            assert observation["action_mask"] is info["action_mask"]
            for seat, name in enumerate(aec.possible_agents):
                if name not in aec.infos:  # removed by its dead step
                    continue
                mask = aec.infos[name]["action_mask"]
                np.testing.assert_array_equal(mask, expected_mask(game, seat), err_msg=f"{name}'s mask")
                handed_out.append((mask, mask.copy()))
            if termination or truncation:
                aec.step(None)
                continue
            action = rng.choice(list(game.legal))
            aec.step(action)
            balances = list(game.balances)
            for seat, name in enumerate(aec.possible_agents):
                assert aec.rewards[name] == balances[seat] - seen[seat], f"{name}'s reward after {action}"
                totals[name] += aec.rewards[name]
            nonzero_steps += any(b != s for b, s in zip(balances, seen, strict=True))
            seen = balances
        assert [totals[a] for a in aec.possible_agents] == [b - start for b in seen]
    assert nonzero_steps > 0, "no step moved chips: the reward checks saw only zeros"
    for given, copy in handed_out:
        np.testing.assert_array_equal(given, copy, err_msg="a mask handed out was written to later")


def _outcome(call) -> str:
    try:
        call()
    except Exception as err:  # the kind and text of the error are what is compared
        return f"{type(err).__name__}: {err}"
    return "no error"


def test_wrapper_shortcuts_behave_as_pettingzoos_wrapper():
    """``last``, ``step`` and ``agent_iter`` of our wrapper against PettingZoo's own, before and after reset."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    from newmarket_env import raw_env

    ours, theirs = env(), OrderEnforcingWrapper(raw_env())
    for name, call in (
        ("last", lambda e: e.last()),
        ("step", lambda e: e.step(0)),
        ("agent_iter", lambda e: e.agent_iter()),
    ):
        assert _outcome(lambda c=call: c(ours)) == _outcome(lambda c=call: c(theirs)), f"{name} before reset"
    for wrapped in (ours, theirs):
        wrapped.reset(seed=3)
    played = {}
    for label, wrapped in (("ours", ours), ("theirs", theirs)):
        steps = []
        for agent in wrapped.agent_iter():
            observation, reward, termination, truncation, _info = wrapped.last()
            steps.append((agent, reward, termination, observation["observation"].tobytes()))
            wrapped.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
        played[label] = steps
        # a step after the session: the same warning, no error
        assert _outcome(lambda w=wrapped: w.step(None)) == "no error"
        iterator = iter(wrapped.agent_iter())
        assert _outcome(lambda it=iterator: next(it)) == "StopIteration: "
    assert played["ours"] == played["theirs"]
    ours.reset(seed=1)
    iterator = iter(ours.agent_iter())
    next(iterator)
    with pytest.raises(AssertionError, match=r"need to call step\(\) or reset\(\)"):
        next(iterator)
