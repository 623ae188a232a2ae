"""usi-engine relabel: a USI teacher's scores in place of the records' own."""
import random
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from usi_engine import Position
from usi_engine.cli import main
from usi_engine.core.packed import PSV_DTYPE, move_from_psv, move_to_psv, pack, unpack

from usi_fake_teacher import fake_score  # noqa: E402  (tests/helpers, on the path: conftest)

FAKE = Path(__file__).resolve().parents[1] / "helpers" / "usi_fake_teacher.py"
GPSUSI = "/usr/games/gpsusi"


def make_records(n, seed):
    """n records from random games: random stored scores (+-5000), the move a random
    legal one (captures among them)."""
    rng = random.Random(seed)
    records = np.zeros(n, PSV_DTYPE)
    position = Position()
    for i in range(n):
        moves = position.legal_moves()
        if not moves or position.ply > 120:
            position = Position()
            moves = position.legal_moves()
        captures = position.captures()
        move = rng.choice(captures if captures and i % 3 == 0 else moves)
        records[i]["sfen"] = np.frombuffer(pack(position), np.uint8)
        records[i]["score"] = rng.randint(-5000, 5000)
        records[i]["move"] = move_to_psv(position, move)
        records[i]["gamePly"] = position.ply
        records[i]["game_result"] = rng.choice((-1, 0, 1))
        position.push(move)
    return records


@pytest.fixture
def data(tmp_path):
    """Two input files of 12 and 8 records."""
    folder = tmp_path / "in"
    folder.mkdir()
    make_records(12, 1).tofile(folder / "a.psv")
    make_records(8, 2).tofile(folder / "b.psv")
    return folder


def teacher(*flags):
    # (a command line as the platform's shell writes it: --engine takes a string)
    words = [sys.executable, str(FAKE), *flags]
    return subprocess.list2cmdline(words) if sys.platform == "win32" else shlex.join(words)


def relabel(data, out, *extra, flags=(), workers=1):
    return main(["relabel", str(data), "--out", str(out), "--engine", teacher(*flags),
                 "--workers", str(workers), *extra])


def read(path):
    return np.fromfile(path, dtype=PSV_DTYPE)


def sfen_of(record):
    return unpack(record["sfen"].tobytes())


def test_scores_are_the_teachers_and_everything_else_is_kept(data, tmp_path):
    assert relabel(data, tmp_path / "out") == 0
    for name in ("a.psv", "b.psv"):
        before, after = read(data / name), read(tmp_path / "out" / name)
        assert [int(r["score"]) for r in after] == [fake_score(sfen_of(r)) for r in before]
        for key in ("sfen", "move", "gamePly", "game_result"):
            assert (after[key] == before[key]).all()


def test_two_workers_give_the_same_files(data, tmp_path):
    assert relabel(data, tmp_path / "one") == 0
    assert relabel(data, tmp_path / "two", workers=2) == 0
    for name in ("a.psv", "b.psv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_summary_line_counts_records(data, tmp_path, capsys):
    assert relabel(data, tmp_path / "out", "--limit", "5") == 0
    fields = capsys.readouterr().out.split()
    assert fields[0:6] == ["records", "10", "relabelled", "10", "dropped", "0"]
    assert fields[6::2] == ["seconds", "records_per_s"]


def test_limit_keeps_the_first_records_of_each_file(data, tmp_path):
    assert relabel(data, tmp_path / "out", "--limit", "5") == 0
    assert (read(tmp_path / "out" / "a.psv")["sfen"] == read(data / "a.psv")["sfen"][:5]).all()


def test_score_factor_scales_centipawns(data, tmp_path):
    assert relabel(data, tmp_path / "out", "--score-factor", "1.5") == 0
    before, after = read(data / "a.psv"), read(tmp_path / "out" / "a.psv")
    assert [int(r["score"]) for r in after] == [round(1.5 * fake_score(sfen_of(r)))
                                                for r in before]


@pytest.mark.parametrize("mate, stored", [("5", 31995), ("-4", -31996), ("+", 32000),
                                          ("-", -32000)])
def test_mate_scores_are_stored_as_32000_less_the_length(data, tmp_path, mate, stored):
    assert relabel(data, tmp_path / "out", "--score-factor", "2",
                   flags=(f"--mate={mate}",)) == 0
    assert set(read(tmp_path / "out" / "a.psv")["score"]) == {stored}


def test_score_is_taken_with_bestmove_resign(data, tmp_path):
    assert relabel(data, tmp_path / "out", flags=("--bestmove", "resign")) == 0
    assert len(read(tmp_path / "out" / "a.psv")) == 12


def test_records_without_a_score_are_dropped(data, tmp_path, capsys):
    assert relabel(data, tmp_path / "out", flags=("--no-score",)) == 0
    assert len(read(tmp_path / "out" / "a.psv")) == 0
    assert "relabelled 0 dropped 20" in capsys.readouterr().out


def test_quiet_only_drops_captures_and_big_scores_unasked(data, tmp_path):
    assert relabel(data, tmp_path / "out", "--quiet-only", "--max-score", "2000") == 0
    before = read(data / "a.psv")
    quiet = []
    for record in before:
        position = Position(sfen_of(record))
        move = move_from_psv(position, int(record["move"]))
        if move not in position.captures() and abs(int(record["score"])) <= 2000:
            quiet.append(record["sfen"].tobytes())
    after = read(tmp_path / "out" / "a.psv")
    assert 0 < len(quiet) < len(before)
    assert [r["sfen"].tobytes() for r in after] == quiet


def test_output_is_read_by_learn_and_by_cshogi(data, tmp_path):
    cshogi = pytest.importorskip("cshogi")
    from usi_engine.training.data import read_records, record_files
    assert relabel(data, tmp_path / "out") == 0
    ours = read_records(record_files([tmp_path / "out"]))
    theirs = np.concatenate([np.fromfile(tmp_path / "out" / name, dtype=cshogi.PackedSfenValue)
                             for name in ("a.psv", "b.psv")])
    assert len(ours) == len(theirs) == 20
    assert (ours["score"] == theirs["score"]).all()
    assert list(theirs["score"][:12]) == [fake_score(sfen_of(r)) for r in read(data / "a.psv")]
    assert not list((tmp_path / "out").glob("*.tmp"))


def test_existing_output_files_are_skipped(data, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.psv").write_bytes(b"kept")
    assert relabel(data, out) == 0
    assert (out / "a.psv").read_bytes() == b"kept"
    assert len(read(out / "b.psv")) == 8
    assert "records 8 " in capsys.readouterr().out


def test_a_crashing_teacher_is_restarted_and_asked_again(data, tmp_path):
    # The 8th go kills it; the restarted one is asked that position again.
    assert relabel(data / "a.psv", tmp_path / "out", flags=("--crash-on", "8")) == 0
    before, after = read(data / "a.psv"), read(tmp_path / "out" / "a.psv")
    assert [int(r["score"]) for r in after] == [fake_score(sfen_of(r)) for r in before]


def test_a_teacher_dying_twice_fails_that_file_and_the_others_go_on(data, tmp_path, capsys):
    # Every teacher process dies at its 4th go: a.psv (12 records) and b.psv (8) see
    # two deaths each, z.psv (2 records), asked last, none.
    make_records(2, 3).tofile(data / "z.psv")
    out = tmp_path / "out"
    assert relabel(data, out, flags=("--crash-on", "4")) == 1
    assert sorted(p.name for p in out.iterdir()) == ["z.psv"]
    captured = capsys.readouterr()
    assert "a.psv: the teacher exited" in captured.err and "b.psv: the teacher exited" in captured.err
    assert captured.out.startswith("records 2 relabelled 2 ")


def test_a_silent_teacher_times_out_and_is_restarted(data, tmp_path, capsys):
    assert relabel(data / "b.psv", tmp_path / "out", "--timeout-s", "0.6",
                   flags=("--silent-from", "3")) == 0
    before, after = read(data / "b.psv"), read(tmp_path / "out" / "b.psv")
    # go 3 gets nothing; the restarted teacher answers 2, then is silent again...
    asked = [0, 1, 3, 4, 6, 7]
    assert [int(r["score"]) for r in after] == [fake_score(sfen_of(before[i])) for i in asked]
    assert "dropped 2" in capsys.readouterr().out


def test_a_teacher_that_never_answers_fails_the_file(data, tmp_path, capsys):
    assert relabel(data / "b.psv", tmp_path / "out", "--timeout-s", "0.1",
                   flags=("--silent-from", "1")) == 1
    assert "answered none of 3 positions in a row" in capsys.readouterr().err
    assert not (tmp_path / "out" / "b.psv").exists()


@pytest.mark.parametrize("extra", [
    ["--engine", "/no/such/teacher"],
    ["--engine", "'unbalanced"],
    ["--option", "Depth"],
    ["--option", "NoSuchOption=1"],
    ["--go", "position startpos"],
    ["--go", "go infinite"],
    ["--max-score", "100"],
    ["--workers", "0"],
    ["--timeout-s", "soon"],
    ["--limit", "-1"],
    ["--score-factor", "-1"],
])
def test_bad_arguments_exit_2_with_one_line(data, tmp_path, capsys, extra):
    try:
        code = relabel(data, tmp_path / "out", *extra)
    except SystemExit as exc:               # argparse's checks
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "error" in err
    assert not (tmp_path / "out" / "a.psv").exists()


def test_a_file_that_is_not_whole_records_is_refused(data, tmp_path, capsys):
    (data / "c.psv").write_bytes(b"x" * 41)
    assert relabel(data, tmp_path / "out") == 2
    assert "not a whole number of 40-byte records" in capsys.readouterr().err


def test_an_option_is_set_before_isready(data, tmp_path):
    assert relabel(data, tmp_path / "out", "--option", "Depth=3") == 0


# Debian's gpsusi is a Linux program: under wine the path exists (Z:) but cannot run.
@pytest.mark.skipif(not Path(GPSUSI).exists() or sys.platform == "win32",
                    reason="needs Debian's gpsshogi (a Linux program)")
def test_gpsusi_relabels_twenty_positions(data, tmp_path, capsys):
    records = np.concatenate([make_records(12, 1), make_records(8, 2)])
    records.tofile(tmp_path / "twenty.psv")
    code = main(["relabel", str(tmp_path / "twenty.psv"), "--out", str(tmp_path / "out"),
                 "--engine", f"{GPSUSI} --node-count-hard-limit 3000", "--option", "BookDepth=0",
                 "--go", "go btime 0 wtime 0 byoyomi 60000", "--workers", "1"])
    assert code == 0
    after = read(tmp_path / "out" / "twenty.psv")
    assert len(after) >= 18 and np.abs(after["score"].astype(int)).max() <= 32000
    assert len(set(after["score"])) > 5       # its own judgement, not a constant
