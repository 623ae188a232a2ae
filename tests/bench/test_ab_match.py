"""python -m bench.strength.ab_match freezes this build or a past commit's for A/B matches."""
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

def ab_match(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "bench.strength.ab_match", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def worktrees():
    return subprocess.run(["git", "-C", str(ROOT), "worktree", "list", "--porcelain"],
                          capture_output=True, text=True).stdout.count("worktree ")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git on the PATH")
def test_freezing_an_unknown_commit_is_refused_by_name(tmp_path):
    result = ab_match("--freeze", str(tmp_path / "old"), "--commit", "0123456789abcdef")
    assert result.returncode != 0
    assert "--commit 0123456789abcdef: no such commit" in result.stderr
    assert not (tmp_path / "old").exists()


def test_a_commit_without_freeze_is_a_usage_error():
    result = ab_match("--commit", "HEAD")
    assert result.returncode == 2 and "--commit goes with --freeze" in result.stderr


def test_an_eval_file_option_is_refused_in_favour_of_frozen_weights():
    result = ab_match("--base", "x", "--new-option", "EvalFile=net.bin")
    assert result.returncode == 2 and "freeze a build with --weights" in result.stderr


def test_frozen_weights_replace_the_shipped_ones(tmp_path):
    (tmp_path / "w.bin").write_bytes(b"weights")
    result = ab_match("--freeze", str(tmp_path / "f"), "--weights", str(tmp_path / "w.bin"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "f" / "usi_engine" / "eval" / "data" / "kpnn.bin").read_bytes() == b"weights"


@pytest.mark.slow
def test_a_frozen_commit_is_built_runs_as_an_engine_and_leaves_no_worktree(tmp_path):
    before = worktrees()
    result = ab_match("--freeze", str(tmp_path / "head"), "--commit", "HEAD", timeout=1200)
    assert result.returncode == 0, result.stderr
    launcher = tmp_path / "head" / "engine.sh"
    assert result.stdout.strip() == str(launcher)
    reply = subprocess.run([str(launcher)], input="usi\nquit\n", capture_output=True,
                           text=True, timeout=60).stdout
    assert "usiok" in reply
    assert worktrees() == before
