"""Warm start: imitate a baseline teacher before PPO (behaviour cloning plus value regression).

PPO from scratch needs far more decisions than a shared 2-core machine gives in
an hour, and most early ones are spent rediscovering the basics. So the policy
first copies a rule-based teacher (``pretrain.teacher``, e.g. ``control``) on
decisions it takes at tables of baselines, and the value head regresses on the
chips the teacher's seat won from each decision to the session's end; PPO then
improves on that policy against the opponent pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from newmarket_env.envs.aec import raw_env
from newmarket_env.envs.learner_options import LearnerSeat


@dataclass
class Demonstrations:
    """Teacher decisions: observations, masks, actions and chips-to-go (reward-scaled); ``obs`` is each
    observation followed by the privileged state of the teacher's seat when collected ``with_states``."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray


def _table(rng: np.random.Generator, n: int, teacher: str, pool: Sequence[str]) -> list[str]:
    """Each seat: the teacher half of the time, else a pool baseline; at least one teacher."""
    table = [teacher if rng.random() < 0.5 else pool[int(rng.integers(len(pool)))] for _ in range(n)]
    table[int(rng.integers(n))] = teacher
    return table


def collect(
    teacher: str,
    samples: int,
    *,
    learner_seat: LearnerSeat,
    variant: str = "newmarket",
    num_players: int | None = None,
    seed: int = 0,
    with_states: bool = False,
    **rules: Any,
) -> Demonstrations:
    """Play sessions until ``samples`` teacher decisions are recorded, at tables of the game a training
    table is built with (``variant``, ``num_players``, rules overrides: ``TrainConfig.table_keywords()``).

    From ``learner_seat`` (the training tables' spec): the pool that fills the seats the teacher does
    not (``opponents``), the scale of the chips-to-go (``reward_scale``) and the factory that builds
    every agent, the teacher's too. ``with_states``: each observation is followed by the privileged state
    counted from the teacher's seat (the inputs of a PPO model that trains with it, train/ppo/privileged.py).
    """
    aec = raw_env(variant=variant, num_players=num_players, **rules)
    rng = np.random.default_rng(seed)
    pool, build = learner_seat.opponents, learner_seat.factory
    agents = {
        (name, seat): build(name, env=aec, seed=seed + seat)
        for name in {teacher, *pool}
        for seat in range(aec.rules.num_players)
    }
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    while len(actions) < samples:
        table = _table(rng, aec.rules.num_players, teacher, pool)
        aec.reset(seed=int(rng.integers(2**31)))
        for seat, name in enumerate(table):
            agents[(name, seat)].reset()
        taken: list[tuple[int, int]] = []  # (seat, balance at the decision) of recorded decisions
        game = aec.game
        while not game.over:
            seat = game.to_act
            view = aec.observe(f"player_{seat}")
            action = int(agents[(table[seat], seat)].act(view))
            if table[seat] == teacher:
                seen = view["observation"]
                obs.append(np.concatenate([seen, aec.state_for(f"player_{seat}")]) if with_states else seen.copy())
                masks.append(view["action_mask"].astype(bool))
                actions.append(action)
                taken.append((seat, game.balances[seat]))
            aec.step(action)
        returns.extend((game.balances[seat] - before) * learner_seat.reward_scale for seat, before in taken)
    return Demonstrations(np.array(obs), np.array(masks), np.array(actions), np.array(returns, dtype=np.float32))


def pretrain(
    model: Any,
    demos: Demonstrations,
    epochs: int,
    learning_rate: float,
    value_weight: float,
    batch_size: int = 256,
    seed: int = 0,
) -> list[float]:
    """Fit the policy to the teacher's actions and the value to its returns; mean loss per epoch."""
    import torch  # optional: needs torch (train extra)

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    data = [torch.as_tensor(a) for a in (demos.obs, demos.masks, demos.actions, demos.returns)]
    rng = np.random.default_rng(seed)
    history = []
    for _ in range(epochs):
        order = rng.permutation(len(demos.actions))
        losses = []
        for start in range(0, len(order), batch_size):
            idx = torch.as_tensor(order[start : start + batch_size])
            obs, masks, actions, returns = (t[idx] for t in data)
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks.numpy())
            loss = -log_prob.mean() + value_weight * torch.nn.functional.mse_loss(values.flatten(), returns)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        history.append(float(np.mean(losses)))
    return history


def teacher_agreement(model: Any, demos: Demonstrations) -> float:
    """Share of demonstration decisions where the greedy policy picks the teacher's action."""
    import torch  # optional: needs torch (train extra)

    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(demos.obs), action_masks=demos.masks)
        chosen = dist.distribution.probs.argmax(dim=1).numpy()
    return float(np.mean(chosen == demos.actions))
