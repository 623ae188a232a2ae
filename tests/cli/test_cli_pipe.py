"""A command whose output is piped into a reader that stops early (``usi-engine
bench | head -1``) stops quietly: no traceback, exit code 141 (128 + SIGPIPE), as
the CLI's --help says (issue #42)."""
import errno
import os
import subprocess
import sys

import pytest

from conftest import ROOT

SUITE = str(ROOT / "sfen" / "tsume" / "classic.txt")


@pytest.mark.parametrize("args", [
    ["bench", "--depth", "1"],
    ["mate", "--suite", SUITE, "--time-ms", "100"],
    ["mate", "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"],
    ["perft", "2", "--divide"],
])
def test_output_into_a_closed_pipe_exits_141_without_a_traceback(args):
    read_end, write_end = os.pipe()
    os.close(read_end)                    # the reader is gone before the first line
    try:
        proc = subprocess.run([sys.executable, "-m", "usi_engine", *args], cwd=ROOT,
                              stdout=write_end, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    finally:
        os.close(write_end)
    assert proc.returncode == 141, proc.stderr
    assert proc.stderr == ""


@pytest.mark.skipif(sys.platform == "win32",
                    reason="needs bash and POSIX head (and PIPESTATUS) on the PATH")
def test_bench_into_head_stops_quietly():
    proc = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m usi_engine bench | head -1; "
                       "echo \"rc=${PIPESTATUS[0]}\""],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("position 1/12 ") and lines[-1] == "rc=141", proc.stdout
    assert proc.stderr == ""


def test_help_says_what_a_closed_pipe_does():
    out = subprocess.run([sys.executable, "-m", "usi_engine", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60).stdout
    assert "exit code 141" in " ".join(out.split())


@pytest.mark.parametrize("platform, exc, closed", [
    ("linux", BrokenPipeError(errno.EPIPE, "Broken pipe"), True),
    ("win32", BrokenPipeError(errno.EPIPE, "Broken pipe"), True),
    ("win32", OSError(errno.EINVAL, "Invalid argument"), True),
    ("linux", OSError(errno.EINVAL, "Invalid argument"), False),
    ("win32", OSError(errno.ENOSPC, "No space left on device"), False),
])
def test_a_closed_pipe_is_recognised_on_each_platform(monkeypatch, platform, exc, closed):
    from usi_engine import cli
    monkeypatch.setattr(sys, "platform", platform)
    assert cli.is_closed_pipe(exc) is closed


def test_einval_from_a_write_on_windows_exits_141(monkeypatch):
    """Windows answers a write to a closed pipe with OSError(EINVAL), not
    BrokenPipeError: the CLI stops quietly there too; elsewhere EINVAL stays an error."""
    from usi_engine import cli
    from usi_engine.cli import perft

    def write_into_a_closed_pipe(args):
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(perft, "cmd_perft", write_into_a_closed_pipe)
    monkeypatch.setattr(cli, "_drop_stdout", lambda: None)
    monkeypatch.setattr(sys, "platform", "win32")
    assert cli.main(["perft", "1"]) == 141
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(OSError):
        cli.main(["perft", "1"])
