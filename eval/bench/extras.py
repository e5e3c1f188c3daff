"""Optional workloads over parts of the project that may be absent: the single-agent view, a tournament."""

from __future__ import annotations

from newmarket_env.eval.bench.ours import optional_module


def single_agent():
    """The single-agent training view (``newmarket_env.env.single_agent``), random legal actions."""
    module = optional_module("newmarket_env.env.single_agent")
    if module is None:
        return None, "skipped: newmarket_env.env.single_agent does not exist yet"
    return None, "skipped: single-agent driver not written yet"


def tournament():
    """A tournament of baseline agents (``newmarket_env.eval.tournament``)."""
    module = optional_module("newmarket_env.eval.tournament")
    if module is None:
        return None, "skipped: newmarket_env.eval.tournament does not exist yet"
    return None, "skipped: tournament driver not written yet"


EXTRAS = {
    "single_agent newmarket": ("single_agent", single_agent),
    "tournament baselines": ("tournament", tournament),
}
