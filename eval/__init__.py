"""Tournaments and benchmarks (installed as ``newmarket_env.eval``)."""
