"""Session players shared by every PettingZoo env: the same random driver for ours and the peers."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from newmarket_env.eval.bench.timing import SessionPlayer


def aec_random_player(make_env: Callable[[], Any]) -> SessionPlayer:
    """A session player over a PettingZoo AEC env: agent_iter, last, step a random legal action.

    The env is built once; each session is a ``reset(seed)`` and a full
    episode. The observation (with its action mask) is built by ``last()`` at
    every step, as a training loop would.
    """
    aec = make_env()

    def play(seed: int) -> int:
        rng = random.Random(seed)
        aec.reset(seed=seed)
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
