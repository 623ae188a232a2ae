"""The CSA bridge against a scripted CSA server (threads and sockets on 127.0.0.1)
and a fake USI engine (tests/helpers/csa_fake_engine.py): handshake, both clock kinds,
every end message, disconnects, REJECT, malformed lines, ponder, keep-alive, a
slow, crashed or wrong engine, Ctrl-C, the password and the config file."""
from __future__ import annotations

import argparse
import io
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import CTRL_C, NEW_PROCESS_GROUP, sends_ctrl_c
from usi_engine.csa.bridge import Bridge, BridgeConfig, ConfigError, build_config

FAKE = str(Path(__file__).resolve().parents[1] / "helpers" / "csa_fake_engine.py")
PASSWORD = "s3cret-Pw9"
GAME_ID = "test+test-300-10F+tester+rival+20261123000000"


class Conn:
    """The server's side of one client connection."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""
        self.keepalives = 0
        sock.settimeout(10)

    def send(self, *lines: str) -> None:
        self.sock.sendall("".join(line + "\n" for line in lines).encode())

    def line(self, timeout: float = 10) -> str:
        """The next non-empty line (empty ones, keep-alives, are counted)."""
        end = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                text = raw.decode()
                if text == "":
                    self.keepalives += 1
                    continue
                return text
            self.sock.settimeout(max(0.01, end - time.monotonic()))
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError("client closed")
            self.buffer += chunk

    def expect(self, prefix: str, timeout: float = 10) -> str:
        text = self.line(timeout)
        assert text.startswith(prefix), f"expected {prefix!r}, got {text!r}"
        return text

    def login(self) -> str:
        text = self.expect("LOGIN ")
        self.send(f"LOGIN:{text.split()[1]} OK")
        return text

    def start(self, summary: list[str]) -> None:
        """Send the summary, expect AGREE, send START."""
        self.send(*summary)
        game_id = next(l[8:] for l in summary if l.startswith("Game_ID:"))
        assert self.expect("AGREE") == f"AGREE {game_id}"
        self.send(f"START:{game_id}")

    def our_move(self, t: int = 1) -> str:
        """Expect a move of the bridge and echo it with ,T<t>; returns the full line."""
        text = self.line()
        assert text[0] in "+-" and len(text) >= 7, text
        self.send(f"{text.split(',')[0]},T{t}")
        return text

    def end(self, *lines: str) -> None:
        """Send the end lines, expect LOGOUT, answer it."""
        self.send(*lines)
        self.expect("LOGOUT")
        self.send("LOGOUT:completed")


class ScriptServer:
    """Accepts one connection per script, in order, and runs it in a thread."""

    def __init__(self, *scripts) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.scripts = scripts
        self.errors: list[BaseException] = []
        self.conns: list[Conn] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            for script in self.scripts:
                sock, _ = self.listener.accept()
                conn = Conn(sock)
                self.conns.append(conn)
                try:
                    script(conn)
                except BaseException as exc:  # reported by check()
                    self.errors.append(exc)
                finally:
                    time.sleep(0.05)
                    sock.close()
        finally:
            self.listener.close()

    def check(self) -> None:
        self.thread.join(timeout=20)
        if self.errors:
            raise self.errors[0]
        assert not self.thread.is_alive()


def summary(your_turn: str = "+", time_lines=("Total_Time:300", "Increment:10"),
            position=("PI", "+"), moves=(), game_id: str = GAME_ID, to_move: str = "+"):
    return (["BEGIN Game_Summary", "Protocol_Version:1.2", "Protocol_Mode:Server",
             "Format:Shogi 1.0", "Declaration:Jishogi 1.1", f"Game_ID:{game_id}",
             "Name+:tester" if your_turn == "+" else "Name+:rival",
             "Name-:rival" if your_turn == "+" else "Name-:tester",
             f"Your_Turn:{your_turn}", "Rematch_On_Draw:NO", f"To_Move:{to_move}",
             "Max_Moves:256", "BEGIN Time", "Time_Unit:1sec", *time_lines, "END Time",
             "BEGIN Position", *position, *moves, "END Position", "END Game_Summary"])


def run_bridge(tmp_path, server: ScriptServer, *engine_flags: str, **overrides):
    """Run a bridge against ``server``; returns (exit code, bridge, console text, engine log)."""
    engine_log = tmp_path / "engine.log"
    config = BridgeConfig(host="127.0.0.1", port=server.port, id="tester", password=PASSWORD,
                          game="test-300-10F", keep_alive=0, margin_ms=1000,
                          engine=[sys.executable, FAKE, "--log", str(engine_log), *engine_flags],
                          log_dir=str(tmp_path / "logs"), backoff_initial_s=0.05,
                          max_failures=0, login_timeout_s=5, engine_timeout_s=10)
    for key, value in overrides.items():
        setattr(config, key, value)
    console = io.StringIO()
    bridge = Bridge(config, stream=console)
    code = bridge.run()
    server.check()
    sent = engine_log.read_text().splitlines() if engine_log.exists() else []
    return code, bridge, console.getvalue(), sent


def go_lines(sent):
    return [l for l in sent if l.startswith("go")]


# --- handshake and a Fischer game ---------------------------------------------------------

def test_fischer_game_handshake_moves_comments_and_record(tmp_path):
    seen = {}

    def script(conn):
        seen["login"] = conn.login()
        conn.start(summary("+"))
        seen["first"] = conn.our_move(t=3)
        conn.send("-3334FU,T2")
        seen["second"] = conn.our_move(t=1)
        conn.end("%TORYO", "#RESIGN", "#WIN")

    server = ScriptServer(script)
    code, bridge, console, sent = run_bridge(tmp_path, server)
    assert code == 0
    assert seen["login"] == f"LOGIN tester test-300-10F,{PASSWORD}"
    # the fake plays 1g1f (first in USI order) and expects 1a1b; black's score is +42
    assert seen["first"] == "+1716FU,'* 42 -1112KY"
    first = go_lines(sent)[0].split()
    assert first[3:] == ["wtime", "300000", "binc", "10000", "winc", "10000"]
    assert 308_800 <= int(first[2]) <= 309_000  # 300 s + this move's 10 s - 1 s margin
    # after T3 we have 307 s; this move may use 317 s, minus the margin and what elapsed
    second_btime = int(go_lines(sent)[1].split()[2])
    assert 315_000 <= second_btime <= 316_000
    assert "position startpos moves 1g1f 3c3d" in sent
    assert "gameover win" in sent
    report = bridge.reports[0]
    assert (report.result, report.reasons, report.our_moves, report.commented) == (
        "WIN", ["RESIGN"], 2, 2)
    record = Path(report.record_path).read_text()
    assert "+1716FU\nT3\n'** 42 -1112KY\n-3334FU\nT2\n" in record
    assert record.rstrip().splitlines()[-3] == "%TORYO"


def test_white_byoyomi_game_sends_byoyomi_and_negated_scores(tmp_path):
    seen = {}

    def script(conn):
        conn.login()
        conn.start(summary("-", time_lines=("Total_Time:0", "Byoyomi:10")))
        conn.send("+7776FU,T4")
        seen["move"] = conn.our_move()
        conn.end("#SENNICHITE", "#DRAW")

    server = ScriptServer(script)
    code, bridge, _, sent = run_bridge(tmp_path, server)
    assert code == 0
    assert seen["move"].startswith("-1112KY,'* -42 +")
    go = go_lines(sent)[0].split()
    assert go[:5] == ["go", "btime", "0", "wtime", "0"]
    assert go[5] == "byoyomi" and 8_500 <= int(go[6]) <= 9_000
    assert "gameover draw" in sent
    assert bridge.reports[0].reasons == ["SENNICHITE"]


@pytest.mark.parametrize("lines, result, gameover", [
    (("%TORYO", "#RESIGN", "#LOSE"), "LOSE", "lose"),
    (("#TIME_UP", "#LOSE"), "LOSE", "lose"),
    (("#ILLEGAL_MOVE", "#WIN"), "WIN", "win"),
    (("#SENNICHITE", "#DRAW"), "DRAW", "draw"),
    (("#OUTE_SENNICHITE", "#WIN"), "WIN", "win"),
    (("%KACHI", "#JISHOGI", "#WIN"), "WIN", "win"),
    (("#MAX_MOVES", "#CENSORED"), "CENSORED", "draw"),
    (("#CHUDAN",), "CHUDAN", "draw"),
    (("#ILLEGAL_ACTION", "#LOSE"), "LOSE", "lose"),
])
def test_every_end_message_ends_the_game(tmp_path, lines, result, gameover):
    def script(conn):
        conn.login()
        conn.start(summary("-"))
        conn.end(*lines)

    server = ScriptServer(script)
    code, bridge, _, sent = run_bridge(tmp_path, server)
    assert code == 0
    report = bridge.reports[0]
    assert report.result == result
    assert report.reasons == [l[1:] for l in lines if l.startswith("#")][:-1]
    assert f"gameover {gameover}" in sent


def test_initial_moves_of_a_resumed_game_reach_the_engine_and_the_clock(tmp_path):
    def script(conn):
        conn.login()
        conn.start(summary("+", moves=("+7776FU,T10", "-3334FU,T20")))
        conn.our_move()
        conn.end("#CHUDAN")

    server = ScriptServer(script)
    code, _, _, sent = run_bridge(tmp_path, server)
    assert code == 0
    assert "position startpos moves 7g7f 3c3d" in sent
    go = go_lines(sent)[0].split()
    assert go[3:5] == ["wtime", str((300 + 10 - 20) * 1000)]
    # black: 300 + 10 - 10 left, plus this move's 10 s, minus the 1 s margin
    assert 308_800 <= int(go[2]) <= 309_000


def test_max_moves_is_passed_to_an_engine_that_has_the_option(tmp_path):
    def script(conn):
        conn.login()
        conn.start(summary("-"))
        conn.end("#CHUDAN")

    server = ScriptServer(script)
    _, _, _, sent = run_bridge(tmp_path, server)
    assert "setoption name MaxMovesToDraw value 256" in sent
    assert sent.index("setoption name MaxMovesToDraw value 256") < sent.index("isready")


# --- the server misbehaves ------------------------------------------------------------------

def test_malformed_server_lines_are_logged_and_skipped(tmp_path):
    def script(conn):
        conn.login()
        conn.send("garbage before the summary")
        conn.start(summary("-"))
        conn.sock.sendall(b"\xff\xfe\n+99\nhello\n+5556FU,T1\n")  # the last cannot be played
        conn.send("+7776FU,T1")
        conn.our_move()
        conn.end("#CHUDAN")

    server = ScriptServer(script)
    code, bridge, console, _ = run_bridge(tmp_path, server)
    assert code == 0
    assert console.count("skipped") == 5
    assert bridge.reports[0].our_moves == 1


def test_a_disconnect_mid_game_ends_it_and_the_next_game_is_played(tmp_path):
    def drop(conn):
        conn.login()
        conn.start(summary("-"))
        conn.send("+7776FU,T1")
        conn.our_move()

    def full(conn):
        conn.login()
        conn.start(summary("-", game_id=GAME_ID + "2"))
        conn.end("#CHUDAN")

    server = ScriptServer(drop, full)
    code, bridge, console, _ = run_bridge(tmp_path, server, games=2)
    assert code == 0
    assert [r.result for r in bridge.reports] == ["disconnected", "CHUDAN"]
    assert "the server closed the connection" in console


def test_a_rejected_game_is_retried_on_a_new_connection(tmp_path):
    def rejected(conn):
        conn.login()
        conn.send(*summary("+"))
        conn.expect("AGREE")
        conn.send(f"REJECT:{GAME_ID} by rival")

    def played(conn):
        conn.login()
        conn.start(summary("-"))
        conn.end("#CHUDAN")

    server = ScriptServer(rejected, played)
    code, bridge, console, _ = run_bridge(tmp_path, server, max_failures=1)
    assert code == 0
    assert "rejected" in console
    assert [r.result for r in bridge.reports] == ["CHUDAN"]


def test_a_summary_the_bridge_cannot_play_is_rejected(tmp_path):
    def script(conn):
        conn.login()
        bad = [l if l != "Increment:10" else "Increment:ten" for l in summary("+")]
        conn.send(*bad)
        assert conn.expect("REJECT") == f"REJECT {GAME_ID}"
        conn.send(f"REJECT:{GAME_ID} by tester")

    server = ScriptServer(script)
    code, bridge, console, _ = run_bridge(tmp_path, server)
    assert code == 1
    assert "Increment" in console and bridge.reports == []


def test_a_refused_login_stops_without_retrying(tmp_path):
    def script(conn):
        conn.expect("LOGIN")
        conn.send("LOGIN:incorrect")

    server = ScriptServer(script)
    code, _, console, _ = run_bridge(tmp_path, server, max_failures=5)
    assert code == 1
    assert "login refused" in console


def test_keep_alive_sends_empty_lines_while_waiting(tmp_path):
    def script(conn):
        conn.login()
        time.sleep(1.0)
        conn.start(summary("-"))
        conn.end("#CHUDAN")
        assert conn.keepalives >= 3

    server = ScriptServer(script)
    code, _, _, _ = run_bridge(tmp_path, server, keep_alive=0.2)
    assert code == 0


# --- the engine misbehaves ------------------------------------------------------------------

def _resign_script(seen, time_lines=("Total_Time:300", "Increment:10")):
    def script(conn):
        conn.login()
        conn.start(summary("+", time_lines=time_lines))
        started = time.monotonic()
        seen["line"] = conn.line()
        seen["after"] = time.monotonic() - started
        conn.end("%TORYO", "#RESIGN", "#LOSE")
    return script


@pytest.mark.timing
def test_a_silent_engine_is_stopped_then_resigns_before_its_time_is_up(tmp_path):
    seen = {}
    server = ScriptServer(_resign_script(seen, ("Total_Time:0", "Byoyomi:3")))
    code, bridge, console, sent = run_bridge(tmp_path, server, "--silent", "1", margin_ms=1000)
    assert code == 0
    assert seen["line"] == "%TORYO"
    assert 2.0 < seen["after"] < 3.0  # stop at 2 s, resign at 2.5 s, lost on time at 3 s
    assert "stop" in sent
    assert "engine silent: resigned" in bridge.reports[0].notes


@pytest.mark.timing
def test_an_engine_over_its_time_is_stopped_and_its_late_move_logged(tmp_path):
    seen = {}
    server = ScriptServer(_resign_script(seen, ("Total_Time:0", "Byoyomi:4")))
    # stop at 2.4 s, resign at 3.2 s: the fake answers at 2.6 s
    code, bridge, console, sent = run_bridge(tmp_path, server, "--delay-ms", "2600",
                                             margin_ms=1600)
    assert code == 0
    assert seen["line"].startswith("+1716FU")
    assert "stop" in sent
    assert "late move" in console and bridge.reports[0].late_moves == 1


def test_a_crashed_engine_resigns_and_is_restarted_for_the_next_game(tmp_path):
    seen = {}

    def second(conn):
        conn.login()
        conn.start(summary("+", game_id=GAME_ID + "2"))
        seen["second"] = conn.our_move()
        conn.end("#CHUDAN")

    server = ScriptServer(_resign_script(seen), second)
    code, bridge, console, _ = run_bridge(tmp_path, server, "--crash", "1", games=2)
    assert code == 0
    assert seen["line"] == "%TORYO" and seen["after"] < 2
    assert "engine crashed: resigned" in bridge.reports[0].notes
    assert seen["second"].startswith("+1716FU")


@pytest.mark.parametrize("flag, line", [("--resign", "%TORYO"), ("--win", "%KACHI"),
                                         ("--illegal", "%TORYO")])
def test_engine_resign_win_and_illegal_moves(tmp_path, flag, line):
    seen = {}
    server = ScriptServer(_resign_script(seen))
    code, _, console, _ = run_bridge(tmp_path, server, flag, "1")
    assert code == 0
    assert seen["line"] == line
    if flag == "--illegal":
        assert "not legal" in console


# --- ponder ---------------------------------------------------------------------------------

def test_ponder_hit_sends_ponderhit_and_a_miss_stops_and_searches_anew(tmp_path):
    seen = {}

    def script(conn):
        conn.login()
        conn.start(summary("+"))
        conn.our_move()                  # +1716FU, the fake expects 1a1b
        conn.send("-1112KY,T1")          # hit
        conn.our_move()
        conn.send("-9394FU,T1")          # the fake expected another move: miss
        seen["third"] = conn.our_move()
        conn.end("#CHUDAN")

    server = ScriptServer(script)
    code, _, _, sent = run_bridge(tmp_path, server, ponder=True)
    assert code == 0
    assert "setoption name USI_Ponder value true" in sent
    ponders = [l for l in sent if l.startswith("go ponder")]
    assert len(ponders) >= 2
    first_ponder = sent.index(ponders[0])
    assert sent[first_ponder - 1] == "position startpos moves 1g1f 1a1b"
    assert sent[first_ponder + 1] == "ponderhit"
    second_ponder = sent.index(ponders[1])
    assert sent[second_ponder + 1] == "stop"
    assert sent[second_ponder + 2].endswith("9c9d")  # the real position, then go
    assert sent[second_ponder + 3].startswith("go btime")


def test_a_ponder_answer_sent_before_ponderhit_is_played_on_a_hit(tmp_path):
    seen = {}

    def script(conn):
        conn.login()
        conn.start(summary("+"))
        conn.our_move()                  # +1716FU, the fake expects 1a1b and answers at once
        conn.send("-1112KY,T1")          # hit: the early answer is the move
        seen["second"] = conn.our_move()
        conn.end("#CHUDAN")

    server = ScriptServer(script)
    code, _, _, sent = run_bridge(tmp_path, server, "--eager-ponder", ponder=True)
    assert code == 0
    assert seen["second"].startswith("+1615FU")
    # no new search for the second move: go, then a ponder after each of our moves
    assert "ponderhit" not in sent
    assert [l.split()[1] for l in go_lines(sent)] == ["btime", "ponder", "ponder"]


# --- Ctrl-C, the password, the config ---------------------------------------------------------

def test_interrupt_resigns_the_game_and_logs_out(tmp_path):
    seen = {}
    holder = {}

    def script(conn):
        conn.login()
        conn.start(summary("-"))
        time.sleep(0.3)
        holder["bridge"].request_stop()
        seen["lines"] = [conn.line(), conn.line()]

    server = ScriptServer(script)
    config = BridgeConfig(host="127.0.0.1", port=server.port, id="tester", password=PASSWORD,
                          engine=[sys.executable, FAKE], log_dir=str(tmp_path), keep_alive=0)
    bridge = holder["bridge"] = Bridge(config, stream=io.StringIO())
    assert bridge.run() == 130
    server.check()
    assert seen["lines"] == ["%TORYO", "LOGOUT"]


@sends_ctrl_c
def test_ctrl_c_on_the_command_line_resigns_logs_out_and_exits_130(tmp_path):
    seen = {}
    ready = threading.Event()

    def script(conn):
        conn.login()
        conn.start(summary("-"))
        ready.set()
        seen["lines"] = [conn.line(), conn.line()]

    server = ScriptServer(script)
    env = dict(os.environ, CSA_PASSWORD=PASSWORD)
    process = subprocess.Popen(
        [sys.executable, "-m", "usi_engine", "csa", "--host", "127.0.0.1", "--port",
         str(server.port), "--id", "tester", "--engine", f"{sys.executable} {FAKE}",
         "--log-dir", str(tmp_path)], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, cwd=Path(__file__).resolve().parents[2],
        creationflags=NEW_PROCESS_GROUP)
    try:
        assert ready.wait(10)
        time.sleep(0.3)
        process.send_signal(CTRL_C)
        output, _ = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    server.check()
    assert process.returncode == 130
    assert seen["lines"] == ["%TORYO", "LOGOUT"]
    assert "Traceback" not in output and PASSWORD not in output


def test_the_password_appears_in_no_log_record_or_console_line(tmp_path):
    def script(conn):
        conn.login()
        conn.start(summary("+"))
        conn.our_move()
        conn.end("#CHUDAN")

    server = ScriptServer(script)
    code, _, console, _ = run_bridge(tmp_path, server)
    assert code == 0
    files = list((tmp_path / "logs").iterdir())
    assert len(files) == 3  # session log, game log, record
    for text in [console] + [f.read_text() for f in files]:
        assert PASSWORD not in text
    assert "LOGIN tester test-300-10F,*****" in console


def _args(**values):
    names = ("host", "port", "id", "password", "password_env", "game", "games", "keep_alive",
             "margin_ms", "ponder", "engine", "option", "log_dir", "config")
    return argparse.Namespace(**{n: values.get(n) for n in names})


def test_config_file_settings_with_command_line_overrides(tmp_path):
    path = tmp_path / "csa.toml"
    path.write_text('host = "wdoor.c.u-tokyo.ac.jp"\nid = "me"\npassword = "filepw"\n'
                    'game = "floodgate-300-10F"\ngames = 3\nponder = true\n'
                    'engine = "/usr/games/gpsusi --flag"\n[options]\nUSI_Hash = 64\n'
                    'DepthLimit = 2\n')
    config = build_config(_args(config=str(path), games=5, option=["DepthLimit=3"]), {})
    assert (config.host, config.id, config.password, config.game, config.games) == (
        "wdoor.c.u-tokyo.ac.jp", "me", "filepw", "floodgate-300-10F", 5)
    assert config.ponder is True and config.engine == ["/usr/games/gpsusi", "--flag"]
    assert config.options == [("USI_Hash", "64"), ("DepthLimit", "2"), ("DepthLimit", "3")]
    assert "filepw" not in repr(config)


def test_password_from_the_environment(tmp_path):
    config = build_config(_args(host="h", id="me"), {"CSA_PASSWORD": "envpw"})
    assert config.password == "envpw"
    config = build_config(_args(host="h", id="me", password_env="MY_PW"), {"MY_PW": "other"})
    assert config.password == "other"


@pytest.mark.parametrize("content, message", [
    ('hots = "x"\n', "unknown keys hots"),
    ('host = \n', "csa.toml"),
    ('host = "h"\nid = "me"\npassword = "p"\nport = "x"\n', "port must be"),
    ('host = "h"\nid = "me"\n', "no password"),
])
def test_bad_config_files_are_refused_with_the_reason(tmp_path, content, message):
    path = tmp_path / "csa.toml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        build_config(_args(config=str(path)), {})


def test_config_file_on_a_python_without_tomllib_says_it_needs_3_11(tmp_path, monkeypatch):
    path = tmp_path / "csa.toml"
    path.write_text('host = "h"\n')
    monkeypatch.setitem(sys.modules, "tomllib", None)
    with pytest.raises(ConfigError, match="Python 3.11"):
        build_config(_args(config=str(path)), {})


def test_csa_command_without_a_password_exits_2_with_the_reason(monkeypatch, capsys):
    from usi_engine.cli import main
    monkeypatch.delenv("CSA_PASSWORD", raising=False)
    assert main(["csa", "--host", "h", "--id", "me"]) == 2
    assert "no password" in capsys.readouterr().err
