"""The compiled HalfKP evaluation (kp.Network of an nn.bin): the reference's value
(eval.nnue_file) at every position, accumulators kept move by move, both kernels, in
each shape read (halfkp_256x2-32-32, 512x2-16-32, 1024x2-8-32)."""
import pytest

from usi_engine.eval import kp, nnue_file
from usi_engine.notation.sfen import STARTPOS_SFEN

POSITIONS = [
    STARTPOS_SFEN,
    "lnsgkg1nl/1r7/p1ppp+Bspp/1p7/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w 2Pb 10",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn2p 124",
    "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",           # handicap
]


@pytest.fixture(scope="module")
def net():
    return nnue_file.random_net(seed=11)


@pytest.fixture(scope="module")
def network(net):
    return kp.Network(None, halfkp=net)


@pytest.mark.parametrize("fv_scale", [16, 24])
def test_the_compiled_evaluation_is_the_reference_s(net, network, fv_scale):
    network.set_fv_scale(fv_scale)
    try:
        assert ([network.evaluate(sfen) for sfen in POSITIONS]
                == [nnue_file.evaluate(net, sfen, fv_scale) for sfen in POSITIONS])
    finally:
        network.set_fv_scale(16)


def test_accumulators_kept_move_by_move_equal_a_fresh_sum(network):
    seen = {"drops": 0, "captures": 0, "promotions": 0, "king_moves": 0}
    for seed in range(4):
        result = network.incremental_check(POSITIONS[1], 300, seed)
        assert result["mismatches"] == 0
        for kind in seen:
            seen[kind] += result[kind]
    assert min(seen.values()) > 0, seen


def _portable_and_avx2_values(network):
    """The positions' values with the portable kernels, then with AVX2."""
    chosen = kp.simd()
    try:
        kp.use_avx2(False)
        portable = [network.evaluate(sfen) for sfen in POSITIONS]
        kp.use_avx2(True)
        return portable, [network.evaluate(sfen) for sfen in POSITIONS]
    finally:
        kp.use_avx2(chosen == "avx2")


def test_the_portable_kernels_give_the_avx2_kernels_value(network):
    portable, avx2 = _portable_and_avx2_values(network)
    assert avx2 == portable


def test_a_halfkp_network_says_its_head_and_has_no_table(network):
    assert network.head == "halfkp" and network.fv_scale == 16
    with pytest.raises(KeyError):
        network.table()


@pytest.mark.parametrize("fv_scale", [0, 129])
def test_fv_scale_outside_1_to_128_is_refused(network, fv_scale):
    with pytest.raises(ValueError, match="FV_SCALE"):
        network.set_fv_scale(fv_scale)


@pytest.fixture(scope="module", params=[(512, 16, 32), (1024, 8, 32)],
                ids=["512x2-16-32", "1024x2-8-32"])
def wide(request):
    net = nnue_file.random_net(seed=12, shape=request.param)
    return net, kp.Network(None, halfkp=net)


def test_a_wider_shape_is_evaluated_as_the_reference_does(wide):
    net, network = wide
    assert network.hidden == net.shape[0]
    assert ([network.evaluate(sfen) for sfen in POSITIONS]
            == [nnue_file.evaluate(net, sfen) for sfen in POSITIONS])


def test_a_wider_shape_s_accumulators_kept_move_by_move_equal_a_fresh_sum(wide):
    _, network = wide
    assert network.incremental_check(POSITIONS[2], 200, 3)["mismatches"] == 0


def test_a_wider_shape_s_portable_kernels_give_the_avx2_value(wide):
    portable, avx2 = _portable_and_avx2_values(wide[1])
    assert avx2 == portable


def test_a_shape_yaneuraou_s_builds_do_not_read_is_refused_by_name():
    odd = nnue_file.random_net(seed=1, shape=(128, 32, 32))
    with pytest.raises(ValueError, match="halfkp_128x2-32-32: only halfkp_256x2-32-32, "
                                         "halfkp_512x2-16-32, halfkp_1024x2-8-32"):
        kp.Network(None, halfkp=odd)


def test_a_search_runs_on_a_halfkp_network(network):
    from usi_engine import Position
    from usi_engine.search.searcher import Searcher
    searcher = Searcher()
    searcher.set_evaluation(network)
    position = Position(POSITIONS[1])
    result = searcher.search(position, depth=4)
    assert position.is_legal(result.best) and result.depth == 4
