"""Portable Python (issue #43): what differs on Windows, checked on any platform by
monkeypatching ``sys.platform`` / ``os.name``."""
import argparse
import os
import sys

import pytest

WINDOWS_COMMAND = r'"C:\Program Files\Engines\gpsusi.exe" --eval C:\eval\w.bin -x "two words"'
WINDOWS_ARGV = [r"C:\Program Files\Engines\gpsusi.exe", "--eval", r"C:\eval\w.bin", "-x",
                "two words"]


def as_on_windows(func, *args):
    """``func(*args)`` with ``os.name == "nt"`` and ``sys.platform == "win32"`` for just
    that call (pathlib, which pytest uses, cannot work with os.name patched)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(os, "name", "nt")
        m.setattr(sys, "platform", "win32")
        return func(*args)


# --- command lines keep Windows backslashes ------------------------------------------------

def test_client_split_command_keeps_backslashes_on_windows():
    from usi_engine.usi.client import split_command
    assert as_on_windows(split_command, WINDOWS_COMMAND) == WINDOWS_ARGV


def test_csa_engine_command_keeps_backslashes_on_windows():
    from usi_engine.csa.config import build_config
    names = ("host", "port", "id", "password", "password_env", "game", "games", "keep_alive",
             "margin_ms", "ponder", "engine", "option", "log_dir", "config")
    args = argparse.Namespace(**{n: None for n in names})
    args.host, args.id, args.password, args.engine = "h", "me", "pw", WINDOWS_COMMAND
    assert as_on_windows(build_config, args, {}).engine == WINDOWS_ARGV


def test_relabel_and_csa_local_game_split_with_the_client():
    from usi_engine.cli import relabel as relabel_command
    from usi_engine.training import relabel
    source = (relabel_command.__file__, relabel.__file__,
              os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "bench", "tools",
                           "csa_local_game.py"))
    for path in source:
        with open(path, encoding="utf-8") as f:
            assert "shlex.split(" not in f.read(), path
    with open(relabel_command.__file__, encoding="utf-8") as f:
        assert "from usi_engine.usi.client import split_command" in f.read()


# --- progress lines: VT erase, or spaces on an old Windows console ---------------------------

@pytest.fixture
def progress(monkeypatch):
    from usi_engine.console import progress
    monkeypatch.setattr(progress, "_vt_ok", None)
    monkeypatch.setattr(progress, "_last_width", 0)
    return progress


def test_progress_lines_erase_with_vt_off_windows(progress, monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    assert progress.in_place("abc") == "\r\033[Kabc"
    assert progress.in_place("") == "\r\033[K"


def test_progress_lines_are_padded_with_spaces_on_a_console_without_vt(progress, monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(progress, "_enable_vt_mode", lambda: False)
    assert progress.in_place("long line") == "\rlong line"
    assert progress.in_place("short") == "\rshort    \rshort"
    assert progress.in_place("") == "\r     \r"
    assert "\033" not in progress.in_place("x")


def test_progress_lines_use_vt_on_windows_when_it_can_be_turned_on(progress, monkeypatch):
    calls = []
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(progress, "_enable_vt_mode", lambda: calls.append(1) or True)
    assert progress.in_place("abc") == "\r\033[Kabc"
    assert progress.in_place("d") == "\r\033[Kd"
    assert calls == [1]                                   # asked once


def test_enable_vt_mode_is_false_without_the_windows_api(progress):
    if sys.platform != "win32":
        assert progress._enable_vt_mode() is False


def test_clear_line_on_a_windows_terminal_without_vt(progress, monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(progress, "_enable_vt_mode", lambda: False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    progress.progress_line("gensfen", "positions", 5, 10, 0.0)
    progress.clear_line()
    err = capsys.readouterr().err
    assert "\033" not in err and err.endswith("\r")


# --- clocks: time.perf_counter, not time.monotonic (15.6 ms ticks on Windows) --------------

def test_no_python_clock_reads_time_monotonic():
    """Deadlines, think times and line arrival times read time.perf_counter (well under
    a microsecond on Windows, where time.monotonic ticks every 15.6 ms)."""
    import pathlib

    import usi_engine
    package = pathlib.Path(usi_engine.__file__).parent
    readers = [str(p.relative_to(package)) for p in package.rglob("*.py")
               if "time.monotonic()" in p.read_text(encoding="utf-8")]
    assert readers == []


def test_go_deadlines_and_line_times_use_perf_counter(monkeypatch):
    from usi_engine.usi import clock, stdio
    monkeypatch.setattr(stdio.time, "perf_counter", lambda: 100.0)
    chunks = iter([b"go btime 0 wtime 0 byoyomi 1000\n", b""])
    assert list(stdio.iter_lines(lambda: next(chunks))) == [
        ("go btime 0 wtime 0 byoyomi 1000", 100.0)]
    monkeypatch.setattr(clock.time, "perf_counter", lambda: 100.25)   # 250 ms later
    plan = argparse.Namespace(soft_ms=1000, hard_ms=1000)
    assert clock.MoveClock(plan, started_at=100.0).deadlines() == (750, 750)


# --- option values that are not UTF-8: CP932, said in an info string ------------------------

def test_a_cp932_option_value_is_read_as_cp932_and_said(tmp_path):
    import io

    from usi_engine.usi.loop import UsiEngine
    out = io.BytesIO()
    engine = UsiEngine(out)
    chunks = iter(["setoption name BookFile value 定跡.db\n".encode("cp932"),
                   "setoption name EvalDir value 評価関数\n".encode("utf-8"), b"quit\n", b""])
    engine.run(lambda: next(chunks))
    said = out.getvalue().decode("utf-8").splitlines()
    assert said.count("info string input line not UTF-8: read as CP932 (Shift-JIS): "
                      "setoption name BookFile value 定跡.db") == 1
    assert not any("評価関数" in line and "CP932" in line for line in said)
    assert engine.options["BookFile"] == "定跡.db"
    assert engine.options["EvalDir"] == "評価関数"


def test_bytes_neither_utf8_nor_cp932_are_replaced_not_fatal():
    from usi_engine.usi.stdio import decode_line
    text, cp932 = decode_line(b"setoption name X value \x81")   # a lone CP932 lead byte
    assert not cp932 and text.startswith("setoption name X value ")


# --- the bridged engine keeps out of the terminal's Ctrl-C ----------------------------------

def test_new_session_is_a_new_process_group_on_windows(monkeypatch):
    from usi_engine.usi import client
    monkeypatch.setattr(sys, "platform", "win32")
    assert client.session_arguments(True) == {"creationflags": 0x200}  # CREATE_NEW_PROCESS_GROUP
    assert client.session_arguments(False) == {}
    monkeypatch.setattr(sys, "platform", "linux")
    assert client.session_arguments(True) == {"start_new_session": True}


def test_the_client_starts_its_engine_with_those_arguments(monkeypatch):
    from usi_engine.usi import client
    seen = {}

    def popen(argv, **kwargs):
        seen.update(kwargs)
        raise OSError("not started")

    monkeypatch.setattr(client.subprocess, "Popen", popen)
    monkeypatch.setattr(sys, "platform", "win32")
    engine = client.UsiClient(["engine.exe"], new_session=True, start=False)
    with pytest.raises(OSError):
        engine.start()
    assert seen["creationflags"] == 0x200 and "start_new_session" not in seen


# --- free memory on Windows: GlobalMemoryStatusEx ------------------------------------------

def test_available_memory_on_windows_comes_from_global_memory_status_ex(monkeypatch):
    from usi_engine.usi import hashsize

    class Kernel32:
        def GlobalMemoryStatusEx(self, pointer):
            status = pointer._obj
            assert status.dwLength == 64
            status.ullAvailPhys = 3 << 30
            return 1

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(hashsize, "_kernel32", Kernel32)
    assert hashsize.available_mb() == 3072


def test_available_memory_on_windows_is_unknown_when_the_call_fails(monkeypatch):
    from usi_engine.usi import hashsize

    class Failing:
        def GlobalMemoryStatusEx(self, pointer):
            return 0

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(hashsize, "_kernel32", Failing)
    assert hashsize.available_mb() is None
    monkeypatch.setattr(hashsize, "_kernel32", lambda: (_ for _ in ()).throw(OSError()))
    assert hashsize.available_mb() is None
    monkeypatch.setattr(sys, "platform", "linux")
    assert hashsize.available_mb() is None or hashsize.available_mb() > 0
