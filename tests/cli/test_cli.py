"""The command-line contract: perft, bench and mate print what benchmarks rely on."""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

try:
    import pty
except ImportError:             # Windows: pty imports termios
    pty = None

#: The tests that put stderr on a pseudo-terminal.
needs_pty = pytest.mark.skipif(pty is None, reason="needs a pseudo-terminal (pty is POSIX only)")

NODES_LINE = re.compile(r"nodes (\d+) time_ms \d+ nps \d+")


def run(*args, timeout=120):
    proc = subprocess.run([sys.executable, "-m", "usi_engine", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def test_perft_last_line_has_nodes_time_and_nps():
    code, lines, _ = run("perft", "4")
    assert code == 0 and NODES_LINE.fullmatch(lines[-1])
    assert NODES_LINE.fullmatch(lines[-1]).group(1) == "719731"


def test_perft_divide_lists_each_move_then_the_total():
    code, lines, _ = run("perft", "2", "--divide", "--sfen", "4k4/9/5N3/9/9/9/9/9/4R3K w 2g2sp 1")
    assert code == 0 and len(lines) == 5
    assert sum(int(l.split(": ")[1]) for l in lines[:-1]) == 92


def test_perft_rejects_a_bad_sfen_with_exit_code_2():
    code, _, err = run("perft", "1", "--sfen", "nonsense")
    assert code == 2 and "sfen" in err


def test_bench_node_count_is_deterministic():
    counts = []
    for _ in range(2):
        code, lines, _ = run("bench", "--depth", "3")
        assert code == 0 and NODES_LINE.fullmatch(lines[-1])
        counts.append(NODES_LINE.fullmatch(lines[-1]).group(1))
    assert counts[0] == counts[1]


def test_mate_prints_one_usi_checkmate_line():
    code, lines, _ = run("mate", "4k4/9/4P4/9/9/9/9/9/9 b G 1", "--time-ms", "2000")
    assert code == 0 and lines == ["checkmate G*5b", "# mate in 1 plies: proven shortest, "
                                                     "against the longest defence"]


def test_mate_reports_nomate_and_timeout():
    assert run("mate", "4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1")[1] == ["checkmate nomate"]
    hard = "9/9/9/9/9/9/9/6k2/9 b 4G4SNL3P2r2b3n3l15p 1"
    assert run("mate", hard, "--time-ms", "300")[1] == ["checkmate timeout"]


def test_mate_suite_prints_a_line_per_problem_and_a_summary(tmp_path):
    suite = tmp_path / "suite.txt"
    suite.write_text("# two problems\nm1 | 4k4/9/4P4/9/9/9/9/9/9 b G 1 | 1\n"
                     "koten | 3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1 | 3\n")
    code, lines, _ = run("mate", "--suite", str(suite), "--time-ms", "3000")
    assert code == 0 and len(lines) == 5
    assert lines[0].startswith("# lengths counted as published;")
    assert lines[1].split() == ["problem", "result", "plies", "expected", "time_ms", "nodes"]
    assert lines[-1].startswith("solved 2/2, expected length matched 2")


def test_a_suite_marked_strict_is_counted_strictly(tmp_path):
    # 2a2h 4h5i S*5h as published; strictly the useless interposition counts: 5 plies
    sfen = "lns4+r1/1rgk+b4/pppp2+N2/4p4/9/3P5/PPPGPP3/LBNS1K3/1N4+l2 w GPg2sl6p 96"
    suite = tmp_path / "suite.txt"
    suite.write_text(f"# The lengths: strict minimax (every defence counts)\np | {sfen} | 5\n")
    code, lines, _ = run("mate", "--suite", str(suite), "--time-ms", "5000")
    assert code == 0 and lines[0].startswith("# lengths counted strictly (every defence);")
    assert lines[-1].startswith("solved 1/1, expected length matched 1")


def test_mate_strict_counts_useless_interpositions():
    sfen = "lns4+r1/1rgk+b4/pppp2+N2/4p4/9/3P5/PPPGPP3/LBNS1K3/1N4+l2 w GPg2sl6p 96"
    published = run("mate", sfen, "--time-ms", "5000")[1]
    strict = run("mate", sfen, "--time-ms", "5000", "--strict")[1]
    assert published[0] == "checkmate 2a2h 4h5i S*5h"
    assert published[1].startswith("# mate in 3 plies: ")
    assert len(strict) == 2 and len(strict[0].split()) == 1 + 5


# ---- bad arguments: one line on stderr, exit code 2 ------------------------------------------
MATE_IN_1 = "4k4/9/4P4/9/9/9/9/9/9 b G 1"


@pytest.mark.parametrize("args,field", [
    (("mate", "--hash", "0", MATE_IN_1), "--hash"),
    (("mate", "--hash", "99999999999999999999", MATE_IN_1), "--hash"),
    (("mate", "--time-ms", "9223372036854775808", MATE_IN_1), "--time-ms"),
    (("mate", "--time-ms", "-5", MATE_IN_1), "--time-ms"),
    (("mate", "--time-ms", "\u0665", MATE_IN_1), "--time-ms"),
    (("perft", "99999999999"), "depth"),
    (("perft", "-1"), "depth"),
    (("bench", "--depth", "99999999999"), "--depth"),
    (("bench", "--depth", "0"), "--depth"),
    (("mate", "nonsense"), "sfen"),
    (("mate", "9/9/9/9/9/9/9/9/9 b - 1"), "no king"),
    (("mate",), "SFEN"),
    (("perft", "1", "--sfen", "startpos moves 7g7f 7g7f"), "move 2"),
])
def test_bad_arguments_get_one_line_and_exit_code_2(args, field):
    code, lines, err = run(*args)
    assert code == 2 and lines == []
    assert len(err.splitlines()) == 1 and field in err and "Traceback" not in err


def test_a_binary_suite_file_gets_one_line_and_exit_code_2(tmp_path):
    suite = tmp_path / "suite.bin"
    suite.write_bytes(bytes(range(256)) * 8)
    code, _, err = run("mate", "--suite", str(suite))
    assert code == 2 and len(err.splitlines()) == 1 and "text file" in err


def test_an_illegal_sfen_is_refused_before_the_table_is_allocated():
    start = time.perf_counter()
    code, _, err = run("mate", "--hash", "4096", "9/9/9/9/9/9/9/9/9 b - 1")
    assert code == 2 and "no king" in err
    assert time.perf_counter() - start < 2.0      # 4 GB would take seconds to clear


# ---- the forms a USI user types ------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("sfen " + MATE_IN_1,),
    ("sfen", *MATE_IN_1.split()),
    ("position sfen " + MATE_IN_1,),
    ("sfen 4k4/9/4P4/9/9/9/9/9/K8 b G 1 moves 9i9h 5a6a 9h9i 6a5a",),
])
def test_mate_takes_the_usi_position_forms(args):
    code, lines, _ = run("mate", *args, "--time-ms", "5000")
    assert code == 0 and lines == ["checkmate G*5b", "# mate in 1 plies: proven shortest, "
                                                     "against the longest defence"]


def test_perft_takes_startpos_with_moves():
    code, lines, _ = run("perft", "4", "--sfen", "startpos moves 7g7f")
    assert code == 0 and NODES_LINE.fullmatch(lines[-1]).group(1) == "1099961"


# ---- help and version ----------------------------------------------------------------------
def test_version_prints_the_package_version():
    from usi_engine import __version__
    code, lines, _ = run("--version")
    assert code == 0 and lines == [f"usi_engine {__version__}"]


def test_help_ends_its_description_with_a_full_sentence():
    code, lines, _ = run("--help")
    blank = lines.index("")                       # the usage may take several lines
    end = lines.index("", blank + 1)
    description = " ".join(lines[blank + 1:end])
    assert code == 0 and "runs the USI loop" in description
    assert description.rstrip().endswith(".") or "tsume solving." in description


@pytest.mark.parametrize("command,texts", [
    ("perft", ["plies to look ahead"]),
    ("mate", ["(default: none", "(default 256)", "in ms"]),
    ("bench", ["(default 5)"]),
])
def test_each_argument_has_help_and_its_default(command, texts):
    code, lines, _ = run(command, "--help")
    text = " ".join(" ".join(lines).split())
    assert code == 0 and all(t in text for t in texts), text


# ---- progress on a terminal and Ctrl-C -------------------------------------------------------
def run_with_terminal_stderr(args, interrupt_after=None, timeout=60):
    """Run the CLI with stderr on a pseudo-terminal; returns (code, stdout, stderr text).
    interrupt_after: send SIGINT (Ctrl-C) after that many seconds."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "usi_engine", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=follower, text=True)
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + timeout
    interrupted = False
    while True:
        if interrupt_after is not None and not interrupted and \
                time.monotonic() > deadline - timeout + interrupt_after:
            proc.send_signal(signal.SIGINT)
            interrupted = True
        try:
            import select
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                chunks.append(os.read(leader, 65536))
        except OSError:                 # the follower side closed: the process ended
            break
        if proc.poll() is not None and not ready:
            break
        assert time.monotonic() < deadline, "the command did not end"
    os.close(leader)
    out = proc.stdout.read()
    proc.wait()
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


@needs_pty
def test_deep_perft_shows_its_progress_on_a_terminal():
    code, out, err = run_with_terminal_stderr(["perft", "7", "--sfen", "8k/9/9/9/9/9/9/9/K8 b - 1"])
    assert code == 0 and NODES_LINE.fullmatch(out.splitlines()[-1])
    assert "perft 7: move 1/3" in err


def test_perft_shows_no_progress_when_stderr_is_not_a_terminal():
    code, _, err = run("perft", "7", "--sfen", "8k/9/9/9/9/9/9/9/K8 b - 1")
    assert code == 0 and err == ""


@needs_pty
def test_a_mate_suite_shows_its_progress_on_a_terminal(tmp_path):
    suite = tmp_path / "suite.txt"
    suite.write_text(f"m1 | {MATE_IN_1} | 1\n")
    code, out, err = run_with_terminal_stderr(["mate", "--suite", str(suite)])
    assert code == 0 and "solving m1 (1/1)" in err and out.splitlines()[-1].startswith("solved 1/1")


@needs_pty
def test_ctrl_c_ends_a_deep_perft_with_one_line():
    # 161 root moves, about 0.1 s each: perft 7 would take 10 s or more
    code, _, err = run_with_terminal_stderr(["perft", "7", "--sfen", "8k/9/9/9/9/9/9/9/K8 b GS 1"],
                                            interrupt_after=1.0)
    assert code == 130 and "interrupted" in err and "Traceback" not in err


def _every_option():
    """(command path, argparse action) of every option of every sub-command."""
    import argparse
    from usi_engine.cli import build_parser

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, path + [name])
            else:
                yield path, action, parser
    return list(walk(build_parser(), []))


def test_every_option_with_a_default_says_it_in_its_help():
    import argparse
    silent = [(" ".join(path), action.option_strings[0])
              for path, action, _ in _every_option()
              if action.option_strings and action.default not in (None, False, argparse.SUPPRESS)
              and not isinstance(action, (argparse._HelpAction, argparse._VersionAction))
              and "default" not in (action.help or "")]
    assert silent == []


def test_no_help_page_shows_a_doubled_percent_sign():
    parsers = {id(parser): parser for _, _, parser in _every_option()}
    doubled = [parser.prog for parser in parsers.values() if "%%" in parser.format_help()]
    assert doubled == []


def test_help_on_a_console_that_cannot_show_japanese_replaces_it():
    env = dict(os.environ, PYTHONIOENCODING="cp1252")
    done = subprocess.run([sys.executable, "-m", "usi_engine", "analyze", "--help"],
                          cwd=ROOT, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"?" in done.stdout and b"Traceback" not in done.stderr
