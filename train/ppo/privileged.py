"""PPO that trains with what the players cannot see, and plays without it.

Two levers, each a switch of the ``privileged`` config section (method ``ppo``):

- **A critic that sees the privileged state** (PerfectDou's "perfect-training, imperfect-execution";
  MAPPO's centralised critic): the value network reads the observation and the privileged state
  (:mod:`newmarket_env.observation.state_layout`: every hand, the dead hand, the table), so its advantage
  estimates are less noisy; the policy reads the observation only.
- **Oracle guiding** (Suphx): the policy reads the observation and the privileged state, the state's
  part multiplied by a weight that falls linearly from 1 to 0 between two points of the run
  (``privileged.oracle_fade``, fractions of ``run.total_steps``) and stays 0 after; the policy learns
  first with the cards in view, then to do without them.

How it fits SB3's MaskablePPO: :class:`PrivilegedVecEnv` appends the privileged state of each table's
learner seat (``VectorEnv.states()``) to its observation, so the rollout buffer holds both;
:class:`PrivilegedPolicy` splits them again: its actor reads the observation (and, with oracle guiding,
the weighted state), its critic what the config gives it.

What is saved never reads the state: :func:`newmarket_env.train.export.policy_layers` keeps only the
observation's columns of the policy's first layer (with oracle guiding, the state's columns are dropped;
after the fade their weight is 0, so the saved policy is the trained one). A saved agent's input is the
observation, as every other saved agent's, and nothing that plays (opponents, snapshots, evaluations,
shipped files) gets the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnvWrapper

from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.state_layout import STATE_SIZE


def oracle_weight(steps: int, total_steps: int, start: float, end: float) -> float:
    """The weight of the oracle's inputs after ``steps`` of ``total_steps``: 1 up to the fraction ``start``
    of the run, 0 from the fraction ``end``, linear between.

    >>> [oracle_weight(s, 100, 0.2, 0.6) for s in (0, 20, 40, 60, 90)]
    [1.0, 1.0, 0.5, 0.0, 0.0]
    >>> oracle_weight(0, 100, 0.0, 0.0)
    0.0
    """
    begin, stop = start * total_steps, end * total_steps
    if steps >= stop:
        return 0.0
    if steps <= begin:
        return 1.0
    return float(1.0 - (steps - begin) / (stop - begin))


class OracleFade(BaseCallback):
    """Sets the oracle inputs' weight (:func:`oracle_weight`) before each rollout, from the steps done; the
    weight of a rollout stays fixed through its collection and its update."""

    def __init__(self, total_steps: int, start: float, end: float) -> None:
        super().__init__()
        self.total_steps, self.start, self.end = total_steps, start, end

    def _on_rollout_start(self) -> None:
        weight = oracle_weight(self.model.num_timesteps, self.total_steps, self.start, self.end)
        policy = self.model.policy
        assert isinstance(policy, PrivilegedPolicy), "oracle guiding needs the privileged policy"
        policy.set_oracle_weight(weight)
        self.logger.record("privileged/oracle_weight", weight)

    def _on_step(self) -> bool:
        return True


class PrivilegedVecEnv(VecEnvWrapper):
    """The SB3 vector env of compiled tables (:class:`newmarket_env.train.vec.SB3VecEnv`) with each table's
    privileged state (seats counted from its learner's) appended to its observation.

    A finished session's ``terminal_observation`` gets zeros for its state (the table already holds the
    next session): sessions end terminated, so PPO never bootstraps from it.
    """

    def __init__(self, venv: Any) -> None:
        vector = getattr(venv, "vector", None)
        if vector is None or not hasattr(vector, "states"):
            raise ValueError(
                "the privileged state needs the compiled tables (run.vec_env: batch); "
                f"got {type(venv).__name__}, which has no states()"
            )
        self.vector = vector
        low = np.concatenate([venv.observation_space.low, np.full(STATE_SIZE, -np.inf, dtype=np.float32)])
        high = np.concatenate([venv.observation_space.high, np.full(STATE_SIZE, np.inf, dtype=np.float32)])
        super().__init__(venv, observation_space=spaces.Box(low, high, dtype=np.float32))

    def _with_states(self, obs: np.ndarray) -> np.ndarray:
        return np.concatenate([obs, self.vector.states()], axis=1)

    def reset(self) -> np.ndarray:
        return self._with_states(np.asarray(self.venv.reset()))

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        obs = np.asarray(obs)
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = np.concatenate(
                    [info["terminal_observation"], np.zeros(STATE_SIZE, dtype=np.float32)]
                )
        return self._with_states(obs), rewards, dones, infos


class PrivilegedExtractor(torch.nn.Module):
    """SB3's ``MlpExtractor`` with inputs chosen per head: the actor reads the observation (plus the weighted
    state with ``oracle``), the critic the observation (plus the state with ``critic_state``)."""

    oracle_weight: torch.Tensor  # a buffer (register_buffer below)

    def __init__(
        self,
        pi_arch: Sequence[int],
        vf_arch: Sequence[int],
        activation_fn: type[torch.nn.Module],
        critic_state: bool,
        oracle: bool,
    ) -> None:
        super().__init__()
        self.critic_state, self.oracle = critic_state, oracle
        self.policy_net = _layers(FLAT_SIZE + (STATE_SIZE if oracle else 0), pi_arch, activation_fn)
        self.value_net = _layers(FLAT_SIZE + (STATE_SIZE if critic_state else 0), vf_arch, activation_fn)
        self.latent_dim_pi = pi_arch[-1] if pi_arch else FLAT_SIZE + (STATE_SIZE if oracle else 0)
        self.latent_dim_vf = vf_arch[-1] if vf_arch else FLAT_SIZE + (STATE_SIZE if critic_state else 0)
        # the oracle inputs' weight: a buffer, so checkpoints hold it and a resumed run goes on from it
        self.register_buffer("oracle_weight", torch.tensor(1.0 if oracle else 0.0))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        obs = features[:, :FLAT_SIZE]
        if self.oracle:
            return self.policy_net(torch.cat([obs, features[:, FLAT_SIZE:] * self.oracle_weight], dim=1))
        return self.policy_net(obs)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features if self.critic_state else features[:, :FLAT_SIZE])


def _layers(size: int, arch: Sequence[int], activation_fn: type[torch.nn.Module]) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for width in arch:
        layers += [torch.nn.Linear(size, width), activation_fn()]
        size = width
    return torch.nn.Sequential(*layers)


class PrivilegedPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy over ``[observation, privileged state]`` inputs (see :class:`PrivilegedExtractor`).

    Extra keywords: ``critic_state`` and ``oracle`` (bools). ``net_arch`` as SB3's dict ``{"pi": [...],
    "vf": [...]}``.
    """

    def __init__(self, *args: Any, critic_state: bool = True, oracle: bool = False, **kwargs: Any) -> None:
        self.critic_state, self.oracle = critic_state, oracle
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch if isinstance(self.net_arch, dict) else {"pi": self.net_arch, "vf": self.net_arch}
        self.privileged = PrivilegedExtractor(
            arch.get("pi", []), arch.get("vf", []), self.activation_fn, self.critic_state, self.oracle
        ).to(self.device)
        # SB3 calls it through the MlpExtractor interface (forward, forward_actor, forward_critic, latent dims)
        self.mlp_extractor = self.privileged  # type: ignore[assignment]

    def set_oracle_weight(self, weight: float) -> None:
        self.privileged.oracle_weight.fill_(float(weight))

    @property
    def current_oracle_weight(self) -> float:
        return float(self.privileged.oracle_weight)


__all__ = [
    "OracleFade",
    "PrivilegedExtractor",
    "PrivilegedPolicy",
    "PrivilegedVecEnv",
    "oracle_weight",
]
