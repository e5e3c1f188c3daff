"""Session players shared by every PettingZoo env: the same random driver for ours and the peers."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

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
