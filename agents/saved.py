"""Saved trained agents: weights and plain metadata in one ``.npz``, rebuilt in numpy.

File format (``FORMAT``, version ``FORMAT_VERSION``), written by :func:`save_policy`:

======================  =====================================================
``layer{i}.weight``     float32 ``(out, in)`` of the i-th linear layer (the last one gives the 79 action logits)
``layer{i}.bias``       float32 ``(out,)``
``metadata``            uint8: UTF-8 JSON text (format, version, variant, rules,
                        observation, obs_size, num_actions, layers, activation, training)
======================  =====================================================

Loading uses ``np.load(..., allow_pickle=False)``: no code stored in a file ever runs.
The policy is a multilayer perceptron: hidden layers with ``activation``, then
a linear layer of action logits; illegal actions are masked before the argmax
(or before sampling with ``sample=True``).

Shipped agents live in ``agents/trained/<name>.npz`` and are registered under
``<name>`` (e.g. ``ppo-newmarket``); they load only for the rules they were trained with.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from newmarket_env.agents.base import Agent
from newmarket_env.agents.network_file import ACTIVATIONS, network_metadata, write_layers
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import Rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.view import as_flat

FORMAT = "newmarket_env.saved_agent"
FORMAT_VERSION = 1
TRAINED_DIR = Path(__file__).resolve().parent / "trained"


def save_policy(
    path: str | os.PathLike,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
    rules: Rules,
    variant: str,
    activation: str,
    training: Mapping[str, Any] | None = None,
    dtype: str = "float32",
    name: str | None = None,
) -> dict[str, Any]:
    """Write ``layers`` [(weight (out, in), bias (out,)), ...] and metadata to ``path``; return the metadata.

    ``dtype="float16"`` halves the file (shipped agents); loading computes in float32 either way.
    ``name`` (e.g. the training run's name) is the agent's name when loaded; without it, the file's name.
    The file is written to a temporary name and renamed: a kill never leaves a half-written agent.
    """
    if dtype not in ("float32", "float16"):
        raise ValueError(f"dtype={dtype!r} is unknown; allowed: float32, float16")
    extra: dict[str, Any] = {"observation": "flat", "num_actions": NUM_ACTIONS}
    if name:
        extra["name"] = str(name)
    metadata = network_metadata(FORMAT, FORMAT_VERSION, layers, rules, variant, activation, training, **extra)
    write_layers(path, layers, metadata, dtype)
    return metadata


#: ``training["outputs"]`` of a network whose outputs are action values Q(s, a) (chips to the end of the deal
#: times ``training["reward_scale"]``), not policy logits: Deep Monte-Carlo's (train/dmc).
Q_VALUE_OUTPUTS = "q_values"
#: Largest metadata entry read (its JSON is a few kB).
MAX_METADATA_BYTES = 1 << 20
#: Room for the ``.npy`` header of each array, on top of its numbers.
_NPY_HEADER_BYTES = 4096


def read_saved(path: str | os.PathLike) -> tuple[dict[str, Any], list[tuple[np.ndarray, np.ndarray]]]:
    """Metadata and layers of a saved-agent file; ``ValueError`` if it is not a valid one.

    The archive's directory is checked before any array is decompressed: only the expected entries, the
    metadata first, then each layer no larger than its shape in ``layers`` allows (a file carrying an extra
    or oversized array is refused without reading it). Each array's ``.npy`` header is read before its
    numbers: a header declaring another shape or type than the metadata's is refused before anything is
    allocated for it, and a corrupt compressed stream is a ``ValueError`` like any other damage.
    """
    where = f"{os.fspath(path)!r} is not a valid newmarket_env saved agent"
    try:
        with zipfile.ZipFile(path) as archive:
            sizes = {info.filename: info.file_size for info in archive.infolist()}
            if sizes.get("metadata.npy", MAX_METADATA_BYTES + 1) > MAX_METADATA_BYTES:
                raise ValueError(f"{where}: it has no 'metadata' entry of at most {MAX_METADATA_BYTES} bytes")
            shape, dtype = _read_header(archive, "metadata", where)
            if len(shape) != 1 or dtype != np.uint8:
                raise ValueError(f"{where}: its metadata is not JSON bytes (shape {shape} of {dtype})")
            metadata = _parse_metadata(_read_array(archive, "metadata"), where)
            _check_directory(sizes, metadata, where)
            layers = _layer_sizes(metadata, where)
            present = {name.removesuffix(".npy") for name in sizes} - {"metadata"}
            if present != {f"layer{i}.{part}" for i in range(len(layers) - 1) for part in ("weight", "bias")}:
                raise ValueError(f"{where}: arrays {sorted(present)} do not match 'layers' {layers}")
            for i in range(len(layers) - 1):
                weight = _read_header(archive, f"layer{i}.weight", where)
                bias = _read_header(archive, f"layer{i}.bias", where)
                _check_layer(i, weight, bias, layers, where)
            arrays = {key: _read_array(archive, key) for key in (n.removesuffix(".npy") for n in sizes)}
            arrays.pop("metadata")
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as err:
        raise ValueError(f"{where}: cannot read it as an .npz file ({_one_line(err)})") from None
    except ValueError as err:
        if str(err).startswith(where):
            raise
        raise ValueError(f"{where}: cannot read it as an .npz file ({_one_line(err)})") from None
    return metadata, _layers(arrays, metadata, where)


#: What a ``.npy`` header declares: the shape and the type of its numbers.
Header = tuple[tuple[int, ...], np.dtype]


def _read_header(archive: zipfile.ZipFile, key: str, where: str) -> Header:
    """Shape and type that the ``.npy`` header of entry ``key`` declares (nothing else is read)."""
    try:
        handle = archive.open(f"{key}.npy")
    except KeyError:
        raise ValueError(f"{where}: it has no entry {key!r}") from None
    with handle:
        version = np.lib.format.read_magic(handle)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
        elif version in ((2, 0), (3, 0)):
            shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
        else:
            raise ValueError(f"{where}: entry {key!r} has .npy format version {version}, unsupported")
    if dtype.hasobject:
        raise ValueError(f"{where}: entry {key!r} holds Python objects, not numbers")
    return tuple(shape), dtype


def _check_layer(i: int, weight: Header, bias: Header, sizes: list[int], where: str) -> None:
    """Layer ``i``'s declared shapes and types against ``layers``, before its numbers are read."""
    if weight[0] != (sizes[i + 1], sizes[i]) or bias[0] != (sizes[i + 1],) or weight[1].kind != "f":
        raise ValueError(
            f"{where}: layer {i} has shape {weight[0]} / {bias[0]}, "
            f"expected float ({sizes[i + 1]}, {sizes[i]}) / ({sizes[i + 1]},)"
        )


def _read_array(archive: zipfile.ZipFile, key: str) -> np.ndarray:
    """The numbers of entry ``key`` (its header checked already); never pickled objects."""
    with archive.open(f"{key}.npy") as handle:
        return np.lib.format.read_array(handle, allow_pickle=False)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


def _check_directory(sizes: Mapping[str, int], metadata: Mapping[str, Any], where: str) -> None:
    """Entries and uncompressed sizes of the archive against the layer sizes its metadata states."""
    layers = _layer_sizes(metadata, where)
    allowed = {"metadata.npy": MAX_METADATA_BYTES}
    for i in range(len(layers) - 1):
        # float64 at most (8 bytes a number); layers are saved as float32 or float16
        allowed[f"layer{i}.weight.npy"] = 8 * layers[i + 1] * layers[i] + _NPY_HEADER_BYTES
        allowed[f"layer{i}.bias.npy"] = 8 * layers[i + 1] + _NPY_HEADER_BYTES
    extra = sorted(set(sizes) - set(allowed))
    if extra:
        raise ValueError(f"{where}: it holds entries {extra} besides the layers of 'layers' {layers}")
    for name, size in sizes.items():
        if size > allowed[name]:
            raise ValueError(f"{where}: entry {name!r} is {size} bytes, more than 'layers' {layers} allows")


def _layer_sizes(metadata: Mapping[str, Any], where: str) -> list[int]:
    sizes = metadata.get("layers")
    if (
        not isinstance(sizes, list)
        or len(sizes) < 2
        or sizes[0] != FLAT_SIZE
        or sizes[-1] != NUM_ACTIONS
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes)
    ):
        raise ValueError(f"{where}: 'layers' must run from {FLAT_SIZE} inputs to {NUM_ACTIONS} actions; got {sizes!r}")
    return sizes


def _parse_metadata(raw: np.ndarray, where: str) -> dict[str, Any]:
    try:
        metadata = json.loads(raw.astype(np.uint8).tobytes().decode())
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{where}: its metadata is not JSON ({err})") from None
    except RecursionError:  # json nests as deep as the text does; the metadata is a few levels deep
        raise ValueError(f"{where}: its metadata nests too deep to be a saved agent's") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise ValueError(f"{where}: metadata 'format' must be {FORMAT!r}")
    if metadata.get("version") != FORMAT_VERSION:
        raise ValueError(
            f"{where}: format version {metadata.get('version')!r} is unsupported; allowed: {FORMAT_VERSION}"
        )
    if metadata.get("activation") not in ACTIVATIONS:
        raise ValueError(
            f"{where}: activation {metadata.get('activation')!r} is unknown; allowed: {', '.join(ACTIVATIONS)}"
        )
    if metadata.get("observation") != "flat" or metadata.get("obs_size") != FLAT_SIZE:
        raise ValueError(
            f"{where}: it reads observation {metadata.get('observation')!r} of size "
            f"{metadata.get('obs_size')!r}; this package encodes 'flat' of size {FLAT_SIZE}"
        )
    if metadata.get("num_actions") != NUM_ACTIONS or not isinstance(metadata.get("rules"), dict):
        raise ValueError(f"{where}: num_actions must be {NUM_ACTIONS} and 'rules' a dict of parameters")
    return metadata


def _layers(arrays: dict[str, np.ndarray], metadata: dict[str, Any], where: str):
    sizes = _layer_sizes(metadata, where)
    expected = {f"layer{i}.{part}" for i in range(len(sizes) - 1) for part in ("weight", "bias")}
    if set(arrays) != expected:
        raise ValueError(f"{where}: arrays {sorted(arrays)} do not match 'layers' {sizes}")
    layers = []
    for i in range(len(sizes) - 1):
        weight, bias = arrays[f"layer{i}.weight"], arrays[f"layer{i}.bias"]
        if weight.shape != (sizes[i + 1], sizes[i]) or bias.shape != (sizes[i + 1],) or weight.dtype.kind != "f":
            raise ValueError(
                f"{where}: layer {i} has shape {weight.shape} / {bias.shape}, "
                f"expected float ({sizes[i + 1]}, {sizes[i]}) / ({sizes[i + 1]},)"
            )
        if not (np.isfinite(weight).all() and np.isfinite(bias).all()):
            raise ValueError(f"{where}: layer {i} holds non-finite numbers")
        layers.append((weight.astype(np.float32), bias.astype(np.float32)))
    return layers


def rules_mismatch(saved_rules: Mapping[str, Any], rules: Rules) -> list[str]:
    """The parameters where ``rules`` differ from those a saved agent was trained with."""
    current = rules.to_dict()
    keys = sorted(set(saved_rules) | set(current))
    return [
        f"{k} (trained {saved_rules.get(k)!r}, here {current.get(k)!r})"
        for k in keys
        if saved_rules.get(k) != current.get(k)
    ]


class SavedAgent(Agent):
    """A trained policy network run in numpy: masked greedy (or sampled) actions."""

    def __init__(
        self,
        rules: Rules,
        seed: int | None,
        metadata: dict[str, Any],
        layers: list[tuple[np.ndarray, np.ndarray]],
        sample: bool = False,
        name: str = "saved",
    ) -> None:
        super().__init__(rules, seed)
        self.metadata = metadata
        self.layers = layers
        # Each layer's weights again with one row per input, for one observation at a time: the first
        # layer is then the sum of the rows of the ~60 nonzero inputs of 936 (the cards are one-hot
        # planes), a sixteenth of the dense product's work, and the others a product with a row-major
        # matrix (docs/benchmark.md, "The network's think time").
        self._rows_by_input = [np.ascontiguousarray(weight.T) for weight, _ in layers]
        self.activation = ACTIVATIONS[metadata["activation"]]
        if not isinstance(sample, bool | np.bool_):
            raise ValueError(f"sample={sample!r} must be True or False (sample actions, or take the best)")
        self.sample = bool(sample)
        self.name = name

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation (flat or planes) or a batch ``(B, FLAT_SIZE)``.

        An observation of another size is a one-line ``ValueError`` naming the expected size (the sparse
        first layer below would otherwise read any shorter vector). One observation's first layer sums the
        weight rows of its nonzero inputs (the dense product's result up to the last float32 bits of a
        sum); a batch goes through the dense products."""
        x = np.asarray(observation, dtype=np.float32)
        if x.ndim == 2 and x.shape[1] != FLAT_SIZE:
            raise ValueError(f"observations of shape {x.shape} are not a batch of flat observations (B, {FLAT_SIZE})")
        if x.ndim != 2:
            x = as_flat(x)  # refuses any shape but flat (FLAT_SIZE,) and planes
        last = len(self.layers) - 1
        if x.ndim == 1:
            active = np.flatnonzero(x)
            x = x[active] @ self._rows_by_input[0][active] + self.layers[0][1]
            for i in range(1, last + 1):
                x = self.activation(x) @ self._rows_by_input[i] + self.layers[i][1]
            return x
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight.T + bias
            if i < last:
                x = self.activation(x)
        return x

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = _checked(observation)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("act() was given an observation whose action_mask has no legal action")
        if self.sample:
            logits = np.where(mask, self.logits(vector), -np.inf)
            return int(self._choose(logits[None])[0])
        # Greedy: the first legal action of the highest logit, as argmax over the masked logits picks it,
        # in fewer array calls (a network's think time is mostly numpy's per-call cost); with one legal
        # action there is nothing to weigh and no forward pass.
        if legal.size == 1:
            return int(legal[0])
        return int(legal[np.argmax(self.logits(vector)[legal])])

    def explain(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The network's probabilities over the legal actions (a softmax of its masked logits), most likely
        first (docs/contract.md). The saved file holds the policy only: no value is given."""
        vector, mask = _checked(observation)
        mask = mask.astype(bool)
        logits = self.logits(vector).astype(np.float64)
        legal = np.flatnonzero(mask)
        training = self.metadata.get("training") or {}
        if training.get("outputs") == Q_VALUE_OUTPUTS:  # a Q network (Deep Monte-Carlo): its outputs are values
            return self._explain_values(legal, logits, float(training.get("reward_scale") or 1.0))
        probs = np.exp(logits[legal] - logits[legal].max())
        probs /= probs.sum()
        order = np.argsort(-probs, kind="stable")
        how = "samples from them" if self.sample else "takes the most likely"
        return {
            "summary": f"the network's probabilities over the legal actions; it {how} (no value head in the file)",
            "actions": [
                {"action": int(legal[i]), "probability": float(probs[i]), "logit": float(logits[legal[i]])}
                for i in order
            ],
        }

    def _explain_values(self, legal: np.ndarray, q: np.ndarray, reward_scale: float) -> dict[str, Any]:
        """A Q network's thoughts: the chips it expects to win to the end of the deal after each legal action
        (its outputs divided by the training's reward scale), the highest first."""
        chips = q[legal] / reward_scale
        order = np.argsort(-chips, kind="stable")
        return {
            "summary": "the chips the network expects to win to the end of the deal after each legal action; "
            + ("it samples a softmax of its outputs" if self.sample else "it takes the highest"),
            "actions": [{"action": int(legal[i]), "expected_chips": float(chips[i])} for i in order],
            "value": float(chips[order[0]]),
        }

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` ``(B, obs_size)`` with legal ``masks`` ``(B, 79)``.

        One forward pass for the whole batch, then the same choice as :meth:`act`
        row by row (masked argmax; with ``sample=True`` one draw per row, in row
        order, from the agent's stream). The logits of a row can differ from
        :meth:`act`'s in the last float32 bits (the matrix product blocks rows
        differently), which changes a choice only between legal actions whose
        logits are that close.
        """
        masks = np.asarray(masks).astype(bool)
        if masks.ndim != 2 or masks.shape[1] != NUM_ACTIONS or not masks.any(axis=1).all():
            raise ValueError(
                f"masks must be (B, {NUM_ACTIONS}) with a legal action in every row; got shape {masks.shape}"
            )
        observations = np.asarray(observations, dtype=np.float32)
        if observations.shape != (masks.shape[0], FLAT_SIZE):
            raise ValueError(
                f"observations of shape {observations.shape} do not match the masks: expected ({masks.shape[0]}, "
                f"{FLAT_SIZE})"
            )
        return self._choose(np.where(masks, self.logits(observations), -np.inf))

    def _choose(self, logits: np.ndarray) -> np.ndarray:
        """The action of each row of masked logits (``-inf`` where illegal): argmax, or a softmax draw."""
        if not self.sample:
            return np.argmax(logits, axis=1)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        return np.array([self.rng.choice(NUM_ACTIONS, p=row) for row in probs], dtype=np.int64)


def _checked(observation: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The flat vector and the mask of an env observation; a one-line ``ValueError`` naming the expected sizes
    when either is of another shape (as the compiled and search agents refuse it)."""
    vector = as_flat(observation["observation"])
    mask = np.asarray(observation["action_mask"])
    if mask.shape != (NUM_ACTIONS,):
        raise ValueError(f"action_mask of shape {mask.shape} is not ({NUM_ACTIONS},)")
    return vector, mask


def load_saved_agent(
    path: str | os.PathLike,
    rules: Rules,
    seed: int | None = None,
    sample: bool = False,
    allow_rules_mismatch: bool = False,
    name: str | None = None,
) -> SavedAgent:
    """Rebuild the agent saved at ``path`` for ``rules``; ``ValueError`` if broken or trained for other rules."""
    metadata, layers = read_saved(path)
    diff = rules_mismatch(metadata["rules"], rules)
    if diff and not allow_rules_mismatch:
        raise ValueError(
            f"saved agent {os.fspath(path)!r} was trained for {metadata.get('variant')!r} with "
            f"other rules; differing parameters: {'; '.join(diff)}"
        )
    saved_name = metadata.get("name") if isinstance(metadata.get("name"), str) else None
    return SavedAgent(rules, seed, metadata, layers, sample=sample, name=name or saved_name or Path(path).stem)


def shipped_agents(rules: Rules | None = None) -> list[str]:
    """Names of the shipped trained agents; with ``rules``, only those trained for exactly these rules."""
    names = []
    for path in sorted(TRAINED_DIR.glob("*.npz")):
        if rules is None or _shipped_matches(path, rules):
            names.append(path.stem)
    return names


def _shipped_matches(path: Path, rules: Rules) -> bool:
    sidecar = path.with_suffix(".json")
    try:
        saved_rules = json.loads(sidecar.read_text())["rules"] if sidecar.exists() else read_saved(path)[0]["rules"]
    except (ValueError, KeyError, OSError):
        return False
    return not rules_mismatch(saved_rules, rules)
