"""The compiled modules, built with Cython; everything else about the package is in pyproject.toml.

The engine (``engine/_table.pyx``: the state machine, the generator, the encoder, positions) with
``FastGame`` (``engine/_fast.pyx``), the compiled baselines (``engine/_policies.pyx``) and
``TableBatch`` (``engine/_batch.pyx``, which the envs wrap); the search's rollouts and race next to their
Python reference (``agents/_search.pyx``, installed as ``newmarket_env.agents._search``). They share
the engine's C structs through ``engine/_table.pxd``. Optional: where they cannot be built (no C
compiler) the install still succeeds and the pure-Python engine is used.
"""

from setuptools import Extension, setup

COMPILED = {
    "newmarket_env.engine._table": "newmarket_env/engine/_table.pyx",
    "newmarket_env.engine._fast": "newmarket_env/engine/_fast.pyx",
    "newmarket_env.engine._policies": "newmarket_env/engine/_policies.pyx",
    "newmarket_env.engine._batch": "newmarket_env/engine/_batch.pyx",
    "newmarket_env.agents._search": "agents/_search.pyx",
}

setup(ext_modules=[Extension(name, [source], optional=True) for name, source in COMPILED.items()])
