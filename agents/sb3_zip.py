"""stable-baselines3 ``.zip`` models (MaskablePPO, PPO) as agents, read without unpickling any code.

A model saved by ``model.save("m.zip")`` is a zip archive: ``data`` (JSON; some values also hold a
cloudpickled copy under ``":serialized:"``), ``policy.pth`` (the policy's ``state_dict``, saved by
``torch.save``) and files this reader ignores (the optimizer, ``system_info.txt``). ``SB3's own
load()`` unpickles the cloudpickled values, which can run any code the file's author chose. This reader
does not: it takes

- from ``data``, only the plain JSON that SB3 writes beside each pickled value (the policy class's module
  and name, the spaces' type, shape and size, ``policy_kwargs``' ``net_arch`` and ``activation_fn`` as
  text), never a ``":serialized:"`` value;
- from ``policy.pth``, the tensors, through ``torch.load(..., weights_only=True)``: torch's restricted
  unpickler, which rebuilds tensors and plain containers only and refuses any other object.

What loading a ``.zip`` trusts, then, is torch's weights-only loader (and the zip and JSON readers), not
the file's author. It needs torch (the ``train`` extra). The model must be an actor-critic MLP policy
(``MlpPolicy`` of MaskablePPO or PPO) on this package's flat observation (``Box`` of ``FLAT_SIZE``) with
``Discrete(NUM_ACTIONS)`` actions; anything else is refused in one line that says why. The hidden
activation is read from ``policy_kwargs`` (SB3's default, ``Tanh``, when the model was made without one).
The file does not say which rules it was trained for: it loads for any rules, with the observation of
the env it plays in, unless a rules record lies beside it (``MODEL.rules.json``,
:mod:`newmarket_env.agents.sb3_rules`: the models this package trains have one), and then only for those
rules, as a saved ``.npz`` does. Observations normalised during training (``VecNormalize``, saved in
another file) are not part of the model and are not applied.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import pickle
import re
import warnings
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, SavedAgent, rules_mismatch
from newmarket_env.agents.sb3_rules import model_rules_path, rules_record
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import Rules
from newmarket_env.observation.layout import FLAT_SIZE

#: Policy classes (module, name) whose forward pass is an MLP on the flat observation, and their algorithm.
POLICIES = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "MaskablePPO",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "PPO",
    # network.input: sparse (newmarket_env.train.ppo.sparse_policy): the same MLP, its first layers read sparsely
    ("newmarket_env.train.ppo.sparse_policy", "SparseInputPolicy"): "MaskablePPO",
}
#: ``policy_kwargs["activation_fn"]`` as SB3 writes it in ``data`` -> the saved agents' activation.
ACTIVATION_CLASSES = {
    "<class 'torch.nn.modules.activation.Tanh'>": "tanh",
    "<class 'torch.nn.modules.activation.ReLU'>": "relu",
}
#: ``ActorCriticPolicy``'s ``activation_fn`` when ``policy_kwargs`` does not give one.
SB3_DEFAULT_ACTIVATION = "tanh"
#: ``policy_kwargs`` that leave the actor's forward pass an MLP of ``net_arch`` (the rest shape training only).
HARMLESS_KWARGS = {
    "net_arch",
    "activation_fn",
    "ortho_init",
    "log_std_init",
    "full_std",
    "use_expln",
    "squash_output",
    "share_features_extractor",
    "normalize_images",
    "optimizer_class",
    "optimizer_kwargs",
    "use_sde",
}
FLATTEN = "<class 'stable_baselines3.common.torch_layers.FlattenExtractor'>"
#: Largest ``data`` (JSON, a few kB) and ``policy.pth`` read: beyond them the file is refused unread.
MAX_DATA_BYTES = 16 << 20
MAX_POLICY_BYTES = 1 << 30
MAX_VERSION_BYTES = 256  # ``_stable_baselines3_version``: "2.7.0"
#: ``ActorCriticPolicy``'s hidden layers when ``policy_kwargs`` does not give ``net_arch``.
SB3_DEFAULT_NET_ARCH = {"pi": [64, 64], "vf": [64, 64]}
#: What ``policy.pth`` may hold besides the numbers of the declared network (8 bytes each, float64 at most):
#: torch.save's archive (its pickle, names and 64-byte alignment) per tensor and in all.
_TORCH_FILE_BYTES, _TORCH_TENSOR_BYTES = 64 << 10, 1 << 10
_POLICY_NET = re.compile(r"^mlp_extractor\.policy_net\.(\d+)\.(weight|bias)$")
_CLASS_NAME = re.compile(r"^<function (\w+)\.\w+ at ")


def read_sb3_zip(path: str | os.PathLike) -> tuple[dict[str, Any], list[tuple[np.ndarray, np.ndarray]]]:
    """What the model at ``path`` is (``algorithm``, ``activation``, ``sb3_version``, ``num_timesteps``) and
    its actor's linear layers, input to action logits; a one-line ``ValueError`` when it cannot play here."""
    where = f"{os.fspath(path)!r} is not a stable-baselines3 model this package can play"
    try:
        with zipfile.ZipFile(path) as archive:
            sizes = {info.filename: info.file_size for info in archive.infolist()}
            for entry, limit in (("data", MAX_DATA_BYTES), ("policy.pth", MAX_POLICY_BYTES)):
                if entry not in sizes:
                    raise ValueError(f"{where}: it has no {entry!r} entry (is it a model.save() file?)")
                if sizes[entry] > limit:
                    raise ValueError(f"{where}: its {entry!r} is {sizes[entry]} bytes, more than {limit}")
            data = json.loads(archive.read("data").decode())
            info = _describe(data, where)
            # The declared size, before a byte is inflated (zipfile stops a member at its declared size).
            needed = policy_bytes(info["net_arch"])
            if sizes["policy.pth"] > needed:
                raise ValueError(
                    f"{where}: its 'policy.pth' is {sizes['policy.pth']} bytes, more than the {needed} its declared "
                    f"network (net_arch {info['net_arch']}) can need"
                )
            raw_policy = archive.read("policy.pth")
            version = (
                archive.read("_stable_baselines3_version").decode().strip()
                if sizes.get("_stable_baselines3_version", MAX_VERSION_BYTES + 1) <= MAX_VERSION_BYTES
                else ""
            )
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, UnicodeDecodeError) as err:
        raise ValueError(f"{where}: cannot read it as a zip file ({_one_line(err)})") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: its 'data' is not JSON ({_one_line(err)})") from None
    except RecursionError:  # json nests as deep as the text does; SB3 writes a few levels
        raise ValueError(f"{where}: its 'data' nests too deep to be a model's description") from None
    info["sb3_version"] = version
    return info, _layers(_state_dict(raw_policy, where), where)


def _describe(data: Any, where: str) -> dict[str, Any]:
    """The algorithm and activation from ``data``'s readable values; refuses other policies and spaces."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: its 'data' is not a JSON object")
    policy, observation, action = (
        _readable(data, key) for key in ("policy_class", "observation_space", "action_space")
    )
    # the class's name, from the text SB3 writes for its own methods (__init__, or any other it defines)
    methods = [str(policy.get("__init__", ""))] + [str(value) for value in policy.values()]
    found = next((m for m in map(_CLASS_NAME.match, methods) if m), None)
    key = (str(policy.get("__module__")), found.group(1) if found else "?")
    if key not in POLICIES:
        allowed = ", ".join(f"{name} ({algorithm})" for (_, name), algorithm in POLICIES.items())
        raise ValueError(f"{where}: its policy is {key[1]!r} of {key[0]!r}; allowed: {allowed} (MlpPolicy)")
    if observation.get(":type:") != "<class 'gymnasium.spaces.box.Box'>" or observation.get("_shape") != [FLAT_SIZE]:
        raise ValueError(
            f"{where}: its observation space is {observation.get(':type:', '?')} of shape "
            f"{observation.get('_shape')}; this package's observation is a Box of shape ({FLAT_SIZE},)"
        )
    if (
        action.get(":type:") != "<class 'gymnasium.spaces.discrete.Discrete'>"
        or str(action.get("n")) != str(NUM_ACTIONS)
        or str(action.get("start", "0")) != "0"
    ):
        raise ValueError(
            f"{where}: its action space is {action.get(':type:', '?')} of n={action.get('n')}; "
            f"this package's actions are Discrete({NUM_ACTIONS})"
        )
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict):
        raise ValueError(f"{where}: its policy_kwargs are not readable")
    extractor = kwargs.get("features_extractor_class")
    unknown = sorted(set(kwargs) - HARMLESS_KWARGS - {":type:", ":serialized:", "features_extractor_class"})
    if unknown or extractor not in (None, FLATTEN):
        what = f"features_extractor_class {extractor}" if extractor not in (None, FLATTEN) else f"{unknown}"
        raise ValueError(
            f"{where}: its policy_kwargs set {what}, which this reader cannot rebuild; save the model as an "
            "agent file from the script that trained it: newmarket_env.train.export_agent(model, PATH.npz)"
        )
    fn = kwargs.get("activation_fn")
    activation = SB3_DEFAULT_ACTIVATION if fn is None else ACTIVATION_CLASSES.get(str(fn))
    if activation is None:
        raise ValueError(f"{where}: its activation_fn {fn} is unknown; allowed: {', '.join(ACTIVATION_CLASSES)}")
    return {
        "algorithm": POLICIES[key],
        "activation": activation,
        "num_timesteps": data.get("num_timesteps") if isinstance(data.get("num_timesteps"), int) else None,
        "net_arch": _net_arch(kwargs.get("net_arch", SB3_DEFAULT_NET_ARCH), where),
    }


def _net_arch(value: Any, where: str) -> dict[str, list[int]]:
    """The hidden sizes of the actor and the critic from ``net_arch`` as SB3 2 writes it: one list for both,
    or ``{"pi": [...], "vf": [...]}``."""
    arch = {"pi": value, "vf": value} if isinstance(value, list) else value
    if (
        not isinstance(arch, dict)
        or set(arch) != {"pi", "vf"}
        or not all(isinstance(sizes, list) for sizes in arch.values())
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in arch["pi"] + arch["vf"])
    ):
        raise ValueError(
            f"{where}: its policy_kwargs' net_arch {_short(value)} is not a list of layer sizes nor "
            "{'pi': [...], 'vf': [...]}"
        )
    return {"pi": list(arch["pi"]), "vf": list(arch["vf"])}


def policy_bytes(net_arch: dict[str, list[int]]) -> int:
    """The most bytes a ``policy.pth`` of this actor-critic can take: every weight and bias of the actor
    (to the action logits) and the critic (to one value) at 8 bytes, and torch.save's own room.

    >>> policy_bytes({"pi": [16], "vf": [16]})  # 8 x 31344 numbers (SB3 counts 31344 too), 8 tensors
    324480
    """
    numbers, tensors = 0, 0
    for sizes, outputs in ((net_arch["pi"], NUM_ACTIONS), (net_arch["vf"], 1)):
        chain = [FLAT_SIZE, *sizes, outputs]
        numbers += sum((a + 1) * b for a, b in itertools.pairwise(chain))
        tensors += 2 * (len(chain) - 1)
    return 8 * numbers + _TORCH_FILE_BYTES + _TORCH_TENSOR_BYTES * tensors


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _readable(data: dict[str, Any], key: str) -> dict[str, Any]:
    """The plain JSON values SB3 wrote for ``data[key]`` (empty when there are none)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _state_dict(raw: bytes, where: str) -> dict[str, Any]:
    try:
        import torch  # optional: needs torch (train extra)
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            f"reading the stable-baselines3 model {where.split(' is not ')[0]} needs torch: "
            "pip install 'newmarket-env[train]'",
            name="torch",
        ) from None
    try:
        with warnings.catch_warnings():  # a file of another pickle protocol is refused below in one line
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, zipfile.BadZipFile) as err:
        raise ValueError(
            f"{where}: its 'policy.pth' is not plain tensors (torch's weights-only loader: {_one_line(err)})"
        ) from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{where}: its 'policy.pth' is not a state_dict of tensors")
    return {str(k): v.detach().to(torch.float32).numpy() for k, v in state.items()}


def _layers(state: dict[str, np.ndarray], where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor: ``mlp_extractor.policy_net`` linear layers in order, then ``action_net``; checked as a chain."""
    if any(key.startswith(("features_extractor.", "pi_features_extractor.")) for key in state):
        raise ValueError(f"{where}: its features extractor has weights; only a flat MLP policy can be read")
    indices = sorted({int(m.group(1)) for m in map(_POLICY_NET.match, state) if m})
    names = [(f"mlp_extractor.policy_net.{i}.weight", f"mlp_extractor.policy_net.{i}.bias") for i in indices]
    names.append(("action_net.weight", "action_net.bias"))
    layers = []
    width = FLAT_SIZE
    for weight_name, bias_name in names:
        if weight_name not in state or bias_name not in state:
            raise ValueError(f"{where}: its policy has no {weight_name!r} / {bias_name!r}")
        weight, bias = state[weight_name], state[bias_name]
        if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],):
            raise ValueError(
                f"{where}: {weight_name} has shape {weight.shape} / {bias.shape}, expected (n, {width}) / (n,)"
            )
        if not (np.isfinite(weight).all() and np.isfinite(bias).all()):
            raise ValueError(f"{where}: {weight_name} holds non-finite numbers")
        layers.append((weight.copy(), bias.copy()))
        width = weight.shape[0]
    if width != NUM_ACTIONS:
        raise ValueError(f"{where}: its action head gives {width} logits, expected {NUM_ACTIONS}")
    return layers


def load_sb3_agent(
    path: str | os.PathLike,
    rules: Rules,
    seed: int | None = None,
    sample: bool = False,
    name: str | None = None,
    allow_rules_mismatch: bool = False,
) -> SavedAgent:
    """The model at ``path`` as a numpy agent for ``rules`` (masked greedy actions, or sampled); a
    ``ValueError`` when its rules record (:mod:`~newmarket_env.agents.sb3_rules`) names other rules."""
    info, layers = read_sb3_zip(path)
    record = rules_record(path)
    diff = [] if record is None else rules_mismatch(record.rules.to_dict(), rules)
    if record is not None and diff and not allow_rules_mismatch:
        raise ValueError(
            f"model {os.fspath(path)!r} was trained for {record.variant!r} with other rules (its "
            f"{model_rules_path(path).name} says so); differing parameters: {'; '.join(diff)}"
        )
    metadata = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "variant": None if record is None else record.variant,
        "rules": rules.to_dict(),
        "activation": info["activation"],
        "training": {"source": "stable-baselines3", **info},
    }
    return SavedAgent(rules, seed, metadata, layers, sample=sample, name=name or Path(path).stem)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


__all__ = ["read_sb3_zip", "load_sb3_agent", "POLICIES", "ACTIVATION_CLASSES", "SB3_DEFAULT_ACTIVATION"]
