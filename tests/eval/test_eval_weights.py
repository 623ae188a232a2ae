"""Weight files of the learned evaluation and the EvalType/EvalFile options."""
import numpy as np
import pytest

from usi_engine.eval import weights as eval_weights

from usi_engine.eval import kp
from usi_engine.eval.loader import EvalLoader


def _table(seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(-900, 900, kp.WEIGHT_COUNT).astype(np.int16)


def test_a_written_file_reads_back_the_same_table(tmp_path):
    table = _table()
    eval_weights.write_weights(tmp_path / "w.bin", table)
    assert np.array_equal(eval_weights.read_weights(tmp_path / "w.bin"), table)


def test_the_embedded_weights_are_a_valid_file():
    assert eval_weights.read_weights(eval_weights.embedded_kp_path()).shape == (kp.WEIGHT_COUNT,)
    net = eval_weights.read_any(eval_weights.embedded_path())
    assert isinstance(net, eval_weights.NetWeights)
    assert net.first.shape == (kp.WEIGHT_COUNT, kp.HIDDEN)


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:1000], "truncated"),
    (lambda b: b[:10], "truncated"),
    (lambda b: b + b"\0\0", "too long"),
    (lambda b: b"XXXXXXXX" + b[8:], "not a KP weight file"),
    (lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:], "checksum"),
    (lambda b: b[:8] + (44).to_bytes(4, "little") + b[12:], "shape"),
])
def test_a_damaged_file_is_refused_saying_why(tmp_path, damage, message):
    eval_weights.write_weights(tmp_path / "w.bin", _table())
    (tmp_path / "bad.bin").write_bytes(damage((tmp_path / "w.bin").read_bytes()))
    with pytest.raises(eval_weights.WeightFileError, match=message):
        eval_weights.read_weights(tmp_path / "bad.bin")


def test_a_missing_file_is_refused():
    with pytest.raises(eval_weights.WeightFileError, match="cannot read"):
        eval_weights.read_weights("/no/such/weights.bin")


def test_quantize_rounds_to_eighths_and_clips():
    assert list(eval_weights.quantize(np.array([1.06, -0.07, 1e6]))) == [8, -1, 32767]


def test_loader_reads_a_file_into_the_network_a_searcher_takes(tmp_path):
    eval_weights.write_weights(tmp_path / "w.bin", _table(2))
    loader = EvalLoader()
    messages = loader.apply("learned", str(tmp_path / "w.bin"))
    assert messages == [f"EvalFile: loaded {tmp_path / 'w.bin'}"]
    assert np.array_equal(loader.network.table(), _table(2))


def test_loader_keeps_the_previous_weights_when_a_new_file_is_bad(tmp_path):
    eval_weights.write_weights(tmp_path / "good.bin", _table(3))
    (tmp_path / "bad.bin").write_bytes(b"USIEVKP1" + b"\0" * 40)
    loader = EvalLoader()
    loader.apply("learned", str(tmp_path / "good.bin"))
    messages = loader.apply("learned", str(tmp_path / "bad.bin"))
    assert len(messages) == 1 and "keeping" in messages[0] and "good.bin" in messages[0]
    assert np.array_equal(loader.network.table(), _table(3))


def test_loader_falls_back_to_the_shipped_weights_when_nothing_was_loaded():
    loader = EvalLoader()
    messages = loader.apply("learned", "/no/such/weights.bin")
    assert "cannot read /no/such/weights.bin" in messages[0]
    assert "using the shipped weights" in messages[0]
    assert loader.network is not None and loader.network.has_net
    assert loader.loaded_path == str(eval_weights.embedded_path())


def test_a_bare_kp_bin_names_the_shipped_king_piece_table(tmp_path):
    loader = EvalLoader()
    assert loader.apply("learned", "kp.bin", str(tmp_path)) == [
        f"EvalFile: loaded {eval_weights.embedded_kp_path()}"]
    assert not loader.network.has_net
    assert np.array_equal(loader.network.table(),
                          eval_weights.read_weights(eval_weights.embedded_kp_path()))


def test_eval_type_hand_chooses_the_hand_written_evaluation_and_learned_brings_it_back():
    loader = EvalLoader()
    loader.apply("learned", "")
    learned = loader.network
    assert learned is not None
    assert loader.apply("hand", "") == [] and loader.network is None
    assert loader.apply("learned", "") == [] and loader.network is learned


def test_an_unchanged_file_is_not_read_again(tmp_path):
    eval_weights.write_weights(tmp_path / "w.bin", _table(5))
    loader = EvalLoader()
    assert loader.apply("learned", str(tmp_path / "w.bin")) != []
    assert loader.apply("learned", str(tmp_path / "w.bin")) == []


def test_the_shipped_weights_load_without_a_message():
    loader = EvalLoader()
    assert loader.apply("learned", "") == []
    assert loader.network is not None
    assert loader.loaded_path == str(eval_weights.embedded_path())


def test_a_relative_eval_file_is_looked_for_in_eval_dir_first(tmp_path):
    (tmp_path / "eval").mkdir()
    eval_weights.write_weights(tmp_path / "eval" / "w.bin", _table(4))
    loader = EvalLoader()
    messages = loader.apply("learned", "w.bin", str(tmp_path / "eval"))
    assert messages == [f"EvalFile: loaded {tmp_path / 'eval' / 'w.bin'}"]
    assert np.array_equal(loader.network.table(), _table(4))


def test_a_searcher_uses_the_shipped_network_until_told_otherwise():
    from usi_engine.search import Searcher
    searcher = Searcher()
    assert searcher.evaluation is not None and searcher.evaluation.has_net
    searcher.set_evaluation(None)
    assert searcher.evaluation is None


def test_two_searchers_search_with_their_own_evaluations_side_by_side():
    from usi_engine.core.position import Position
    from usi_engine.search import Searcher
    learned, hand = Searcher(), Searcher()
    hand.set_evaluation(None)
    sfen = "ln1gkg3/1r1s1p3/ppppps+B+R1/8p/9/P1P1P4/1P1Pg2+bP/4G2+n1/LN2K4 w 2L5P2sn 64"
    first = (learned.search(Position(sfen), depth=6).nodes,
             hand.search(Position(sfen), depth=6).nodes)
    learned.new_game()
    hand.new_game()
    assert (hand.search(Position(sfen), depth=6).nodes,
            learned.search(Position(sfen), depth=6).nodes) == first[::-1]
    assert first[0] != first[1]


def test_set_evaluation_refuses_what_is_not_a_network():
    from usi_engine.search import Searcher
    with pytest.raises(TypeError, match="kp.Network"):
        Searcher().set_evaluation(np.zeros(kp.WEIGHT_COUNT, dtype=np.int16))
