"""Training of the learned evaluation (`usi-engine learn`) on a small fixed data set."""
import numpy as np
import pytest

from usi_engine.eval import weights as eval_weights

from usi_engine.eval import kp

from usi_engine.training import data as training_data
from usi_engine.training import learn
from usi_engine.eval.handwritten import evaluate_sfen as hand_evaluate
from usi_engine.core.packed import PSV_DTYPE, move_to_psv, pack
from usi_engine.core.position import Position


def _records(count: int, seed: int) -> np.ndarray:
    """Positions of random playouts, labelled with twice the hand-written score (so the
    starting weights are wrong by a known factor) and the sign of it as the result."""
    rng = np.random.default_rng(seed)
    records = np.zeros(count, dtype=PSV_DTYPE)
    pos = Position()
    i = 0
    while i < count:
        quiet = pos.quiets()
        if not quiet or pos.ply > 120:
            pos = Position()
            continue
        score = 2 * hand_evaluate(pos.sfen())
        if abs(score) <= 3000:
            records[i]["sfen"] = np.frombuffer(pack(pos), dtype=np.uint8)
            records[i]["score"] = score
            records[i]["move"] = move_to_psv(pos, quiet[0])
            records[i]["gamePly"] = pos.ply
            records[i]["game_result"] = 1 if score > 0 else -1
            i += 1
        pos.push(quiet[rng.integers(len(quiet))])
    return records


@pytest.fixture(scope="module")
def data_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("psv")
    for k in range(4):
        _records(150, k).tofile(folder / f"batch-{k:05d}.psv")
    return folder


def test_training_steps_lower_the_loss_on_a_fixed_data_set(data_files):
    cfg = learn.TrainConfig(lr=2.0)
    data = training_data.decode(
        training_data.read_records(training_data.record_files([data_files])), cfg.max_score)
    features = kp.features(data.board, data.hands, data.side)
    start = eval_weights.hand_projection()
    model = learn.Model(start)
    optimizer = learn.new_optimizer(model)
    before, _ = learn.loss_terms(model, features, data, cfg)
    for _ in range(30):
        learn.train_step(model, optimizer, features, data, start, cfg, cfg.lr)
    after, _ = learn.loss_terms(model, features, data, cfg)
    assert after < 0.8 * before


def test_decode_leaves_out_captures_and_decided_scores():
    records = _records(20, 7)
    records[0]["score"] = 5000
    pos = Position("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2")
    pos.push_usi("3c3d")
    capture = pos.parse_usi("8h2b+")
    records[1]["sfen"] = np.frombuffer(pack(pos), dtype=np.uint8)
    records[1]["move"] = move_to_psv(pos, capture)
    assert len(training_data.decode(records, 3000)) == 18


def test_learn_writes_weights_that_the_engine_loads(data_files, tmp_path):
    out = tmp_path / "kp.bin"
    summary = learn.train([data_files], out, learn.TrainConfig(epochs=3, batch_size=64),
                          log=lambda line: None)
    assert summary["validation_positions"] > 0
    assert summary["epochs"][-1]["validation_loss"] < summary["baseline_validation_loss"]
    assert eval_weights.read_weights(out).shape == (kp.WEIGHT_COUNT,)


def test_a_file_of_partial_records_is_refused(tmp_path):
    (tmp_path / "bad.psv").write_bytes(b"\0" * 41)
    with pytest.raises(ValueError, match="40-byte records"):
        training_data.read_records([tmp_path / "bad.psv"])
