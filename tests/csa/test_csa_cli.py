"""`usi-engine csa` as a new user meets it (issue #42): its errors name the program
as the other commands do, --help says what it does, and a server that cannot be
reached is reported at once with how long the bridge will keep trying."""
from __future__ import annotations

import io
import socket
import subprocess
import sys

from test_csa_bridge import FAKE, PASSWORD
from usi_engine.csa.bridge import Bridge, BridgeConfig


def test_csa_without_arguments_names_the_program_in_one_line(monkeypatch, capsys):
    from usi_engine.cli import main
    monkeypatch.delenv("CSA_PASSWORD", raising=False)
    assert main(["csa"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usi-engine csa: error: no server: give --host"), err
    assert len(err.splitlines()) == 1


def test_csa_help_describes_the_command():
    out = subprocess.run([sys.executable, "-m", "usi_engine", "csa", "--help"],
                         capture_output=True, text=True, timeout=60).stdout
    text = " ".join(out.split())
    assert "Log in to a CSA server" in text
    assert "about 15 minutes" in text and "Exit code" in text


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_an_unreachable_server_is_reported_at_once_with_how_long_retries_go_on(tmp_path):
    config = BridgeConfig(host="127.0.0.1", port=_closed_port(), id="tester",
                          password=PASSWORD, keep_alive=0, engine=[sys.executable, FAKE],
                          log_dir=str(tmp_path / "logs"), backoff_initial_s=0.01,
                          backoff_max_s=0.02, max_failures=2, engine_timeout_s=10)
    console = io.StringIO()
    assert Bridge(config, stream=console).run() == 1
    lines = [line.split(None, 3)[3] for line in console.getvalue().splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith("cannot connect"))
    assert lines[first + 1].startswith("that attempt failed: retrying 2 more time(s) "
                                       "over about 0 s before giving up"), lines[first + 1]
    assert lines[first + 2] == "reconnecting in 0.0 s (attempt 2 of 3)"
    assert sum("that attempt failed" in line for line in lines) == 1
    assert "giving up after 3 failed attempts in a row" in lines
    session = next((tmp_path / "logs").glob("csa-session-*.log")).read_text()
    assert "that attempt failed: retrying 2 more time(s)" in session


def test_the_default_retries_last_about_15_minutes():
    from usi_engine.csa.bridge import _duration
    bridge = Bridge.__new__(Bridge)
    bridge.config = BridgeConfig()
    assert _duration(bridge._retry_seconds()) == "15 min"


def _unresolvable(errno: int):
    def create_connection(*args, **kwargs):
        raise socket.gaierror(errno, "Name or service not known")
    return create_connection


def _bridge(tmp_path, **settings) -> Bridge:
    config = BridgeConfig(host="nosuch.invalid", port=4081, id="tester", password=PASSWORD,
                          keep_alive=0, engine=[sys.executable, FAKE],
                          log_dir=str(tmp_path / "logs"), backoff_initial_s=0.01,
                          backoff_max_s=0.02, engine_timeout_s=10, **settings)
    return Bridge(config, stream=io.StringIO())


def test_a_server_name_that_does_not_resolve_is_an_error_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(socket, "create_connection", _unresolvable(socket.EAI_NONAME))
    bridge = _bridge(tmp_path)                       # the default: 8 retries
    assert bridge.run() == 1
    console = bridge.log.stream.getvalue()
    assert "cannot resolve the server name 'nosuch.invalid'" in console
    assert "not retrying" in console and "reconnecting" not in console
    assert console.count("connecting to nosuch.invalid") == 1


def test_a_resolver_that_is_down_for_now_is_retried(tmp_path, monkeypatch):
    monkeypatch.setattr(socket, "create_connection", _unresolvable(socket.EAI_AGAIN))
    bridge = _bridge(tmp_path, max_failures=2)
    assert bridge.run() == 1
    assert bridge.log.stream.getvalue().count("connecting to nosuch.invalid") == 3


def test_retries_limits_the_attempts(tmp_path):
    from usi_engine.cli import build_parser
    from usi_engine.csa.config import build_config
    args = build_parser().parse_args(["csa", "--host", "127.0.0.1", "--port",
                                      str(_closed_port()), "--id", "tester", "--password",
                                      PASSWORD, "--retries", "1"])
    config = build_config(args)
    assert config.max_failures == 1
    config.engine, config.log_dir = [sys.executable, FAKE], str(tmp_path / "logs")
    config.backoff_initial_s, config.keep_alive = 0.01, 0
    console = io.StringIO()
    assert Bridge(config, stream=console).run() == 1
    assert console.getvalue().count("cannot connect") == 2
    assert "giving up after 2 failed attempts in a row" in console.getvalue()
