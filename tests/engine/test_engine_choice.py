"""Choosing the engine, and running without the compiled one (as where no C compiler was found)."""

from __future__ import annotations

import random

import pytest

from newmarket_env import env as make_env
from newmarket_env.engine import Game, choice


def test_unknown_engine_names_the_allowed_ones():
    with pytest.raises(ValueError, match="allowed: auto, compiled, python"):
        choice.engine_class("c++")
    with pytest.raises(ValueError, match="allowed: auto, compiled, python"):
        make_env(engine="fast")


def test_without_the_compiled_engine_auto_falls_back_and_compiled_is_refused(monkeypatch):
    monkeypatch.setattr(choice, "FastGame", None)
    assert choice.engine_class("auto") is Game and not choice.compiled_available()
    with pytest.raises(ValueError, match="compiled engine is not built"):
        make_env(engine="compiled")
    e = make_env(variant="michigan")
    e.reset(seed=2)
    assert type(e.unwrapped.game) is Game
    rng = random.Random(2)
    for _agent in e.agent_iter():
        obs, _, done, truncated, _ = e.last()
        e.step(None if done or truncated else rng.choice([a for a, ok in enumerate(obs["action_mask"]) if ok]))
    assert e.unwrapped.game.over
