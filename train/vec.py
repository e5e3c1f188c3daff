"""SB3's ``VecEnv`` over the compiled vector env: MaskablePPO trains on many tables in one object.

:func:`sb3_vec_env` is the one call between Gymnasium's vector API and Stable-Baselines3::

    vec = sb3_vec_env(gymnasium.make_vec("stops/Newmarket-v0", num_envs=256, opponents=["greedy"]))
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=1024)  # torch.set_num_threads(1) first

(``gymnasium.make_vec``'s output is a Gymnasium ``VectorEnv``, which SB3 does not take: given
it directly, SB3 answers that it expects an OpenAI Gym environment.)

:class:`SB3VecEnv` turns :class:`newmarket_env.envs.vector.VectorEnv` (Gymnasium's
vector API, SAME_STEP autoreset) into the ``VecEnv`` contract of
Stable-Baselines3: ``step_async``/``step_wait`` return ``(obs, rewards, dones,
infos)`` with one info dict per table; a table whose session ended has
``terminal_observation`` (the learner's last observation of that session), the
session's ``chips``, ``deals``, ``seat`` and ``opponents`` in its info, and its
observation is already the next session's first (SB3's autoreset convention).
Episode statistics (``info["episode"]`` with ``r``, ``l``, ``t``) come from
wrapping it in SB3's own ``VecMonitor``, as :func:`newmarket_env.train.ppo.learner.build_vec_env` does.

Masks: sb3-contrib reads ``np.stack(env.env_method("action_masks"))``;
``env_method("action_masks")`` returns the batch's ``(n_envs, 79)`` bool array in
one piece (no call per table, no list built here). ``np.stack`` still takes that
array apart into one view per row inside numpy before joining them again
(measured 2-12 us a table per step on the loaded 2-core machine: 1-3% of a
MaskablePPO step); avoiding that needs sb3-contrib to read the array directly.
Methods and attributes the whole batch shares (``set_snapshots``, ``rules``,
``render_mode``...) are called or read once and the answer repeated per table;
setting one for some tables only is refused (the tables share one object).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.vec_env import VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from newmarket_env.envs.vector import VectorEnv

PER_TABLE_METHODS = ("action_masks",)  # methods whose answer has one row per table
FEW_CORES = 2  # at most this many cores: torch's extra threads only compete with the env for them


def sb3_vec_env(vector: VectorEnv, monitor: bool = True) -> VecEnv:
    """``vector`` (from ``gymnasium.make_vec("stops/Newmarket-v0", ...)`` or :func:`newmarket_env.vector_env`)
    as an SB3 ``VecEnv`` that (sb3-contrib's) MaskablePPO trains on directly.

    ``monitor`` wraps it in SB3's ``VecMonitor``, so SB3 logs episode rewards and lengths
    (``rollout/ep_rew_mean``); a finished session's info also holds its ``chips`` and ``deals``.
    Warns (``UserWarning``) when torch runs more than one thread on a machine of at most
    ``FEW_CORES`` cores: the tables step in this process's thread between torch's calls, and
    torch's small products gain nothing from a second thread there (docs/tutorials/train_maskable_ppo.md).
    """
    if not isinstance(vector, VectorEnv):
        hint = (
            " (gymnasium.make gives one table; use gymnasium.make_vec(..., num_envs=N))"
            if hasattr(vector, "action_space") and not hasattr(vector, "num_envs")
            else ""
        )
        raise ValueError(
            "sb3_vec_env takes the VectorEnv of gymnasium.make_vec('stops/Newmarket-v0', num_envs=N, ...) "
            f"or newmarket_env.vector_env(...); got {type(vector).__name__}{hint}"
        )
    warn_slow_threads()
    vec: VecEnv = SB3VecEnv(vector)
    return VecMonitor(vec) if monitor else vec


def warn_slow_threads() -> None:
    """Warn when torch's thread count is known to slow training here (see :func:`sb3_vec_env`)."""
    cores, threads = os.cpu_count() or 1, torch.get_num_threads()
    if threads > 1 and cores <= FEW_CORES:
        warnings.warn(
            f"torch runs {threads} threads on this {cores}-core machine, which slows MaskablePPO on the "
            "vector env; call torch.set_num_threads(1) first (docs/tutorials/train_maskable_ppo.md)",
            stacklevel=3,
        )


class SB3VecEnv(VecEnv):
    """A ``VecEnv`` of ``vector.num_envs`` tables; see the module docstring."""

    def __init__(self, vector: VectorEnv) -> None:
        if not isinstance(vector, VectorEnv):
            raise ValueError(
                f"SB3VecEnv wraps a newmarket_env VectorEnv (see newmarket_env.vector_env); got {type(vector).__name__}"
            )
        self.vector = vector
        self._actions: np.ndarray | None = None
        super().__init__(vector.num_envs, vector.single_observation_space, vector.single_action_space)

    # ------------------------------------------------------------------ the VecEnv contract
    def reset(self) -> np.ndarray:
        """Fresh sessions at every table; a seed from :meth:`seed` is used once (then forgotten, as in SB3)."""
        seed = self._seeds[0]
        given = [options for options in self._options if options]
        if given:  # name the options given, also when only some tables have them
            raise ValueError(f"reset options {given[0]!r} are not supported by the batch; allowed: none")
        obs, infos = self.vector.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{"seat": int(seat)} for seat in infos["seat"]]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.vector.step(actions.astype(np.int64, copy=False))
        dones = terminated | truncated
        return obs, rewards.astype(np.float32), dones, self._infos(dones, infos)

    def _infos(self, dones: np.ndarray, infos: dict[str, Any]) -> list[dict[str, Any]]:
        """SB3's list of dicts: empty for running tables, the session's end for finished ones."""
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos["final_info"]
            for i in np.flatnonzero(dones):
                out[i] = {
                    "terminal_observation": infos["final_obs"][i],
                    "TimeLimit.truncated": False,
                    "chips": float(final["chips"][i]),
                    "deals": int(final["deals"][i]),
                    "seat": int(final["seat"][i]),
                    "opponents": [spec for spec in final["seat_specs"][i] if spec is not None],
                }
        illegal = infos.get("illegal_action")  # absent under illegal_action="raise"
        if illegal is not None and illegal.any():
            for i in np.flatnonzero(illegal):
                out[i]["illegal_action"] = True
        return out

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next :meth:`reset`: one seed for the whole batch (table ``i`` plays ``table_seed(seed, i)``)."""
        if seed is None:
            seed = int(np.random.randint(0, 2**31 - 1))
        self._seeds = [int(seed)] * self.num_envs
        return self._seeds

    def close(self) -> None:
        self.vector.close()

    def action_masks(self) -> np.ndarray:
        """``(n_envs, 79)`` bool: each table's legal learner actions."""
        return self.vector.action_masks()

    # ------------------------------------------------------------------ attributes and methods
    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def _all(self, indices: VecEnvIndices, what: str) -> None:
        chosen = self._indices(indices)
        if sorted(chosen) != list(range(self.num_envs)):
            raise ValueError(f"{what} applies to every table of the batch at once; allowed: indices=None")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.vector, attr_name)  # AttributeError if missing: SB3's has_attr relies on it
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._all(indices, f"set_attr({attr_name!r})")
        setattr(self.vector, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> Any:
        chosen = self._indices(indices)
        if method_name in PER_TABLE_METHODS:
            rows = getattr(self.vector, method_name)(*method_args, **method_kwargs)
            return rows if indices is None else rows[chosen]
        self._all(indices, f"env_method({method_name!r})")
        result = getattr(self.vector, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No table is a Gymnasium env wrapped in anything (statistics come from ``VecMonitor``)."""
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
