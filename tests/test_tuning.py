"""Search parameters for tuning: offered as USI options only with USI_ENGINE_TUNE,
taken at isready, range-checked, and they change the search."""
import io

import pytest

from usi_engine import tree, tuning
from usi_engine.position import Position
from usi_engine.search import Searcher
from usi_engine.usi import UsiEngine

MIDGAME = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
DEFAULTS = {name: default for name, default, _low, _high in tree.TUNABLES}


@pytest.fixture(autouse=True)
def compiled_defaults():
    """Every test starts and ends with the compiled defaults."""
    for name, value in DEFAULTS.items():
        tree.set_search_parameter(name, value)
    yield
    for name, value in DEFAULTS.items():
        tree.set_search_parameter(name, value)


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
    assert changed < before and nodes_to_depth() == before
