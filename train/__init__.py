"""Training from configs (installed as ``newmarket_env.train``).

``python -m newmarket_env.train configs/newmarket_ppo.yaml`` trains as configured, with the config's
method (:mod:`newmarket_env.train.methods`: MaskablePPO by default, expert iteration, Deep Monte-Carlo,
RLlib PPO, or an installed package's) through one run loop (:mod:`newmarket_env.train.loop`);
:func:`newmarket_env.train.run.train` is the Python entry point and
:func:`newmarket_env.train.config.load_config` reads a config.

Your own script on the same fast path: ``newmarket_env.train.sb3_vec_env(gymnasium.make_vec(...))``
(:func:`newmarket_env.train.vec.sb3_vec_env`) is the vector env as an SB3 ``VecEnv``, and
``newmarket_env.train.export_agent`` (:func:`newmarket_env.train.export.export_agent`) saves a trained
model as an agent file (docs/tutorials/train_maskable_ppo.md); ``newmarket_env.train.save_model``
(:func:`newmarket_env.train.export.save_model`) saves SB3's ``.zip`` with the record of its rules beside it.
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use, so that importing a submodule (``python -m newmarket_env.train.ship``, ...) does not
# import SB3 and torch, and runs no submodule before ``-m`` does.
_LAZY = {
    "sb3_vec_env": "newmarket_env.train.vec",
    "export_agent": "newmarket_env.train.export",
    "save_model": "newmarket_env.train.export",
}

__all__ = ["sb3_vec_env", "export_agent", "save_model"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
