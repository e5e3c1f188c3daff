"""What a training run will hold in memory, estimated from its config, against what the machine has.

A config can ask for more than any machine holds (``dmc.states: 10000000``, sixteen layers of 4096): such a
run used to start and die hours later, or push the machine into swap. :func:`check_memory` estimates the
largest parts a run keeps (the decisions it trains on, the networks with their gradients and Adam's two
moments) and refuses the run in one line when they exceed the memory available now (Linux's
``MemAvailable``; elsewhere the free pages). It is an estimate from below: the Python process, torch and
the envs come on top.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence

from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.methods import get_method

FLOAT32 = 4
#: A weight costs itself, its gradient and Adam's two moments, in float32.
TRAINED_WEIGHT_BYTES = 4 * FLOAT32
#: One decision kept to train on: its observation (float32), legal-action mask (bool), action (int64) and
#: return (float32); expert iteration also keeps the teacher's mean chips per action (float64).
DECISION_BYTES = FLAT_SIZE * FLOAT32 + NUM_ACTIONS + 8 + FLOAT32
EXPERT_LABEL_BYTES = DECISION_BYTES + NUM_ACTIONS * 8
#: One step of a PPO rollout (SB3's buffer): observation, mask and six float32 scalars.
ROLLOUT_STEP_BYTES = (FLAT_SIZE + NUM_ACTIONS + 6) * FLOAT32
GB = 1e9


def weights(sizes: Sequence[int]) -> int:
    """Weights and biases of the linear layers between ``sizes``.

    >>> weights([936, 16, 79])
    16335
    """
    return sum((a + 1) * b for a, b in itertools.pairwise(sizes))


def actor_critic(hidden: Sequence[int]) -> int:
    """Weights of a policy MLP (79 logits) and a value MLP of the same hidden sizes."""
    return weights([FLAT_SIZE, *hidden, NUM_ACTIONS]) + weights([FLAT_SIZE, *hidden, 1])


def estimate(config: TrainConfig) -> dict[str, int]:
    """Bytes of the largest parts the run keeps, by what they are (its method's :meth:`Method.memory`)."""
    return dict(get_method(config.method).memory(config))


def available_bytes() -> int | None:
    """Memory available to a new process now (``MemAvailable`` of /proc/meminfo), or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(config: TrainConfig, available: int | None = None) -> None:
    """A one-line ``ValueError`` when the run's estimate is above ``available`` bytes (default: what the machine
    has available now); nothing where that is unknown."""
    available = available_bytes() if available is None else available
    if available is None:
        return
    parts = estimate(config)
    needed = sum(parts.values())
    if needed <= available:
        return
    largest = max(parts, key=lambda name: parts[name])
    raise ValueError(
        f"the run needs about {needed / GB:.1f} GB of memory, more than the {available / GB:.1f} GB available "
        f"on this machine; most of it is {largest} ({parts[largest] / GB:.1f} GB): make it smaller"
    )


__all__ = ["actor_critic", "available_bytes", "check_memory", "estimate", "weights"]
