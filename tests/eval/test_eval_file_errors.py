"""Weights that cannot be read (issue #42): `bench --eval-file` says so in one line
and exits 2 (no "using the shipped weights" before it), `--eval-file` with `--eval
hand` is refused, and the USI engine reports a missing EvalFile in one info string
line, not one per place that applies the options."""
import os
import subprocess
import sys
import time

from conftest import ROOT
from usi_engine.eval import weights as eval_weights
from usi_engine.eval.loader import EvalLoader, load_network


def cli(*args):
    proc = subprocess.run([sys.executable, "-m", "usi_engine", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_bench_with_a_missing_eval_file_is_one_error_and_exit_2():
    code, out, err = cli("bench", "--depth", "1", "--eval-file", "/no/such/w.bin")
    assert code == 2 and out == ""
    assert err.strip() == ("usi-engine: error: --eval-file /no/such/w.bin: cannot read "
                           "/no/such/w.bin: No such file or directory")
    assert "shipped" not in err


def test_bench_refuses_an_eval_file_with_the_hand_written_evaluation():
    code, out, err = cli("bench", "--depth", "1", "--eval", "hand", "--eval-file", "kp.bin")
    assert code == 2 and out == ""
    assert "--eval-file goes with --eval learned" in err and len(err.splitlines()) == 1


def test_bench_with_a_shipped_eval_file_runs():
    code, out, _ = cli("bench", "--depth", "1", "--eval-file", "kp.bin")
    assert code == 0 and out.splitlines()[-1].startswith("nodes ")


def test_gensfen_with_a_missing_eval_file_says_only_that(tmp_path):
    code, _, err = cli("gensfen", "--out", str(tmp_path / "out"), "--positions", "1",
                       "--eval", "learned", "--eval-file", "/no/such/w.bin")
    assert code == 2 and "shipped" not in err
    # gensfen makes the path absolute for its workers: on Windows Z:\no\such\w.bin
    missing = os.path.abspath("/no/such/w.bin")
    assert err.strip().endswith(f"--eval-file {missing}: cannot read {missing}: "
                                "No such file or directory")


def test_load_network_raises_instead_of_falling_back():
    import pytest
    with pytest.raises(eval_weights.WeightFileError, match="cannot read"):
        load_network("/no/such/w.bin")
    assert not load_network("kp.bin").has_net


def test_the_loader_reports_one_failure_once_until_something_changes(tmp_path):
    loader = EvalLoader()
    missing = str(tmp_path / "w.bin")
    assert len(loader.apply("learned", missing)) == 1
    assert loader.apply("learned", missing) == []          # nothing new to say
    assert loader.network is not None                       # the shipped weights
    eval_weights.write_weights(missing, eval_weights.read_weights(
        eval_weights.embedded_kp_path()))
    assert loader.apply("learned", missing) == [f"EvalFile: loaded {missing}"]
    (tmp_path / "bad.bin").write_bytes(b"nonsense")
    assert len(loader.apply("learned", str(tmp_path / "bad.bin"))) == 1
    assert loader.apply("learned", missing) == []           # back to the loaded one
    assert len(loader.apply("learned", str(tmp_path / "bad.bin"))) == 1   # asked again


def test_a_missing_eval_file_is_one_info_string_line_at_isready():
    engine = subprocess.Popen([sys.executable, "-m", "usi_engine"], cwd=ROOT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        engine.stdin.write("usi\nsetoption name BookFile value no_book\n"
                           "setoption name EvalFile value /no/such/w.bin\nisready\n")
        engine.stdin.flush()
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = engine.stdout.readline().strip()
            lines.append(line)
            if line == "readyok":
                break
        engine.stdin.write("quit\n")
        engine.stdin.flush()
        engine.wait(timeout=30)
    finally:
        if engine.poll() is None:
            engine.kill()
    assert lines[-1] == "readyok"
    infos = [line for line in lines if line.startswith("info string")]
    assert len(infos) == 1 and "cannot read /no/such/w.bin" in infos[0], infos


def test_a_relative_eval_file_is_reported_with_the_full_path_it_was_read_from(tmp_path,
                                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    eval_weights.write_weights("mine.bin", eval_weights.read_weights(
        eval_weights.embedded_kp_path()))
    loader = EvalLoader()                      # EvalDir eval/ has no mine.bin: the folder
    assert loader.apply("learned", "mine.bin", "eval") == [
        f"EvalFile: loaded {tmp_path / 'mine.bin'}"]
    (tmp_path / "eval").mkdir()
    eval_weights.write_weights("eval/mine.bin", eval_weights.read_weights(
        eval_weights.embedded_kp_path()))
    assert loader.apply("learned", "mine.bin", "eval") == [
        f"EvalFile: loaded {tmp_path / 'eval' / 'mine.bin'}"]       # EvalDir comes first
