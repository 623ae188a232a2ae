"""Whether a mate's length is proven shortest (issue #42): with a limit the solver may
stop before it has ruled out shorter mates and settled the longest defences, and the
length then changes with more time (Zuko 98: 33 plies in 3 s, 35 in 30 s).
`MateResult.shortest` says which, and `usi-engine mate` and `go mate` say it too."""
import subprocess
import sys

from conftest import ROOT
from usi_engine.core.position import Position
from usi_engine.mate.report import length_note
from usi_engine.mate.solver import MateSolver

FUTAKAMI = "7nl/6s2/5N2k/6G2/9/9/9/9/9 b 2RG2b2g3s2n3l18p 1"     # 11 plies
MATE1 = "4k4/9/4P4/9/9/9/9/9/9 b G 1"


def solve(sfen, **limits):
    solver = MateSolver()
    solver.set_hash(64)
    return solver.solve(Position(sfen), **limits)


def test_a_solve_run_to_its_end_is_proven_shortest():
    result = solve(FUTAKAMI)
    assert (result.status, len(result.pv), result.shortest) == ("mate", 11, True)
    assert length_note(result) == ("mate in 11 plies: proven shortest, against the "
                                   "longest defence")


def test_a_solve_cut_short_by_its_limit_is_not_proven_shortest():
    result = solve(FUTAKAMI, nodes=80000)      # the mate is found, not yet proven shortest
    assert (result.status, result.shortest) == ("mate", False)
    assert length_note(result).startswith(f"mate in {len(result.pv)} plies: not proven "
                                          "shortest (")


def test_the_first_mate_found_is_not_claimed_shortest():
    result = solve(FUTAKAMI, shortest=False)
    assert result.status == "mate" and not result.shortest


def test_nomate_and_timeout_are_not_shortest():
    assert not solve("4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1").shortest
    assert not solve(FUTAKAMI, nodes=1000).shortest


def test_the_command_line_says_whether_the_length_is_proven():
    def mate(*args):
        return subprocess.run([sys.executable, "-m", "usi_engine", "mate", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert mate(FUTAKAMI)[1] == "# mate in 11 plies: proven shortest, against the longest defence"
    assert mate("4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1") == ["checkmate nomate"]


def test_go_mate_says_whether_the_length_is_proven_before_checkmate():
    proc = subprocess.run([sys.executable, "-m", "usi_engine"], cwd=ROOT, text=True,
                          input=f"usi\nisready\nposition sfen {MATE1}\ngo mate infinite\n"
                                "isready\nquit\n", capture_output=True, timeout=120)
    lines = proc.stdout.splitlines()
    at = lines.index("checkmate G*5b")
    assert lines[at - 1] == ("info string mate in 1 plies: proven shortest, against the "
                             "longest defence")
    assert sum(line.startswith("info string mate in") for line in lines) == 1
