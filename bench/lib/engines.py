"""Engines for the bench: the peers (where they are, how to start them), this checkout's
engine, a build of it frozen from a commit, and the one USI process driver the bench
uses.

Peers (Debian packages; binaries live in /usr/games, which is often not on PATH):

==================  ===================  ======================================
peer                binary               protocol
==================  ===================  ======================================
Fairy-Stockfish     fairy-stockfish      UCI by default; answers ``usi`` with
                                         ``usiok`` and then speaks USI (SFEN and
                                         USI moves), variant shogi by default
gpsshogi            gpsusi               USI (``gpsshogi`` is the CSA client,
                                         ``gpsshell`` an interactive shell)
YaneuraOu           (a build of its own)  USI; ~/.cache/usi-peers/yaneuraou-material
==================  ===================  ======================================

Nothing is ever installed from here: a missing peer is reported with how to get it.
"""
from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from bench.lib.paths import REPO
from bench.lib.timecontrol import TimeControl

GAMES_DIRS = ("/usr/games", "/usr/local/games")
YO_DEFAULT = Path.home() / ".cache" / "usi-peers" / "yaneuraou-material"


def optional_module(name: str):
    """The module, or None when it is not installed (the benches say so in their output)."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


# --- peers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PeerInfo:
    key: str            # short name used on the command line
    label: str          # human name
    binary: str         # executable name
    package: str        # Debian package that ships it


PEERS = {
    "fairy-stockfish": PeerInfo("fairy-stockfish", "Fairy-Stockfish", "fairy-stockfish",
                                "fairy-stockfish"),
    "gpsshogi": PeerInfo("gpsshogi", "gpsshogi", "gpsusi", "gpsshogi"),
}


def find_binary(name: str) -> str | None:
    """The full path of ``name`` on PATH or in /usr/games, or None."""
    found = shutil.which(name)
    if found:
        return found
    for d in GAMES_DIRS:
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def find_peer(key: str) -> str | None:
    return find_binary(PEERS[key].binary)


def missing_message(key: str) -> str:
    info = PEERS[key]
    return (f"{info.label} is not installed (no `{info.binary}` on PATH or in /usr/games); "
            f"skipping it. To include it: sudo apt-get install {info.package}")


# --- this checkout's engine ----------------------------------------------------------


def our_engine_command() -> list[str]:
    """Our engine from this checkout: the running Python, ``-m usi_engine`` (started
    with cwd = the repository root and the root on PYTHONPATH: :func:`our_engine_env`)."""
    return [sys.executable, "-m", "usi_engine"]


def our_engine_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def split_command(cmd: str | list[str]) -> list[str]:
    """A command line as argv (a string is split as the shell would, by
    :func:`usi_engine.usi.client.split_command`, which keeps Windows backslashes;
    ``~`` expanded)."""
    from usi_engine.usi.client import split_command as split_command_line
    argv = split_command_line(cmd)
    return [os.path.expanduser(argv[0])] + argv[1:] if argv else argv


def machine_line() -> str:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"machine: {cpu}, {os.cpu_count()} logical CPUs, Python {sys.version.split()[0]}"


def build_info() -> str:
    """Which build of usi_engine runs: the git commit of the checkout (read-only git
    calls), whether usi_engine/ has uncommitted changes, and when mate's extension was
    built.  The solver is built in place, so the same script can meet another build."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "usi_engine"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        head, dirty = "?", ""
    import usi_engine.mate.solver as _mate
    built = datetime.datetime.fromtimestamp(os.path.getmtime(_mate.__file__)).strftime("%Y-%m-%d %H:%M")
    return f"usi_engine at commit {head or '?'}{' + uncommitted changes' if dirty else ''}, mate built {built}"


# --- a frozen build ------------------------------------------------------------------

LAUNCHER = """#!/bin/sh
# a frozen usi_engine build (python -m bench.strength.ab_match --freeze)
cd "{dir}" && PYTHONPATH="{dir}" exec "{python}" -m usi_engine "$@"
"""


def freeze(target: Path, root: Path = REPO, weights: Path | None = None) -> Path:
    """Copy the built package of the checkout `root` (with its compiled modules) and a
    launcher to target; `weights` (a KP or network file) replaces its shipped weights.
    Returns the launcher (target/engine.sh)."""
    package = root / "usi_engine"
    if not list(package.rglob("*.so")) and not list(package.rglob("*.pyd")):
        raise SystemExit("usi_engine/ holds no compiled module: build in place first "
                         "(pip install -e . or python setup.py build_ext --inplace)")
    target.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target / "usi_engine", ignore_errors=True)
    shutil.copytree(root / "usi_engine", target / "usi_engine")
    if weights is not None:
        shutil.copyfile(weights, target / "usi_engine" / "eval" / "data" / "kpnn.bin")
    launcher = target / "engine.sh"
    launcher.write_text(LAUNCHER.format(dir=target.resolve(), python=sys.executable))
    launcher.chmod(0o755)
    return launcher


def freeze_commit(target: Path, commit: str, weights: Path | None = None) -> Path:
    """Build a wheel of `commit` of this repository from a scratch git worktree (pip,
    with build isolation: the commit's own build requirements) and freeze its package
    to target; the worktree and the wheel are removed afterwards."""
    known = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet",
                            f"{commit}^{{commit}}"], capture_output=True, text=True)
    if known.returncode != 0:
        raise SystemExit(f"--commit {commit}: no such commit in {REPO}")
    scratch = Path(tempfile.mkdtemp(prefix="ab-freeze-")) / "src"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(scratch),
                    known.stdout.strip()], check=True, capture_output=True)
    try:
        wheels = scratch.parent / "wheel"
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                        str(wheels), str(scratch)], check=True)
        built = scratch.parent / "built"
        with zipfile.ZipFile(next(wheels.glob("*.whl"))) as wheel:
            wheel.extractall(built)
        return freeze(target, built, weights)
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(scratch)],
                       capture_output=True)
        shutil.rmtree(scratch.parent, ignore_errors=True)


# --- driving a USI process -------------------------------------------------------------
#
# The bench drives every engine process with the package's one USI client,
# usi_engine.usi.client.UsiClient (a reader thread, time-outs on every wait, typed info
# lines).  It is plain Python: it loads no compiled module of the package.

from usi_engine.usi.client import (GoResult, UsiClient, UsiEngineExited, UsiError,  # noqa: E402,F401
                                   UsiTimeout)
from usi_engine.usi.info import Info, parse_info  # noqa: E402,F401


def wait_for(client: UsiClient, word: str, timeout: float) -> tuple[float, list[str]]:
    """Read until a line whose first word is ``word``: (its arrival time, on the
    ``time.perf_counter()`` clock that :meth:`UsiClient.send` returns, and the texts
    of all the lines read)."""
    lines = client.read_until(word, timeout)
    return lines[-1].at, [line.text for line in lines]


def our_engine(name: str = "ours", **kw) -> UsiClient:
    """This checkout's engine, started (the caller does the handshake)."""
    return UsiClient(our_engine_command(), cwd=str(REPO), env=our_engine_env(), name=name, **kw)


class TrafficLog:
    """A client's ``log`` callback that writes every line, time-stamped, to ``file``
    (switchable: the match core opens one file a game); shared by both engines."""

    def __init__(self, name: str, file=None) -> None:
        self.name, self.file, self.t0 = name, file, time.perf_counter()

    def __call__(self, direction: str, text: str) -> None:
        file = self.file
        if file is not None:
            arrow = {"send": ">", "recv": "<"}.get(direction, "!")
            file.write(f"{time.perf_counter() - self.t0:9.3f} {self.name} {arrow} {text}\n")


def score_cp(info: Info | None, mate: int = 30000) -> int | None:
    """An info's score in centipawns for the side to move, a mate in n as +-(mate - n)
    (a mate of unknown length: +-mate), or None.

    >>> score_cp(parse_info("info depth 9 nodes 100 score mate -4 pv 7g7f"))
    -29996
    """
    if info is None:
        return None
    if info.score_cp is not None:
        return info.score_cp
    if not info.mate_sign:
        return None
    plies = abs(info.score_mate) if info.score_mate is not None else 0
    return info.mate_sign * (mate - plies)


# --- engine specifications ------------------------------------------------------------


@dataclass
class EngineSpec:
    """How to start one side of a match: argv, USI options, working directory, and
    (for a peer with its own needs) a time control and a note."""
    key: str
    label: str
    argv: list[str]
    options: dict = field(default_factory=dict)
    cwd: str | None = None
    env: dict | None = None
    tc: object = None            # its own TimeControl (None: the match's)
    note: str = ""

    def start(self, log=None) -> UsiClient:
        """The process, started (the caller does the handshake)."""
        return UsiClient(self.argv, cwd=self.cwd, env=self.env, name=self.key, log=log)


#: Fairy-Stockfish's "Skill Level" of the weakened opponent in the default gauntlet.
DEFAULT_FSF_SKILL = 5
#: Node limit of the default gpsshogi opponent (about 0.1-0.25 s a move).
DEFAULT_GPS_NODES = 50000
#: The byoyomi told to a node-limited gpsshogi: long enough that only the node limit binds.
GPS_NODES_BYOYOMI_MS = 10000
DEFAULT_GAUNTLET = (f"fairy-stockfish-skill{DEFAULT_FSF_SKILL}", "fairy-stockfish",
                    f"gpsshogi-nodes{DEFAULT_GPS_NODES}")
PEER_NAMES = ("fairy-stockfish, fairy-stockfish-skillN (N in -20..20), gpsshogi, "
              "gpsshogi-nodesN, yaneuraou")


def command_spec(key: str, command: str, options: dict | None = None) -> EngineSpec:
    """An engine given by its command line, started from the repository root (so that
    ``bench/engine.sh`` works); a peer binary's own directory holds its files."""
    argv = split_command(command)
    return EngineSpec(key, key, argv, dict(options or {}), cwd=str(REPO))


def peer_spec(key: str, hash_mb: int = 64):
    """The EngineSpec of a named peer, None when ``key`` names no peer, or a message
    saying why it cannot play (not installed, bad level)."""
    m = re.fullmatch(r"gpsshogi(?:-nodes(\d+))?", key)
    if m:
        path = find_peer("gpsshogi")
        if not path:
            return missing_message("gpsshogi")
        # Thread 1: on a small machine both engines must not fight over the cores.
        if m[1] is None:
            return EngineSpec(key, "gpsshogi", [path], {"Thread": 1},
                              note="own clock: gpsusi counts whole seconds and takes ~1 s a "
                                   "move at any byoyomi under 1 s")
        # gpsusi's own clock cannot do sub-second moves, so this opponent is limited by
        # nodes instead, and told a byoyomi long enough never to bind.
        return EngineSpec(key, f"gpsshogi {int(m[1])} nodes",
                          [path, "--node-count-hard-limit", m[1]], {"Thread": 1},
                          tc=TimeControl(None, GPS_NODES_BYOYOMI_MS, None),
                          note=f"--node-count-hard-limit {m[1]}, byoyomi {GPS_NODES_BYOYOMI_MS} ms")
    m = re.fullmatch(r"fairy-stockfish(?:-skill(-?\d+))?", key)
    if m:
        path = find_peer("fairy-stockfish")
        if not path:
            return missing_message("fairy-stockfish")
        opts = {"UCI_Variant": "shogi", "Threads": 1, "Hash": hash_mb}
        label = "Fairy-Stockfish"
        if m[1] is not None:
            level = int(m[1])
            if not -20 <= level <= 20:
                return f"{key}: Skill Level must be in -20..20"
            opts["Skill Level"] = level
            label += f" skill {level}"
        return EngineSpec(key, label, [path], opts)
    if key == "yaneuraou":
        if not os.access(YO_DEFAULT, os.X_OK):
            return f"YaneuraOu not found at {YO_DEFAULT} (../shared/tools/setup-peers.sh builds it)"
        return EngineSpec(key, "YaneuraOu material", [str(YO_DEFAULT)],
                          {"BookFile": "no_book", "USI_Hash": hash_mb}, cwd=str(YO_DEFAULT.parent))
    return None


def our_searcher(evaluation: str, options: dict[str, int], hash_mb: int = 64):
    """Our search in-process (a usi_engine Searcher) with `evaluation` (hand, learned or
    material), the tuning `options` and a table of hash_mb MB: what the suites that
    search by node count compare with YaneuraOu."""
    from usi_engine.eval.loader import EvalLoader
    from usi_engine.search.searcher import Searcher
    loader = EvalLoader()
    loader.apply(evaluation, "")
    searcher = Searcher()
    searcher.set_evaluation(loader.network)
    for name, value in options.items():
        searcher.set_parameter(name, value)
    searcher.set_hash(hash_mb)
    return searcher


class Yaneuraou:
    """YaneuraOu on one thread, no book, searched by node count (the blunder and
    refutation suites' reference and oracle)."""

    def __init__(self, path: str | Path = YO_DEFAULT) -> None:
        self.engine = UsiClient([str(path)], cwd=str(Path(path).parent), name="YaneuraOu")
        self.engine.handshake({"BookFile": "no_book", "Threads": 1, "NetworkDelay": 0,
                               "NetworkDelay2": 0, "USI_Hash": 256})

    def search(self, sfen: str, moves: str, nodes: int,
               on_info=None) -> tuple[str, int]:
        """(best move, score in centipawns, mates as +-30000) of ``go nodes``; each
        exact-score info line is passed to ``on_info`` (a parse_info dict) too."""
        e = self.engine
        e.usinewgame()
        e.position(f"sfen {sfen}", moves.split())
        e.start_go(f"nodes {nodes}")
        score = 0
        while True:
            text = e.read_line(600, "bestmove").text
            words = text.split()
            if words[:1] == ["bestmove"]:
                return words[1], score
            if words[:1] != ["info"] or "score" not in words:
                continue
            info = parse_info(text)
            if info.is_bound or not info.has_score:
                continue
            score = info.score_cp if info.score_cp is not None else 30000 * info.mate_sign
            if on_info is not None:
                on_info(info, score)

    def close(self) -> None:
        self.engine.quit()
