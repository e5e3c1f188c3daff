"""Labels: what the teacher's search thinks of each recorded decision, computed in parallel.

A label is the teacher's choice and the mean chips (to the end of the deal) of every candidate it
compared, ``means[k, action]`` (NaN for actions it did not compare). Decision ``k`` is searched by
a teacher seeded with ``seeds[k]`` alone, exactly as that agent's ``act`` would decide it, so a
label does not depend on which worker computes it nor on how the decisions are split into chunks.

Backends: ``local`` runs the chunks in this process (``workers`` = 1) or in a pool of
``workers`` processes (``concurrent.futures``); ``ray`` runs one Ray task per chunk through
:func:`newmarket_env.execution.backends.map_on_ray`, the project's Ray pattern.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from newmarket_env.agents.guided_search import GuidedSearchAgent
from newmarket_env.agents.saved import SavedAgent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.agents.value_net import ValueNet
from newmarket_env.engine.types import Decision
from newmarket_env.execution.backends import map_on_ray
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import decode

#: Decisions per chunk (one task): large enough to outweigh a task's overhead, small enough to share out.
CHUNK = 16


@dataclass(frozen=True)
class Teacher:
    """How to build the labelling agent (shipped to worker processes, so plain data only)."""

    rules: Rules
    kind: str = "search"  # search | guided_search | guided_prior
    budget: int = 64
    max_candidates: int = 5
    cutoff: int = 0  # guided_search only
    prior_weight: float = 1.0  # guided_prior only (as the exit-<v>-search agents' options)
    racing_worlds: int = 16
    racing_z: float = 1.5
    policy: dict[str, Any] | None = field(default=None, compare=False)  # guided_search: metadata and layers
    value: dict[str, Any] | None = field(default=None, compare=False)

    def column_major(self) -> Teacher:
        """The same teacher with its policy's weight matrices column-major (the same numbers).

        Each decision gets a fresh agent, and a fresh guided-search agent lays the policy's weights out
        column-major (and their transposes row-major) for its forward passes: from row-major weights
        that is two copies of every matrix, about 3 ms a decision, a fifth of a budget-1024 label's time.
        From column-major weights both layouts are views, so a chunk pays the copy once.
        """
        if self.policy is None:
            return self
        layers = [(np.asfortranarray(weight), bias) for weight, bias in self.policy["layers"]]
        return replace(self, policy={**self.policy, "layers": layers})

    def agent(self, seed: int):
        if self.kind == "search":
            return SearchAgent(
                self.rules, seed=seed, budget=self.budget, max_candidates=self.max_candidates, engine="compiled"
            )

        assert self.policy is not None, "a guided_search teacher needs the network"
        policy = SavedAgent(self.rules, seed, self.policy["metadata"], self.policy["layers"], name="learner")
        value = ValueNet(self.value["metadata"], self.value["layers"]) if self.value else None
        if self.kind == "guided_prior":  # the network's candidates and bonus, control's rollouts
            return GuidedSearchAgent(
                self.rules,
                seed,
                policy,
                budget=self.budget,
                max_candidates=self.max_candidates,
                prior="network",
                rollout="control",
                prior_weight=self.prior_weight,
                racing_worlds=self.racing_worlds,
                racing_z=self.racing_z,
            )
        return GuidedSearchAgent(
            self.rules,
            seed,
            policy,
            value,
            budget=self.budget,
            cutoff=self.cutoff,
            max_candidates=self.max_candidates,
            prior="control",
        )


def label_one(agent: Any, obs: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray]:
    """The agent's choice and candidate means for one decision (what its ``act`` decides).

    Stakes and single-option decisions go to the agent's baseline guide, as in ``act``: their
    means row holds 0 at the guide's choice only.
    """
    view = decode(obs, mask)
    means = np.full(NUM_ACTIONS, np.nan)
    if len(view.legal) == 1 or view.decision is Decision.STAKE:
        action = int(agent.guide.decide(view))
        means[action] = 0.0
        return action, means
    agent.observation = np.asarray(obs, dtype=np.float32)  # guided_search's network prior reads it
    candidates = agent.candidates(view)
    if getattr(agent, "prior_weight", 0) or getattr(agent, "racing_worlds", 0):
        # guided_prior: each candidate's score (mean chips over the worlds the race gave it, plus the
        # network's bonus) and the race's winner, as act() decides (race_trace is its reference)
        bonus = agent.bonus(candidates)  # the network's logits that chose the candidates, not computed again
        if agent.racing_worlds:
            winner, chips, _, _ = agent.race_trace(view, candidates, bonus)
        else:
            chips = agent.evaluate(view, candidates)
            winner = int(np.argmax(chips + bonus))
        means[candidates] = chips + bonus
        return int(candidates[winner]), means
    values = agent.evaluate(view, candidates)
    means[candidates] = values
    return int(candidates[int(np.argmax(values))]), means


def label_chunk(teacher: Teacher, chunk: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Actions ``(K,)`` and means ``(K, 79)`` of one chunk of decisions ``(obs, masks, seeds)``."""
    obs, masks, seeds = chunk
    teacher = teacher.column_major()
    actions = np.empty(len(seeds), dtype=np.int64)
    means = np.empty((len(seeds), NUM_ACTIONS))
    for k, seed in enumerate(seeds):
        actions[k], means[k] = label_one(teacher.agent(int(seed)), obs[k], masks[k])
    return actions, means


def one_thread_each() -> None:
    """In a label process: its compiled batches (a guided teacher's rollouts) step on one thread, the processes
    already sharing the cores between them."""
    os.environ["NEWMARKET_THREADS"] = "1"


def _map_processes(function: Callable, shared: Any, items: Sequence[Any], workers: int) -> list[Any]:
    # spawn, not fork: the parent holds torch's thread pools, which a forked child can deadlock on
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=one_thread_each
    ) as pool:
        return list(pool.map(function, [shared] * len(items), items))


def label_states(
    teacher: Teacher,
    obs: np.ndarray,
    masks: np.ndarray,
    seeds: Sequence[int],
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Label every decision; the same labels for any ``workers``, ``backend`` and chunking."""
    seed_array = np.asarray(seeds, dtype=np.int64)
    chunks = [
        (obs[i : i + CHUNK], masks[i : i + CHUNK], seed_array[i : i + CHUNK]) for i in range(0, len(seed_array), CHUNK)
    ]
    if backend == "ray":
        results = map_on_ray(label_chunk, teacher, chunks, address=address, num_cpus=workers)
    elif workers > 1 and len(chunks) > 1:
        results = _map_processes(label_chunk, teacher, chunks, min(workers, len(chunks)))
    else:
        results = [label_chunk(teacher, chunk) for chunk in chunks]
    if not results:
        return np.empty(0, dtype=np.int64), np.empty((0, NUM_ACTIONS))
    return np.concatenate([a for a, _ in results]), np.concatenate([m for _, m in results])


def policy_targets(actions: np.ndarray, means: np.ndarray, target: str, temperature: float) -> np.ndarray:
    """Target distributions ``(K, 79)``: one-hot at the teacher's choice, or a softmax of the candidates'
    mean chips divided by ``temperature`` (zero outside the candidates).

    >>> means = np.full((1, 79), np.nan); means[0, [3, 5]] = [1.0, 0.0]
    >>> t = policy_targets(np.array([3]), means, "softmax", 1.0)
    >>> round(float(t[0, 3]), 4), round(float(t[0, 5]), 4), float(t.sum())
    (0.7311, 0.2689, 1.0)
    """
    out = np.zeros((len(actions), NUM_ACTIONS), dtype=np.float32)
    if target == "choice":
        out[np.arange(len(actions)), actions] = 1.0
        return out
    scaled = np.where(np.isnan(means), -np.inf, means / temperature)
    scaled -= scaled.max(axis=1, keepdims=True)
    weights = np.exp(scaled)
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
