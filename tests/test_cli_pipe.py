"""A command whose output is piped into a reader that stops early (``usi-engine
bench | head -1``) stops quietly: no traceback, exit code 141 (128 + SIGPIPE), as
the CLI's --help says (issue #42)."""
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
