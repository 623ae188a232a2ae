"""Builds the Cython extensions; all metadata lives in pyproject.toml.

Set USI_ENGINE_NATIVE=1 to compile for this machine's CPU (-march=native): faster,
but the result will not run on older CPUs, so it is off by default.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

# The compiled modules, by package (usi_engine/<package>/<module>.pyx).
MODULES = ["core.position", "core.movegen", "core.tt", "core.packed",
           "eval.handwritten", "eval.kp",
           "search.alphabeta", "search.threads", "search.searcher",
           "mate.table", "mate.dfpn", "mate.line", "mate.solver"]

compile_args = ["-O3", "-fno-strict-aliasing"]
if os.environ.get("USI_ENGINE_NATIVE") == "1":
    compile_args.append("-march=native")

extensions = [
    Extension(
        f"usi_engine.{name}",
        [f"usi_engine/{name.replace('.', '/')}.pyx"],
        include_dirs=["usi_engine/core"],   # the C headers
        extra_compile_args=compile_args,
    )
    for name in MODULES
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            # Indexing in the hot code is over fixed-size C arrays with indices
            # proven in range by construction (squares 0..80, piece codes 0..31).
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
