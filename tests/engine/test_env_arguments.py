"""Arguments of the AEC env's reset, observe and constructor: a clear ValueError, the env left as it was."""

import numpy as np
import pytest

from newmarket_env import env


@pytest.mark.parametrize(
    "options,words",
    [
        ([{"deals": []}], "reset options=[{'deals': []}] is not allowed; allowed: None or a dict"),
        ("x", "reset options='x' is not allowed"),
        ({"deals": 5}, "reset option 'deals' must be a list of deals"),
    ],
)
def test_bad_reset_options_raise_value_error_and_change_nothing(options, words):
    e = env(num_deals=1)
    e.reset(seed=1)
    game, before = e.unwrapped.game, e.observe(e.agent_selection)["observation"].copy()
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        e.reset(seed=2, options=options)
    assert e.unwrapped.game is game
    assert np.array_equal(e.observe(e.agent_selection)["observation"], before)


@pytest.mark.parametrize("engine", ["python", "auto"])
def test_numpy_int_seeds_are_seeds_like_numpy_int_actions(engine):
    a, b = env(engine=engine), env(engine=engine)
    a.reset(seed=np.int64(3))
    b.reset(seed=3)
    assert a.unwrapped.record() == b.unwrapped.record()


@pytest.mark.parametrize("seed", [True, 1.5, "3", [3]])
def test_other_seeds_are_refused(seed):
    with pytest.raises(ValueError, match=r"reset seed=.* is not allowed; allowed: None or an int"):
        env().reset(seed=seed)


def test_observing_an_unknown_agent_names_the_agents():
    e = env(num_players=4)
    e.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_9'; agents: player_0, player_1, player_2, player_3"):
        e.observe("player_9")


@pytest.mark.parametrize("value", ["no", "yes", 1, 0, None])
def test_present_forced_must_be_a_bool(value):
    with pytest.raises(ValueError, match=r"present_forced=.* is not allowed; allowed: True or False"):
        env(present_forced=value)
    env(present_forced=np.bool_(True))  # numpy's bool is a bool
