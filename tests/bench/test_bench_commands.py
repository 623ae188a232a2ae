"""bench/'s engine command lines, as the match runners split them."""
import os
import sys

import pytest

WINDOWS_COMMAND = r'"C:\Program Files\Engines\gpsusi.exe" --eval C:\eval\w.bin -x "two words"'
WINDOWS_ARGV = [r"C:\Program Files\Engines\gpsusi.exe", "--eval", r"C:\eval\w.bin", "-x",
                "two words"]


def test_bench_engine_command_keeps_backslashes_on_windows():
    from bench.lib.engines import split_command
    with pytest.MonkeyPatch.context() as m:
        m.setattr(os, "name", "nt")
        m.setattr(sys, "platform", "win32")
        assert split_command(WINDOWS_COMMAND) == WINDOWS_ARGV
