"""The training package's shared modules: record I/O (data), the loss, Adam; and the
console's progress lines that its commands write."""
import ast
import math
from pathlib import Path

import numpy as np
import pytest

from usi_engine.core.packed import PSV_DTYPE
from usi_engine.console import progress
from usi_engine.training import data, loss, optim

from test_learn import _records

TRAINING = Path(data.__file__).resolve().parent


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("records")
    for k in range(3):
        _records(30, k).tofile(path / f"batch-{k:05d}.psv")
    (path / "notes.txt").write_text("not records")
    return path


def test_record_files_lists_a_folders_record_files_sorted_and_named_files_as_given(folder):
    extra = folder / "batch-00001.psv"
    files = data.record_files([folder, extra])
    assert [f.name for f in files] == ["batch-00000.psv", "batch-00001.psv",
                                       "batch-00002.psv", "batch-00001.psv"]
    with pytest.raises(ValueError, match="no such file or folder"):
        data.record_files([folder / "missing"])


def test_records_are_read_whole_or_refused(folder, tmp_path):
    path = folder / "batch-00000.psv"
    assert data.record_count(path) == 30
    assert len(data.read_record_file(path, limit=7)) == 7
    assert data.read_record_file(path).dtype == PSV_DTYPE
    assert len(data.read_records(data.record_files([folder]))) == 90
    assert len(data.read_records([])) == 0
    (tmp_path / "bad.psv").write_bytes(b"\0" * 81)
    with pytest.raises(ValueError, match="81 bytes is not a whole number of 40-byte records"):
        data.read_record_file(tmp_path / "bad.psv")


def test_write_records_leaves_the_whole_file_and_no_temporary_one(folder, tmp_path):
    records = data.read_record_file(folder / "batch-00001.psv")
    out = tmp_path / "out.psv"
    data.write_records(out, records)
    assert out.read_bytes() == records.tobytes()
    assert [p.name for p in tmp_path.iterdir()] == ["out.psv"]


def test_record_sfen_is_the_packed_position_at_its_game_ply(folder):
    from usi_engine.core.packed import pack
    from usi_engine.core.position import Position
    records = data.read_record_file(folder / "batch-00000.psv", limit=5)
    for i in range(5):
        sfen = data.record_sfen(records, i)
        assert pack(Position(sfen)) == records["sfen"][i].tobytes()
        assert sfen.split()[-1] == str(max(1, int(records["gamePly"][i])))


def test_quiet_is_decodes_selection_without_the_null_move_check(folder):
    from usi_engine.core.packed import decode_records
    records = data.read_record_file(folder / "batch-00002.psv")
    records["score"][:3] = [5000, -3001, 3000]
    board, _, _ = decode_records(records)
    mask = data.quiet(records, board, 3000)
    assert mask.tolist()[:3] == [False, False, True]
    assert len(data.decode(records, 3000)) == int(mask.sum())


def test_whole_files_are_held_out_for_validation():
    files = [Path(f"{k}.psv") for k in range(10)]
    assert data.split_files(files, 0.2) == (files[:8], files[8:])
    assert data.split_files(files, 0.0) == (files, [])
    assert data.split_files(files[:1], 0.5) == (files[:1], [])
    assert data.split_files(files[:2], 0.9) == (files[:1], files[1:2])


def test_load_data_counts_the_records_and_files_of_each_side(folder):
    loaded = data.load_data([folder], 0.3, 3000)
    assert (loaded.train_records, loaded.train_files, loaded.validation_files) == (60, 2, 1)
    assert 0 < len(loaded.train) <= 60 and 0 < len(loaded.validation) <= 30
    with pytest.raises(ValueError, match="no record files found"):
        data.load_data([], 0.3, 3000)


def test_batches_cover_every_position_once_in_shuffled_batches(folder):
    dataset = data.load_data([folder], 0.0, 3000).train
    seen = []
    for features, part in data.batches(dataset, 16, np.random.default_rng(3)):
        assert len(part) <= 16 and features.shape[:2] == (len(part), 2)
        assert np.array_equal(features, data.features(part))
        seen.extend(map(tuple, part.board))
    assert sorted(seen) == sorted(map(tuple, dataset.board))
    in_order = [part for _, part in data.batches_in_order(dataset, 16)]
    assert np.array_equal(np.concatenate([p.score for p in in_order]), dataset.score)
    assert list(data.batches(dataset.subset(np.arange(0)), 16, np.random.default_rng(3))) == []


def test_stored_scores():
    assert [data.stored_cp(x) for x in (12.6, -40000, 40000)] == [13, -32000, 32000]
    assert [data.stored_mate(n, s) for n, s in ((5, 1), (-6, -1), (0, 1), (0, -1))] == \
        [31995, -31994, 32000, -32000]


def test_the_loss_is_zero_at_the_target_and_its_gradient_is_p_minus_target():
    score = np.array([0.0, 300.0, -900.0])
    result = np.array([0.5, 1.0, 0.0])
    v = np.array([100.0, 0.0, -100.0])
    value, grad = loss.excess_cross_entropy(v, score, result, 0.7, 600.0)
    target = 0.7 * loss.sigmoid(score / 600.0) + 0.3 * result
    assert value > 0 and np.allclose(grad, loss.sigmoid(v / 600.0) - target)
    at_target, _ = loss.excess_cross_entropy(600.0 * np.log(target / (1 - target)), score,
                                             result, 0.7, 600.0)
    assert at_target == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("correct", ["moment", "step"])
def test_adam_follows_its_formula_for_each_parameter_with_its_own_step(correct):
    rng = np.random.default_rng(5)
    params = [rng.normal(size=4), rng.normal(size=(2, 3)).astype(np.float32)]
    expected = [p.astype(np.float64) for p in params]
    m = [np.zeros_like(p) for p in expected]
    v = [np.zeros_like(p) for p in expected]
    adam = optim.Adam(params, eps=1e-8, correct=correct)
    for t in range(1, 4):
        grads = [rng.normal(size=p.shape).astype(p.dtype) for p in params]
        adam.step(params, grads, [0.1, 0.01])
        for k, lr in enumerate((0.1, 0.01)):
            g = grads[k].astype(np.float64)
            m[k] = 0.9 * m[k] + 0.1 * g
            v[k] = 0.999 * v[k] + 0.001 * g * g
            expected[k] -= lr * m[k] / (1 - 0.9 ** t) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    assert params[0].dtype == np.float64 and params[1].dtype == np.float32
    assert np.allclose(params[0], expected[0], rtol=1e-12)
    assert np.allclose(params[1], expected[1], rtol=1e-5)


def test_adam_refuses_mismatched_lists_and_unknown_settings():
    with pytest.raises(ValueError, match="1 parameters, got 2 arrays"):
        optim.Adam([np.zeros(2)]).step([np.zeros(2)] * 2, [np.zeros(2)] * 2, [1.0, 1.0])
    with pytest.raises(ValueError, match="correct"):
        optim.Adam([np.zeros(2)], correct="both")


def test_both_learners_use_the_one_adam():
    from usi_engine.training import learn, learn_net
    assert learn.Adam is learn_net.Adam is optim.Adam
    assert not hasattr(learn, "_batches") and not hasattr(learn, "read_file")


def test_format_seconds():
    assert [progress.format_seconds(s) for s in (0, 59.9, 247, 3600, 3900)] == \
        ["0m00s", "0m59s", "4m07s", "1h00m", "1h05m"]


@pytest.mark.parametrize("module", sorted(p.name for p in TRAINING.glob("*.py")))
def test_no_training_module_imports_anothers_private_names(module):
    tree = ast.parse((TRAINING / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("usi_engine"):
            private = [a.name for a in node.names if a.name.startswith("_")]
            assert not private, f"{module}: imports {private} from {node.module}"
