"""Training's duplicate evaluations on a real two-node Ray cluster give the local figures exactly."""

import functools

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install 'newmarket-env[ray]')")

from newmarket_env import load_agent, raw_env
from newmarket_env.train.evaluate import BoardJob, duplicate_eval, play_boards, saved_agent_maker


def registered(name, env, seed):
    return load_agent(name, env=env, seed=seed)


def test_a_board_scores_the_same_alone_or_after_others():
    # The premise of shipping boards to other processes: no board depends on the boards before it.
    job = BoardJob(functools.partial(registered, "random"), "random", "newmarket", 4, {"num_deals": 2}, 3, True)
    together = play_boards(job, [0, 1, 2, 3])
    assert [play_boards(job, [b])[0] for b in (3, 1)] == [together[3], together[1]]
    assert len({score for score, _ in together}) > 1  # random agents: the boards differ


@pytest.mark.parametrize(
    "tested, opponent, kwargs",
    [
        ("greedy-lambda", "random", {"variant": "newbury", "num_players": 4, "reference": True}),
        ("ppo-newmarket", "control", {"variant": "newmarket", "num_players": 4}),
    ],
)
def test_ray_evaluation_equals_the_local_one(ray_cluster, tested, opponent, kwargs):
    if tested == "greedy-lambda":  # a closure: Ray pickles it by value

        def make(env, seed):
            return load_agent("greedy", env=env, seed=seed)
    else:  # an in-memory saved agent, as the training callback ships the learner
        make = saved_agent_maker(load_agent(tested, env=raw_env(variant="newmarket", num_players=4)))
    local = duplicate_eval(make, opponent, boards=23, seed=4, **kwargs)
    on_ray = duplicate_eval(make, opponent, boards=23, seed=4, backend="ray", **kwargs)
    assert on_ray == local and local.boards == 23 and local.games == 23 * 4


def test_bad_backend_is_refused_before_any_board():
    with pytest.raises(ValueError, match="backend='dask' is unknown; allowed: local, ray"):
        duplicate_eval(functools.partial(registered, "greedy"), "random", "newmarket", 4, boards=2, backend="dask")


@pytest.mark.slow
def test_the_run_loops_evaluation_of_a_live_model_on_ray_is_the_local_one(ray_cluster):
    # The loop evaluates the learner's current weights (a numpy agent, not the SB3 model) on the workers.
    from sb3_contrib import MaskablePPO

    from newmarket_env.envs.single_agent import SingleAgentEnv
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.evaluate import evaluation_rows
    from newmarket_env.train.export import memory_agent

    model = MaskablePPO(
        "MlpPolicy", SingleAgentEnv(variant="newmarket", num_players=4), n_steps=64, batch_size=64, seed=0
    )
    agent = memory_agent(model, make_rules("newmarket", 4), "newmarket", "tanh")
    rows = {}
    for backend in ("local", "ray"):
        config = config_from_dict({"eval": {"backend": backend, "opponents": ["random"], "seed": 9}})
        (rows[backend],) = (
            {k: v for k, v in row.items() if k != "wall_s"} for row in evaluation_rows(config, agent, 12, 0, 0.0)
        )
    assert rows["ray"] == rows["local"] and rows["local"]["games"] == 48
