"""``rllib.sampler: batch``: RLlib's PPO sampling through the compiled vector env, on the two-node cluster.

RLlib's env runners build :class:`~newmarket_env.envs.vector.VectorEnv` through Gymnasium's
``vector_entry_point`` in ``NEXT_STEP`` autoreset; the opponents are compiled ``control`` and snapshots
of the learner, which every env runner (one per node here) receives as arrays and plays as saved
agents. What RLlib records must be the game's: each sampled episode is a whole session whose rewards add
up to the learner's chips in it (the env's own ``chips`` info) times ``reward_scale``, every recorded
action legal under the mask it was taken on.
"""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'newmarket-env[ray]')")
torch = pytest.importorskip("torch", reason="the RLModule is a torch module")

from ray.rllib.core import DEFAULT_MODULE_ID  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

from newmarket_env.integrations.rllib import MASK_KEY, OBS_KEY, vector_config  # noqa: E402
from newmarket_env.train.cli import main  # noqa: E402

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_rllib_ppo_batch.yaml"
SMALL = dict(
    num_players=4,
    rules={"num_deals": 1},
    opponents=["control"],
    snapshot_fraction=0.5,
    num_envs=8,
    threads=1,
    hidden=(16,),
    batch_size=64,
    minibatch_size=32,
    num_epochs=1,
    reward_scale=0.5,
)


@pytest.mark.slow
def test_sampled_episodes_are_whole_sessions_with_legal_actions_and_the_envs_rewards(ray_cluster):
    algo = vector_config(**SMALL, refresh_every=1).build_algo()  # the env runner in this process
    try:
        algo.train()  # a snapshot of the learner joins the opponents (at the start and after this iteration)
        vector = algo.env_runner.env.unwrapped
        assert len(vector.snapshots) == 2 and all(Path(p).is_file() for p in vector.snapshots)
        episodes = algo.env_runner.sample(num_timesteps=400, explore=True)
        done = [e for e in episodes if e.is_done and e.t_started == 0]
        assert len(done) > 10
        snapshot_seats = 0
        for episode in done:
            actions = np.asarray(episode.get_actions())
            observations = episode.get_observations()
            masks = np.asarray(observations[MASK_KEY] if isinstance(observations, dict) else
                               [o[MASK_KEY] for o in observations])  # fmt: skip
            assert masks[np.arange(len(actions)), actions].all()  # every recorded action was legal
            assert not masks[-1].any()  # the final observation: the session is over, nothing is legal
            end = episode.get_infos(-1)
            chips = float(end["chips"])  # the env's own account of the session, at its last step
            assert episode.get_return() == pytest.approx(chips * SMALL["reward_scale"])
            snapshot_seats += sum(str(spec).endswith(".npz") for spec in end["seat_specs"])
        assert snapshot_seats > 0  # snapshots sat at some of these tables
    finally:
        algo.stop()


@pytest.mark.slow
def test_a_tiny_batch_run_on_two_env_runners_saves_the_rlmodules_policy(ray_cluster, tmp_path):
    """The tiny config with one env runner per node: the run ends at its budget, every sampled action was
    checked against its mask, and final.npz computes the RLModule's masked greedy actions."""
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.config import load_config
    from newmarket_env.train.rllib_ppo.learner import algorithm_config
    from newmarket_env.train.rllib_ppo.method import METHOD

    out = tmp_path / "run"
    assert main([str(TINY), "--out-dir", str(out), "--set", "rllib.num_env_runners=2"]) == 0
    with open(out / "progress.csv") as handle:
        rows = [line.strip().split(",") for line in handle][1:]
    header = (out / "progress.csv").read_text().splitlines()[0].split(",")
    column = {name: header.index(name) for name in header}
    steps = [int(r[column["steps"]]) for r in rows]
    assert steps[-1] >= 192 and all(step < 192 for step in steps[:-1])  # stops at the first iteration past it
    for r in rows:  # every env step is a learner decision, and every one was checked
        assert r[column["actions_checked"]] == r[column["env_steps"]] and r[column["illegal_actions"]] == "0"
        assert int(r[column["opponent_frozen_at"]]) == int(r[column["iteration"]])  # rllib.refresh_every: 1
    final = json.loads((out / "final.json").read_text())
    assert final["training"]["method"] == "rllib_ppo" and final["layers"] == [936, 16, 79]

    config = load_config(TINY)
    algo = algorithm_config(config).build_algo()
    try:
        run_id = json.loads((out / "run.json").read_text())["run_id"]
        algo.restore_from_path(str(METHOD.find_checkpoint(out / "checkpoints", run_id).path))
        module = algo.get_module(DEFAULT_MODULE_ID)
        rules = make_rules("newmarket", 4, num_deals=1)
        agent = load_saved_agent(out / "final.npz", rules)
        episodes = algo.env_runner.sample(num_timesteps=64, explore=False)
        obs = np.concatenate([np.asarray(e.get_observations()[OBS_KEY])[:-1] for e in episodes if len(e)])
        masks = np.concatenate([np.asarray(e.get_observations()[MASK_KEY])[:-1] for e in episodes if len(e)])
        with torch.no_grad():
            batch = {Columns.OBS: {OBS_KEY: torch.as_tensor(obs), MASK_KEY: torch.as_tensor(masks)}}
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        expected = np.argmax(logits, axis=1)
        got = agent.act_batch(obs, masks.astype(np.int8))
        np.testing.assert_array_equal(got, expected)
    finally:
        algo.stop()


def test_the_sparse_rlmodule_computes_the_dense_ones_logits_values_and_gradients():
    """``network.input: sparse`` for RLlib: the masked module with sparse first layers, given the dense one's
    weights, gives the same logits and values and, for one loss, the same gradients."""
    import dataclasses

    import gymnasium as gym
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    from newmarket_env.integrations.rllib import module_class
    from newmarket_env.nn.sparse_input import SparseInputLinear
    from tests.train.test_sparse_input import _observations

    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-10.0, 10.0, (936,), np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (79,), np.float32),
        }
    )
    model_config = dataclasses.asdict(
        DefaultModelConfig(fcnet_hiddens=[32], fcnet_activation="tanh", vf_share_layers=False)
    )
    modules = [
        module_class(mode)(observation_space=space, action_space=gym.spaces.Discrete(79), model_config=model_config)
        for mode in ("dense", "sparse")
    ]
    dense, sparse = modules
    sparse.load_state_dict(dense.state_dict())
    assert isinstance(sparse.encoder.actor_encoder.net.mlp[0], SparseInputLinear)
    assert isinstance(sparse.encoder.critic_encoder.net.mlp[0], SparseInputLinear)
    obs = torch.as_tensor(_observations(64, seed=3))
    batch = {Columns.OBS: {OBS_KEY: obs, MASK_KEY: torch.ones(64, 79)}}
    found = []
    for module in modules:
        module.zero_grad()
        out = module.forward_train(batch)
        values = module.compute_values(batch)
        (out[Columns.ACTION_DIST_INPUTS].logsumexp(dim=1).sum() + values.sum()).backward()
        found.append((out[Columns.ACTION_DIST_INPUTS].detach(), values.detach(), [p.grad for p in module.parameters()]))
    torch.testing.assert_close(found[1][0], found[0][0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(found[1][1], found[0][1], rtol=1e-5, atol=1e-5)
    for a, b in zip(found[0][2], found[1][2], strict=True):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-4)
