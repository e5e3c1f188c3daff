"""The baselines deciding in compiled code (``engine/_policies.pyx``), as registered agents.

``load_agent("random" | "lowest" | "greedy" | "control")`` gives one of these
when the compiled engine is built (``engine="python"`` asks for the Python
class instead). The Python classes (``random_agent.py``, ``lowest.py``,
``greedy.py``, ``control.py``) stay the readable reference: both decide alike on
every decision (``tests/batch/test_compiled_policies.py``), random draws
included, because both draw from Python's Mersenne Twister seeded the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from newmarket_env.agents.base import Agent
from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.lowest import LowestPolicy
from newmarket_env.agents.policy import explain_rule
from newmarket_env.agents.random_agent import RandomAgent
from newmarket_env.game.rules import Rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.view import as_flat

if TYPE_CHECKING:
    from newmarket_env.agents import _baselines

# Empty and None where the compiled engine is not built (no C compiler at install time).
POLICY_CODES: dict[str, int] = {}
CompiledPolicy: type[_baselines.CompiledPolicy] | None = None
try:
    from newmarket_env.agents import _baselines as _built
    from newmarket_env.engine import _policies as _decisions
except ImportError:
    pass
else:
    POLICY_CODES, CompiledPolicy = _decisions.POLICY_CODES, _built.CompiledPolicy


class CompiledPolicyAgent(Agent):
    """A baseline (``policy``: random, lowest, greedy or control) deciding in C from its observation."""

    def __init__(self, rules: Rules, seed: int | None = None, policy: str = "control") -> None:
        super().__init__(rules, seed)
        if CompiledPolicy is None:
            raise ValueError("the compiled engine is not built; use engine='python' (or reinstall with a C compiler)")
        self.name = policy
        self.policy = CompiledPolicy(policy, rules, seed)

    def reset(self) -> None:
        """As the Python classes: the rule-based ones restart their stream, ``random`` keeps one."""
        if self.name != "random":
            self.policy.restart()

    def explain(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The rule that chooses here, in words (docs/contract.md): told by the readable Python reference of
        the same baseline, which decides alike, from a stream of its own (the compiled one is left alone)."""
        if self.name == "random":
            return RandomAgent(self.rules, self.seed).explain(observation)
        reference = {"lowest": LowestPolicy, "greedy": GreedyPolicy, "control": ControlPolicy}[self.name]
        return explain_rule(reference, self.rules, self.seed, observation)

    def act(self, observation: dict[str, Any]) -> int:
        vector = observation["observation"]
        if np.shape(vector) != (FLAT_SIZE,):
            vector = as_flat(vector)  # the planes encoding, turned back
        flat = np.ascontiguousarray(vector, dtype=np.float32)
        mask = np.ascontiguousarray(observation["action_mask"], dtype=np.int8)
        return int(self.policy.act(flat, mask))


__all__ = ["CompiledPolicyAgent", "POLICY_CODES"]
