"""One learner-seat spec: the same checks and messages wherever a learner seat is given, and the
spec given whole plays exactly as its keywords do."""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.envs import SingleAgentEnv
from newmarket_env.envs.learner_options import SEAT_MODES, LearnerSeat

BAD = [
    (dict(opponents="random"), r"^opponents='random' must be a non-empty list of agent names, e\.g\. \['random'\]$"),
    (dict(opponents=[]), r"^opponents=\[\] must be a non-empty list"),
    (dict(opponents=[""]), r"^opponent '' is not an agent name or a saved-agent path$"),
    (dict(seat="left"), r"^seat='left' is unknown; allowed: random, rotate or a seat 0\.\.3$"),
    (dict(seat=4), r"^seat=4 is unknown; allowed: random, rotate or a seat 0\.\.3$"),
    (dict(seat=True), r"^seat=True is unknown; allowed: random, rotate or a seat 0\.\.3$"),
    (dict(snapshots="a.npz"), r"^snapshots='a\.npz' must be a list of saved-agent paths, not one string$"),
    (dict(snapshot_fraction=1.5), r"^snapshot_fraction=1\.5 is out of range; allowed: 0\.0\.\.1\.0$"),
    (dict(snapshot_fraction="0.5"), r"^snapshot_fraction='0\.5' is out of range; allowed: 0\.0\.\.1\.0$"),
    (dict(reward_scale=0), r"^reward_scale=0 is out of range; allowed: a finite number > 0$"),
    (dict(agent_factory="control"), r"^agent_factory='control' is not callable; allowed: None"),
]


def makers():
    found = {
        "LearnerSeat": lambda kw: LearnerSeat(**kw, players=4),
        "SingleAgentEnv": lambda kw: SingleAgentEnv(num_players=4, **kw),
    }
    if compiled_available():
        from newmarket_env.envs.vector import VectorEnv

        found["VectorEnv"] = lambda kw: VectorEnv(num_players=4, num_envs=2, **kw)
    return found


@pytest.mark.parametrize("maker", list(makers()))
@pytest.mark.parametrize(("kwargs", "message"), BAD)
def test_every_learner_view_refuses_a_bad_seat_with_the_same_line(maker, kwargs, message):
    with pytest.raises(ValueError, match=message) as err:
        makers()[maker](kwargs)
    assert "\n" not in str(err.value)


def test_the_spec_is_normalised_once():
    spec = LearnerSeat(opponents=["control", "random"], snapshots=[], seat=np.int64(2), snapshot_fraction=1)
    assert spec.opponents == ("control", "random") and spec.snapshots == ()
    assert spec.seat == 2 and type(spec.seat) is int
    assert spec.snapshot_fraction == 1.0 and type(spec.snapshot_fraction) is float
    assert callable(spec.agent_factory)  # None became the default factory
    assert LearnerSeat(opponents=(name for name in ["greedy", "control"])).opponents == ("greedy", "control")
    with pytest.raises(AttributeError):
        spec.seat = "random"  # type: ignore[misc]  # frozen


def _played(env, steps: int = 40) -> list:
    obs, info = env.reset(seed=5)
    seen = [(obs.tobytes(), info["seat"])]
    for _ in range(steps):
        obs, reward, done, _truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        seen.append((obs.tobytes(), reward, done))
        if done:
            obs, info = env.reset()
            seen.append((obs.tobytes(), info["seat"]))
    return seen


def test_a_seat_given_whole_plays_as_its_keywords():
    keywords = dict(opponents=["control", "random"], seat="rotate", reward_scale=0.5)
    whole = SingleAgentEnv(num_players=4, learner_seat=LearnerSeat(**keywords))
    assert whole.opponents == ["control", "random"] and whole.seat_mode == "rotate" and whole.reward_scale == 0.5
    assert _played(whole) == _played(SingleAgentEnv(num_players=4, **keywords))


@pytest.mark.skipif(not compiled_available(), reason="VectorEnv needs the compiled engine")
def test_the_vector_env_takes_the_seat_whole_too():
    from newmarket_env.envs.vector import VectorEnv

    keywords = dict(opponents=["control"], seat=1, reward_scale=0.25)
    runs = []
    for env in (
        VectorEnv(num_players=4, num_envs=3, seed=2, learner_seat=LearnerSeat(**keywords)),
        VectorEnv(num_players=4, num_envs=3, seed=2, **keywords),
    ):
        obs, _ = env.reset(seed=2)
        rewards = []
        for _ in range(20):
            obs, reward, *_ = env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
            rewards.append(reward)
        runs.append((obs.tobytes(), np.array(rewards).tobytes(), env.learner.tolist()))
    assert runs[0] == runs[1] and runs[0][2] == [1, 1, 1]


def test_a_seat_given_whole_and_a_keyword_that_disagrees_is_refused():
    clash = r"^opponents, seat given next to learner_seat=; allowed: the LearnerSeat alone"
    with pytest.raises(ValueError, match=clash):
        SingleAgentEnv(learner_seat=LearnerSeat(), opponents=["control"], seat="rotate")
    with pytest.raises(ValueError, match=r"^seat=5 is unknown; allowed: random, rotate or a seat 0\.\.3$"):
        SingleAgentEnv(num_players=4, learner_seat=LearnerSeat(seat=5))  # checked against the table's players
    with pytest.raises(ValueError, match=r"^learner_seat='random' is not allowed; allowed: None or a LearnerSeat$"):
        SingleAgentEnv(learner_seat="random")


def test_seat_modes_are_declared_once():
    from newmarket_env.envs import single_agent, vector

    assert single_agent.SEAT_MODES is SEAT_MODES and vector.SEAT_MODES is SEAT_MODES


def _vector_played(env, steps: int = 30) -> list:
    obs, infos = env.reset(seed=5)
    seen = [(obs.tobytes(), infos["seat"].tolist())]
    for _ in range(steps):
        obs, rewards, terminated, _truncated, infos = env.step(env.action_masks().argmax(axis=1))
        seen.append((obs.tobytes(), rewards.tolist(), terminated.tolist(), infos["seat"].tolist()))
    return seen


def test_a_setting_changed_on_a_running_env_plays_as_an_env_built_with_it():
    """SB3's ``set_attr("reward_scale", ...)`` (train/vec.py) sets it on a built env: the rewards from then on
    use it; a bad value is refused in one line and changes nothing."""
    views = [(lambda **kw: SingleAgentEnv(num_players=4, opponents=["greedy"], **kw), _played)]
    if compiled_available():
        from newmarket_env.envs.vector import VectorEnv

        views.append(
            (lambda **kw: VectorEnv(num_players=4, num_envs=3, opponents=["greedy"], seed=1, **kw), _vector_played)
        )
    for make, played in views:
        changed = make(reward_scale=1.0, seat="random")
        changed.reward_scale, changed.seat_mode = 0.25, 3
        assert (changed.reward_scale, changed.seat_mode) == (0.25, 3)
        assert changed.learner_seat == LearnerSeat(opponents=["greedy"], reward_scale=0.25, seat=3)
        assert played(changed) == played(make(reward_scale=0.25, seat=3))
        with pytest.raises(ValueError, match=r"^reward_scale=0 is out of range; allowed: a finite number > 0$"):
            changed.reward_scale = 0
        with pytest.raises(ValueError, match=r"^seat=4 is unknown; allowed: random, rotate or a seat 0\.\.3$"):
            changed.seat_mode = 4
        assert (changed.reward_scale, changed.seat_mode) == (0.25, 3)
