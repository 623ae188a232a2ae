"""The CSA bridge against the real server software of floodgate, shogi-server (Ruby),
run from a private copy on 127.0.0.1: a Fischer game between two bridges, a byoyomi
game (one side pondering) and a game resumed from the server's moves (a buoy), each
to a normal end, with this engine at depth 2 so that a game takes a few seconds. The
default run plays the byoyomi game (floodgate's kind); the other two are marked slow
(.ci/run plays them).

shogi-server is looked for in $SHOGI_SERVER_DIR, else in ../shared/tools/shogi-server
beside the checkout; it needs Debian's ruby and ruby-webrick (.ci/run installs them).
"""
from __future__ import annotations

import io
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from usi_engine.csa.bridge import Bridge, BridgeConfig
from usi_engine.csa.protocol import RESULT_WORDS

ROOT = Path(__file__).resolve().parents[2]
SERVER_DIR = Path(os.environ.get("SHOGI_SERVER_DIR",
                                  ROOT.parent / "shared" / "tools" / "shogi-server"))

pytestmark = [
    pytest.mark.skipif(shutil.which("ruby") is None,
                       reason="ruby is not installed (apt-get install ruby ruby-webrick)"),
    pytest.mark.skipif(not (SERVER_DIR / "shogi-server").exists(),
                       reason=f"shogi-server not found in {SERVER_DIR} (set SHOGI_SERVER_DIR)"),
]


@pytest.fixture
def shogi_server(tmp_path):
    """A running shogi-server on a free port (it picks one for port 0 and logs it)."""
    copy = tmp_path / "shogi-server"
    shutil.copytree(SERVER_DIR, copy)
    log = open(tmp_path / "server.out", "w+")
    process = subprocess.Popen(["ruby", "shogi-server", "--max-identifier", "32", "test", "0"],
                               cwd=copy, stdout=log, stderr=subprocess.STDOUT)
    port = None
    deadline = time.monotonic() + 20
    while port is None and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
        found = re.search(r"port=(\d+)", (tmp_path / "server.out").read_text())
        port = int(found.group(1)) if found else None
    try:
        assert port is not None, ("shogi-server did not start (is ruby-webrick installed?): "
                                  + (tmp_path / "server.out").read_text()[-2000:])
        yield port, copy
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def bridge_config(port, name, game, log_dir, **extra) -> BridgeConfig:
    config = BridgeConfig(host="127.0.0.1", port=port, id=name, password=f"pw-{name}",
                          game=game, margin_ms=300, keep_alive=30, log_dir=str(log_dir),
                          options=[("DepthLimit", "2"), ("USI_Hash", "16")],
                          backoff_initial_s=0.5, max_failures=2, engine_timeout_s=30)
    for key, value in extra.items():
        setattr(config, key, value)
    return config


def play(configs):
    """Run bridges in threads; returns them and their exit codes."""
    bridges = [Bridge(c, stream=io.StringIO()) for c in configs]
    codes = [None] * len(bridges)

    def run(i):
        codes[i] = bridges[i].run()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bridges))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a bridge did not finish"
    return bridges, codes


MOVE_ENDINGS = {"MAX_MOVES", "SENNICHITE", "OUTE_SENNICHITE", "ILLEGAL_MOVE"}


def check_pair(bridges, codes, server_dir):
    assert codes == [0, 0]
    a, b = (bridge.reports[0] for bridge in bridges)
    assert a.game_id == b.game_id and {a.my_color, b.my_color} == {"+", "-"}
    assert a.result in RESULT_WORDS and b.result in RESULT_WORDS
    pairs = {frozenset((a.result, b.result))}
    assert pairs & {frozenset(("WIN", "LOSE")), frozenset(("DRAW",)), frozenset(("CENSORED",))}
    assert a.plies == b.plies > 0
    for report in (a, b):
        assert report.our_moves > 0 and report.commented == report.our_moves
        assert report.late_moves == 0
        assert Path(report.record_path).exists()
    records = list(server_dir.rglob(f"{a.game_id}.csa"))
    assert len(records) == 1
    text = records[0].read_text(errors="replace")
    # shogi-server logs a move's comment only when the move does not end the game, so
    # a game ended by a move (the 256th, a repetition) has one comment fewer than moves.
    ended_by_a_move = bool(set(a.reasons) & MOVE_ENDINGS)
    assert text.count("\n'** ") == a.our_moves + b.our_moves - ended_by_a_move
    return a, b


@pytest.mark.slow
def test_fischer_game_between_two_bridges_on_shogi_server(shogi_server, tmp_path):
    port, server_dir = shogi_server
    game = "test-20-1F"
    bridges, codes = play([bridge_config(port, "alice", game, tmp_path / "a"),
                           bridge_config(port, "bob", game, tmp_path / "b")])
    a, _ = check_pair(bridges, codes, server_dir)
    assert a.min_margin_ms is not None and a.min_margin_ms > 5000


def test_byoyomi_game_with_ponder_on_shogi_server(shogi_server, tmp_path):
    port, server_dir = shogi_server
    game = "test-0-3"
    bridges, codes = play([bridge_config(port, "carol", game, tmp_path / "c", ponder=True),
                           bridge_config(port, "dave", game, tmp_path / "d")])
    carol, dave = check_pair(bridges, codes, server_dir)
    assert carol.ponders > 0 and dave.ponders == 0


@pytest.mark.slow
def test_resumed_buoy_game_starts_from_the_servers_moves(shogi_server, tmp_path):
    port, server_dir = shogi_server
    game = "buoy_resume-20-1F"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as setter:
        reader = setter.makefile("r")
        setter.sendall(b"LOGIN setter pw x1\n")
        assert reader.readline().startswith("LOGIN:setter OK")
        setter.sendall(f"%%SETBUOY {game} +7776FU-3334FU+2726FU 1\n".encode())
        while not (line := reader.readline()).startswith("##[SETBUOY]"):
            pass
        assert "+OK" in line
        setter.sendall(b"LOGOUT\n")
    bridges, codes = play([bridge_config(port, "erin", game, tmp_path / "e"),
                           bridge_config(port, "frank", game, tmp_path / "f")])
    a, b = check_pair(bridges, codes, server_dir)
    assert a.plies == b.plies > 3
    white = next(r for r in (a, b) if r.my_color == "-")
    log = Path(white.record_path).with_suffix(".log").read_text()
    assert "position startpos moves 7g7f 3c3d 2g2f" in log
