"""``value_net``: a saved value network reads back and computes what its layers say; every broken or foreign
file is refused with one line that names the file and what is wrong with it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from newmarket_env.agents.value_net import VALUE_FORMAT, load_value, save_value
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import FLAT_SIZE

RULES = make_rules("newmarket", 4)


def _metadata(**changes):
    metadata = {
        "format": VALUE_FORMAT,
        "version": 1,
        "variant": "newmarket",
        "rules": RULES.to_dict(),
        "obs_size": FLAT_SIZE,
        "layers": [FLAT_SIZE, 1],
        "activation": "tanh",
        "reward_scale": 0.5,
    }
    metadata.update(changes)
    return metadata


def _linear(weight_scale=1.0):
    weight = np.zeros((1, FLAT_SIZE), np.float32)
    weight[0, 3] = 2.0 * weight_scale
    return [(weight, np.array([0.5], np.float32))]


def _write(path, metadata, layers=None, **arrays):
    """A value file by hand: float arrays plus the metadata as JSON bytes (the format of the module docstring)."""
    entries = dict(arrays)
    for i, (weight, bias) in enumerate(layers if layers is not None else _linear()):
        entries[f"layer{i}.weight"], entries[f"layer{i}.bias"] = weight, bias
    if metadata is not None:
        entries["metadata"] = np.frombuffer(json.dumps(metadata).encode(), dtype=np.uint8)
    np.savez(path, **entries)
    return path


def _refused(path, problem):
    """load_value must refuse ``path`` with exactly '<path> is not a valid ...: <problem>' on one line."""
    with pytest.raises(ValueError) as err:
        load_value(path, RULES)
    message = str(err.value)
    assert "\n" not in message
    expected = f"{str(path)!r} is not a valid newmarket_env value network: {problem}"
    assert message == expected


# ---------------------------------------------------------------- files that load
def test_a_network_of_one_layer_input_to_output_is_allowed(tmp_path):
    """layers [FLAT_SIZE, 1]: chips = (2 * x[3] + 0.5) / reward_scale 0.5 = 4 * x[3] + 1."""
    net = load_value(_write(tmp_path / "v.npz", _metadata()), RULES)
    x = np.zeros((2, FLAT_SIZE), np.float32)
    x[0, 3], x[1, 3] = 1.0, -0.25
    assert net.chips(x).tolist() == [5.0, 0.0]
    assert net.reward_scale == 0.5 and net.metadata["layers"] == [FLAT_SIZE, 1]


@pytest.mark.parametrize("activation,hidden", [("relu", [0.0, 3.0]), ("tanh", [np.tanh(-1.0), np.tanh(3.0)])])
def test_a_hidden_layer_goes_through_the_activation_and_the_output_does_not(tmp_path, activation, hidden):
    """Two hidden units read x[0]: h = act([-1, 3] * x[0]); output = h0 + h1 - 10 (not activated), / 2."""
    first = np.zeros((2, FLAT_SIZE), np.float32)
    first[:, 0] = [-1.0, 3.0]
    layers = [(first, np.zeros(2, np.float32)), (np.array([[1.0, 1.0]], np.float32), np.array([-10.0], np.float32))]
    save_value(tmp_path / "v.npz", layers, RULES, "newmarket", activation, 2.0)
    x = np.zeros(FLAT_SIZE, np.float32)
    x[0] = 1.0
    net = load_value(tmp_path / "v.npz", RULES)
    assert net.chips(x) == pytest.approx((sum(hidden) - 10) / 2)


def test_layers_are_float32_on_disk_and_in_memory(tmp_path):
    """float64 layers are saved as float32; float16 arrays written by hand load as float32; the network
    computes in float32 whatever the dtype of the observations."""
    weight, bias = _linear()[0]
    save_value(
        tmp_path / "v.npz", [(weight.astype(np.float64), bias.astype(np.float64))], RULES, "newmarket", "relu", 1.0
    )
    with np.load(tmp_path / "v.npz") as data:
        assert data["layer0.weight"].dtype == np.float32 and data["layer0.bias"].dtype == np.float32
    path = _write(tmp_path / "half.npz", _metadata(), layers=[(weight.astype(np.float16), bias.astype(np.float16))])
    net = load_value(path, RULES)
    assert [(w.dtype, b.dtype) for w, b in net.layers] == [(np.float32, np.float32)]
    x = np.zeros(FLAT_SIZE, np.float64)
    x[3] = 1.0
    chips = net.chips(x)
    assert chips.dtype == np.float32 and chips == 5.0


def test_save_value_writes_the_metadata_it_returns(tmp_path):
    metadata = save_value(tmp_path / "v.npz", _linear(), RULES, "newmarket", "relu", 0.25, training={"steps": 3})
    assert metadata["format"] == VALUE_FORMAT and metadata["version"] == 1 and metadata["layers"] == [FLAT_SIZE, 1]
    assert (
        metadata["reward_scale"] == 0.25 and metadata["training"] == {"steps": 3} and metadata["obs_size"] == FLAT_SIZE
    )
    assert (
        metadata["variant"] == "newmarket" and metadata["activation"] == "relu" and metadata["rules"] == RULES.to_dict()
    )
    assert load_value(tmp_path / "v.npz", RULES).metadata == metadata


def test_save_value_refuses_an_unknown_activation(tmp_path):
    with pytest.raises(ValueError, match=r"^activation='gelu' is unknown; allowed: tanh, relu$"):
        save_value(tmp_path / "v.npz", _linear(), RULES, "newmarket", "gelu", 1.0)
    assert not (tmp_path / "v.npz").exists()


# ---------------------------------------------------------------- files refused
def _message(path):
    with pytest.raises(ValueError) as err:
        load_value(path, RULES)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_a_file_that_is_no_npz(tmp_path):
    path = tmp_path / "v.npz"
    path.write_bytes(b"not a zip")
    unreadable = "is not a valid newmarket_env value network: cannot read it as an .npz file ("
    assert _message(path).startswith(f"{str(path)!r} {unreadable}")
    missing = tmp_path / "missing.npz"
    assert _message(missing).startswith(f"{str(missing)!r} {unreadable}")


def test_a_file_without_metadata_says_so_and_nothing_else(tmp_path):
    _refused(_write(tmp_path / "v.npz", None), "it has no 'metadata' entry")


def test_metadata_that_is_not_json(tmp_path):
    path = tmp_path / "v.npz"
    np.savez(path, metadata=np.frombuffer(b"{not json", dtype=np.uint8))
    assert "cannot read it as an .npz file (" in _message(path)


@pytest.mark.parametrize(
    "metadata,problem",
    [
        (_metadata(format="newmarket_env.saved_agent"), "metadata 'format' must be 'newmarket_env.value_net'"),
        ([1, 2], "metadata 'format' must be 'newmarket_env.value_net'"),
        (_metadata(version=2), "version 2 / activation 'tanh' unsupported; allowed: 1 / tanh, relu"),
        (_metadata(activation="gelu"), "version 1 / activation 'gelu' unsupported; allowed: 1 / tanh, relu"),
        (_metadata(layers=[FLAT_SIZE]), f"'layers' must run from {FLAT_SIZE} inputs to 1 output; got [{FLAT_SIZE}]"),
        (
            _metadata(layers=[FLAT_SIZE, 2]),
            f"'layers' must run from {FLAT_SIZE} inputs to 1 output; got [{FLAT_SIZE}, 2]",
        ),
        (_metadata(layers=[10, 1]), f"'layers' must run from {FLAT_SIZE} inputs to 1 output; got [10, 1]"),
        (_metadata(layers="936,1"), f"'layers' must run from {FLAT_SIZE} inputs to 1 output; got '936,1'"),
        (_metadata(reward_scale=0), "'reward_scale' must be a positive number; got 0"),
        (_metadata(reward_scale=-1.5), "'reward_scale' must be a positive number; got -1.5"),
        (_metadata(reward_scale="1"), "'reward_scale' must be a positive number; got '1'"),
        (
            _metadata(layers=[FLAT_SIZE, 4, 1]),
            f"arrays ['layer0.bias', 'layer0.weight'] do not match 'layers' [{FLAT_SIZE}, 4, 1]",
        ),
    ],
)
def test_bad_metadata_is_named(tmp_path, metadata, problem):
    _refused(_write(tmp_path / "v.npz", metadata), problem)


def test_missing_metadata_fields_show_as_none(tmp_path):
    metadata = _metadata()
    del metadata["version"], metadata["layers"]
    _refused(
        _write(tmp_path / "v.npz", metadata), "version None / activation 'tanh' unsupported; allowed: 1 / tanh, relu"
    )
    metadata = _metadata()
    del metadata["layers"]
    _refused(_write(tmp_path / "v.npz", metadata), f"'layers' must run from {FLAT_SIZE} inputs to 1 output; got None")


def test_an_extra_array_is_refused(tmp_path):
    path = _write(tmp_path / "v.npz", _metadata(), extra=np.zeros(3, np.float32))
    _refused(path, f"arrays ['extra', 'layer0.bias', 'layer0.weight'] do not match 'layers' [{FLAT_SIZE}, 1]")


@pytest.mark.parametrize(
    "weight,bias",
    [
        (np.zeros((1, FLAT_SIZE - 1), np.float32), np.zeros(1, np.float32)),  # weight of the wrong width
        (np.zeros((1, FLAT_SIZE), np.float32), np.zeros(2, np.float32)),  # bias of the wrong length
        (np.zeros((1, FLAT_SIZE), np.int32), np.zeros(1, np.float32)),  # integers
        (np.full((1, FLAT_SIZE), np.nan, np.float32), np.zeros(1, np.float32)),  # not finite
        (np.zeros((1, FLAT_SIZE), np.float32), np.array([np.inf], np.float32)),
    ],
)
def test_a_bad_layer_is_named(tmp_path, weight, bias):
    _refused(
        _write(tmp_path / "v.npz", _metadata(), layers=[(weight, bias)]),
        f"layer 0 is not finite float (1, {FLAT_SIZE})",
    )


def test_a_bad_second_layer_is_named_with_its_shape(tmp_path):
    first = (np.zeros((4, FLAT_SIZE), np.float32), np.zeros(4, np.float32))
    second = (np.zeros((1, 3), np.float32), np.zeros(1, np.float32))
    _refused(
        _write(tmp_path / "v.npz", _metadata(layers=[FLAT_SIZE, 4, 1]), layers=[first, second]),
        "layer 1 is not finite float (1, 4)",
    )


def test_a_network_for_other_rules_names_the_differing_parameters(tmp_path):
    path = _write(tmp_path / "v.npz", _metadata(rules=make_rules("newmarket", 4, num_deals=1).to_dict()))
    with pytest.raises(ValueError) as err:
        load_value(path, RULES)
    assert str(err.value) == (
        f"value network {str(path)!r} was trained for other rules; differing parameters: num_deals (trained 1, here 4)"
    )
    other = make_rules("newmarket", 4, num_deals=1, starting_chips=30).to_dict()
    with pytest.raises(ValueError) as err:
        load_value(_write(tmp_path / "u.npz", _metadata(rules=other)), RULES)
    assert str(err.value).endswith(
        "differing parameters: num_deals (trained 1, here 4); starting_chips (trained 30, here 40)"
    )
    metadata = _metadata()
    del metadata["rules"]
    with pytest.raises(
        ValueError, match=r"was trained for other rules; differing parameters: .*num_deals \(trained None, here 4\)"
    ):
        load_value(_write(tmp_path / "w.npz", metadata), RULES)
