"""The RLlib integration: the env's turn-based contract, the masking module, and real PPO self-play.

Expected values come from outside the code under test: the AEC env's own balances (chips), the
masks the env hands out (what is legal), and RLlib's own step counts.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'newmarket-env[ray]')")
torch = pytest.importorskip("torch", reason="the masking module is a torch module")

from ray.rllib.core.columns import Columns  # noqa: E402

from newmarket_env import IllegalActionError  # noqa: E402
from newmarket_env.integrations import rllib as integration  # noqa: E402
from newmarket_env.integrations.rllib import (  # noqa: E402
    LEARNER,
    MASK_KEY,
    OBS_KEY,
    OPPONENT,
    MaskedPPOTorchRLModule,
    NewmarketMultiAgentEnv,
    env_creator,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_self_play.py"
TINY = dict(batch_size=128, minibatch_size=64, num_epochs=1, hidden=(32,))


def play_random_session(env, rng, seed):
    """Legal random actions until the end; checks the turn-based contract on the way; returns reward sums."""
    obs, _ = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while True:
        assert list(obs) == [env.aec.agent_selection]  # only the agent to act is asked
        ((agent, seen),) = obs.items()
        assert env.observation_spaces[agent].contains(seen)
        legal = np.flatnonzero(seen[MASK_KEY])
        assert set(legal) == set(env.aec.game.legal)  # the mask is the engine's legal set
        obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
        steps += 1
        for name, reward in rewards.items():
            totals[name] += reward
        assert truncated == {"__all__": False}
        if terminated["__all__"]:
            assert obs == {} and all(terminated[a] for a in env.possible_agents)
            return totals, steps


def test_env_is_turn_based_and_the_rewards_add_up_to_each_players_chips():
    env = env_creator({"variant": "michigan", "num_players": 5, "reward_scale": 0.5})
    rng = np.random.default_rng(0)
    for seed in range(3):
        totals, steps = play_random_session(env, rng, seed)
        start = env.aec.rules.starting_chips
        chips = {a: (b - start) * 0.5 for a, b in zip(env.possible_agents, env.aec.game.balances, strict=True)}
        assert totals == pytest.approx(chips) and steps > 5


def test_env_refuses_illegal_actions_and_actions_out_of_turn_leaving_the_game_unchanged():
    env = NewmarketMultiAgentEnv({"variant": "newmarket", "num_players": 4})
    obs, _ = env.reset(seed=1)
    ((agent, seen),) = obs.items()
    illegal = int(np.flatnonzero(seen[MASK_KEY] == 0)[0])
    before = env.aec.record()
    with pytest.raises(IllegalActionError, match=f"illegal action {illegal} for {agent}; legal actions: "):
        env.step({agent: illegal})
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"it is {agent}'s turn alone"):
        env.step({other: 0})
    assert env.aec.record() == before


@pytest.mark.parametrize(
    "config, words",
    [
        ({"reward_scale": 0}, "reward_scale=0 is out of range; allowed: a finite number > 0"),
        ({"reward_scale": float("inf")}, "reward_scale=inf is out of range"),
        ({"observation": "planes"}, "observation='planes' is not allowed here; allowed: 'flat'"),
        ({"variant": "nosuch"}, "nosuch"),
    ],
)
def test_bad_env_config_is_refused(config, words):
    with pytest.raises(ValueError, match=words):
        NewmarketMultiAgentEnv(config)


def test_masked_module_never_gives_an_illegal_action_probability_or_the_argmax():
    env = NewmarketMultiAgentEnv({})
    space = env.observation_spaces["player_0"]
    module = MaskedPPOTorchRLModule(
        observation_space=space, action_space=env.action_spaces["player_0"], model_config={"fcnet_hiddens": [16]}
    )
    rng = np.random.default_rng(3)
    n = 64
    masks = (rng.random((n, space[MASK_KEY].shape[0])) < 0.1).astype(np.float32)
    masks[np.arange(n), rng.integers(0, masks.shape[1], n)] = 1.0  # at least one legal action each
    batch = {
        Columns.OBS: {
            OBS_KEY: torch.tensor(rng.normal(size=(n, space[OBS_KEY].shape[0])), dtype=torch.float32),
            MASK_KEY: torch.tensor(masks),
        }
    }
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        dist = module.get_exploration_action_dist_cls().from_logits(logits)
        probs = torch.softmax(logits, dim=-1).detach().numpy()
        assert np.all(probs[masks == 0] == 0.0) and np.allclose(probs.sum(axis=1), 1.0)
        samples = torch.stack([dist.sample() for _ in range(200)]).numpy()
        assert np.all(masks[np.arange(n), samples] == 1)
        assert np.all(masks[np.arange(n), logits.argmax(dim=-1).numpy()] == 1)
        assert torch.isfinite(dist.entropy()).all()
    assert set(batch[Columns.OBS]) == {OBS_KEY, MASK_KEY}  # the caller's batch is left as it was


def test_mapping_puts_the_learner_in_exactly_one_seat_of_every_episode():
    mapping = integration.SelfPlayMapping(4)
    seats = []
    for i in range(40):
        episode = type("Episode", (), {"id_": f"episode-{i}"})()
        chosen = [mapping(f"player_{s}", episode) for s in range(4)]
        assert chosen.count(LEARNER) == 1 and chosen.count(OPPONENT) == 3
        seats.append(chosen.index(LEARNER))
    assert set(seats) == {0, 1, 2, 3}


@pytest.mark.parametrize("forged_step", [None, 2])
def test_mask_audit_counts_every_recorded_action_and_finds_one_outside_its_mask(forged_step):
    # A real RLlib episode of a whole session; at forged_step the episode records another action than the
    # one the env took (one its mask forbids), as RLlib's stale chunk-end transitions do.
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    env = NewmarketMultiAgentEnv({"num_deals": 1})
    obs, infos = env.reset(seed=3)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    episode.add_env_reset(observations=obs, infos=infos)
    steps = 0
    while True:
        ((agent, seen),) = obs.items()
        action = int(np.flatnonzero(seen[MASK_KEY])[0])
        recorded = int(np.flatnonzero(seen[MASK_KEY] == 0)[0]) if steps == forged_step else action
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        episode.add_env_step(
            observations=obs,
            actions={agent: recorded},
            rewards=rewards,
            infos=infos,
            terminateds=terminated,
            truncateds=truncated,
        )
        steps += 1
        if terminated["__all__"]:
            break
    log = MetricsLogger()
    integration.SelfPlay().on_episode_end(episode=episode, metrics_logger=log, env_index=0)
    assert log.peek(integration.CHECKED_METRIC) == steps > 3
    assert log.peek(integration.ILLEGAL_METRIC) == (0 if forged_step is None else 1)


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("rllib_self_play", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_self_play_ppo_trains_on_a_two_node_cluster_and_no_illegal_action_is_ever_taken(ray_cluster, example):
    rows = example.train(2, num_env_runners=1, refresh_every=2, **TINY)
    assert [row["iteration"] for row in rows] == [1, 2]
    for row in rows:
        # Every sampled env step's action was checked against the mask of the observation it was taken on.
        assert row["actions_checked"] == row["env_steps"] >= TINY["batch_size"]
        assert row["illegal_actions"] == 0
    assert rows[0]["opponent_frozen_at"] is None and rows[1]["opponent_frozen_at"] == 2


@pytest.mark.slow
def test_the_opponent_stays_frozen_until_refreshed(ray_cluster):
    algo = integration.self_play_config(refresh_every=2, **TINY).build_algo()
    try:

        def weights(module_id):
            return algo.learner_group.get_weights(module_ids=[module_id])[module_id]

        def same(a, b):
            return all(np.array_equal(np.asarray(a[k]), np.asarray(b[k])) for k in a)

        start = weights(LEARNER)
        assert same(weights(OPPONENT), start)  # frozen copy of the learner at the start
        algo.train()
        assert same(weights(OPPONENT), start) and not same(weights(LEARNER), start)  # only the learner learns
        algo.train()
        assert same(weights(OPPONENT), weights(LEARNER))  # refreshed after iteration 2
    finally:
        algo.stop()


@pytest.mark.slow
def test_without_the_mask_ppo_sends_illegal_actions_and_the_env_refuses_them(ray_cluster, monkeypatch):
    # The control experiment: the same training with the masking switched off must fail in the env.
    monkeypatch.setattr(integration, "_masked", lambda output, mask: output)
    algo = integration.self_play_config(**TINY).build_algo()  # env runner in this process: sees the patch
    try:
        with pytest.raises(Exception) as raised:
            algo.train()
    finally:
        algo.stop()
    chain = []  # RLlib re-raises the env's error inside its own: walk the causes
    error = raised.value
    while error is not None and len(chain) < 20:
        chain.append(error)
        error = error.__cause__ or error.__context__
    assert any(isinstance(e, IllegalActionError) and "illegal action" in str(e) for e in chain), chain


@pytest.mark.slow
def test_the_env_runner_samples_with_the_opponent_just_frozen(ray_cluster):
    # RLlib's own weight sync skips the env runner after a freeze (same weights sequence number): without
    # pushing the copy, the opponent sampling the next iteration was the previous one.
    algo = integration.self_play_config(refresh_every=1, **TINY).build_algo()
    try:

        def policy_part(weights):
            return {k: np.asarray(v) for k, v in weights.items() if k.startswith(("encoder.actor_encoder", "pi."))}

        for _ in range(2):
            algo.train()
            frozen = policy_part(algo.learner_group.get_weights(module_ids=[OPPONENT])[OPPONENT])
            sampling = algo.env_runner.module[OPPONENT].state_dict()
            assert frozen and all(np.array_equal(frozen[k], sampling[k].detach().numpy()) for k in frozen)
    finally:
        algo.stop()
