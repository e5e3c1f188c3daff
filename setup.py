"""The compiled engine, newmarket_env.engine._fast, built with Cython from engine/_fast.pyx.

Everything else about the package is in pyproject.toml. Optional: where it cannot be built
(no C compiler) the install still succeeds and the pure-Python engine is used.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("newmarket_env.engine._fast", ["newmarket_env/engine/_fast.pyx"], optional=True)])
