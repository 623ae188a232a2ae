"""Records against tsshogi (ShogiHome's record library, npm): random games written by
tsshogi as KIF/KI2/CSA/JKF are read back by usi_engine.record, and ours are read back
by tsshogi.

Setup (done by the test itself, once): tools/tsshogi's package.json and lock file are
installed with ``npm ci`` into a cache folder (tests/helpers/node_tools.py: by default
~/.cache/usi_engine/tsshogi).  Skipped when node or npm is missing, or npm cannot
reach the registry.  The default run reads 24 games; ``-m slow`` 400 more."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from node_tools import node_helper
from usi_engine.record import Record, read_record, write_record

ROOT = Path(__file__).resolve().parents[2]
#: tsshogi special-move names and ours, and what each format keeps of them.
SPECIALS = {"resign": "resign", "interrupt": "interrupt", "repetitionDraw": "repetition_draw",
            "impass": "impass", "timeout": "timeout", "foulWin": "foul_win",
            "foulLose": "foul_lose", "enteringOfKing": "entering_king",
            "maxMoves": "max_moves", "mate": "mate", None: None}
#: KIF and KI2 have no word for the move limit: tsshogi writes 持将棋.
LOST = {"kif": {"max_moves": "impass"}, "ki2": {"max_moves": "impass"}}


@pytest.fixture(scope="module")
def tsshogi() -> Path:
    return node_helper("tsshogi", "tsshogi", ("tsshogi_records.mjs",))


def node(helper: Path, *args: str) -> str:
    done = subprocess.run(["node", str(helper / "tsshogi_records.mjs"), *args],
                          capture_output=True, text=True, timeout=600, check=True)
    return done.stdout


def flatten(line) -> list[tuple[int, list[str]]]:
    out = []
    for variation in line.variations:
        out.append((variation.ply, variation.moves))
        out += flatten(variation)
    return sorted(out)


def check_read(fmt: str, record: Record, expected: dict) -> None:
    assert record.start_sfen.split()[:3] == expected["sfen"].split()[:3]
    assert record.moves == expected["moves"]
    special = SPECIALS[expected["special"]]
    assert record.termination == LOST.get(fmt, {}).get(special, special)
    if fmt != "ki2":
        assert record.times == expected["times"]
    assert record.comments == expected["comments"]
    if fmt != "csa":
        assert flatten(record) == sorted((b["ply"], b["moves"]) for b in expected["branches"])
    assert record.black == expected["black"] and record.white == expected["white"]


def run_round_trip(helper: Path, tmp_path: Path, count: int, seed: int) -> int:
    node(helper, "generate", str(count), str(seed), str(tmp_path))
    expected = json.loads((tmp_path / "expected.json").read_text())
    ours = tmp_path / "ours"
    ours.mkdir()
    written = []
    for k, game in enumerate(expected):
        for fmt in ("kif", "ki2", "csa", "jkf"):
            [record] = read_record(tmp_path / f"game{k}.{fmt}")
            try:
                check_read(fmt, record, game)
            except AssertionError:
                print(f"tsshogi's game{k}.{fmt}:\n" + (tmp_path / f"game{k}.{fmt}").read_text())
                raise
            # ours, from the KIF reading, back to tsshogi
            path = ours / f"game{k}.{fmt}"
            path.write_text(write_record(record, fmt) if fmt != "kif" else
                            write_record(read_record(tmp_path / f"game{k}.kif")[0], fmt),
                            encoding="utf-8")
            written.append((k, fmt, path))
    back = [json.loads(line) for line in node(helper, "read", *[str(p) for _, _, p in written])
            .splitlines()]
    for (k, fmt, path), theirs in zip(written, back):
        game = expected[k]
        assert "error" not in theirs, (theirs, path.read_text())
        assert theirs["sfen"].split()[:3] == game["sfen"].split()[:3]
        assert theirs["moves"] == game["moves"], path.read_text()
        if fmt != "ki2":
            assert theirs["times"] == game["times"]
        # tsshogi ends a comment read from KI2 with a newline
        assert [c.rstrip("\n") for c in theirs["comments"]] == game["comments"], fmt
        if fmt in ("kif", "ki2", "jkf"):
            assert sorted((b["ply"], b["moves"]) for b in theirs["branches"]) == \
                sorted((b["ply"], b["moves"]) for b in game["branches"]), path.read_text()
        ours_special = SPECIALS[game["special"]]
        ours_special = LOST.get(fmt, {}).get(ours_special, ours_special)
        theirs_special = SPECIALS.get(theirs["special"], theirs["special"])
        if fmt in ("kif", "ki2"):
            theirs_special = LOST[fmt].get(theirs_special, theirs_special)
        if fmt in ("csa", "jkf") and ours_special == "foul_win":
            # %+ILLEGAL_ACTION (CSA, and JKF's special): black's illegal action, white
            # wins (CSA standard V2.2).
            # tsshogi 2.2.0's reader takes it as a win of black when black is to move,
            # the opposite of its own writer; we follow the standard.
            assert theirs_special == "foul_lose"
            continue
        assert theirs_special == ours_special, path.read_text()
    return len(expected)


def test_tsshogi_records_round_trip(tsshogi, tmp_path):
    assert run_round_trip(tsshogi, tmp_path, 24, 20261201) == 24


@pytest.mark.slow
def test_tsshogi_records_round_trip_many(tsshogi, tmp_path):
    assert run_round_trip(tsshogi, tmp_path, 400, 7) == 400


def test_tsshogi_reads_the_records_analyze_writes(tsshogi, tmp_path):
    """ShogiHome's record library reads our annotated KIF and CSA: the moves, and on
    every move the comment with ShogiHome's #評価値= (KIF) or floodgate's ** (CSA)."""
    from usi_engine.analysis import AnalysisSettings, analyze_record
    from usi_engine.cli.analyze import write_outputs
    record = read_record(Path(__file__).resolve().parents[1] / "records" / "sample.ki2")[0]
    analysis = analyze_record(record, AnalysisSettings(nodes=500), name="sample")
    write_outputs(tmp_path, "sample", record, analysis)
    for fmt in ("kif", "csa"):          # written in CP932; the helper reads UTF-8
        text = (tmp_path / f"sample.{fmt}").read_bytes().decode("cp932")
        (tmp_path / f"utf8.{fmt}").write_text(text, encoding="utf-8")
    kif, csa = (json.loads(line) for line in node(
        tsshogi, "read", str(tmp_path / "utf8.kif"), str(tmp_path / "utf8.csa")).splitlines())
    assert kif["moves"] == csa["moves"] == record.moves
    assert all("#評価値=" in comment for comment in kif["comments"])
    assert all(any(line.startswith("* ") for line in comment.splitlines())
               for comment in csa["comments"])
