"""Training of a HalfKP network written as YaneuraOu's nn.bin (`learn-net --head halfkp`,
usi_engine.training.learn_halfkp): its features, gradients, steps, and a file that the
engine evaluates as the float network does."""
from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.numeric import central_difference
from tests.training.test_learn import _records
from usi_engine.core.packed import decode_records
from usi_engine.eval import kp, nnue_file
from usi_engine.training import data as training_data
from usi_engine.training import learn_halfkp
from usi_engine.training.learn_net import NetConfig, loss_and_grad, new_optimizer


@pytest.fixture(scope="module")
def data_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("psv")
    for k in range(3):
        _records(120, 20 + k).tofile(folder / f"batch-{k:05d}.psv")
    return folder


@pytest.fixture(scope="module")
def dataset(data_files):
    return training_data.decode(
        training_data.read_records(training_data.record_files([data_files])), 3000)


def _trained_looking(seed: int, hidden: int = 256) -> learn_halfkp.HalfKpTrainee:
    """A float network whose units are spread over their range, as after training."""
    rng = np.random.default_rng(seed)
    net = learn_halfkp.HalfKpTrainee(hidden, rng)
    net.ft *= 5.0
    net.w1[:] = rng.normal(0, 0.2 * (hidden / 256) ** 0.5, net.w1.shape)   # z1 in range
    net.w2[:] = rng.normal(0, 0.4, net.w2.shape)
    net.w3[:] = rng.normal(0, 200, net.w3.shape)
    net.c3[:] = 12.0
    return net


@pytest.fixture(scope="module")
def raw(data_files):
    """(records, board, hands, side) of every record, none left out."""
    records = training_data.read_records(training_data.record_files([data_files]))
    return (records, *decode_records(records))


def test_board_features_are_the_features_of_each_sfen(raw):
    records, board, hands, side = raw
    feats = nnue_file.board_features(board, hands)
    for i in range(0, len(records), 9):
        black, white, turn = nnue_file.features(training_data.record_sfen(records, i))
        assert sorted(feats[i, 0]) == sorted(black) and sorted(feats[i, 1]) == sorted(white)
        assert turn == side[i]


def test_the_backward_pass_matches_finite_differences(dataset):
    cfg = NetConfig()
    part = dataset.subset(np.arange(30))
    feats = learn_halfkp.features(part)
    net = _trained_looking(3, hidden=32)          # (the arithmetic of any width)

    def loss() -> float:
        v, _ = learn_halfkp.forward(net, net.first_layer(), feats, part.side)
        return loss_and_grad(v.astype(np.float64), part, cfg)[0]

    v, saved = learn_halfkp.forward(net, net.first_layer(), feats, part.side)
    _, g = loss_and_grad(v, part, cfg)
    grads = learn_halfkp.backward(net, feats, part.side, saved, g / cfg.scale)
    active = feats[0, 0, 0]
    checked = 0
    for param, grad, index, step in [
            (net.w3, grads[7], (3,), 1e-2), (net.w2, grads[5], (2, 5), 1e-3),
            (net.c2, grads[6], (1,), 1e-3), (net.w1, grads[3], (4, 7), 1e-3),
            (net.w1, grads[3], (4, 40), 1e-3), (net.c1, grads[4], (6,), 1e-3),
            (net.b1, grads[2], (5,), 1e-3), (net.ft, grads[0], (active, 2), 1e-3),
            (net.ftf, grads[1], (active % nnue_file.BONA_PIECES, 2), 1e-3)]:
        numeric = central_difference(loss, param, index, step)
        assert grad[index] == pytest.approx(numeric, rel=0.05, abs=1e-7), index
        checked += abs(numeric) > 1e-6
    assert checked >= 6


def test_the_sparse_gradients_are_the_dense_ones_on_the_batch_rows(dataset):
    cfg = NetConfig()
    part = dataset.subset(np.arange(30))
    feats = learn_halfkp.features(part)
    net = _trained_looking(3, hidden=32)
    v, saved = learn_halfkp.forward(net, net.first_layer(), feats, part.side)
    _, g = loss_and_grad(v, part, cfg)
    dense = learn_halfkp.backward(net, feats, part.side, saved, g)
    rows, local = learn_halfkp.batch_rows(feats)
    sparse = learn_halfkp.sparse_gradients(net, rows, local, part.side, saved, g)
    outside = np.setdiff1d(np.arange(learn_halfkp.ROWS), rows)
    assert np.array_equal(rows[local], feats) and not dense[0][outside].any()
    np.testing.assert_allclose(sparse[0], dense[0][rows], rtol=1e-5, atol=1e-9)
    for s_grad, d_grad in zip(sparse[1:], dense[1:]):
        np.testing.assert_allclose(s_grad, d_grad, rtol=1e-4, atol=1e-8)


def test_a_training_step_changes_only_the_rows_of_its_batch(dataset):
    cfg = NetConfig(hidden=32)
    part = dataset.subset(np.arange(20))
    feats = learn_halfkp.features(part)
    net = learn_halfkp.HalfKpTrainee(32, np.random.default_rng(1))
    before = net.ft.copy()
    learn_halfkp.train_step(net, new_optimizer(net), feats, part, None, cfg, 1.0)
    changed = np.flatnonzero((net.ft != before).any(axis=1))
    assert changed.size and set(changed) <= set(np.unique(feats))


def test_training_steps_lower_the_loss_on_a_fixed_data_set(dataset):
    cfg = NetConfig(lr=3e-3, out_lr=2.0, hidden=32)
    feats = learn_halfkp.features(dataset)
    net = learn_halfkp.HalfKpTrainee(32, np.random.default_rng(1))
    opt = new_optimizer(net)

    def loss() -> float:
        return loss_and_grad(learn_halfkp.forward(net, net.first_layer(), feats,
                                                  dataset.side)[0], dataset, cfg)[0]

    before = loss()
    for _ in range(12):
        learn_halfkp.train_step(net, opt, feats, dataset, None, cfg, 1.0)
    assert loss() < 0.8 * before


def test_only_the_256_wide_network_is_written():
    with pytest.raises(ValueError, match="halfkp_256x2-32-32"):
        learn_halfkp.export(learn_halfkp.HalfKpTrainee(32, np.random.default_rng(0)))


def test_the_written_nn_bin_scores_as_the_float_network_of_its_weights_within_rounding(raw):
    records, board, hands, side = raw
    written = learn_halfkp.export(_trained_looking(7))
    compiled = kp.Network(None, halfkp=written)
    net = learn_halfkp.HalfKpTrainee.from_file(written)
    rows = np.arange(0, len(records), 5)
    want, _ = learn_halfkp.forward(net, net.first_layer(),
                                   nnue_file.board_features(board[rows], hands[rows]),
                                   side[rows])
    got = np.array([compiled.evaluate(training_data.record_sfen(records, i)) for i in rows])
    assert np.std(want) > 100                                # the outputs are spread
    # each layer's shift floors (YaneuraOu's ClippedReLU) where the float network rounds
    assert np.abs(got - want).max() < 0.05 * np.std(want) + 10


def test_a_written_nn_bin_reads_back_as_the_network_it_was_written_from(tmp_path):
    net = _trained_looking(8)
    path = tmp_path / "nn.bin"
    learn_halfkp.write(path, net)
    again = learn_halfkp.HalfKpTrainee.from_file(nnue_file.load_net(path))
    assert np.allclose(again.w1, net.w1, atol=0.5 / 64)
    assert np.allclose(again.w3, net.w3, atol=0.5 * 127 / 16)
    assert np.allclose(again.c3, net.c3, atol=0.5 / 16)
    assert np.allclose(again.first_layer(), net.first_layer(), atol=0.5 / 127)


def test_the_learn_net_command_trains_a_halfkp_nn_bin(data_files, tmp_path):
    from usi_engine.__main__ import main
    out = tmp_path / "nn.bin"
    assert main(["learn-net", str(data_files), "--out", str(out), "--head", "halfkp",
                 "--epochs", "1", "--batch-size", "256"]) == 0
    assert nnue_file.load_net(out).shape == (256, 32, 32)
