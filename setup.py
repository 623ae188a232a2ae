"""Builds the Cython extensions; all metadata lives in pyproject.toml.

Set USI_ENGINE_NATIVE=1 to compile for this machine's CPU (-march=native): faster,
but the result will not run on older CPUs, so it is off by default.

The C code needs GCC, Clang or clang-cl: it uses `unsigned __int128` bitboards, the
`__builtin_popcountll`/`ctzll` family and the `__atomic` built-ins, which Microsoft's
cl.exe lacks.  On Windows, where setuptools would call cl.exe, the build uses
clang-cl (LLVM's, with Visual Studio's linker) and says what to install if there is
none.
"""
import os
import shutil
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The compiled modules, by package (usi_engine/<package>/<module>.pyx).
MODULES = ["core.position", "core.movegen", "core.mate1", "core.tt", "core.packed",
           "eval.handwritten", "eval.kp",
           "search.alphabeta", "search.threads", "search.searcher", "search.testing",
           "mate.table", "mate.dfpn", "mate.line", "mate.solver"]

GCC_ARGS = ["-O3", "-fno-strict-aliasing"]          # gcc, clang, mingw-w64
CLANG_CL_ARGS = ["/O2", "/clang:-fno-strict-aliasing", "-Wno-unused-function"]


def find_clang_cl() -> str | None:
    """clang-cl on PATH, or where the LLVM installer and Visual Studio put it."""
    found = shutil.which("clang-cl")
    if found:
        return found
    roots = [os.environ.get("LLVM_ROOT", ""), r"C:\Program Files\LLVM"]
    vs = os.environ.get("VSINSTALLDIR")
    if vs:
        roots.append(os.path.join(vs, "VC", "Tools", "Llvm", "x64"))
    for root in filter(None, roots):
        candidate = Path(root) / "bin" / "clang-cl.exe"
        if candidate.is_file():
            return str(candidate)
    return None


class BuildExt(build_ext):
    """Compiler-specific flags, and clang-cl in place of cl.exe on Windows."""

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "msvc":
            clang_cl = find_clang_cl()
            if clang_cl is None:
                raise SystemExit(
                    "usi_engine: building on Windows needs clang-cl (Microsoft's cl.exe "
                    "cannot compile the core: it has no unsigned __int128 or __atomic "
                    "built-ins). Install LLVM (winget install LLVM.LLVM) or Visual "
                    "Studio's 'C++ Clang tools for Windows', or install a wheel.")
            if not self.compiler.initialized:
                self.compiler.initialize()
            self.compiler.cc = clang_cl
            args = list(CLANG_CL_ARGS)
        else:
            args = list(GCC_ARGS)
            if os.environ.get("USI_ENGINE_NATIVE") == "1":
                args.append("-march=native")
        for extension in self.extensions:
            extension.extra_compile_args = args
        super().build_extensions()


extensions = [
    Extension(
        f"usi_engine.{name}",
        [f"usi_engine/{name.replace('.', '/')}.pyx"],
        include_dirs=["usi_engine/core"],   # the C headers
    )
    for name in MODULES
]

setup(
    cmdclass={"build_ext": BuildExt},
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
    ),
)
