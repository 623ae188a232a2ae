"""usi-engine gensfen: self-play PackedSfenValue batches, reproducible and resumable."""
import numpy as np
import pytest

from usi_engine import Position
from usi_engine.cli import main
from usi_engine.training.gensfen import _game_over, _stored_score
from usi_engine.core.packed import PSV_DTYPE, move_from_psv, unpack
from usi_engine.search.searcher import SearchResult

BATCH = 150
FAST = ["--positions", str(2 * BATCH), "--batch-positions", str(BATCH), "--nodes", "300",
        "--seed", "11"]


def gensfen(out, *extra, workers=1):
    """Run the command in-process; (exit code, stdout, stderr)."""
    return main(["gensfen", "--out", str(out), *FAST, "--workers", str(workers), *extra])


def batches(out):
    return {p.name: p.read_bytes() for p in sorted(out.glob("batch-*.psv"))}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Two batches made by two workers."""
    out = tmp_path_factory.mktemp("gensfen")
    assert gensfen(out, workers=2) == 0
    return out


@pytest.fixture(scope="module")
def records(dataset):
    return np.concatenate([np.frombuffer(data, PSV_DTYPE) for data in batches(dataset).values()])


def test_writes_whole_batches_and_no_temporary_files(dataset):
    assert sorted(batches(dataset)) == ["batch-00000.psv", "batch-00001.psv"]
    assert all(len(data) == BATCH * 40 for data in batches(dataset).values())
    assert not list(dataset.glob("*.tmp"))


def test_same_seed_gives_identical_bytes_whatever_the_worker_count(dataset, tmp_path):
    assert gensfen(tmp_path) == 0
    assert batches(tmp_path) == batches(dataset)


def test_another_seed_gives_other_games(dataset, tmp_path):
    assert main(["gensfen", "--out", str(tmp_path), *FAST[:-1], "12", "--workers", "1"]) == 0
    assert batches(tmp_path)["batch-00000.psv"] != batches(dataset)["batch-00000.psv"]


def test_summary_line_counts_positions_and_games(tmp_path, capsys):
    assert gensfen(tmp_path) == 0
    fields = capsys.readouterr().out.splitlines()[-1].split()
    assert fields[0::2] == ["positions", "games", "seconds", "positions_per_s"]
    assert fields[1] == str(2 * BATCH) and int(fields[3]) >= 1


def test_every_record_is_a_legal_position_with_a_legal_move(records):
    for record in records:
        position = Position(unpack(record["sfen"].tobytes(), int(record["gamePly"])))
        assert move_from_psv(position, int(record["move"])) in position.legal_moves()


def test_cshogi_reads_the_records(records):
    cshogi = pytest.importorskip("cshogi")
    board = cshogi.Board()
    for record in records.astype(cshogi.PackedSfenValue):
        board.set_psfen(record["sfen"])
        move = board.move_from_move16(cshogi.move16_from_psv(int(record["move"])))
        assert board.is_legal(move)


def _games(records):
    """Split records into games: a record continues the game when it is the position
    the previous record's move leads to."""
    games, previous = [], None
    for record in records:
        position = Position(unpack(record["sfen"].tobytes(), int(record["gamePly"])))
        if previous is not None:
            previous.push(move_from_psv(previous, int(games[-1][-1]["move"])))
        if previous is not None and previous.sfen() == position.sfen():
            games[-1].append(record)
        else:
            games.append([record])
        previous = position
    return games


def test_each_ply_of_a_game_is_recorded_once_in_order(records):
    games = _games(records)
    assert 2 <= len(games) < len(records) // 10
    for game in games:
        plies = [int(r["gamePly"]) for r in game]
        assert plies == list(range(plies[0], plies[0] + len(plies)))


def test_game_result_flips_sign_with_the_side_to_move(records):
    for game in _games(records):
        results = [int(r["game_result"]) for r in game]
        assert all(a == -b for a, b in zip(results, results[1:]))
        assert results[0] in (-1, 0, 1)


def test_a_game_is_lost_by_the_side_that_resigns_or_is_mated(records):
    decided = 0
    for game in _games(records):
        last = game[-1]
        position = Position(unpack(last["sfen"].tobytes(), int(last["gamePly"])))
        position.push(move_from_psv(position, int(last["move"])))
        if -30000 < last["score"] < -3000:                # resigned
            assert last["game_result"] == -1
            decided += 1
        elif position.is_checkmate():                    # gave mate
            assert last["game_result"] == 1
            decided += 1
    assert decided >= 1


def test_resume_skips_existing_batches(dataset, tmp_path, capsys):
    stand_in = b"\x00" * (BATCH * 40)                   # the same size as a batch
    (tmp_path / "batch-00000.psv").write_bytes(stand_in)
    assert gensfen(tmp_path) == 0
    assert batches(tmp_path)["batch-00000.psv"] == stand_in
    assert batches(tmp_path)["batch-00001.psv"] == batches(dataset)["batch-00001.psv"]
    assert capsys.readouterr().out.split()[:2] == ["positions", str(BATCH)]


def test_batches_option_makes_only_that_subset(dataset, tmp_path):
    assert gensfen(tmp_path, "--batches", "1") == 0
    assert batches(tmp_path) == {"batch-00001.psv": batches(dataset)["batch-00001.psv"]}


@pytest.mark.parametrize("extra", [
    ["--positions", "0"],
    ["--depth", "2"],                          # with --nodes
    ["--eval", "learned", "--eval-file", "/nonexistent/kp.bin"],
    ["--eval", "nnue"],
    ["--eval-file", "weights.bin"],            # only for --eval learned
    ["--batches", "2-3"],                      # there are batches 0 and 1
    ["--openings", "/nonexistent/openings.txt"],
    ["--workers", "x"],
    ["--positions", "100000000", "--batch-positions", "1"],   # too many batches
])
def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, extra):
    with pytest.raises(SystemExit) as exit_info:
        code = gensfen(tmp_path, *extra)
        raise SystemExit(code)
    assert exit_info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not batches(tmp_path)


def test_other_settings_in_the_same_directory_are_refused(dataset, capsys):
    assert main(["gensfen", "--out", str(dataset), *FAST[:-1], "99"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_a_bad_opening_line_is_named(tmp_path, capsys):
    openings = tmp_path / "openings.txt"
    openings.write_text("startpos moves 7g7f\nstartpos moves 7g7f 7g7f\n")
    assert gensfen(tmp_path / "out", "--openings", str(openings)) == 2
    assert "line 2" in capsys.readouterr().err


def test_scores_are_clamped_and_mates_stored_as_32000_minus_plies():
    assert _stored_score(SearchResult(score_cp=123)) == 123
    assert _stored_score(SearchResult(score_cp=99999)) == 32000
    assert _stored_score(SearchResult(score_cp=-99999)) == -32000
    assert _stored_score(SearchResult(score_mate=5)) == 31995
    assert _stored_score(SearchResult(score_mate=-4)) == -31996


def test_game_over_rules():
    assert _game_over(Position()) is None
    assert _game_over(Position("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1")) == -1          # mated
    assert _game_over(Position("4k4/9/9/9/9/9/9/9/4K4 b - 321")) == 0             # ply limit
    sennichite = "startpos moves" + " 5i4h 5a4b 4h5i 4b5a" * 3
    assert _game_over(Position(sennichite)) == 0
