"""Saved value networks: the chips a seat expects to win to the end of the deal, rebuilt in numpy.

The companion of :mod:`newmarket_env.agents.saved` (which holds a policy): expert iteration
(``newmarket_env.train.expert``) writes ``final.npz`` (the policy, a saved agent) and
``final_value.npz`` (this format), and ``guided_search`` reads the value file to end its rollouts
early (``cutoff``). The file is the same kind of safe ``.npz``: float arrays ``layer{i}.weight``
``(out, in)`` and ``layer{i}.bias``, and a ``metadata`` entry of UTF-8 JSON (format, version,
variant, rules, obs_size, layers ending in one output, activation, ``reward_scale``: the network
predicts chips times this). Read with ``np.load(..., allow_pickle=False)``; a broken or foreign file
gives a one-line ``ValueError``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from newmarket_env.agents.network_file import ACTIVATIONS, network_metadata, write_layers
from newmarket_env.agents.saved import rules_mismatch
from newmarket_env.game.rules import Rules
from newmarket_env.observation.layout import FLAT_SIZE

VALUE_FORMAT = "newmarket_env.value_net"
VALUE_VERSION = 1


def save_value(
    path: str | os.PathLike,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
    rules: Rules,
    variant: str,
    activation: str,
    reward_scale: float,
    training: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write a value network (last layer: one output) to ``path`` atomically; return its metadata."""
    metadata = network_metadata(
        VALUE_FORMAT, VALUE_VERSION, layers, rules, variant, activation, training, reward_scale=float(reward_scale)
    )
    write_layers(path, layers, metadata, "float32")
    return metadata


class ValueNet:
    """A saved value network: :meth:`chips` of a batch of flat observations."""

    def __init__(self, metadata: dict[str, Any], layers: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.metadata, self.layers = metadata, layers
        self.activation: Any = ACTIVATIONS[metadata["activation"]]
        self.reward_scale = float(metadata["reward_scale"])

    def chips(self, observations: np.ndarray) -> np.ndarray:
        """Expected chips to the end of the deal of each row's viewer, ``(B,)``."""
        x = np.asarray(observations, dtype=np.float32)
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight.T + bias
            if i < len(self.layers) - 1:
                x = self.activation(x)
        return x[..., 0] / self.reward_scale


def load_value(path: str | os.PathLike, rules: Rules) -> ValueNet:
    """The value network saved at ``path`` for ``rules``; one-line ``ValueError`` if broken or foreign."""
    where = f"{os.fspath(path)!r} is not a valid newmarket_env value network"
    try:
        with np.load(path, allow_pickle=False) as data:
            if "metadata" not in data.files:
                raise ValueError(f"{where}: it has no 'metadata' entry")
            metadata = json.loads(data["metadata"].astype(np.uint8).tobytes().decode())
            arrays = {key: data[key] for key in data.files if key != "metadata"}
    except RecursionError:  # json nests as deep as the text does; the metadata is a few levels deep
        raise ValueError(f"{where}: its metadata nests too deep to be a value network's") from None
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as err:  # JSONDecodeError is a ValueError
        if str(err).startswith(where):
            raise
        raise ValueError(f"{where}: cannot read it as an .npz file ({err})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != VALUE_FORMAT:
        raise ValueError(f"{where}: metadata 'format' must be {VALUE_FORMAT!r}")
    if metadata.get("version") != VALUE_VERSION or metadata.get("activation") not in ACTIVATIONS:
        raise ValueError(
            f"{where}: version {metadata.get('version')!r} / activation "
            f"{metadata.get('activation')!r} unsupported; allowed: {VALUE_VERSION} / "
            f"{', '.join(ACTIVATIONS)}"
        )
    sizes = metadata.get("layers")
    if not isinstance(sizes, list) or len(sizes) < 2 or sizes[0] != FLAT_SIZE or sizes[-1] != 1:
        raise ValueError(f"{where}: 'layers' must run from {FLAT_SIZE} inputs to 1 output; got {sizes!r}")
    scale = metadata.get("reward_scale")
    if not isinstance(scale, (int, float)) or not scale > 0:
        raise ValueError(f"{where}: 'reward_scale' must be a positive number; got {scale!r}")
    expected = {f"layer{i}.{part}" for i in range(len(sizes) - 1) for part in ("weight", "bias")}
    if set(arrays) != expected:
        raise ValueError(f"{where}: arrays {sorted(arrays)} do not match 'layers' {sizes}")
    layers = []
    for i in range(len(sizes) - 1):
        weight, bias = arrays[f"layer{i}.weight"], arrays[f"layer{i}.bias"]
        if (
            weight.shape != (sizes[i + 1], sizes[i])
            or bias.shape != (sizes[i + 1],)
            or weight.dtype.kind != "f"
            or not (np.isfinite(weight).all() and np.isfinite(bias).all())
        ):
            raise ValueError(f"{where}: layer {i} is not finite float ({sizes[i + 1]}, {sizes[i]})")
        layers.append((weight.astype(np.float32), bias.astype(np.float32)))
    diff = rules_mismatch(metadata.get("rules") or {}, rules)
    if diff:
        raise ValueError(
            f"value network {os.fspath(path)!r} was trained for other rules; differing parameters: {'; '.join(diff)}"
        )
    return ValueNet(metadata, layers)


__all__ = ["ValueNet", "load_value", "save_value", "VALUE_FORMAT"]
