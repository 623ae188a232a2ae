"""Search parameters for tuning: offered as USI options only with USI_ENGINE_TUNE,
taken at isready, range-checked, and each of them changes the search."""
import io
import re
import statistics
from pathlib import Path

import pytest

from usi_engine.core.position import Position
from usi_engine.search import alphabeta
from usi_engine.search.searcher import Searcher
from usi_engine.usi import tuning
from usi_engine.usi.loop import UsiEngine

MIDGAME = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
MATE_IN_3_TSUME = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"   # Koten 3-ply
DEFAULTS = {name: default for name, default, _low, _high in alphabeta.TUNABLES}


def usi_reply(environ_value, monkeypatch, *lines):
    if environ_value is None:
        monkeypatch.delenv(tuning.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(tuning.ENV_VAR, environ_value)
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in lines:
        engine.handle_line(line)
    return out.getvalue().decode().splitlines()


def searcher_with(**parameters) -> Searcher:
    s = Searcher()
    s.set_hash(16)
    for name, value in parameters.items():
        s.set_parameter(name, value)
    return s


def nodes_to_depth(depth=6, **parameters):
    return searcher_with(**parameters).search(Position(MIDGAME), depth=depth).nodes


def assert_finds_the_tsume_mate_and_a_legal_line(pv_depth, **parameters):
    """A search with these parameters finds the mate in 3 at depth 7, and its line on
    MIDGAME at pv_depth is legal move by move."""
    s = searcher_with(**parameters)
    assert s.search(Position(MATE_IN_3_TSUME), depth=7).score_mate == 3
    position = Position(MIDGAME)
    for move in s.search(Position(MIDGAME), depth=pv_depth).pv:
        assert position.is_legal(move)
        position.push(move)


@pytest.mark.parametrize("value", [None, "", "0"])
def test_a_gui_sees_no_tuning_option_unless_the_variable_is_set(monkeypatch, value):
    reply = usi_reply(value, monkeypatch, "usi")
    assert not any("RfpMargin" in line for line in reply)


def test_with_the_variable_every_parameter_is_a_spin_option_at_its_compiled_default(monkeypatch):
    reply = usi_reply("1", monkeypatch, "usi")
    for name, default, low, high in alphabeta.TUNABLES:
        assert f"option name {name} type spin default {default} min {low} max {high}" in reply


def test_a_tuning_option_reaches_the_engines_searcher_at_isready(monkeypatch):
    monkeypatch.setenv(tuning.ENV_VAR, "1")
    engine = UsiEngine(io.BytesIO())
    for line in ("usi", "setoption name RfpMargin value 222", "isready"):
        engine.handle_line(line)
    assert engine._ensure_searcher().parameters()["RfpMargin"] == 222


def test_a_searcher_starts_with_every_parameter_at_its_default():
    assert Searcher().parameters() == DEFAULTS


def test_an_out_of_range_value_is_refused_by_the_search():
    s = Searcher()
    with pytest.raises(ValueError, match="outside"):
        s.set_parameter("LmrDivisor", 99)
    assert s.parameters()["LmrDivisor"] == DEFAULTS["LmrDivisor"]


def test_an_unknown_parameter_is_refused():
    with pytest.raises(KeyError):
        Searcher().set_parameter("NoSuchParameter", 1)


def test_a_changed_parameter_changes_only_its_own_searchers_tree():
    before = nodes_to_depth()
    assert nodes_to_depth(LmrDivisor=120) != before     # reduces much more
    assert nodes_to_depth() == before


def test_helper_threads_search_with_their_searchers_parameters():
    def nodes(**parameters):
        s = searcher_with(**parameters)
        s.set_threads(2)
        return s.search(Position(MIDGAME), depth=8).nodes
    # Two threads are not deterministic: compare sizes, not counts, and medians of five
    # (single runs spread 29k-95k against 109k-198k here, and once crossed in a full run).
    def median_nodes(**parameters):
        return statistics.median(nodes(**parameters) for _ in range(5))
    assert (median_nodes(LmrDivisor=100, LmrBase=200)
            < median_nodes(LmrDivisor=500, LmrBase=-100))


def test_the_parameter_enum_names_each_tunable_in_its_order():
    """params.pxi declares each parameter's spec once, in TUNABLES, and alphabeta.pxd
    its index in an enum the search reads param[] by: the same names in order."""
    source = (Path(alphabeta.__file__).parent / "alphabeta.pxd").read_text()
    enum_body = source.split("cdef enum:\n    RFP_MARGIN", 1)[1].split("N_PARAMS", 1)[0]
    enum_body = "    RFP_MARGIN" + enum_body
    enum_names = re.findall(r"^    ([A-Z0-9_]+)", enum_body, re.M)
    snake = [re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper() for name, *_ in alphabeta.TUNABLES]
    assert enum_names == snake


# (the null move and move-count pruning only differ in nodes deeper than 7 plies)
DEPTH_WHERE_IT_SHOWS = {"NullMinDepth": 10, "NullBase": 10, "NullDepthDivisor": 10,
                        "NullEvalDivisor": 10, "McpDepth": 10, "LmrDeeper": 10}


@pytest.mark.parametrize("name, low", [(spec[0], spec[2]) for spec in alphabeta.TUNABLES])
def test_each_parameter_at_its_minimum_changes_the_tree(name, low):
    assert DEFAULTS[name] != low
    depth = DEPTH_WHERE_IT_SHOWS.get(name, 7)
    assert nodes_to_depth(depth, **{name: low}) != nodes_to_depth(depth)


@pytest.mark.parametrize("end", [2, 3])
def test_every_parameter_at_one_end_of_its_range_keeps_a_short_tsume_mate_and_a_legal_line(end):
    ends = {spec[0]: spec[end] for spec in alphabeta.TUNABLES}
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=8, **ends)
