"""The analysis pages in a real browser: Debian's headless Chromium driven by
puppeteer-core (tools/browser, installed by the test with npm).  The page loads with
no console or page error, the graph has one point per analysed position, and clicking
a point draws that position: every piece on the drawn board is the record's, and the
played and best moves are marked.  Skipped without chromium, node or npm; marked slow
(a browser start costs seconds): ``python -m pytest -m slow tests/analysis/test_analysis_browser.py``,
which .ci/run runs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from node_tools import node_helper
from usi_engine.analysis import AnalysisSettings, analyze_record
from usi_engine.cli.analyze import write_outputs
from usi_engine.record import read_record

pytestmark = pytest.mark.slow

RECORDS = Path(__file__).resolve().parents[1] / "records"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser() -> Path:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return node_helper("browser", "puppeteer-core", ("check_report.mjs",))


def pieces_of(sfen: str) -> dict[str, str]:
    """{square: piece} as the page names them (``7g``: ``P``, white's with a ``w``)."""
    pieces = {}
    for rank, row in zip("abcdefghi", sfen.split()[0].split("/")):
        file, promoted = 9, ""
        for ch in row:
            if ch == "+":
                promoted = "+"
            elif ch.isdigit():
                file -= int(ch)
            else:
                pieces[f"{file}{rank}"] = ("" if ch.isupper() else "w") + promoted + ch.upper()
                file, promoted = file - 1, ""
    return pieces


def check(browser: Path, page: Path, clicks: list[int], screenshot: Path | None = None) -> dict:
    args = ["node", str(browser / "check_report.mjs"), str(page),
            "--click", ",".join(map(str, clicks))]
    if screenshot:
        args += ["--screenshot", str(screenshot)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, CHROMIUM=CHROMIUM))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("record_file", ["sample.ki2", "handicap_cp932.kif"])
def test_a_game_page_loads_plots_every_position_and_shows_the_clicked_one(
        browser, tmp_path, record_file):
    record = read_record(RECORDS / record_file)[0]
    analysis = analyze_record(record, AnalysisSettings(nodes=800, multipv=2),
                              name=Path(record_file).stem)
    write_outputs(tmp_path, analysis.name, record, analysis)
    clicks = sorted({0, len(analysis.plies) // 2, len(analysis.plies) - 1})
    seen = check(browser, tmp_path / f"{analysis.name}.html", clicks)
    assert seen["errors"] == []
    assert seen["point_plies"] == [p.ply for p in analysis.plies]
    numbers = [int(label.rstrip("手")) for label in seen["move_numbers"]]   # the x axis
    assert len(numbers) >= 2 and numbers == sorted(numbers)
    assert analysis.plies[0].ply <= numbers[0] and numbers[-1] <= analysis.plies[-1].ply
    for click in seen["clicks"]:
        expected = analysis.plies[click["index"]]
        assert click["ply"] == expected.ply and click["selected"] == [click["index"]]
        assert click["sfen"] == expected.sfen
        assert click["pieces"] == pieces_of(expected.sfen)
        assert click["played"][-1] == expected.move[2:4]
        assert click["best"][-1] == expected.best.move[2:4]
