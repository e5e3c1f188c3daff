"""The planes features extractor with MaskablePPO (from a script and from a config), its exact export, and
VecNormalize over the vector env: real SB3 training steps, the outputs read back by other means (SB3's own
forward pass, ``load_agent``, the package's flat/planes encoders)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from newmarket_env import env, load_agent, vector_env  # noqa: E402
from newmarket_env.engine.choice import compiled_available  # noqa: E402
from newmarket_env.envs.single_agent import SingleAgentEnv  # noqa: E402
from newmarket_env.game.rules import make_rules  # noqa: E402
from newmarket_env.observation.encode import PLANES_SHAPE, flat_to_planes  # noqa: E402
from newmarket_env.observation.layout import FLAT_SIZE  # noqa: E402
from newmarket_env.train.features import PlanesExtractor, planes_policy_kwargs  # noqa: E402

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_test.yaml"
needs_compiled = pytest.mark.skipif(not compiled_available(), reason="the compiled engine is not built")


def _observations(count: int = 24, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Flat observations and masks of the deciding seats of a random session (the env's own encoder)."""
    e = env(variant="michigan", num_players=4)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    flat, masks = [], []
    for _ in e.agent_iter():
        observation, _, done, truncated, _ = e.last()
        if done or truncated or len(flat) == count:
            break
        flat.append(observation["observation"])
        masks.append(observation["action_mask"])
        e.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return np.asarray(flat, dtype=np.float32), np.asarray(masks)


def test_the_extractor_reads_both_encodings_alike():
    flat, _ = _observations()
    planes = np.stack([flat_to_planes(row) for row in flat])
    torch.manual_seed(0)
    on_flat = PlanesExtractor(gym.spaces.Box(-8, 8, (FLAT_SIZE,), np.float32), channels=4)
    on_planes = PlanesExtractor(gym.spaces.Box(-8, 8, PLANES_SHAPE, np.float32), channels=4)
    on_planes.load_state_dict(on_flat.state_dict())
    with torch.no_grad():
        a, b = on_flat(torch.as_tensor(flat)), on_planes(torch.as_tensor(planes))
    assert a.shape == (len(flat), 4 * 52 + 104) == (len(flat), on_flat.features_dim)
    torch.testing.assert_close(a, b)
    # The scalars pass through: the features end with the flat vector's last 104 numbers.
    torch.testing.assert_close(a[:, -104:], torch.as_tensor(flat[:, -104:]))


def test_the_extractor_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match=r"got a space of shape \(4,\)"):
        PlanesExtractor(gym.spaces.Box(0, 1, (4,), np.float32))
    with pytest.raises(ValueError, match=r"kernel=.* two odd sizes"):
        PlanesExtractor(gym.spaces.Box(-8, 8, (FLAT_SIZE,), np.float32), kernel=(1, 2))


def _logits(model, flat: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(flat))
    return dist.distribution.logits.numpy()  # log-softmax of the logits: compared after centring


def _centred(logits: np.ndarray) -> np.ndarray:
    return logits - logits.max(axis=-1, keepdims=True)


@needs_compiled
def test_a_script_trains_maskable_ppo_on_the_planes_and_exports_it_exactly(tmp_path):
    from newmarket_env.train import export_agent, sb3_vec_env

    torch.set_num_threads(1)
    vec = sb3_vec_env(vector_env(variant="michigan", num_players=4, num_envs=8, opponents=["control"], seed=0))
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", vec, n_steps=16, batch_size=64, n_epochs=2, seed=0, device="cpu",
        policy_kwargs=planes_policy_kwargs(net_arch=[32], channels=4),
    )  # fmt: skip
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    model.learn(128)  # a real rollout and its updates
    after = model.policy.state_dict()
    assert not torch.equal(before["features_extractor.conv.weight"], after["features_extractor.conv.weight"])
    path = tmp_path / "planes.npz"
    export_agent(model, str(path), make_rules("michigan", 4), "michigan")
    agent = load_agent(str(path), env=env(variant="michigan", num_players=4))
    flat, masks = _observations()
    # The saved agent (numpy, no torch) gives SB3's own logits, one observation at a time and as a batch.
    expected = _centred(_logits(model, flat))
    np.testing.assert_allclose(_centred(agent.logits(flat)), expected, rtol=1e-4, atol=1e-4)
    one = np.stack([agent.logits(row) for row in flat])
    np.testing.assert_allclose(_centred(one), expected, rtol=1e-4, atol=1e-4)
    # Exact for any input of the space, negative scalars too (real sessions rarely give them: a debt).
    anything = np.random.default_rng(0).uniform(-8, 8, size=(16, FLAT_SIZE)).astype(np.float32)
    np.testing.assert_allclose(
        _centred(agent.logits(anything)), _centred(_logits(model, anything)), rtol=1e-4, atol=1e-3
    )
    actions, _ = model.predict(flat, action_masks=masks.astype(bool), deterministic=True)
    chosen = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(flat, masks, strict=True)]
    assert chosen == actions.tolist()
    # The .zip itself is not an agent file (its extractor is not rebuilt from data): the refusal says what is.
    model.save(tmp_path / "planes.zip")
    with pytest.raises(ValueError, match=r"cannot rebuild; save the model as an agent file .*export_agent"):
        load_agent(str(tmp_path / "planes.zip"), env=env(variant="michigan", num_players=4))


def test_a_script_trains_on_the_planes_observation_itself():
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: SingleAgentEnv(variant="newmarket", observation="planes", num_deals=1)] * 2)
    assert vec.observation_space.shape == PLANES_SHAPE
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=1, device="cpu",
        policy_kwargs=planes_policy_kwargs(net_arch=[16], channels=2),
    )  # fmt: skip
    model.learn(64)
    assert model.num_timesteps >= 64 and model.policy.features_extractor.planes_input


def test_an_export_needs_relu(tmp_path):
    from newmarket_env.train import export_agent

    kwargs = {**planes_policy_kwargs(net_arch=[8], channels=2), "activation_fn": torch.nn.Tanh}
    model = sb3_contrib.MaskablePPO("MlpPolicy", SingleAgentEnv(), n_steps=8, batch_size=8, policy_kwargs=kwargs)
    with pytest.raises(ValueError, match="exports exactly only with activation_fn=ReLU"):
        export_agent(model, str(tmp_path / "x.npz"), make_rules("newmarket"), "newmarket")


def test_a_config_trains_on_the_planes_and_its_final_agent_plays(tmp_path):
    from newmarket_env.train.cli import main

    sets = ["ppo.features=planes", "ppo.activation=relu", "run.vec_env=dummy", "run.total_steps=128"]
    arguments = [str(TINY), "--out-dir", str(tmp_path), "--no-progress"]
    for item in sets:
        arguments += ["--set", item]
    assert main(arguments) == 0
    agent = load_agent(str(tmp_path / "final.npz"), env=env(variant="newmarket", num_players=4, num_deals=1))
    assert agent.metadata["activation"] == "relu"
    assert agent.layers[0][0].shape[1] == FLAT_SIZE and len(agent.layers) == 3  # extractor, [32], action head


def test_a_config_with_planes_refuses_tanh_in_one_line(tmp_path, capsys):
    from newmarket_env.train.cli import main

    arguments = [str(TINY), "--out-dir", str(tmp_path), "--set", "ppo.features=planes", "--set", "ppo.activation=tanh"]
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ppo.activation = 'tanh' is not allowed with ppo.features = 'planes'" in err


# ------------------------------------------------------------------------------ VecNormalize on the vector env
@needs_compiled
def test_vecnormalize_wraps_the_vector_env_and_the_masks_pass_through():
    """docs/tutorials/train_maskable_ppo.md, "Normalising observations": VecNormalize over sb3_vec_env keeps
    the masks MaskablePPO reads, and with norm_obs=False the policy sees the env's own observations."""
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecNormalize

    from newmarket_env.train import sb3_vec_env

    torch.set_num_threads(1)
    vector = vector_env(variant="newmarket", num_players=4, num_envs=8, opponents=["control"], seed=2)
    normalised = VecNormalize(sb3_vec_env(vector), norm_obs=False, norm_reward=True, gamma=1.0)
    obs = normalised.reset()
    np.testing.assert_array_equal(get_action_masks(normalised), vector.action_masks())
    np.testing.assert_array_equal(obs, vector.batch.observations)  # norm_obs=False: untouched
    model = sb3_contrib.MaskablePPO("MlpPolicy", normalised, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    model.learn(128)
    assert normalised.ret_rms.count > 1  # the reward statistics were gathered
    scaled = VecNormalize(sb3_vec_env(vector_env(num_envs=8, opponents=["control"], seed=2)), norm_obs=True)
    scaled.reset()
    for _ in range(20):
        scaled.step(np.array([np.flatnonzero(m)[0] for m in get_action_masks(scaled)]))
    raw = scaled.get_original_obs()
    assert not np.allclose(scaled.normalize_obs(raw), raw)  # norm_obs=True: the policy would see other numbers
