"""The compiled modules, built with Cython; everything else about the package is in pyproject.toml.

Each sits in the layer of the Python package it belongs to and cimports only its own layer or those
below. The engine: ``engine/_table.pyx`` (the state machine, the generator, the action mask,
positions) with ``FastGame`` (``engine/_fast.pyx``), the baselines' decisions (``engine/_policies.pyx``),
the observer interface (``engine/_observer.pyx``) and ``TableBatch`` (``engine/_batch.pyx``, which the
envs wrap). The observation layer: the flat encoder and its decoder (``observation/_encode.pyx``), the privileged
state's encoder (``observation/_state.pyx``). The
agents: the baselines acting on observations (``agents/_baselines.pyx``) and the search's rollouts and
race next to their Python reference (``agents/_search.pyx``), installed as ``newmarket_env.agents.*``.
The networks' building blocks: the loops of the sparse input layer (``nn/_sparse.pyx``, beside ``nn/sparse_input.py``).
They share the engine's C structs through ``engine/_table.pxd``. Optional: where they cannot be built (no C
compiler) the install still succeeds and the pure-Python engine is used.
"""

import os
import tempfile

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

COMPILED = {
    "newmarket_env.engine._table": "newmarket_env/engine/_table.pyx",
    "newmarket_env.engine._fast": "newmarket_env/engine/_fast.pyx",
    "newmarket_env.engine._policies": "newmarket_env/engine/_policies.pyx",
    "newmarket_env.engine._observer": "newmarket_env/engine/_observer.pyx",
    "newmarket_env.engine._batch": "newmarket_env/engine/_batch.pyx",
    "newmarket_env.observation._encode": "newmarket_env/observation/_encode.pyx",
    "newmarket_env.observation._state": "newmarket_env/observation/_state.pyx",
    "newmarket_env.agents._baselines": "agents/_baselines.pyx",
    "newmarket_env.agents._search": "agents/_search.pyx",
    "newmarket_env.nn._sparse": "newmarket_env/nn/_sparse.pyx",
}

# numpy's C API: the observation layer makes its arrays in C (observation/_encode.pyx)
NUMPY_API = {"include_dirs": [numpy.get_include()], "define_macros": [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]}

# The batch steps its tables on OpenMP's threads (``prange``) where the compiler has OpenMP; elsewhere (Apple's
# clang without libomp) it is built without and steps them on a pool of Python threads (same sessions, slower start).
OPENMP = {"newmarket_env.engine._batch"}
OPENMP_FLAG = "-fopenmp"


class BuildWithOpenMP(build_ext):
    """``build_ext`` that adds ``-fopenmp`` to the modules of ``OPENMP`` when a test program builds with it."""

    def build_extension(self, ext):
        if ext.name in OPENMP and self._compiler_has_openmp():
            ext.extra_compile_args = [*ext.extra_compile_args, OPENMP_FLAG]
            ext.extra_link_args = [*ext.extra_link_args, OPENMP_FLAG]
        super().build_extension(ext)

    def _compiler_has_openmp(self) -> bool:
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, "probe.c")
            with open(source, "w") as file:
                file.write("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
            try:
                objects = self.compiler.compile([source], output_dir=folder, extra_postargs=[OPENMP_FLAG])
                self.compiler.link_executable(objects, "probe", output_dir=folder, extra_postargs=[OPENMP_FLAG])
            except Exception:  # any compile or link failure: no OpenMP here
                return False
        return True


setup(
    ext_modules=[Extension(name, [source], optional=True, **NUMPY_API) for name, source in COMPILED.items()],
    cmdclass={"build_ext": BuildWithOpenMP},
)
