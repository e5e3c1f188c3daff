"""The single-agent Gymnasium view: checkers, rewards, masks, the opponent pool."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from newmarket_env.envs.single_agent import SingleAgentEnv


def play_out(env, rng, seed):
    """Random legal learner moves to the end of a session; the rewards and the last info."""
    env.reset(seed=seed)
    rewards, done, info = [], False, {}
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, done, _, info = env.step(action)
        rewards.append(reward)
    return rewards, info


@pytest.mark.parametrize("variant", ["newmarket", "michigan", "newbury"])
def test_gymnasium_checker(variant):
    gymnasium_check_env(
        SingleAgentEnv(variant=variant, num_players=4, opponents=["random"], num_deals=1), skip_render_check=True
    )


@pytest.mark.parametrize("variant", ["newmarket", "michigan"])
def test_sb3_checker(variant):
    sb3_check_env(SingleAgentEnv(variant=variant, num_players=4, opponents=["random"], num_deals=1))


@pytest.mark.parametrize("variant", ["newmarket", "michigan", "newbury"])
def test_return_is_the_session_result(variant):
    """Sum of rewards = final balance - start, also when another seat's move ends the session."""
    env = SingleAgentEnv(variant=variant, num_players=4, opponents=["random"], num_deals=2)
    rng = np.random.default_rng(0)
    for seed in range(12):
        rewards, info = play_out(env, rng, seed)
        game = env.aec.game
        assert sum(rewards) == pytest.approx(game.balances[env.learner] - env.rules.starting_chips)
        assert info["chips"] == pytest.approx(sum(rewards))


def test_masks_match_the_engine_and_illegal_actions_are_flagged():
    env = SingleAgentEnv(variant="newmarket", num_players=4, opponents=["random"])
    env.reset(seed=3)
    mask = env.action_masks()
    assert mask.dtype == bool and sorted(np.flatnonzero(mask)) == sorted(env.aec.game.legal)
    illegal = int(np.flatnonzero(~mask)[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"]


def test_rotating_seats_and_reward_scale():
    env = SingleAgentEnv(
        variant="newmarket", num_players=4, opponents=["random"], seat="rotate", reward_scale=0.5, num_deals=1
    )
    seats = []
    for seed in range(4):
        rewards, info = play_out(env, np.random.default_rng(seed), None if seed else 0)
        seats.append(info["seat"])
        assert sum(rewards) == pytest.approx(0.5 * info["chips"])
    assert seats == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"seat": "left"},
        {"seat": 9},
        {"opponents": []},
        {"opponents": "random"},
        {"snapshot_fraction": 2.0},
        {"reward_scale": 0},
        {"num_player": 4},
    ],
)
def test_bad_options_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        SingleAgentEnv(variant="newmarket", **{"opponents": ["random"], **kwargs})


def test_unknown_opponent_names_the_known_agents():
    env = SingleAgentEnv(variant="newmarket", opponents=["nobody"])
    with pytest.raises(ValueError, match="random"):
        env.reset(seed=0)
