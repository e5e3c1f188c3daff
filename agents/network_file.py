"""The network file shared by saved agents (:mod:`~newmarket_env.agents.saved`) and value networks
(:mod:`~newmarket_env.agents.value_net`): its activations, its metadata and its atomic writing.

An ``.npz`` of ``layer{i}.weight``/``.bias`` arrays and a ``metadata`` entry of JSON bytes, no pickle.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from newmarket_env.game.rules import Rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.util.file_modes import new_file_mode

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


def network_metadata(
    format_name: str,
    version: int,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
    rules: Rules,
    variant: str,
    activation: str,
    training: Mapping[str, Any] | None,
    **extra: Any,
) -> dict[str, Any]:
    """The metadata every network file holds (format, version, rules, layer sizes...) and ``extra``.

    A one-line ``ValueError`` for an unknown activation.
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation={activation!r} is unknown; allowed: {', '.join(ACTIVATIONS)}")
    sizes = [int(layers[0][0].shape[1])] + [int(w.shape[0]) for w, _ in layers]
    return {
        "format": format_name,
        "version": version,
        "variant": variant,
        "rules": rules.to_dict(),
        "obs_size": FLAT_SIZE,
        "layers": sizes,
        "activation": activation,
        "training": dict(training or {}),
        **extra,
    }


def write_layers(
    path: str | os.PathLike, layers: Sequence[tuple[np.ndarray, np.ndarray]], metadata: Mapping[str, Any], dtype: str
) -> None:
    """The safe network file shared by saved agents and value networks: ``layer{i}.weight``/``.bias`` arrays
    and the metadata as JSON bytes, no pickle; written to a temporary name and renamed (a kill never leaves
    a half-written file)."""
    # Any: numpy's stub of savez_compressed types **kwds as if one could be its allow_pickle flag
    arrays: dict[str, Any] = {}
    for i, (weight, bias) in enumerate(layers):
        arrays[f"layer{i}.weight"] = np.asarray(weight, dtype=dtype)
        arrays[f"layer{i}.bias"] = np.asarray(bias, dtype=dtype)
    arrays["metadata"] = np.frombuffer(json.dumps(metadata, sort_keys=True).encode(), dtype=np.uint8)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:  # a file object keeps np.savez from appending ".npz"
            np.savez_compressed(out, **arrays)
        os.chmod(temporary, new_file_mode())  # mkstemp's 0600 would make a file meant for sharing private
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


__all__ = ["ACTIVATIONS", "network_metadata", "write_layers"]
