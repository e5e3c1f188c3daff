"""The sparse input layer (``network.input: sparse``) against the dense product it replaces.

The reference is torch itself: ``torch.nn.Linear``'s output and the gradients autograd computes for it.
The compiled loops (``nn/_sparse.pyx``) and the torch-only index-sum (``index_sum_torch``, the path
off the CPU) must give the same outputs and weight gradients to float rounding, on real observations
(whose chip scalars are not 0/1) and on inputs made to reach every branch of the loops: widths that are
no multiple of the 8-entry skip or of the 64-output tile, empty rows, negative values. Then the
networks of every method, built sparse and dense from one seed: the same weights, logits, Q-values and
values, the same gradients after one step, and the same exported files.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from newmarket_env.engine.choice import FastGame  # noqa: E402
from newmarket_env.game.rules import make_rules  # noqa: E402
from newmarket_env.nn.sparse_input import (  # noqa: E402
    SparseInputLinear,
    index_sum_torch,
    kernels,
    shared_input,
)

compiled = pytest.mark.skipif(kernels is None or FastGame is None, reason="the compiled modules are not built")


def _observations(count: int = 300, seed: int = 0) -> np.ndarray:
    """Flat observations of real tables (compiled control opponents, random learner)."""
    from newmarket_env.engine._batch import TableBatch

    batch = TableBatch(make_rules("michigan", 5), 60, seed=seed, seat_policies=[-1, 3, 3, -1, 3], threads=1)
    rows = []
    while sum(len(r) for r in rows) < count:
        batch.step(batch.random_actions())
        rows.append(batch.observations.copy())
    return np.concatenate(rows)[:count]


def _made_inputs(rows: int, width: int, seed: int) -> np.ndarray:
    """Mostly zeros, some ones, some other values of either sign; every fifth row empty."""
    rng = np.random.default_rng(seed)
    x = np.zeros((rows, width), dtype=np.float32)
    hit = rng.random((rows, width)) < 0.07
    x[hit] = np.where(rng.random(hit.sum()) < 0.5, 1.0, rng.normal(size=hit.sum())).astype(np.float32)
    x[::5] = 0.0
    x[1::7, -1] = -0.5  # the last column, past the last whole block of 8
    return x


def _both(x: np.ndarray, outputs: int, seed: int = 1):
    """A dense layer and a sparse one holding its parameters, their outputs and gradients for a loss."""
    torch.manual_seed(seed)
    dense = torch.nn.Linear(x.shape[1], outputs)
    sparse = SparseInputLinear.like(dense)
    inputs = torch.as_tensor(x)
    upstream = torch.randn(x.shape[0], outputs)
    found = []
    for layer in (dense, sparse):
        layer.zero_grad()
        out = layer(inputs)
        (out * upstream).sum().backward()
        found.append((out.detach().clone(), layer.weight.grad.clone(), layer.bias.grad.clone()))
    return found


@compiled
@pytest.mark.parametrize("rows, width, outputs", [(300, 936, 128), (23, 100, 79), (64, 936, 130), (1, 13, 1)])
def test_the_compiled_index_sum_equals_the_dense_layer_and_its_gradients(rows, width, outputs):
    x = _observations(rows) if width == 936 and rows == 300 else _made_inputs(rows, width, seed=rows)
    (dense_out, dense_w, dense_b), (sparse_out, sparse_w, sparse_b) = _both(x, outputs)
    torch.testing.assert_close(sparse_out, dense_out, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(sparse_w, dense_w, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(sparse_b, dense_b)
    assert (dense_w != 0).any(dim=0).sum() < width  # columns never set get no gradient: the test sees sparsity


@compiled
def test_the_torch_index_sum_and_the_entries_agree_with_the_compiled_loops():
    x = _made_inputs(41, 100, seed=4)
    columns, values, offsets = kernels.nonzero_rows(x)
    rows, cols = np.nonzero(x)  # numpy's own scan: row by row, columns ascending
    np.testing.assert_array_equal(columns, cols)
    np.testing.assert_array_equal(values, x[rows, cols])
    np.testing.assert_array_equal(offsets, np.searchsorted(rows, np.arange(42)))
    weight = torch.randn(79, 100, requires_grad=True)
    bias = torch.randn(79, requires_grad=True)
    reference = index_sum_torch(torch.as_tensor(x), weight, bias)
    layer = SparseInputLinear(100, 79)
    with torch.no_grad():
        layer.weight.copy_(weight)
        layer.bias.copy_(bias)
    torch.testing.assert_close(layer(torch.as_tensor(x)), reference, rtol=1e-5, atol=1e-5)
    (reference**2).sum().backward()
    (layer(torch.as_tensor(x)) ** 2).sum().backward()
    torch.testing.assert_close(layer.weight.grad, weight.grad, rtol=1e-4, atol=1e-4)


def test_inputs_that_need_their_own_gradient_and_other_shapes_take_the_dense_product():
    torch.manual_seed(0)
    layer = SparseInputLinear(20, 5)
    x = torch.zeros(3, 4, 20)
    x[0, 1, 3], x[2, 3, 19] = 2.0, -1.0
    torch.testing.assert_close(layer(x), torch.nn.functional.linear(x, layer.weight, layer.bias))
    wanted = x.clone().requires_grad_()
    layer(wanted).sum().backward()
    assert wanted.grad is not None and wanted.grad.shape == x.shape


@compiled
def test_shared_input_scans_a_tensor_once_and_sees_it_change():
    """Inside the block a changed tensor (its version bumped) is scanned again; outside nothing is kept."""
    layer = SparseInputLinear(10, 3)
    x = torch.zeros(2, 10)
    x[0, 2] = 1.0
    with shared_input():
        first = layer(x)
        x[1, 5] = 3.0  # in place: torch bumps the version
        second = layer(x)
    torch.testing.assert_close(second, torch.nn.functional.linear(x, layer.weight, layer.bias))
    assert not torch.equal(first, second)
    values = np.zeros((2, 10), dtype=np.float32)
    shared = torch.from_numpy(values)  # written behind torch's back: outside the block, read afresh each time
    layer(shared)
    values[0, 7] = 1.0
    torch.testing.assert_close(layer(shared), torch.nn.functional.linear(shared, layer.weight, layer.bias))


@compiled
def test_expert_iterations_and_dmcs_networks_are_the_same_sparse_or_dense():
    """One seed, both inputs: the same weights, logits, values and Q-values, and after one Adam step on
    each method's own loss the same gradients and the same new weights."""
    from newmarket_env.train.dmc.fit import fit_q, q_network
    from newmarket_env.train.expert.fit import fit
    from newmarket_env.train.expert.network import PolicyValueNet

    obs = _observations(256, seed=2)
    rng = np.random.default_rng(0)
    masks = rng.random((256, 79)) < 0.3
    masks[:, 0] = True
    targets = masks / masks.sum(axis=1, keepdims=True)
    returns = rng.normal(size=256).astype(np.float32)
    actions = np.argmax(masks * rng.random((256, 79)), axis=1)

    nets = {}
    for mode in ("dense", "sparse"):
        torch.manual_seed(7)
        expert = PolicyValueNet([64, 32], "tanh", mode)
        torch.manual_seed(7)
        q = q_network([64], "relu", mode)
        nets[mode] = (expert, q)
    (expert_d, q_d), (expert_s, q_s) = nets["dense"], nets["sparse"]
    assert isinstance(expert_s.policy[0], SparseInputLinear) and isinstance(q_s[0], SparseInputLinear)
    assert not isinstance(expert_d.policy[0], SparseInputLinear)
    for a, b in ((expert_d, expert_s), (q_d, q_s)):
        for (name, p), (_, r) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
            torch.testing.assert_close(p, r, msg=name)  # the same keys, the same initial weights
    x = torch.as_tensor(obs)
    with torch.no_grad():
        torch.testing.assert_close(expert_s.policy(x), expert_d.policy(x), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(expert_s.value(x), expert_d.value(x), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(q_s(x), q_d(x), rtol=1e-5, atol=1e-5)

    before = expert_s.policy[0].weight.detach().clone()
    for expert in (expert_d, expert_s):
        optimizer = torch.optim.SGD(expert.parameters(), lr=0.1)
        fit(expert, optimizer, obs, masks, targets, returns, epochs=1, batch_size=256, value_weight=0.5, seed=3)
    for q in (q_d, q_s):
        optimizer = torch.optim.SGD(q.parameters(), lr=0.1)
        fit_q(q, optimizer, obs, actions, returns, epochs=1, batch_size=256, seed=3)
    for a, b in ((expert_d, expert_s), (q_d, q_s)):
        for (name, p), (_, r) in zip(a.named_parameters(), b.named_parameters(), strict=True):
            torch.testing.assert_close(r.grad, p.grad, rtol=1e-4, atol=1e-5, msg=name)
            torch.testing.assert_close(r, p, rtol=1e-4, atol=1e-5, msg=name)
    assert not torch.equal(expert_s.policy[0].weight, before)  # the step moved the sparse layer's weights


@compiled
def test_maskable_ppo_is_the_same_sparse_or_dense_and_exports_the_same_file(tmp_path):
    """SB3's MaskablePPO built from one config and seed with network.input sparse and dense: the same
    initial weights, the same action logits and values on real observations, the same gradients of PPO's
    loss terms, the same exported agent; the sparse model's own zip reads as a plain MLP."""
    from newmarket_env.agents.saved import read_saved
    from newmarket_env.agents.sb3_zip import read_sb3_zip
    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.export import export_agent
    from newmarket_env.train.ppo.learner import build_model, build_vec_env
    from newmarket_env.train.ppo.sparse_policy import SparseInputPolicy

    models = {}
    for mode in ("dense", "sparse"):
        config = config_from_dict(
            {
                "env": {"variant": "newmarket", "num_players": 4},
                "opponents": {"baselines": ["greedy"]},
                "ppo": {"n_steps": 8, "batch_size": 32, "net_arch": [32, 16]},
                "run": {"n_envs": 4, "seed": 5, "out_dir": str(tmp_path / mode), "threads": 1},
                "network": {"input": mode},
            }
        )
        models[mode] = build_model(config, build_vec_env(config))
    dense, sparse = models["dense"], models["sparse"]
    assert isinstance(sparse.policy, SparseInputPolicy) and type(dense.policy) is not SparseInputPolicy
    for (name, p), (_, r) in zip(dense.policy.state_dict().items(), sparse.policy.state_dict().items(), strict=True):
        torch.testing.assert_close(r, p, msg=name)

    obs = torch.as_tensor(_observations(64, seed=9))
    masks = np.ones((64, 79), dtype=bool)
    actions = torch.as_tensor(np.random.default_rng(1).integers(79, size=64))
    found = []
    for model in (dense, sparse):
        model.policy.zero_grad()
        values, log_prob, entropy = model.policy.evaluate_actions(obs, actions, action_masks=masks)
        (values.sum() + log_prob.sum() + entropy.sum()).backward()
        found.append((values.detach(), log_prob.detach(), [p.grad.clone() for p in model.policy.parameters()]))
    torch.testing.assert_close(found[1][0], found[0][0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(found[1][1], found[0][1], rtol=1e-5, atol=1e-5)
    for a, b in zip(found[0][2], found[1][2], strict=True):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-4)

    rules = make_rules("newmarket", 4)
    for mode, model in models.items():
        export_agent(model, str(tmp_path / f"{mode}.npz"), rules, "newmarket", training={"steps": 0})
    (meta_d, layers_d), (meta_s, layers_s) = (read_saved(tmp_path / f"{m}.npz") for m in ("dense", "sparse"))
    assert meta_d["layers"] == meta_s["layers"] and meta_d["activation"] == meta_s["activation"]
    for (w1, b1), (w2, b2) in zip(layers_d, layers_s, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    sparse.save(tmp_path / "sparse.zip")
    metadata, layers = read_sb3_zip(tmp_path / "sparse.zip")
    assert metadata["algorithm"] == "MaskablePPO"
    for (w1, b1), (w2, b2) in zip(layers_d, layers, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)


@compiled
@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_every_torch_methods_networks_read_the_configs_network_input(tmp_path, mode):
    """A run's config reaches each network: expert iteration's policy and value nets, DMC's learner and its
    actor's copy (what plays the tables) have a sparse first layer exactly when ``network.input`` says so."""
    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.dmc.actors import actor_pool
    from newmarket_env.train.methods import RunContext, get_method

    rules = make_rules("newmarket", 4)
    firsts = {}
    for name in ("expert_iteration", "dmc"):
        config = config_from_dict({"method": name, "network": {"input": mode}, "run": {"out_dir": str(tmp_path)}})
        learner = get_method(name).learner(config, RunContext(tmp_path, "", rules))
        try:
            nets = [learner.net.policy, learner.net.value_net] if name == "expert_iteration" else [learner.net]
            firsts[name] = [net[0] for net in nets]
            if name == "dmc":
                actors = actor_pool(config, rules)
                firsts["dmc actor"] = [actors.actor.net[0]]
                actors.close()
        finally:
            learner.close()
    for name, layers in firsts.items():
        assert all(isinstance(layer, torch.nn.Linear) for layer in layers), name
        assert [isinstance(layer, SparseInputLinear) for layer in layers] == [mode == "sparse"] * len(layers), name
