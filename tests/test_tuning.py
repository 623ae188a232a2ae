"""Search parameters for tuning: offered as USI options only with USI_ENGINE_TUNE,
taken at isready, range-checked, and each of them changes the search."""
import io
import re
from pathlib import Path

import pytest

from usi_engine.eval import kp

from usi_engine.search import alphabeta as tree

from usi_engine.usi import tuning
from usi_engine.eval.loader import EvalLoader
from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.searcher import Searcher
from usi_engine.usi.loop import UsiEngine

MIDGAME = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
MATE_IN_3_TSUME = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"   # Koten 3-ply
DEFAULTS = {name: default for name, default, _low, _high in tree.TUNABLES}


@pytest.fixture(autouse=True)
def compiled_defaults():
    """Every test starts and ends with the compiled defaults."""
    for name, value in DEFAULTS.items():
        tree.set_search_parameter(name, value)
    yield
    for name, value in DEFAULTS.items():
        tree.set_search_parameter(name, value)


def evaluation_for_the_test(eval_type):
    """Switch to eval_type for one test, then back to what was in place."""
    was_enabled = kp.enabled()
    EvalLoader().apply(eval_type, "")
    yield
    kp.set_enabled(was_enabled)


@pytest.fixture
def learned_evaluation():
    """The shipped network, whichever evaluation an earlier test left in place."""
    yield from evaluation_for_the_test("learned")


@pytest.fixture
def hand_evaluation():
    """The hand-set evaluation, whichever evaluation an earlier test left in place."""
    yield from evaluation_for_the_test("hand")


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


def nodes_to_depth(depth=6):
    s = Searcher()
    s.set_hash(16)
    return s.search(Position(MIDGAME), depth=depth).nodes


def assert_finds_the_tsume_mate_and_a_legal_line(pv_depth, fresh_table=False):
    """The search as now set finds the mate in 3 at depth 7, and its line on MIDGAME at
    pv_depth is legal move by move (fresh_table: from a new table, not the mate's)."""
    s = Searcher()
    s.set_hash(16)
    assert s.search(Position(MATE_IN_3_TSUME), depth=7).score_mate == 3
    if fresh_table:
        s = Searcher()
        s.set_hash(16)
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
    for name, default, low, high in tree.TUNABLES:
        assert f"option name {name} type spin default {default} min {low} max {high}" in reply


def test_a_tuning_option_reaches_the_search_at_isready(monkeypatch):
    usi_reply("1", monkeypatch, "usi", "setoption name RfpMargin value 222", "isready")
    assert tree.search_parameters()["RfpMargin"] == 222


def test_an_out_of_range_value_is_refused_by_the_search():
    with pytest.raises(ValueError, match="outside"):
        tree.set_search_parameter("LmrDivisor", 99)
    assert tree.search_parameters()["LmrDivisor"] == DEFAULTS["LmrDivisor"]


def test_an_unknown_parameter_is_refused():
    with pytest.raises(KeyError):
        tree.set_search_parameter("NoSuchParameter", 1)


def test_a_changed_parameter_changes_the_tree_and_the_default_restores_it():
    before = nodes_to_depth()
    tree.set_search_parameter("LmrDivisor", 120)     # reduces much more
    changed = nodes_to_depth()
    tree.set_search_parameter("LmrDivisor", DEFAULTS["LmrDivisor"])
    assert changed != before and nodes_to_depth() == before


def test_the_parameter_enum_names_each_tunable_in_its_order():
    """params.pxi declares each parameter's spec once, in TUNABLES, and its index in
    an enum the search reads PARAM[] by: the two must list the same names in order."""
    source = (Path(tree.__file__).parent / "params.pxi").read_text()
    enum_body = source.split("cdef enum:\n", 1)[1].split("N_PARAMS", 1)[0]
    enum_names = re.findall(r"^    ([A-Z0-9_]+)", enum_body, re.M)
    snake = [re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper() for name, *_ in tree.TUNABLES]
    assert enum_names == snake


# (the null move and move-count pruning only differ in nodes deeper than 7 plies)
DEPTH_WHERE_IT_SHOWS = {"NullMinDepth": 10, "NullBase": 10, "NullDepthDivisor": 10,
                        "NullEvalDivisor": 10, "McpDepth": 10, "LmrDeeper": 10}


@pytest.mark.parametrize("name, low", [(spec[0], spec[2]) for spec in tree.TUNABLES])
def test_each_parameter_at_its_minimum_changes_the_tree(name, low, learned_evaluation):
    assert DEFAULTS[name] != low
    depth = DEPTH_WHERE_IT_SHOWS.get(name, 7)
    before = nodes_to_depth(depth)
    tree.set_search_parameter(name, low)
    assert nodes_to_depth(depth) != before


@pytest.mark.parametrize("end", [2, 3])
def test_every_parameter_at_one_end_of_its_range_keeps_a_short_tsume_mate_and_a_legal_line(end):
    for spec in tree.TUNABLES:
        tree.set_search_parameter(spec[0], spec[end])
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=8)
