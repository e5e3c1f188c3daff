"""A network of any shape of :mod:`~newmarket_env.train.expert.shapes` saved without pickle, and an agent that
plays it alone (greedy over the legal actions, no search), so a shape measured on held-out labels can be
measured in play too.

The file is a plain ``.npz``: ``shape`` (the shape's name) and one array per entry of the network's
``state_dict``; loading builds a fresh network of that shape and copies the arrays in (``allow_pickle`` off,
so reading a file runs no code). The agent needs torch at play time (the ``train`` extra), unlike the
shipped saved agents, which are MLPs run in numpy.

    python -m newmarket_env.train.expert.compare runs/michigan_exit_labels --fit 0-3 --held-out 4 \\
        --shapes suits --epochs 5 --save runs/levers/students
    newmarket tournament --variant michigan --blocks 1000 --seed 7 --agent-option search:budget=64 \\
        --agents newmarket_env.train.expert.shaped:ShapedAgent,search,search,search \\
        --agent-option newmarket_env.train.expert.shaped:ShapedAgent:path=runs/levers/students/suits_aux0.npz
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from newmarket_env.agents.base import Agent
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import as_flat
from newmarket_env.train.expert.shapes import SHAPES, Shape, make_shape
from newmarket_env.train.rundir import write_arrays_atomic

SHAPE_KEY = "shape"


def save_shaped(net: Shape, shape: str, path: Path) -> None:
    """Write ``net`` (of the shape named ``shape``) to ``path`` as a plain ``.npz`` (atomically)."""
    if shape not in SHAPES:
        raise ValueError(f"shape {shape!r} is not allowed; allowed: {', '.join(SHAPES)}")
    arrays = {name: value.detach().cpu().numpy() for name, value in net.state_dict().items()}
    if SHAPE_KEY in arrays:
        raise ValueError(f"the network has an entry named {SHAPE_KEY!r}, the file's own key")
    write_arrays_atomic(Path(path), **{SHAPE_KEY: np.array(shape)}, **arrays)


def load_shaped(path: str | Path) -> Shape:
    """The network saved at ``path`` by :func:`save_shaped`, in eval mode; a one-line ValueError for a file
    that is not one (no shape name, an unknown shape, entries that do not fit it)."""
    with np.load(Path(path), allow_pickle=False) as data:
        if SHAPE_KEY not in data.files:
            raise ValueError(f"{path} is not a shaped network (no {SHAPE_KEY!r} entry)")
        shape = str(data[SHAPE_KEY])
        if shape not in SHAPES:
            raise ValueError(f"{path}: shape {shape!r} is not allowed; allowed: {', '.join(SHAPES)}")
        state = {name: torch.as_tensor(data[name]) for name in data.files if name != SHAPE_KEY}
    net = make_shape(shape)
    expected = {name: tuple(value.shape) for name, value in net.state_dict().items()}
    problems = [f"no {name}" for name in expected if name not in state]
    problems += [f"an unknown entry {name}" for name in state if name not in expected]
    problems += [
        f"{name} of shape {tuple(value.shape)}, not {expected[name]}"
        for name, value in state.items()
        if name in expected and tuple(value.shape) != expected[name]
    ]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ValueError(f"{path} does not fit the {shape!r} network: {problems[0]}{more}")
    net.load_state_dict(state, strict=True)
    return net.eval()


class ShapedAgent(Agent):
    """A shaped network alone: the legal action of the highest logit (option ``path``: the ``.npz``)."""

    name = "shaped"

    def __init__(self, rules: Rules, seed: int | None = None, path: str = "") -> None:
        super().__init__(rules, seed)
        if not path:
            raise ValueError("ShapedAgent needs path=FILE.npz (a network written by save_shaped)")
        self.net = load_shaped(path)
        self.name = f"shaped-{Path(path).stem}"

    def logits(self, observation: dict[str, Any]) -> np.ndarray:
        """The network's 79 logits for one observation dict."""
        flat = as_flat(np.asarray(observation["observation"], dtype=np.float32))
        with torch.no_grad():
            return self.net(torch.as_tensor(flat[None, :]))[0].numpy()

    def act(self, observation: dict[str, Any]) -> int:
        legal = np.asarray(observation["action_mask"]).astype(bool)
        return int(np.where(legal, self.logits(observation), -np.inf).argmax())


__all__ = ["ShapedAgent", "load_shaped", "save_shaped"]
