"""Saved-agent files field by field: what is written, and every way a file is refused, with its message.

Each broken file is made by hand (``np.savez`` of chosen arrays and metadata), so each check of the
loader is reached on its own; the expected messages name the problem and the allowed values.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from newmarket_env import env, load_agent, make_rules
from newmarket_env.agents import saved as S
from newmarket_env.agents.saved import load_saved_agent, read_saved, rules_mismatch, save_policy, shipped_agents
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE

RULES = make_rules("michigan", 4)
HIDDEN = 6


def _layers(seed: int = 0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(HIDDEN, FLAT_SIZE)).astype(dtype), rng.normal(size=HIDDEN).astype(dtype)),
        (rng.normal(size=(NUM_ACTIONS, HIDDEN)).astype(dtype), rng.normal(size=NUM_ACTIONS).astype(dtype)),
    ]


def _metadata(**changes):
    data = {
        "format": S.FORMAT,
        "version": S.FORMAT_VERSION,
        "variant": "michigan",
        "rules": RULES.to_dict(),
        "observation": "flat",
        "obs_size": FLAT_SIZE,
        "num_actions": NUM_ACTIONS,
        "layers": [FLAT_SIZE, HIDDEN, NUM_ACTIONS],
        "activation": "relu",
        "training": {},
    }
    data.update(changes)
    return data


def _write(path, metadata=None, arrays=None, raw_metadata: bytes | None = None):
    """An .npz with the given metadata (JSON, or raw bytes) and arrays (default: valid float32 layers)."""
    if arrays is None:
        arrays = {}
        for i, (w, b) in enumerate(_layers()):
            arrays[f"layer{i}.weight"], arrays[f"layer{i}.bias"] = w.astype(np.float32), b.astype(np.float32)
    text = raw_metadata if raw_metadata is not None else json.dumps(metadata or _metadata()).encode()
    np.savez(path, metadata=np.frombuffer(text, dtype=np.uint8), **arrays)
    return path


def _refused(path, message: str) -> None:
    with pytest.raises(ValueError) as err:
        read_saved(path)
    text = str(err.value)
    assert text.startswith(f"{str(path)!r} is not a valid newmarket_env saved agent: "), text
    assert message in text, text
    assert "\n" not in text


# ----------------------------------------------------------------------------------------- writing
def test_the_file_holds_the_documented_entries_and_metadata(tmp_path):
    path = tmp_path / "deep" / "er" / "agent.npz"  # missing folders are made
    returned = save_policy(path, _layers(), RULES, "michigan", "tanh", {"steps": 7}, name="my-run")
    with np.load(path) as data:
        entries = {key: data[key] for key in data.files}
    assert sorted(entries) == ["layer0.bias", "layer0.weight", "layer1.bias", "layer1.weight", "metadata"]
    assert all(entries[k].dtype == np.float32 for k in entries if k != "metadata")
    text = entries["metadata"].tobytes().decode()
    metadata = json.loads(text)
    assert (
        metadata
        == returned
        == {
            "format": "newmarket_env.saved_agent",
            "version": 1,
            "variant": "michigan",
            "rules": RULES.to_dict(),
            "observation": "flat",
            "obs_size": FLAT_SIZE,
            "num_actions": NUM_ACTIONS,
            "layers": [FLAT_SIZE, HIDDEN, NUM_ACTIONS],
            "activation": "tanh",
            "training": {"steps": 7},
            "name": "my-run",
        }
    )
    # Sorted keys: the same agent gives the same bytes (files can be compared and hashed).
    assert text == json.dumps(metadata, sort_keys=True)
    assert not [p for p in path.parent.iterdir() if p.name != "agent.npz"]  # no temporary file left
    np.testing.assert_array_equal(entries["layer1.weight"], _layers()[1][0].astype(np.float32))


def test_float16_files_store_float16_and_load_as_float32(tmp_path):
    path = tmp_path / "half.npz"
    save_policy(path, _layers(), RULES, "michigan", "relu", dtype="float16")
    with np.load(path) as data:
        assert {data[k].dtype.name for k in data.files if k != "metadata"} == {"float16"}
    _, layers = read_saved(path)
    assert {a.dtype.name for layer in layers for a in layer} == {"float32"}
    np.testing.assert_array_equal(layers[0][1], _layers()[0][1].astype(np.float16).astype(np.float32))


def test_without_training_or_name_the_metadata_says_so(tmp_path):
    metadata = save_policy(tmp_path / "a.npz", _layers(), RULES, "michigan", "relu")
    assert metadata["training"] == {} and "name" not in metadata


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"activation": "sigmoid"}, "activation='sigmoid' is unknown; allowed: tanh, relu"),
        ({"dtype": "float64"}, "dtype='float64' is unknown; allowed: float32, float16"),
    ],
)
def test_bad_save_options_are_refused_and_write_nothing(tmp_path, kwargs, message):
    options = {"activation": "relu", **kwargs}
    activation = options.pop("activation")
    with pytest.raises(ValueError, match=re.escape(message)):
        save_policy(tmp_path / "a.npz", _layers(), RULES, "michigan", activation, **options)
    assert not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------------------- reading
@pytest.mark.parametrize(
    "raw, message",
    [
        (b"{not json", "its metadata is not JSON"),
        (b"[1, 2]", "metadata 'format' must be 'newmarket_env.saved_agent'"),
        (json.dumps(_metadata(format="other")).encode(), "metadata 'format' must be 'newmarket_env.saved_agent'"),
        (json.dumps(_metadata(version=2)).encode(), "format version 2 is unsupported; allowed: 1"),
        (json.dumps(_metadata(activation="sigmoid")).encode(), "activation 'sigmoid' is unknown; allowed: tanh, relu"),
        (
            json.dumps(_metadata(observation="planes")).encode(),
            f"it reads observation 'planes' of size {FLAT_SIZE}; this package encodes 'flat' of size {FLAT_SIZE}",
        ),
        (
            json.dumps(_metadata(obs_size=12)).encode(),
            f"it reads observation 'flat' of size 12; this package encodes 'flat' of size {FLAT_SIZE}",
        ),
        (json.dumps(_metadata(num_actions=80)).encode(), f"num_actions must be {NUM_ACTIONS} and 'rules' a dict"),
        (json.dumps(_metadata(rules=["michigan"])).encode(), f"num_actions must be {NUM_ACTIONS} and 'rules' a dict"),
    ],
)
def test_bad_metadata_is_refused_naming_the_field(tmp_path, raw, message):
    _refused(_write(tmp_path / "bad.npz", raw_metadata=raw), message)


@pytest.mark.parametrize(
    "layers",
    [
        None,
        "6",
        [FLAT_SIZE],
        [FLAT_SIZE + 1, HIDDEN, NUM_ACTIONS],
        [FLAT_SIZE, HIDDEN, NUM_ACTIONS + 1],
        [FLAT_SIZE, 0, NUM_ACTIONS],
        [FLAT_SIZE, True, NUM_ACTIONS],
        [FLAT_SIZE, 6.0, NUM_ACTIONS],
    ],
)
def test_bad_layer_sizes_are_refused(tmp_path, layers):
    path = _write(tmp_path / "bad.npz", _metadata(layers=layers))
    _refused(path, f"'layers' must run from {FLAT_SIZE} inputs to {NUM_ACTIONS} actions; got {layers!r}")


def test_a_missing_array_is_named(tmp_path):
    arrays = {
        f"layer{i}.{p}": a.astype(np.float32)
        for i, layer in enumerate(_layers())
        for p, a in zip(("weight", "bias"), layer, strict=True)
    }
    del arrays["layer1.bias"]
    path = _write(tmp_path / "bad.npz", arrays=arrays)
    _refused(
        path,
        f"arrays ['layer0.bias', 'layer0.weight', 'layer1.weight'] do not match 'layers' "
        f"[{FLAT_SIZE}, {HIDDEN}, {NUM_ACTIONS}]",
    )


@pytest.mark.parametrize(
    "layer, part, array",
    [
        (0, "weight", np.zeros((HIDDEN, FLAT_SIZE - 1), np.float32)),
        (1, "bias", np.zeros(NUM_ACTIONS - 1, np.float32)),
        (1, "weight", np.zeros((NUM_ACTIONS, HIDDEN), np.int32)),
    ],
)
def test_a_layer_of_the_wrong_shape_or_type_is_named(tmp_path, layer, part, array):
    arrays = {
        f"layer{i}.{p}": a.astype(np.float32)
        for i, lay in enumerate(_layers())
        for p, a in zip(("weight", "bias"), lay, strict=True)
    }
    arrays[f"layer{layer}.{part}"] = array
    path = _write(tmp_path / "bad.npz", arrays=arrays)
    rows, cols = ((HIDDEN, FLAT_SIZE), (NUM_ACTIONS, HIDDEN))[layer]
    weight, bias = arrays[f"layer{layer}.weight"], arrays[f"layer{layer}.bias"]
    _refused(
        path, f"layer {layer} has shape {weight.shape} / {bias.shape}, expected float ({rows}, {cols}) / ({rows},)"
    )


@pytest.mark.parametrize("part", ["weight", "bias"])
def test_non_finite_numbers_are_refused(tmp_path, part):
    arrays = {
        f"layer{i}.{p}": a.astype(np.float32)
        for i, lay in enumerate(_layers())
        for p, a in zip(("weight", "bias"), lay, strict=True)
    }
    arrays[f"layer1.{part}"][0] = np.nan
    _refused(_write(tmp_path / "bad.npz", arrays=arrays), "layer 1 holds non-finite numbers")


def test_float64_arrays_load_as_float32(tmp_path):
    arrays = {
        f"layer{i}.{p}": a for i, lay in enumerate(_layers()) for p, a in zip(("weight", "bias"), lay, strict=True)
    }
    _, layers = read_saved(_write(tmp_path / "wide.npz", arrays=arrays))
    assert [(w.dtype.name, b.dtype.name) for w, b in layers] == [("float32", "float32")] * 2


# ----------------------------------------------------------------------------------------- loading
def test_rules_mismatch_names_each_parameter_both_ways():
    saved = make_rules("michigan", 4).to_dict()
    assert rules_mismatch(saved, make_rules("michigan", 4)) == []
    assert rules_mismatch(saved, make_rules("michigan", 4, per_card_payment=2)) == [
        "per_card_payment (trained 1, here 2)"
    ]
    assert rules_mismatch({**saved, "extra": 1}, make_rules("michigan", 4)) == ["extra (trained 1, here None)"]


def test_load_names_the_variant_and_the_differing_parameters(tmp_path):
    path = tmp_path / "agent.npz"
    save_policy(path, _layers(), RULES, "michigan", "relu")
    other = make_rules("michigan", 4, per_card_payment=2)
    with pytest.raises(ValueError) as err:
        load_saved_agent(path, other)
    assert str(err.value) == (
        f"saved agent {str(path)!r} was trained for 'michigan' with other rules; "
        "differing parameters: per_card_payment (trained 1, here 2)"
    )
    agent = load_saved_agent(path, other, allow_rules_mismatch=True)
    assert agent.rules == other


def test_the_loaded_agent_keeps_its_options_and_names(tmp_path):
    plain, named = tmp_path / "plain.npz", tmp_path / "named.npz"
    save_policy(plain, _layers(), RULES, "michigan", "tanh")
    save_policy(named, _layers(), RULES, "michigan", "tanh", name="run-7")
    agent = load_saved_agent(plain, RULES, seed=5, sample=True)
    assert (agent.name, agent.seed, agent.sample, agent.metadata["activation"]) == ("plain", 5, True, "tanh")
    assert agent.activation is S.ACTIVATIONS["tanh"]
    assert load_saved_agent(named, RULES).name == "run-7"  # the run's name over the file's
    assert load_saved_agent(named, RULES, name="given").name == "given"  # the caller's over both
    assert load_saved_agent(plain, RULES).sample is False


def test_logits_are_float32_for_one_observation_or_a_batch(tmp_path):
    path = tmp_path / "agent.npz"
    save_policy(path, _layers(), RULES, "michigan", "relu")
    agent = load_saved_agent(path, RULES)
    batch = np.random.default_rng(1).random((5, FLAT_SIZE))  # float64 in
    out = agent.logits(batch)
    assert out.dtype == np.float32 and out.shape == (5, NUM_ACTIONS)
    (w0, b0), (w1, b1) = _layers()
    hidden = np.maximum(batch.astype(np.float32) @ w0.astype(np.float32).T + b0.astype(np.float32), 0)
    np.testing.assert_allclose(out, hidden @ w1.astype(np.float32).T + b1.astype(np.float32), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(agent.logits(batch[2]), out[2], rtol=1e-5, atol=1e-4)


def test_act_batch_is_act_row_by_row_and_refuses_bad_masks(tmp_path):
    path = tmp_path / "agent.npz"
    save_policy(path, _layers(), RULES, "michigan", "relu")
    agent = load_saved_agent(path, RULES)
    rng = np.random.default_rng(2)
    obs = rng.random((20, FLAT_SIZE)).astype(np.float32)
    masks = rng.random((20, NUM_ACTIONS)) < 0.2
    masks[:, 0] = True
    rows = [agent.act({"observation": o, "action_mask": m.astype(np.int8)}) for o, m in zip(obs, masks, strict=True)]
    assert agent.act_batch(obs, masks).tolist() == rows
    assert all(masks[i, a] for i, a in enumerate(rows))
    one_empty_row = masks.copy()
    one_empty_row[7] = False
    for bad in (masks[:, :10], masks[0], np.zeros_like(masks), one_empty_row):
        with pytest.raises(ValueError, match=rf"masks must be \(B, {NUM_ACTIONS}\) with a legal action in every row"):
            agent.act_batch(obs, bad)


# ----------------------------------------------------------------------------------------- shipped agents
def test_shipped_agents_are_filtered_by_sidecar_or_by_the_file(tmp_path, monkeypatch):
    """With a sidecar .json its rules decide; without one the .npz's own metadata does; unreadable: left out."""
    save_policy(tmp_path / "with-sidecar.npz", _layers(), make_rules("newmarket", 4), "newmarket", "relu")
    (tmp_path / "with-sidecar.json").write_text(json.dumps({"rules": RULES.to_dict()}))
    save_policy(tmp_path / "file-only.npz", _layers(), RULES, "michigan", "relu")
    save_policy(tmp_path / "other-rules.npz", _layers(), make_rules("michigan", 5), "michigan", "relu")
    save_policy(tmp_path / "bad-sidecar.npz", _layers(), RULES, "michigan", "relu")
    (tmp_path / "bad-sidecar.json").write_text("{}")
    (tmp_path / "broken.npz").write_bytes(b"not a zip")
    monkeypatch.setattr(S, "TRAINED_DIR", tmp_path)
    assert shipped_agents() == ["bad-sidecar", "broken", "file-only", "other-rules", "with-sidecar"]
    assert shipped_agents(RULES) == ["file-only", "with-sidecar"]


def test_shipped_agents_load_by_name_with_options():
    name = "ppo-newmarket"
    assert name in shipped_agents()
    metadata, _ = read_saved(S.TRAINED_DIR / f"{name}.npz")
    e = env(variant="newmarket", num_players=metadata["rules"]["num_players"])
    agent = load_agent(name, env=e, seed=3, sample=True)
    assert (agent.name, agent.seed, agent.sample) == (name, 3, True)
    assert load_agent(name, env=e).sample is False


def test_a_saved_agent_gets_the_mode_a_plain_new_file_gets(tmp_path):
    # Written under a temporary name first; mkstemp's 0600 must not stay, or a file meant for sharing is private.
    import os
    import stat

    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(NUM_ACTIONS, FLAT_SIZE)).astype(np.float32), np.zeros(NUM_ACTIONS, np.float32))]
    path = tmp_path / "agent.npz"
    save_policy(str(path), layers, make_rules("newmarket"), "newmarket", "tanh")
    with open(tmp_path / "plain", "w"):
        pass
    assert stat.S_IMODE(os.stat(path).st_mode) == stat.S_IMODE(os.stat(tmp_path / "plain").st_mode)
