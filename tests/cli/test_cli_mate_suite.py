"""`usi-engine mate --suite FILE` refuses a file without one valid problem (a README,
a file of bad lines, an empty one) with one line naming the file and the first bad
line, exit code 2, instead of "solved 0/N" and 0 (issue #42)."""
import subprocess
import sys

from conftest import ROOT

KOTEN = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"


def mate_suite(path):
    proc = subprocess.run([sys.executable, "-m", "usi_engine", "mate", "--suite", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_the_readme_is_not_a_suite():
    code, out, err = mate_suite(ROOT / "README.md")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("usi-engine: error: --suite ") and "README.md" in err
    assert "no valid problem" in err and "first bad line 3 " in err


def test_a_file_of_bad_lines_names_the_first(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("# comment\n\nfoo | bar | 3\nbaz | qux | 5\n")
    code, out, err = mate_suite(path)
    assert code == 2 and out == ""
    assert err.strip() == (f"usi-engine: error: --suite {path}: no valid problem in it; "
                           "first bad line 3 'foo | bar | 3': sfen needs <board> <side> "
                           "<hand> [<ply>], got 1 field")


def test_a_file_without_problems_is_refused(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# only a comment\n\n")
    code, _, err = mate_suite(path)
    assert code == 2 and "no problem in it" in err and str(path) in err


def test_a_suite_with_one_good_problem_still_runs_and_reports_the_bad_ones(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text(f"foo | bar | 3\nkoten | {KOTEN} | 3\n")
    code, out, _ = mate_suite(path)
    assert code == 0
    assert "foo    error: sfen" in out and out.splitlines()[-1].startswith("solved 1/2,")
