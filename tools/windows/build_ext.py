"""Cross-compile usi_engine's Cython extensions for win_amd64 with mingw-w64.

Run with the Linux Python that has Cython, from the root of a copy of the source tree:

    python build_ext.py --headers DIR --pyconfig DIR --implib libpython311.a \
        [--cache DIR] [--jobs 2]

setup.py is executed with setuptools.setup() replaced, so that its own list of modules,
its cythonize() call (and compiler directives) and its GCC flags are the ones used: the
C that Cython writes is the same on Linux and Windows.  Each .c is then compiled with
x86_64-w64-mingw32-gcc-win32 (win32 threads: no libwinpthread) against CPython's
Windows headers, and linked against an import library of python311.dll into
usi_engine/<package>/<module>.cp311-win_amd64.pyd, next to the .pyx (as
`build_ext --inplace` would put it).

With --cache, the generated C is kept under a key of everything Cython reads (every
.pyx/.pxd/.pxi, setup.py, Cython's version), and each .pyd under a key of its C, the
C headers, the flags and the compiler: a run on unchanged sources compiles nothing.
"""
from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SUFFIX = ".cp311-win_amd64.pyd"
CC = "x86_64-w64-mingw32-gcc-win32"


def read_setup(root: Path):
    """(extensions after cythonize, setup.py's GCC flags)."""
    import setuptools
    captured = {}

    def fake_setup(**kwargs):
        captured.update(kwargs)

    real = setuptools.setup
    setuptools.setup = fake_setup
    namespace = {"__name__": "__main__", "__file__": str(root / "setup.py")}
    try:
        code = compile((root / "setup.py").read_text(), str(root / "setup.py"), "exec")
        exec(code, namespace)
    finally:
        setuptools.setup = real
    return captured["ext_modules"], list(namespace.get("GCC_ARGS", ["-O3"]))


def digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:32]


def cython_key(root: Path) -> str:
    import Cython
    files = sorted(p for ext in ("pyx", "pxd", "pxi") for p in root.glob(f"usi_engine/**/*.{ext}"))
    parts = [Cython.__version__.encode(), (root / "setup.py").read_bytes()]
    for f in files:
        parts += [str(f.relative_to(root)).encode(), f.read_bytes()]
    return digest(*parts)


def prune(folder: Path, keep: int) -> None:
    """Keep the `keep` most recently used entries of a cache folder."""
    entries = sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[keep:]:
        shutil.rmtree(old) if old.is_dir() else old.unlink()


def run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
        raise SystemExit(f"build_ext: failed: {cmd[-1]}")


def build_one(ext, root: Path, flags: list[str], includes: list[str], implib: Path,
              objdir: Path, cache: Path | None) -> str:
    target = root / (ext.name.replace(".", "/") + SUFFIX)
    cached = None
    if cache is not None:
        headers = sorted(h for d in ext.include_dirs for h in (root / d).glob("*.h"))
        compiler = subprocess.run([CC, "--version"], capture_output=True).stdout
        key = digest(compiler, " ".join(flags + includes).encode(), implib.read_bytes(),
                     *[(root / s).read_bytes() for s in ext.sources],
                     *[h.name.encode() + h.read_bytes() for h in headers])
        cached = cache / f"{ext.name}.{key}.pyd"
        if cached.is_file():
            shutil.copyfile(cached, target)
            cached.touch()
            return f"{target.relative_to(root)} (cached)"
    objects = []
    for source in ext.sources:
        obj = objdir / (ext.name + "." + Path(source).stem + ".o")
        run([CC, "-c", *flags, *[f"-I{d}" for d in ext.include_dirs], *includes,
             "-o", str(obj), str(root / source)])
        objects.append(str(obj))
    # -static-libgcc: no libgcc_s_seh-1.dll next to the module
    run([CC, "-shared", "-static-libgcc", "-s", "-o", str(target), *objects, str(implib)])
    if cached is not None:
        shutil.copyfile(target, cached.with_suffix(".tmp"))
        cached.with_suffix(".tmp").replace(cached)
    return str(target.relative_to(root))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--headers", required=True, help="CPython's Include/")
    parser.add_argument("--pyconfig", required=True, help="folder of PC/pyconfig.h")
    parser.add_argument("--implib", required=True, help="import library of python311.dll")
    parser.add_argument("--cache", help="folder to keep generated C and modules in")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    root = Path.cwd()
    started = time.perf_counter()
    c_cache = pyd_cache = None
    if args.cache:
        c_cache = Path(args.cache) / "c" / cython_key(root)
        pyd_cache = Path(args.cache) / "pyd"
        pyd_cache.mkdir(parents=True, exist_ok=True)
    if c_cache is not None and c_cache.is_dir():
        # newer than the sources, so cythonize() leaves them as they are
        for c in c_cache.rglob("*.c"):
            shutil.copyfile(c, root / c.relative_to(c_cache))
        c_cache.touch()
        how = "cached C"
    else:
        how = "cythonized"
    extensions, gcc_args = read_setup(root)
    if c_cache is not None and not c_cache.is_dir():
        staging = c_cache.with_suffix(".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        for ext in extensions:
            for source in ext.sources:
                (staging / source).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / source, staging / source)
        staging.replace(c_cache)
        prune(c_cache.parent, 8)
    print(f"{how}: {len(extensions)} modules in {time.perf_counter() - started:.1f} s",
          flush=True)
    # pyconfig.h first: it is the Windows one (Include/ has none of its own).
    includes = [f"-I{args.pyconfig}", f"-I{args.headers}"]
    flags = [*gcc_args, "-DMS_WIN64", "-DNDEBUG", "-Wno-unused-function",
             "-Wno-unused-variable"]
    objdir = root / "build" / "mingw-obj"
    objdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(build_one, ext, root, flags, includes, Path(args.implib),
                               objdir, pyd_cache) for ext in extensions]
        for future in futures:
            print("built", future.result(), flush=True)
    if pyd_cache is not None:
        prune(pyd_cache, 13 * 12)
    print(f"compiled {len(extensions)} modules with {CC} in "
          f"{time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
