"""The kept match records: gzip-compressed JSON lines that a match resumes, and one index
line a run whose result columns are the record's own."""
import gzip
import json

from bench.lib.match import load_records
from bench.lib.records import append_jsonl, load_jsonl
from bench.tools.results_index import check, computed_columns, record_files


def test_every_record_has_one_index_row_that_matches_it():
    assert record_files(), "no records found"
    assert check() == []


def test_a_compressed_record_is_appended_and_read_back_game_by_game(tmp_path):
    path = tmp_path / "run.jsonl.gz"
    append_jsonl(path, {"game": 1, "result": "1-0"})
    append_jsonl(path, {"game": 2, "result": "1/2"})      # a second gzip member
    assert [r["game"] for r in load_jsonl(path)] == [1, 2]
    with gzip.open(path, "rt") as stream:                 # any gzip reader reads it whole
        assert [json.loads(line)["game"] for line in stream] == [1, 2]


def test_the_computed_columns_are_games_wld_and_elo_from_as_side(tmp_path):
    path = tmp_path / "run.jsonl.gz"
    for game, (result, colour) in enumerate([("1-0", "black"), ("1-0", "white"),
                                             ("1/2", "black"), ("0-1", "white")], 1):
        append_jsonl(path, {"game": game, "result": result, "a_colour": colour})
    assert len(load_records(path)) == 4
    assert computed_columns(path)[:2] == ["4", "+2 -1 =1"]
