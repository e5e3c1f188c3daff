"""PettingZoo's order enforcing wrapper, with the attributes read at every step forwarded directly.

The base wrapper reaches each attribute of the wrapped env through
``__getattr__``: two Python calls, a set lookup and a string test per access.
``last()``, ``agent_iter()`` and ``step()`` read these attributes about ten
times per step: 15% of the instructions of a random-play session before
this class, 9% after (docs/benchmark.md). The checks are the base wrapper's: the same attributes
raise ``AttributeError`` before ``reset()``.
"""

from __future__ import annotations

from pettingzoo.utils.wrappers import OrderEnforcingWrapper


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
