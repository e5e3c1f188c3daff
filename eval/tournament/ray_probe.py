"""Moved to :mod:`newmarket_env.execution.ray_probe`; this name stays for code that imports it from here."""

from newmarket_env.execution.ray_probe import RAY_CONNECT_TIMEOUT_S, host_and_port, probe_cluster

__all__ = ["RAY_CONNECT_TIMEOUT_S", "host_and_port", "probe_cluster"]
