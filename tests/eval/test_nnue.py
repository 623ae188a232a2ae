"""The layered (NNUE-style) network on the king-piece features: the engine's integers
against a numpy model of the same arithmetic, incremental accumulators, the AVX2 and
portable kernels, symmetry, its weight file, and a search with it."""
import numpy as np
import pytest

from usi_engine.core.position import Position
from usi_engine.eval import kp
from usi_engine.eval import weights as eval_weights
from usi_engine.eval.loader import EvalLoader
from usi_engine.training import data as training_data
from usi_engine.training import learn_layers, learn_net
from usi_engine.training.learn_net import NetConfig, loss_and_grad

from usi_engine.eval.weights import random_layered
from test_kp import STARTPOS, DROPS, _arrays, _random_positions
from test_kp import test_score_is_the_same_for_the_position_turned_round as _turned_round
from test_net import data_files     # noqa: F401 (a fixture)

from tests.helpers.numeric import central_difference


def _toward_zero(numerator: int, divisor: int) -> int:
    return abs(numerator) // divisor * (1 if numerator >= 0 else -1)


def _wrap16(values: np.ndarray) -> np.ndarray:
    return ((values + 32768) % 65536) - 32768


def _layer(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    y = b.astype(np.int64) + w.astype(np.int64) @ x.astype(np.int64)
    shift = kp.LAYER_SHIFT_BITS
    return np.where(y <= 0, 0, np.minimum((y + (1 << (shift - 1))) >> shift, 127))


def reference_scores(weights: eval_weights.LayeredWeights, positions: list[Position]) -> list[int]:
    """The engine's arithmetic, written again in numpy from the feature indices."""
    features = kp.features(*_arrays(positions))
    table = np.append(weights.kp.astype(np.int64), 0)
    rows = np.vstack([weights.first.astype(np.int64), np.zeros((1, weights.hidden), np.int64)])
    scores = []
    for i, pos in enumerate(positions):
        sums = [int(table[features[i, v]].sum()) for v in (0, 1)]
        accs = [_wrap16(weights.first_bias.astype(np.int64) + rows[features[i, v]].sum(axis=0))
                for v in (0, 1)]
        us = pos.turn
        total = (sums[0] - sums[1]) * (1 if us == 0 else -1)
        x = np.concatenate([np.clip(accs[us], 0, 127), np.clip(accs[1 - us], 0, 127)])
        h1 = _layer(x, weights.l1_w, weights.l1_b)
        h2 = _layer(h1, weights.l2_w, weights.l2_b)
        out = weights.l3_b + int(weights.l3_w.astype(np.int64) @ h2)
        scores.append(_toward_zero(total, kp.SCALE) + _toward_zero(out, kp.OUT_DIV))
    return scores


@pytest.fixture(scope="module")
def layered64():
    return random_layered(64)


@pytest.mark.parametrize("hidden", [64, 256])
def test_the_engine_scores_as_the_numpy_model_of_its_arithmetic(hidden):
    weights = random_layered(hidden, seed=hidden)
    net = weights.network()
    positions = _random_positions(50, hidden)
    scores = [net.evaluate(p.sfen()) for p in positions]
    assert scores == reference_scores(weights, positions)
    assert len(set(scores)) > 25      # the layers are not all clipped


def test_incremental_accumulators_equal_accumulators_from_scratch(layered64):
    net = layered64.network()
    mismatches = checks = 0
    for seed in range(3):
        for sfen in (STARTPOS, DROPS):
            result = net.incremental_check(sfen, 600, seed)
            mismatches += result["mismatches"]
            checks += result["checks"]
    assert checks >= 3000 and mismatches == 0


@pytest.mark.skipif(kp.use_avx2(True) != "avx2", reason="this CPU has no AVX2")
def test_the_avx2_and_the_portable_kernels_give_the_same_scores(layered64):
    net = layered64.network()
    positions = [p.sfen() for p in _random_positions(150, 21)]
    try:
        assert kp.use_avx2(True) == "avx2"
        fast = [net.evaluate(s) for s in positions]
        assert kp.use_avx2(False) == "portable"
        assert [net.evaluate(s) for s in positions] == fast
    finally:
        kp.use_avx2(True)


def test_a_search_with_either_kernel_visits_the_same_tree(layered64):
    from usi_engine.search import Searcher
    sfen = "ln1gkg3/1r1s1p3/ppppps+B+R1/8p/9/P1P1P4/1P1Pg2+bP/4G2+n1/LN2K4 w 2L5P2sn 64"
    results = []
    try:
        for avx2 in (True, False):
            kp.use_avx2(avx2)
            searcher = Searcher()
            searcher.set_evaluation(layered64.network())
            result = searcher.search(Position(sfen), depth=7)
            results.append((result.nodes, result.best, result.score_cp))
    finally:
        kp.use_avx2(True)
    assert results[0] == results[1] and results[0][0] > 1000


def test_the_layered_network_scores_the_position_turned_round_the_same(layered64):
    _turned_round(layered64.network())


def test_a_written_layered_file_reads_back_the_same_weights(tmp_path, layered64):
    path = tmp_path / "nn.bin"
    eval_weights.write_layered(path, layered64)
    back = eval_weights.read_any(path)
    assert isinstance(back, eval_weights.LayeredWeights)
    for (a, _), (b, _) in zip(layered64.parts(), back.parts()):
        assert np.array_equal(np.asarray(a).reshape(-1), np.asarray(b).reshape(-1))
    assert back.network().evaluate(DROPS) == layered64.network().evaluate(DROPS)


@pytest.mark.parametrize("damage,message", [
    (lambda b: b[:-1], "truncated"),
    (lambda b: b[:200] + bytes([b[200] ^ 1]) + b[201:], "checksum"),
    (lambda b: b[:20] + (999).to_bytes(4, "little") + b[24:], "hidden 999"),
])
def test_a_damaged_layered_file_is_refused(tmp_path, layered64, damage, message):
    path = tmp_path / "nn.bin"
    eval_weights.write_layered(path, layered64)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(eval_weights.WeightFileError, match=message):
        eval_weights.read_layered(path)


def test_eval_file_loads_a_layered_network(tmp_path, layered64):
    (tmp_path / "eval").mkdir()
    eval_weights.write_layered(tmp_path / "eval" / "nn.bin", layered64)
    loader = EvalLoader()
    assert loader.apply("learned", "nn.bin", str(tmp_path / "eval")) == [
        f"EvalFile: loaded {tmp_path / 'eval' / 'nn.bin'}"]
    assert loader.network.head == "layers" and loader.network.hidden == 64


def test_a_layered_network_of_a_width_that_is_not_a_multiple_of_32_is_refused(layered64):
    with pytest.raises(ValueError, match="multiple of 32"):
        kp.Network(layered64.kp, np.zeros((kp.WEIGHT_COUNT, 40), np.int16),
                   np.zeros(40, np.int16), layers=(np.zeros(32 * 80), np.zeros(32),
                                                   np.zeros(32 * 32), np.zeros(32),
                                                   np.zeros(32), 0))


def test_layer_weights_outside_int8_are_refused(layered64):
    l1 = layered64.l1_w.astype(np.int32)
    l1[0, 0] = 128
    with pytest.raises(ValueError, match="int8"):
        kp.Network(layered64.kp, layered64.first, layered64.first_bias,
                   layers=(l1, layered64.l1_b, layered64.l2_w, layered64.l2_b,
                           layered64.l3_w, layered64.l3_b))


# ---- training (usi_engine.training.learn_layers) ------------------------------------------


def _dataset(folder, cfg: NetConfig):
    data = training_data.decode(
        training_data.read_records(training_data.record_files([folder])), cfg.max_score)
    return data, kp.features(data.board, data.hands, data.side)


def _trained_looking(hidden: int, seed: int) -> learn_layers.LayersNet:
    """A float network whose units are spread over their range, as after training."""
    rng = np.random.default_rng(seed)
    net = learn_layers.LayersNet(eval_weights.hand_projection(), hidden, rng)
    net.ft[:kp.WEIGHT_COUNT] = rng.normal(0, 0.08, (kp.WEIGHT_COUNT, hidden))
    net.w1[:] = rng.normal(0, 0.3, net.w1.shape)
    net.w2[:] = rng.normal(0, 0.5, net.w2.shape)
    net.w3[:] = rng.normal(0, 150, net.w3.shape)
    net.c3[:] = 9.0
    return net


def test_the_layered_backward_pass_matches_finite_differences(data_files):
    cfg = NetConfig()
    data, features = _dataset(data_files, cfg)
    part, features = data.subset(np.arange(40)), features[:40]
    net = _trained_looking(32, 4)

    def loss() -> float:
        v, _ = learn_layers.forward(net, net.first_layer(), features, part.side)
        return loss_and_grad(v.astype(np.float64), part, cfg)[0]

    v, saved = learn_layers.forward(net, net.first_layer(), features, part.side)
    _, g = loss_and_grad(v, part, cfg)
    grads = learn_layers.backward(net, features, part.side, saved, g / cfg.scale)
    active = features[0, 0, 0]
    checked = 0
    for param, grad, index in [(net.w3, grads[8], (3,)), (net.w2, grads[6], (2, 5)),
                               (net.c2, grads[7], (1,)), (net.w1, grads[4], (4, 7)),
                               (net.w1, grads[4], (4, 40)), (net.c1, grads[5], (6,)),
                               (net.b1, grads[3], (5,)), (net.ft, grads[1], (active, 2)),
                               (net.kp, grads[0], (active,))]:
        numeric = central_difference(loss, param, index, 1e-3 if param.ndim > 1 or param is net.b1 else 1e-2)
        assert grad[index] == pytest.approx(numeric, rel=0.05, abs=1e-7), index
        checked += abs(numeric) > 1e-6
    assert checked >= 6          # most of the checks are on live units


def test_layered_training_steps_lower_the_loss_on_a_fixed_data_set(data_files):
    cfg = NetConfig(lr=3e-3, out_lr=2.0, hidden=32)
    data, features = _dataset(data_files, cfg)
    start = eval_weights.hand_projection().astype(np.float32)
    net = learn_layers.LayersNet(start, 32, np.random.default_rng(1))
    opt = learn_net.new_optimizer(net)

    def loss() -> float:
        return loss_and_grad(learn_layers.forward(net, net.first_layer(), features,
                                                  data.side)[0], data, cfg)[0]

    before = loss()
    for _ in range(20):
        learn_layers.train_step(net, opt, features, data, start, cfg, 1.0)
    assert loss() < 0.7 * before


def test_the_engine_scores_as_the_float_network_of_its_weights_within_rounding():
    weights = learn_layers.export(_trained_looking(64, 7))
    float_net = learn_layers.LayersNet.from_weights(weights)
    positions = _random_positions(50, 17)
    features = kp.features(*_arrays(positions))
    side = np.array([p.turn for p in positions], dtype=np.uint8)
    v, _ = learn_layers.forward(float_net, float_net.first_layer(), features, side)
    engine = weights.network()
    error = np.abs(np.array([engine.evaluate(p.sfen()) for p in positions]) - v)
    assert np.median(error) < 2 and error.max() < 10, (np.median(error), error.max())
    assert np.std(v) > 100           # the network's term is not negligible


def test_a_layered_file_reads_back_as_the_float_network_it_was_written_from(tmp_path):
    weights = learn_layers.export(_trained_looking(32, 2))
    again = learn_layers.export(learn_layers.LayersNet.from_weights(weights))
    for (a, _), (b, _) in zip(weights.parts(), again.parts()):
        assert np.array_equal(np.asarray(a).reshape(-1), np.asarray(b).reshape(-1))


def test_the_learn_net_command_trains_the_layered_head(data_files, tmp_path):
    import subprocess
    import sys
    out = tmp_path / "nn.bin"
    done = subprocess.run([sys.executable, "-m", "usi_engine", "learn-net", str(data_files),
                           "--out", str(out), "--head", "layers", "--hidden", "32",
                           "--epochs", "2", "--batch-size", "64"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "layered head, hidden 32" in done.stdout
    losses = [float(line.split("validation_loss ")[1].split()[0])
              for line in done.stdout.splitlines() if "validation_loss" in line]
    assert len(losses) == 3 and losses[2] < losses[0]     # epochs 0 (the KP table), 1, 2
    network = eval_weights.read_any(out).network()
    assert network.head == "layers" and network.hidden == 32


def test_the_learn_net_command_refuses_a_width_for_the_square_head(data_files, tmp_path):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "usi_engine", "learn-net", str(data_files),
                           "--out", str(tmp_path / "x.bin"), "--hidden", "64"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "the square head is 32 wide" in done.stderr
