"""The command-line contract: perft, bench and mate print what benchmarks rely on."""
import re
import subprocess
import sys

from conftest import ROOT

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
    assert code == 0 and lines == ["checkmate G*5b"]


def test_mate_reports_nomate_and_timeout():
    assert run("mate", "4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1")[1] == ["checkmate nomate"]
    hard = "9/9/9/9/9/9/9/6k2/9 b 4G4SNL3P2r2b3n3l15p 1"
    assert run("mate", hard, "--time-ms", "300")[1] == ["checkmate timeout"]


def test_mate_suite_prints_a_line_per_problem_and_a_summary(tmp_path):
    suite = tmp_path / "suite.txt"
    suite.write_text("# two problems\nm1 | 4k4/9/4P4/9/9/9/9/9/9 b G 1 | 1\n"
                     "koten | 3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1 | 3\n")
    code, lines, _ = run("mate", "--suite", str(suite), "--time-ms", "3000")
    assert code == 0 and len(lines) == 4
    assert lines[-1].startswith("solved 2/2, published length matched 2")


def test_mate_strict_counts_useless_interpositions():
    sfen = "lns4+r1/1rgk+b4/pppp2+N2/4p4/9/3P5/PPPGPP3/LBNS1K3/1N4+l2 w GPg2sl6p 96"
    published = run("mate", sfen, "--time-ms", "5000")[1]
    strict = run("mate", sfen, "--time-ms", "5000", "--strict")[1]
    assert published == ["checkmate 2a2h 4h5i S*5h"]
    assert len(strict) == 1 and len(strict[0].split()) == 1 + 5
