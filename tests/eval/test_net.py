"""The network on top of the king-piece table: incremental accumulators, the integer
evaluation against the float model, its weight files, and its training."""
import re

import numpy as np
import pytest

from usi_engine.eval import weights as eval_weights

from usi_engine.eval import kp

from usi_engine.training import data as training_data

from usi_engine.training import learn_net
from usi_engine.eval.loader import EvalLoader
from usi_engine.core.packed import decode_records, pack
from usi_engine.core.position import Position

from test_kp import _random_positions
from test_learn import _records

from tests.helpers.numeric import central_difference

STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
DROPS = "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1"


def _random_net(seed: int = 3) -> eval_weights.NetWeights:
    """A network whose accumulators are spread over the clipped range and whose output
    is large, so that a wrong row, sign or view shows in the score."""
    rng = np.random.default_rng(seed)
    net = learn_net.Net(rng.normal(0, 40, kp.WEIGHT_COUNT), kp.HIDDEN, rng)
    net.ft[:kp.WEIGHT_COUNT] = rng.normal(0, 0.15, (kp.WEIGHT_COUNT, kp.HIDDEN))
    net.ftf[:kp.FEATURES_PER_BUCKET] = rng.normal(0, 0.05, (kp.FEATURES_PER_BUCKET, kp.HIDDEN))
    net.w2[:] = rng.normal(0, 150, 2 * kp.HIDDEN)
    net.b2[:] = 17.0
    return learn_net.export(net)


def _float_model(weights: eval_weights.NetWeights) -> learn_net.Net:
    """The float network that the integer weights stand for."""
    return learn_net.Net.from_weights(weights)


@pytest.fixture
def random_net():
    return _random_net()


def test_incremental_accumulators_equal_accumulators_from_scratch(random_net):
    network = random_net.network()
    totals = {"checks": 0, "mismatches": 0, "drops": 0, "captures": 0,
              "promotions": 0, "king_moves": 0}
    for seed in range(5):
        for sfen in (STARTPOS, DROPS):
            for key, value in network.incremental_check(sfen, 1000, seed).items():
                totals[key] += value
    assert network.has_net
    assert totals["checks"] >= 9000 and totals["mismatches"] == 0
    for kind in ("drops", "captures", "promotions", "king_moves"):
        assert totals[kind] >= 100, kind


def test_the_engine_scores_as_the_float_network_within_rounding(random_net):
    positions = _random_positions(300, 4)
    board, hands, side = decode_records(_as_records(positions))
    float_scores, _ = learn_net.forward(_float_model(random_net), _float_model(random_net)
                                        .first_layer(), kp.features(board, hands, side), side)
    network = random_net.network()
    engine_scores = np.array([network.evaluate(p.sfen()) for p in positions])
    assert np.abs(float_scores).mean() > 300            # the network term is not idle
    assert np.abs(engine_scores - float_scores).max() <= 2


def _as_records(positions: list[Position]) -> np.ndarray:
    from usi_engine.core.packed import PSV_DTYPE
    records = np.zeros(len(positions), dtype=PSV_DTYPE)
    for i, pos in enumerate(positions):
        records[i]["sfen"] = np.frombuffer(pack(pos), dtype=np.uint8)
    return records


def test_the_network_scores_the_position_turned_round_the_same(random_net):
    network = random_net.network()
    for pos in _random_positions(150, 5):
        board, side, hands = pos.sfen().split()[:3]
        turned = "/".join("".join(re.findall(r"\+?[A-Za-z]|\d", row)[::-1]).swapcase()
                          for row in board.split("/")[::-1])
        turned_hands = hands if hands == "-" else hands.swapcase()
        flipped = f"{turned} {'w' if side == 'b' else 'b'} {turned_hands} 1"
        assert network.evaluate(flipped) == network.evaluate(pos.sfen())


def test_a_written_network_file_reads_back_the_same_weights(tmp_path):
    weights = _random_net(5)
    eval_weights.write_net(tmp_path / "n.bin", weights)
    back = eval_weights.read_net(tmp_path / "n.bin")
    for name in ("kp", "first", "first_bias", "out"):
        assert np.array_equal(getattr(back, name), getattr(weights, name)), name
    assert back.out_bias == weights.out_bias


@pytest.mark.parametrize("damage, message", [
    (lambda data: data[:-10], "truncated"),
    (lambda data: data[:20], "truncated"),
    (lambda data: data[:-1] + bytes([data[-1] ^ 1]), "checksum"),
    (lambda data: data[:28] + (7).to_bytes(4, "little") + data[32:], "shape"),
])
def test_a_damaged_network_file_is_refused(tmp_path, damage, message):
    eval_weights.write_net(tmp_path / "n.bin", _random_net(6))
    (tmp_path / "bad.bin").write_bytes(damage((tmp_path / "n.bin").read_bytes()))
    with pytest.raises(eval_weights.WeightFileError, match=message):
        eval_weights.read_net(tmp_path / "bad.bin")


def test_eval_file_loads_a_network_and_keeps_it_when_the_next_file_is_bad(tmp_path):
    eval_weights.write_net(tmp_path / "n.bin", _random_net(7))
    (tmp_path / "bad.bin").write_bytes((tmp_path / "n.bin").read_bytes()[:1000])
    loader = EvalLoader()
    assert loader.apply("learned", str(tmp_path / "n.bin")) == [
        f"EvalFile: loaded {tmp_path / 'n.bin'}"]
    assert loader.network.has_net
    score = loader.network.evaluate(DROPS)
    messages = loader.apply("learned", str(tmp_path / "bad.bin"))
    assert "truncated" in messages[0] and f"keeping {tmp_path / 'n.bin'}" in messages[0]
    assert loader.network.has_net and loader.network.evaluate(DROPS) == score
    eval_weights.write_weights(tmp_path / "kp.bin", loader.network.table())
    loader.apply("learned", str(tmp_path / "kp.bin"))
    assert not loader.network.has_net


@pytest.fixture(scope="module")
def data_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("psv-net")
    for k in range(4):
        _records(150, 10 + k).tofile(folder / f"batch-{k:05d}.psv")
    return folder


def test_training_steps_lower_the_network_loss_on_a_fixed_data_set(data_files):
    cfg = learn_net.NetConfig(lr=3e-3, out_lr=2.0)
    data = training_data.decode(
        training_data.read_records(training_data.record_files([data_files])), cfg.max_score)
    features = kp.features(data.board, data.hands, data.side)
    start = eval_weights.hand_projection().astype(np.float32)
    net = learn_net.Net(start, cfg.hidden, np.random.default_rng(1))
    opt = learn_net.new_optimizer(net)
    before = learn_net.loss_and_grad(learn_net.forward(net, net.first_layer(), features,
                                                       data.side)[0], data, cfg)[0]
    for _ in range(40):
        learn_net.train_step(net, opt, features, data, start, cfg, 1.0)
    after = learn_net.loss_and_grad(learn_net.forward(net, net.first_layer(), features,
                                                      data.side)[0], data, cfg)[0]
    assert after < 0.7 * before


def test_the_backward_pass_matches_finite_differences(data_files):
    cfg = learn_net.NetConfig()
    data = training_data.decode(
        training_data.read_records(training_data.record_files([data_files])), cfg.max_score)
    part = data.subset(np.arange(40))
    features = kp.features(part.board, part.hands, part.side)
    rng = np.random.default_rng(2)
    net = learn_net.Net(eval_weights.hand_projection(), cfg.hidden, rng)
    net.w2[:] = rng.normal(0, 50, net.w2.size)

    def loss() -> float:
        v, _ = learn_net.forward(net, net.first_layer(), features, part.side)
        return learn_net.loss_and_grad(v.astype(np.float64), part, cfg)[0]

    v, saved = learn_net.forward(net, net.first_layer(), features, part.side)
    _, g = learn_net.loss_and_grad(v, part, cfg)
    grads = learn_net.backward(net, features, part.side, saved, g / cfg.scale)
    active = features[0, 0, 0]
    for param, grad, index in [(net.w2, grads[4], (3,)), (net.b1, grads[3], (5,)),
                               (net.ft, grads[1], (active, 2)), (net.kp, grads[0], (active,))]:
        numeric = central_difference(loss, param, index, 1e-2 if param is not net.ft else 1e-3)
        assert grad[index] == pytest.approx(numeric, rel=0.05, abs=1e-7)


def test_learn_net_writes_a_network_that_the_engine_loads(data_files, tmp_path):
    out = tmp_path / "kpnn.bin"
    summary = learn_net.train_net([data_files], out, learn_net.NetConfig(
        epochs=2, batch_size=64, init=str(eval_weights.embedded_kp_path())),
        log=lambda line: None)
    assert summary["validation_positions"] > 0
    assert eval_weights.read_net(out).first.shape == (kp.WEIGHT_COUNT, kp.HIDDEN)


def test_learn_net_started_from_a_network_file_begins_at_that_networks_loss(
        data_files, tmp_path):
    start = tmp_path / "start.bin"
    eval_weights.write_net(start, _random_net(8))
    cfg = learn_net.NetConfig(epochs=1, batch_size=64, init=str(start))
    val_set = training_data.load_data([data_files], cfg.val_fraction, cfg.max_score).validation
    expected = learn_net.evaluate_loss(_float_model(eval_weights.read_net(start)), val_set, cfg)
    summary = learn_net.train_net([data_files], tmp_path / "out.bin", cfg,
                                  log=lambda line: None)
    assert summary["baseline_validation_loss"] == pytest.approx(expected, rel=1e-6)
    assert summary["epochs"][0]["validation_loss"] < summary["baseline_validation_loss"]
