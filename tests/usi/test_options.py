"""Tests for usi_engine.usi.options: the USI option table and setoption handling."""

from __future__ import annotations


import os

import pytest

from usi_engine.usi import options
Options = options.Options


@pytest.fixture
def opts():
    return Options()


# --- the default table -------------------------------------------------------------

EXPECTED_DEFAULTS = [
    # name, type, default, min, max
    ("USI_Hash", "spin", 256, 1, 1048576),
    ("USI_Ponder", "check", False, None, None),
    ("Stochastic_Ponder", "check", False, None, None),
    ("MultiPV", "spin", 1, 1, 500),
    ("SkillLevel", "spin", 20, 0, 20),
    ("ConsiderationMode", "check", False, None, None),
    ("OutputFailLHPV", "check", True, None, None),
    ("PvInterval", "spin", 300, 0, 100000),
    ("NetworkDelay", "spin", 120, 0, 10000),
    ("NetworkDelay2", "spin", 200, 0, 10000),
    ("MinimumThinkingTime", "spin", 100, 0, 60000),
    ("SlowMover", "spin", 100, 1, 1000),
    ("RoundUpToFullSecond", "check", False, None, None),
    ("MaxMovesToDraw", "spin", 0, 0, 100000),
    ("EnteringKingRule", "combo", "CSARule27", None, None),
    ("DrawValueBlack", "spin", 0, -30000, 30000),
    ("DrawValueWhite", "spin", 0, -30000, 30000),
    ("ResignValue", "spin", 99999, 100, 99999),
    ("Threads", "spin", max(1, min(256, os.cpu_count() or 1)), 1, 256),
    ("USI_AnalyseMode", "check", False, None, None),
    ("DepthLimit", "spin", 0, 0, 1000),
    ("NodesLimit", "spin", 0, 0, 10**12),
    ("EvalType", "combo", "learned", None, None),
    ("EvalDir", "filename", "eval", None, None),
    ("EvalFile", "filename", "", None, None),
    ("FV_SCALE", "spin", 16, 1, 128),
    ("MateLength", "combo", "published", None, None),
    ("PostSearchLevel", "combo", "MinLength", None, None),
    ("RootIsAndNodeIfChecked", "check", True, None, None),
    ("MateCheck", "check", False, None, None),
    ("USI_OwnBook", "check", True, None, None),
    ("BookFile", "filename", "standard_book.db", None, None),
    ("BookDir", "filename", "book", None, None),
    ("BookMoves", "spin", 16, 0, 10000),
    ("BookIgnoreRate", "spin", 0, 0, 100),
    ("BookEvalDiff", "spin", 30, 0, 99999),
    ("BookEvalBlackLimit", "spin", 0, -99999, 99999),
    ("BookEvalWhiteLimit", "spin", -140, -99999, 99999),
    ("BookDepthLimit", "spin", 16, 0, 99999),
    ("BookOnTheFly", "check", False, None, None),
    ("ConsiderBookMoveCount", "check", False, None, None),
    ("NarrowBook", "check", False, None, None),
    ("BookPvMoves", "spin", 8, 1, 246),
    ("IgnoreBookPly", "check", False, None, None),
    ("FlippedBook", "check", True, None, None),
    ("DebugLogFile", "filename", "", None, None),
]


def test_default_table_declares_the_engine_options_in_order(opts):
    assert list(opts) == [row[0] for row in EXPECTED_DEFAULTS]


@pytest.mark.parametrize("name,type_,default,lo,hi", EXPECTED_DEFAULTS)
def test_default_table_entry_has_declared_type_default_and_range(opts, name, type_, default, lo, hi):
    spec = opts.spec(name)
    assert (spec.type, spec.default, spec.min, spec.max) == (type_, default, lo, hi)
    assert opts[name] == default


def test_entering_king_rule_offers_yaneuraous_six_rules(opts):
    assert opts.spec("EnteringKingRule").vars == (
        "NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27", "CSARule27H", "TryRule")


def test_every_default_option_is_documented(opts):
    assert all(spec.doc for spec in opts.specs())


# --- the usi reply lines ---------------------------------------------------------------


def test_usi_lines_are_one_per_option_in_table_order(opts):
    lines = opts.usi_lines()
    assert len(lines) == len(EXPECTED_DEFAULTS)
    assert [line.split()[2] for line in lines] == [row[0] for row in EXPECTED_DEFAULTS]


def test_spin_line_has_default_min_and_max(opts):
    assert opts.spec("USI_Hash").usi_line() == (
        "option name USI_Hash type spin default 256 min 1 max 1048576"
    )


def test_check_line_prints_lowercase_boolean(opts):
    assert opts.spec("USI_Ponder").usi_line() == "option name USI_Ponder type check default false"


def test_combo_line_lists_each_var(opts):
    assert opts.spec("EnteringKingRule").usi_line() == (
        "option name EnteringKingRule type combo default CSARule27"
        " var NoEnteringKing var CSARule24 var CSARule24H var CSARule27 var CSARule27H"
        " var TryRule"
    )


def test_empty_string_default_prints_as_empty_token():
    assert options.string("BookDir").usi_line() == "option name BookDir type string default <empty>"


def test_filename_line_prints_its_default():
    spec = options.filename("BookFile", "book/a b.db")
    assert spec.usi_line() == "option name BookFile type filename default book/a b.db"


def test_button_line_has_no_default():
    assert options.button("ClearHash").usi_line() == "option name ClearHash type button"


def test_nodes_limit_line_prints_large_max_as_integer(opts):
    assert opts.spec("NodesLimit").usi_line().endswith("min 0 max 1000000000000")


# --- lookup ------------------------------------------------------------------------------


def test_lookup_ignores_case(opts):
    assert opts["usi_hash"] == opts["USI_HASH"] == 256


def test_lookup_of_unknown_name_raises_keyerror(opts):
    with pytest.raises(KeyError, match="unknown option Nope"):
        opts["Nope"]


def test_contains_ignores_case_and_knows_aliases(opts):
    assert "networkdelay" in opts
    assert "usi_multipv" in opts
    assert "Nope" not in opts


def test_options_is_a_mapping_of_canonical_names(opts):
    assert dict(opts)["EnteringKingRule"] == "CSARule27"
    assert len(opts) == len(EXPECTED_DEFAULTS)


# --- set: spin ---------------------------------------------------------------------------


def test_set_spin_stores_the_integer(opts):
    assert opts.set("USI_Hash", "1024") == []
    assert opts["USI_Hash"] == 1024


def test_set_spin_accepts_explicit_plus_sign(opts):
    assert opts.set("MultiPV", "+3") == []
    assert opts["MultiPV"] == 3


def test_set_spin_above_max_is_clamped_and_reported(opts):
    messages = opts.set("USI_Hash", "9999999")
    assert opts["USI_Hash"] == 1048576
    assert len(messages) == 1 and "1048576" in messages[0] and "USI_Hash" in messages[0]


def test_set_spin_below_min_is_clamped_and_reported(opts):
    messages = opts.set("SlowMover", "0")
    assert opts["SlowMover"] == 1
    assert len(messages) == 1 and "minimum" in messages[0]


@pytest.mark.parametrize("text", ["abc", "1.5", "1_000", "12MB", "<empty>", "0x10"])
def test_set_spin_non_integer_is_reported_and_unchanged(opts, text):
    messages = opts.set("MultiPV", text)
    assert opts["MultiPV"] == 1
    assert len(messages) == 1 and "not an integer" in messages[0]


@pytest.mark.parametrize("text", [None, "", "   "])
def test_set_spin_without_value_is_reported_and_unchanged(opts, text):
    assert opts.set("USI_Hash", text) == ["USI_Hash: missing value"]
    assert opts["USI_Hash"] == 256


def test_set_spin_accepts_the_largest_nodes_limit(opts):
    assert opts.set("NodesLimit", str(10**12)) == []
    assert opts["NodesLimit"] == 10**12


# --- set: check / combo / string / button --------------------------------------------------


@pytest.mark.parametrize("text,value", [("true", True), ("TRUE", True), ("False", False), ("false", False)])
def test_set_check_accepts_true_and_false_in_any_case(opts, text, value):
    opts.set("USI_Ponder", "false" if value else "true")
    assert opts.set("usi_ponder", text) == []
    assert opts["USI_Ponder"] is value


@pytest.mark.parametrize("text", ["yes", "1", "on", "truee"])
def test_set_check_rejects_other_words_and_keeps_value(opts, text):
    messages = opts.set("USI_Ponder", text)
    assert opts["USI_Ponder"] is False
    assert len(messages) == 1 and "true or false" in messages[0]


def test_set_combo_matches_case_insensitively_and_stores_canonical_spelling(opts):
    assert opts.set("EnteringKingRule", "noenteringking") == []
    assert opts["EnteringKingRule"] == "NoEnteringKing"


def test_set_combo_rejects_a_value_not_among_vars(opts):
    messages = opts.set("EnteringKingRule", "CSARule99")
    assert opts["EnteringKingRule"] == "CSARule27"
    assert len(messages) == 1 and "NoEnteringKing CSARule24" in messages[0]


def test_set_string_keeps_inner_spaces():
    opts = Options(options.DEFAULT_OPTIONS + (options.string("Comment", "x"),))
    assert opts.set("Comment", "two  words here") == []
    assert opts["Comment"] == "two  words here"


def test_set_string_empty_token_means_empty_string():
    opts = Options(options.DEFAULT_OPTIONS + (options.filename("LogFile", "usi.log"),))
    assert opts.set("LogFile", "<empty>") == []
    assert opts["LogFile"] == ""


def test_set_string_without_value_means_empty_string():
    opts = Options(options.DEFAULT_OPTIONS + (options.filename("LogFile", "usi.log"),))
    assert opts.set("LogFile", None) == []
    assert opts["LogFile"] == ""


def test_set_button_is_accepted_without_value():
    opts = Options(options.DEFAULT_OPTIONS + (options.button("ClearHash"),))
    assert opts.set("clearhash", None) == []


# --- set: names ------------------------------------------------------------------------------


def test_set_unknown_option_is_reported_and_changes_nothing(opts):
    before = opts.snapshot()
    assert opts.set("Foo", "1") == ["unknown option Foo"]
    assert opts.snapshot() == before


def test_usi_multipv_sets_multipv(opts):
    assert opts.set("USI_MultiPV", "4") == []
    assert opts["MultiPV"] == 4
    assert opts["usi_multipv"] == 4


def test_alias_is_not_listed_as_a_separate_option(opts):
    assert not any("USI_MultiPV" in line for line in opts.usi_lines())


@pytest.mark.parametrize("name,value,expected", [("USI_Hash", "64", 64), ("USI_Ponder", "true", True)])
def test_gui_standard_options_are_accepted_and_listed(opts, name, value, expected):
    assert opts.set(name, value) == []
    assert opts[name] == expected
    assert any(line.startswith(f"option name {name} ") for line in opts.usi_lines())


# --- setoption text -----------------------------------------------------------------------------


def test_setoption_parses_name_and_value(opts):
    assert opts.setoption("name NetworkDelay value 500") == []
    assert opts["NetworkDelay"] == 500


def test_setoption_keywords_ignore_case(opts):
    assert opts.setoption("NAME MultiPV VALUE 2") == []
    assert opts["MultiPV"] == 2


def test_setoption_keeps_string_value_spacing_exactly():
    opts = Options(options.DEFAULT_OPTIONS + (options.filename("LogFile"),))
    assert opts.setoption("name LogFile value C:/My Logs/a  b.log  \r") == []
    assert opts["LogFile"] == "C:/My Logs/a  b.log"


def test_setoption_string_value_may_contain_the_word_value():
    opts = Options(options.DEFAULT_OPTIONS + (options.string("Note"),))
    assert opts.setoption("name Note value the value is 3") == []
    assert opts["Note"] == "the value is 3"


def test_setoption_without_value_presses_a_button():
    opts = Options(options.DEFAULT_OPTIONS + (options.button("ClearHash"),))
    assert opts.setoption("name ClearHash") == []


def test_setoption_without_value_for_check_is_reported(opts):
    assert opts.setoption("name USI_Ponder") == ["USI_Ponder: missing value"]


@pytest.mark.parametrize("text", ["", "   ", "value 3", "name", "foo USI_Hash value 3"])
def test_setoption_malformed_text_is_reported(opts, text):
    before = opts.snapshot()
    messages = opts.setoption(text)
    assert len(messages) == 1 and messages[0].startswith("setoption:")
    assert opts.snapshot() == before


def test_setoption_name_with_spaces_is_reported_as_unknown(opts):
    assert opts.setoption("name Network Delay value 5") == ["unknown option Network Delay"]


# --- extending and declaring ----------------------------------------------------------------------


def test_add_extends_the_table_and_usi_reply(opts):
    opts.add(options.spin("MateDepth", 0, 0, 255, "mate search depth"))
    assert opts["matedepth"] == 0
    assert opts.usi_lines()[-1] == "option name MateDepth type spin default 0 min 0 max 255"


def test_add_rejects_a_name_already_declared_in_another_case(opts):
    with pytest.raises(ValueError, match="already declared"):
        opts.add(options.check("usi_ponder", True))


def test_add_rejects_a_name_taken_by_an_alias(opts):
    with pytest.raises(ValueError, match="already declared"):
        opts.add(options.spin("USI_MultiPV", 1, 1, 2))


def test_alias_to_an_undeclared_option_is_rejected(opts):
    with pytest.raises(ValueError, match="not declared"):
        opts.add_alias("Hash", "TTSize")


@pytest.mark.parametrize(
    "make,field",
    [
        (lambda: options.spin("X", 5, 6, 10), "default"),
        (lambda: options.spin("X", 5, 10, 6), "min"),
        (lambda: options.combo("X", "c", ("a", "b")), "default"),
        (lambda: options.combo("X", "a", ()), "var"),
        (lambda: options.check("X", 1), "bool"),
        (lambda: options.spin("Two words", 1, 0, 2), "name"),
        (lambda: options.OptionSpec("X", "slider", 1), "type"),
    ],
)
def test_inconsistent_declaration_raises_valueerror_naming_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


def test_reset_restores_every_default(opts):
    opts.set("USI_Hash", "16")
    opts.set("USI_Ponder", "true")
    opts.reset()
    assert opts["USI_Hash"] == 256 and opts["USI_Ponder"] is False


def test_snapshot_does_not_follow_later_changes(opts):
    snap = opts.snapshot()
    opts.set("MultiPV", "9")
    assert snap["MultiPV"] == 1
