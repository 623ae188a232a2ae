"""Replay the bad-input cases of issues 12 and 42 against this checkout and write what
the engine answers: the USI loop (one session per case) and the command line.

    python -m bench.tools.bad_input_transcript [--out bench/out/bad-input.txt]
    python -m bench.tools.bad_input_transcript --out bench/bad-input-transcript.txt  # the record

Each USI case sends its lines to a fresh `python -m usi_engine`, waits for the answer it
owes (bestmove/checkmate/readyok) and prints every line both ways; each CLI case prints
the command, stdout, stderr and the exit code (a case with a stop time gets Ctrl-C then;
a pipe case writes into a pipe whose reader is gone).  Nothing here is asserted: the
tests (tests/usi/test_usi_input.py, tests/test_cli*.py, tests/csa/test_csa_cli.py,
tests/eval/test_eval_file_errors.py) do that; this is the record to read.
"""
from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.lib.paths import OUT, REPO

ENGINE = [sys.executable, "-m", "usi_engine"]

USI_CASES = [
    ("go depth 2^31", ["position startpos", "go depth 2147483648 movetime 300"], "bestmove"),
    ("go nodes 2^63", ["position startpos", "go nodes 9223372036854775808 movetime 300"],
     "bestmove"),
    ("go mate 2^63", ["position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1",
                      "go mate 9223372036854775808"], "checkmate"),
    ("no king at all", ["position startpos moves 7g7f", "position sfen 9/9/9/9/9/9/9/9/9 b - 1",
                        "go depth 1"], "bestmove"),
    ("Arabic-Indic digits", ["position sfen 4k4/9/9/9/9/9/9/9/4K\u0664 b - 1",
                             "go depth \u0669", "stop"], "bestmove"),
    ("debug o", ["debug o", "isready"], "readyok"),
    ("a 100 kB token", ["x" * 100_000, "isready"], "readyok"),
    ("the final info", ["position startpos", "go depth 2"], "bestmove"),
    ("a missing EvalFile (one info string)", ["setoption name EvalFile value /no/such/w.bin",
                                              "isready"], "readyok"),
    ("go mate: is the length proven shortest?",
     ["position sfen 3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1", "go mate 3000"],
     "checkmate"),
]

ZUKO_98 = "8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1"

CLI_CASES = [
    ["mate", "--hash", "0", "4k4/9/4P4/9/9/9/9/9/9 b G 1"],
    ["mate", "--time-ms", "9223372036854775808", "4k4/9/4P4/9/9/9/9/9/9 b G 1"],
    ["mate", "--time-ms", "-5", "4k4/9/4P4/9/9/9/9/9/9 b G 1"],
    ["perft", "99999999999"],
    ["bench", "--depth", "99999999999"],
    ["mate", "9/9/9/9/9/9/9/9/9 b - 1"],
    ["mate", "sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1"],
    ["perft", "4", "--sfen", "startpos moves 7g7f"],
    ["--version"],
    # issue 42
    ["mate", "--suite", "README.md"],
    ["mate", "--suite", "bench/out/bad-suite.txt"],      # written by main(): bad lines only
    ["mate", "--time-ms", "3000", ZUKO_98],
    ["bench", "--eval-file", "/no/such/w.bin"],
    ["bench", "--eval", "hand", "--eval-file", "kp.bin"],
    ["gensfen", "--out", "/tmp/x", "--positions", "1", "--eval", "learned",
     "--eval-file", "/no/such/w.bin"],
    ["csa"],
]

#: (arguments, seconds before Ctrl-C): commands that would go on for long.
STOPPED_CASES = [
    (["csa", "--host", "no-such-host.invalid", "--id", "me", "--password", "x",
      "--log-dir", "bench/out/csa-bad-host"], 3.0),
]

#: Commands whose output goes into a pipe closed by its reader (`... | head -1`).
PIPE_CASES = [
    ["bench"],
    ["mate", "--suite", "sfen/tsume/classic.txt", "--time-ms", "100"],
]


def shorten(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def usi_case(title: str, lines: list[str], until: str) -> list[str]:
    out = [f"## USI: {title}"]
    proc = subprocess.Popen(ENGINE, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    for line in lines:
        out.append("> " + shorten(line))
        proc.stdin.write(line + "\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answer = proc.stdout.readline().rstrip("\n")
        if not answer:
            break
        out.append("< " + shorten(answer))
        if answer.split()[0] == until:
            break
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait(timeout=5)
    return out


def ctrl_c_case() -> list[str]:
    out = ["## USI: Ctrl-C (SIGINT) while idle"]
    proc = subprocess.Popen(ENGINE, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=5)
    out.append(f"exit code {proc.returncode}; stderr {stderr!r}; stdout {stdout!r}")
    return out


def cli_case(args: list[str]) -> list[str]:
    proc = subprocess.run(ENGINE + args, cwd=REPO, capture_output=True, text=True, timeout=120)
    out = ["## CLI: usi-engine " + " ".join(a if " " not in a else repr(a) for a in args)]
    out += ["stdout: " + line for line in proc.stdout.splitlines()]
    out += ["stderr: " + line for line in proc.stderr.splitlines()]
    out.append(f"exit code {proc.returncode}")
    return out


def stopped_case(args: list[str], seconds: float) -> list[str]:
    proc = subprocess.Popen(ENGINE + args, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    out = [f"## CLI: usi-engine {' '.join(args)}   (Ctrl-C after {seconds:g} s)"]
    for stream, text in (("stdout", stdout), ("stderr", stderr)):
        for line in text.splitlines():
            if "engine>" not in line:          # the engine's usi answer: not the point
                out.append(f"{stream}: {line[24:] if line[:2] == '20' else line}")
    out.append(f"exit code {proc.returncode}")
    return out


def pipe_case(args: list[str]) -> list[str]:
    import os
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(ENGINE + args, cwd=REPO, stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write_end)
    out = [f"## CLI: usi-engine {' '.join(args)} | (a reader that has gone, as head -1)"]
    out += ["stderr: " + line for line in proc.stderr.splitlines()]
    out.append(f"exit code {proc.returncode}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(OUT / "bad-input.txt"))
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bad-suite.txt").write_text("# not one valid problem\nfoo | bar | 3\nbaz | qux | 5\n")
    text = [f"# bad-input transcript, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"]
    for title, lines, until in USI_CASES:
        text += usi_case(title, lines, until) + [""]
    text += ctrl_c_case() + [""]
    for case in CLI_CASES:
        text += cli_case(case) + [""]
    for case, seconds in STOPPED_CASES:
        text += stopped_case(case, seconds) + [""]
    for case in PIPE_CASES:
        text += pipe_case(case) + [""]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
