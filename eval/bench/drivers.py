"""Session players: the random driver shared by every PettingZoo env (ours and the peers), and the sessions
of one measured agent at seat 0 against ``control`` at the others."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from newmarket_env import env as make_env
from newmarket_env.agents import load_agent
from newmarket_env.eval.bench.timing import SessionPlayer


def aec_random_player(make_env: Callable[[], Any], seeded: bool = True) -> SessionPlayer:
    """A session player over a PettingZoo AEC env: agent_iter, last, step a random legal action.

    The env is built once; each session is a ``reset(seed)`` (``seeded``) or a ``reset()`` (not
    ``seeded``: what a training loop does after its first episode, the env going on from its own
    random state) and a full episode. Reseeding costs some envs much more than others (RLCard's
    Hold'em builds a new generator and game), so both are measured. The random actions are drawn
    from ``seed`` either way. The observation (with its action mask) is built by ``last()`` at every
    step, as a training loop would.
    """
    aec = make_env()

    def play(seed: int) -> int:
        rng = random.Random(seed)
        if seeded:
            aec.reset(seed=seed)
        else:
            aec.reset()
        decisions = 0
        for _agent in aec.agent_iter():
            observation, _reward, termination, truncation, _info = aec.last()
            if termination or truncation:
                aec.step(None)
                continue
            aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            decisions += 1
        return decisions

    return play


def seat_zero_player(measured: Callable[[Any, int], Any], variants: Sequence[str], players: int) -> SessionPlayer:
    """Whole sessions with ``measured(env, seed)`` at seat 0 and ``control`` at the others.

    Session ``seed`` is played in ``variants[seed % len(variants)]`` (one env per variant, built here);
    a session counts the decisions of seat 0 only, though every seat's are timed.
    """
    envs = {variant: make_env(variant=variant, num_players=players) for variant in variants}

    def play(seed: int) -> int:
        e = envs[variants[seed % len(variants)]]
        e.reset(seed=seed)
        seats = [measured(e, seed)]
        seats += [load_agent("control", env=e, seed=seed + s) for s in range(1, players)]
        decisions = 0
        for agent in e.agent_iter():
            observation, _reward, termination, truncation, _info = e.last()
            if termination or truncation:
                e.step(None)
                continue
            seat = int(agent.rsplit("_", 1)[1])
            decisions += seat == 0
            e.step(seats[seat].act(observation))
        return decisions

    return play
