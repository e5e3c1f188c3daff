"""PettingZoo's order enforcing wrapper, with the attributes read at every step forwarded directly.

The base wrapper reaches each attribute of the wrapped env through
``__getattr__``: two Python calls, a set lookup and a string test per access.
``last()``, ``agent_iter()`` and ``step()`` read these attributes about ten
times per step: 15% of the instructions of a random-play session before
this class, 9% after (docs/benchmark.md). ``last()``, ``step()`` and the ``agent_iter()`` iterator
go one step further and call the wrapped env (or read its attributes) directly. The checks are the
base wrapper's: the same attributes raise ``AttributeError`` before ``reset()``, the same errors
and warnings come from ``step()`` and ``agent_iter()`` out of order.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator


def _forwarded(name: str, before_reset_ok: bool = False) -> property:
    """A read-only property returning ``self.env.<name>`` (after reset, unless ``before_reset_ok``)."""

    def get(self):
        if not before_reset_ok and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"``{name}`` of the wrapped env")


class OrderEnforcing(OrderEnforcingWrapper):
    """:class:`OrderEnforcingWrapper` whose per-step attributes skip ``__getattr__``."""

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards", before_reset_ok=True)

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo prints its own OrderEnforcingWrapper: the env's name

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The wrapped env's ``last()`` (which reads its own attributes directly) after the same check."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        """The base wrapper's ``step`` with its checks, calling the wrapped env's ``step`` directly."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """PettingZoo's order-enforcing iteration, reading the wrapped env's agents directly."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's iterator (stop when no agent is left, assert a step between two agents) in one call."""

    def __next__(self) -> str:
        wrapper = self.env
        inner = wrapper.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return inner.agent_selection
