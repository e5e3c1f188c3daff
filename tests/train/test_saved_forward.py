"""The saved agent's numpy forward pass is the trained torch policy, and its sampling is the softmax.

The reference is the SB3 model itself: ``policy.get_distribution`` (torch) for logits and
``model.predict`` for masked greedy actions, on observations of real sessions. The saved agent is
the exported file read back (float32, then the float16 of a shipped agent).

Tolerances, and why:
- float32 file vs torch: the same float32 weights and the same operations in another order, so the
  logits agree to float32 rounding; ``atol=1e-4`` leaves room for sums of a few hundred products of
  size ~1 (relative rounding 6e-8 each), and is far below what any wrong layer or activation gives.
- float16 file: each weight is rounded to 11 significant bits (relative error <= 2**-11). The numpy
  logits must equal torch *run on the rounded weights* to float32 tolerance (``1e-4``), and must
  stay within ``F16_ATOL`` of the unrounded model, where the greedy action must be the same
  whenever the model's best legal logit leads the second by more than ``2 * F16_ATOL``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from newmarket_env import make_rules
from newmarket_env.agents.saved import SavedAgent, load_saved_agent, read_saved, save_policy
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.train.export import export_agent, policy_layers

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

VARIANT, PLAYERS, RULES = "newmarket", 4, {"num_deals": 1}
F32_ATOL = 1e-4
F16_ATOL = 0.05


def _observations(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` learner observations and masks from sessions of random legal play."""
    env = SingleAgentEnv(variant=VARIANT, num_players=PLAYERS, opponents=["random"], **RULES)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    observations, masks = [], []
    while len(observations) < count:
        mask = env.action_masks()
        observations.append(obs.copy())
        masks.append(mask.copy())
        obs, _, done, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done or truncated:
            obs, _ = env.reset()
    return np.array(observations, dtype=np.float32), np.array(masks, dtype=bool)


def _model(activation: str):
    """A MaskablePPO policy with two hidden layers, its action head scaled so the logits spread out.

    (SB3 initialises the action head with gain 0.01; scaled up, the argmax and the softmax depend on
    every layer, like a trained policy's.)
    """
    env = SingleAgentEnv(variant=VARIANT, num_players=PLAYERS, opponents=["random"], **RULES)
    fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=64,
        seed=3,
        device="cpu",
        policy_kwargs={"net_arch": [48, 32], "activation_fn": fn},
    )
    with torch.no_grad():
        model.policy.action_net.weight.mul_(300.0)
    return model


def _torch_raw_logits(model, observations: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        features = model.policy.extract_features(torch.as_tensor(observations), model.policy.pi_features_extractor)
        return model.policy.action_net(model.policy.mlp_extractor.forward_actor(features)).numpy()


def _masked_argmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.where(masks, logits, -np.inf).argmax(axis=1)


@pytest.fixture(scope="module")
def observations():
    return _observations(400, seed=5)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_float32_file_reproduces_the_torch_policy(tmp_path, observations, activation):
    obs, masks = observations
    model = _model(activation)
    rules = make_rules(VARIANT, PLAYERS, **RULES)
    path = tmp_path / "agent.npz"
    export_agent(model, str(path), rules, VARIANT, activation)
    agent = load_saved_agent(path, rules)

    reference = _torch_raw_logits(model, obs)
    np.testing.assert_allclose(agent.logits(obs), reference, atol=F32_ATOL, rtol=0)
    # One observation at a time (its first layer summed over the nonzero inputs), as act() computes it.
    one_by_one = np.array([agent.logits(o) for o in obs])
    np.testing.assert_allclose(one_by_one, reference, atol=F32_ATOL, rtol=0)
    # One observation at a time (the agent's own path, masking and argmax included) vs SB3's predict.
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    chosen = np.array(
        [agent.act({"observation": o, "action_mask": m.astype(np.int8)}) for o, m in zip(obs, masks, strict=True)]
    )
    assert (chosen == expected).all()
    assert masks[np.arange(len(obs)), chosen].all()
    # The decisions are not all alike: a forward pass that ignored its input would not pass this far.
    assert len(set(chosen.tolist())) > 10


def test_an_agent_built_without_the_sample_option_is_greedy_and_a_sampled_batch_draws_row_by_row(
    tmp_path, observations
):
    """``SavedAgent(...)`` without ``sample=`` (as the bench and guided search build it) plays the masked
    argmax; with ``sample=True`` a batch draws one action per row, in row order, from the agent's stream."""
    obs, masks = observations
    model = _model("tanh")
    rules = make_rules(VARIANT, PLAYERS, **RULES)
    path = tmp_path / "agent.npz"
    export_agent(model, str(path), rules, VARIANT, "tanh")
    metadata, layers = read_saved(path)
    greedy = SavedAgent(rules, 0, metadata, layers)
    expected = _masked_argmax(_torch_raw_logits(model, obs), masks)
    chosen = [greedy.act({"observation": o, "action_mask": m.astype(np.int8)}) for o, m in zip(obs, masks, strict=True)]
    assert chosen == expected.tolist()
    one = load_saved_agent(path, rules, seed=9, sample=True)
    two = load_saved_agent(path, rules, seed=9, sample=True)
    row_by_row = [one.act({"observation": o, "action_mask": m}) for o, m in zip(obs[:60], masks[:60], strict=True)]
    assert two.act_batch(obs[:60], masks[:60]).tolist() == row_by_row
    assert row_by_row != expected[:60].tolist()  # it did sample: some draw is not the argmax


def test_float16_file_reproduces_the_rounded_policy_and_stays_close_to_the_original(tmp_path, observations):
    obs, masks = observations
    model = _model("tanh")
    rules = make_rules(VARIANT, PLAYERS, **RULES)
    path = tmp_path / "half.npz"
    save_policy(path, policy_layers(model), rules, VARIANT, "tanh", dtype="float16")
    agent = load_saved_agent(path, rules)
    _, stored = read_saved(path)
    assert all(w.dtype == np.float32 for w, _ in agent.layers)  # computed in float32 after loading

    original = _torch_raw_logits(model, obs)
    # torch on the float16-rounded weights: what the file holds, run by the reference implementation.
    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(model.policy.action_net)
    with torch.no_grad():
        for module, (weight, bias) in zip(linears, stored, strict=True):
            assert np.abs(weight - module.weight.numpy()).max() <= 2.0**-11 * np.abs(module.weight.numpy()).max()
            module.weight.copy_(torch.as_tensor(weight))
            module.bias.copy_(torch.as_tensor(bias))
    rounded = _torch_raw_logits(model, obs)

    np.testing.assert_allclose(agent.logits(obs), rounded, atol=F32_ATOL, rtol=0)
    np.testing.assert_allclose(agent.logits(obs), original, atol=F16_ATOL, rtol=0)
    legal = np.where(masks, original, -np.inf)
    top2 = -np.sort(-legal, axis=1)[:, :2]
    clear = (top2[:, 0] - top2[:, 1]) > 2 * F16_ATOL
    assert clear.sum() > len(obs) // 2  # the comparison below covers most decisions
    chosen = _masked_argmax(agent.logits(obs), masks)
    assert (chosen[clear] == _masked_argmax(original, masks)[clear]).all()


def test_sampling_frequencies_match_the_softmax(tmp_path, observations):
    """Pearson's chi-square test of ``sample=True`` draws against the torch policy's masked softmax.

    With a fixed seed the draw is reproducible; the bound is the chi-square quantile for the number
    of legal actions (minus one degree of freedom) at ``ALPHA``, so it scales with the sample size
    instead of being a loose threshold on frequencies. ``DRAWS`` gives every action with
    probability >= 1% an expected count >= 50 (Pearson's approximation holds), and a sampler that
    ignored the logits (uniform over the legal actions) would give a statistic in the thousands.
    """
    draws, alpha = 5000, 1e-4
    obs, masks = observations
    model = _model("tanh")
    rules = make_rules(VARIANT, PLAYERS, **RULES)
    path = tmp_path / "agent.npz"
    export_agent(model, str(path), rules, VARIANT, "tanh")
    # The decision with the most uncertain policy among those whose legal logits differ a lot.
    logits = _torch_raw_logits(model, obs)
    candidates = [i for i in range(len(obs)) if masks[i].sum() >= 4 and np.ptp(logits[i][masks[i]]) > 2.0]
    assert candidates, "no observation with several legal actions of different logits"

    def entropy(i: int) -> float:
        p = np.exp(logits[i][masks[i]] - logits[i][masks[i]].max())
        p /= p.sum()
        return float(-(p * np.log(p + 1e-12)).sum())

    i = max(candidates, key=entropy)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs[i : i + 1]))
        dist.apply_masking(torch.as_tensor(masks[i : i + 1]))
        probs = dist.distribution.probs.numpy()[0].astype(float)
    legal = np.flatnonzero(masks[i])
    assert probs[legal].sum() == pytest.approx(1.0, abs=1e-5) and probs[~masks[i]].max(initial=0) < 1e-6

    agent = load_saved_agent(path, rules, seed=123, sample=True)
    observation = {"observation": obs[i], "action_mask": masks[i].astype(np.int8)}
    counts = np.bincount([agent.act(observation) for _ in range(draws)], minlength=len(probs))
    assert counts[~masks[i]].sum() == 0
    expected = probs[legal] / probs[legal].sum() * draws
    rare = expected < 5  # pooled into one cell, as Pearson's approximation asks

    def cells(per_action: np.ndarray) -> np.ndarray:
        return np.append(per_action[~rare], per_action[rare].sum()) if rare.any() else per_action

    def chi_square(observed: np.ndarray) -> float:
        return float(((cells(observed) - cells(expected)) ** 2 / cells(expected)).sum())

    bound = float(stats.chi2.ppf(1 - alpha, df=len(cells(expected)) - 1))
    assert chi_square(counts[legal].astype(float)) < bound
    # The same test would reject a uniform sampler's expected counts: it is not too weak to tell.
    assert chi_square(np.full(len(legal), draws / len(legal))) > 10 * bound


def test_export_reads_the_activation_from_the_model_and_refuses_another(tmp_path, observations):
    """Without ``activation`` the file gets the model's (a relu model exported as tanh would be another policy);
    given one that is not the model's, the export stops before writing."""
    obs, _ = observations
    model = _model("relu")
    rules = make_rules(VARIANT, PLAYERS, **RULES)
    path = tmp_path / "agent.npz"
    export_agent(model, str(path), rules, VARIANT)
    agent = load_saved_agent(path, rules)
    assert agent.metadata["activation"] == "relu"
    np.testing.assert_allclose(agent.logits(obs), _torch_raw_logits(model, obs), atol=F32_ATOL, rtol=0)
    wrong = tmp_path / "wrong.npz"
    with pytest.raises(ValueError, match="activation='tanh' but the model's policy uses 'relu'"):
        export_agent(model, str(wrong), rules, VARIANT, "tanh")
    assert not wrong.exists()


def test_a_network_without_hidden_layers_is_one_affine_map_for_one_observation_and_for_a_batch(observations):
    """No activation after the only layer: the logits are ``W x + b``, written out here."""
    obs, _ = observations
    rng = np.random.default_rng(4)
    weight = rng.normal(size=(79, obs.shape[1])).astype(np.float32)
    bias = rng.normal(size=79).astype(np.float32)
    metadata = {"activation": "tanh", "layers": [obs.shape[1], 79]}
    agent = SavedAgent(make_rules(VARIANT, PLAYERS, **RULES), 0, metadata, [(weight, bias)])
    expected = obs.astype(np.float64) @ weight.T.astype(np.float64) + bias
    np.testing.assert_allclose(agent.logits(obs), expected, atol=F32_ATOL, rtol=1e-5)
    np.testing.assert_allclose(np.array([agent.logits(o) for o in obs]), expected, atol=F32_ATOL, rtol=1e-5)
