"""The one index of the kept match records: bench/results/index.md, a line a run.

Each row names the record file, when it ran, the build (commit, bench signature),
the two sides, the time control, and the result as the record gives it (games, W-L-D
from engine A's side, Elo and its 95% interval). The last three columns are computed
from the record; ``--check`` fails when a row and its record disagree or a record has
no row (tests/bench/test_results_index.py runs it), and ``--draft`` prints a row for each
record not yet indexed, its hand-written columns to be filled in.

    python -m bench.tools.results_index --check
    python -m bench.tools.results_index --draft >> bench/results/index.md
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.lib.match import a_score, load_records
from bench.lib.stats import elo_stats, fmt_elo

RESULTS = Path(__file__).resolve().parent.parent / "results"
INDEX = RESULTS / "index.md"
HEADER = ("| record | date | commit | bench | A | B | time control | games | W-L-D | "
          "Elo [95%] |")
#: The columns computed from the record (the last three).
COMPUTED = 3


def record_files(results: Path = RESULTS) -> list[Path]:
    """Every kept match record under ``results``, in name order."""
    return sorted(results.rglob("*.jsonl.gz"))


def computed_columns(path: Path) -> list[str]:
    """games, W-L-D (A's side) and Elo [95% interval] of one record file."""
    s = elo_stats([a_score(r) for r in load_records(path)])
    if not s["n"]:
        return ["0", "-", "-"]
    return [str(s["n"]), f"+{s['wins']} -{s['losses']} ={s['draws']}",
            f"{fmt_elo(s['elo'])} [{fmt_elo(s['elo_lo'])}, {fmt_elo(s['elo_hi'])}]"]


def read_index(index: Path = INDEX) -> dict[str, list[str]]:
    """The index's rows by record name (relative to bench/results/), cells stripped."""
    rows: dict[str, list[str]] = {}
    for line in index.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = cells
    return rows


def check(results: Path = RESULTS, index: Path = INDEX) -> list[str]:
    """What is wrong with the index: records without a row, rows without a record,
    computed columns that differ from the record's."""
    rows = read_index(index)
    problems = []
    names = {p.relative_to(results).as_posix(): p for p in record_files(results)}
    for name, path in names.items():
        row = rows.get(name)
        if row is None:
            problems.append(f"{name}: no row in {index.name}")
            continue
        if len(row) != HEADER.count("|") - 1:
            problems.append(f"{name}: {len(row)} columns, not {HEADER.count('|') - 1}")
            continue
        want = computed_columns(path)
        if row[-COMPUTED:] != want:
            problems.append(f"{name}: the index says {row[-COMPUTED:]}, the record {want}")
    problems += [f"{name}: a row without a record" for name in rows if name not in names]
    return problems


def draft_rows(results: Path = RESULTS, index: Path = INDEX) -> list[str]:
    """A row for each record the index lacks, its hand-written columns left as '?'."""
    known = read_index(index) if index.exists() else {}
    out = []
    for path in record_files(results):
        name = path.relative_to(results).as_posix()
        if name not in known:
            out.append("| " + " | ".join([f"`{name}`"] + ["?"] * 6 + computed_columns(path))
                       + " |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare the index with the records")
    ap.add_argument("--draft", action="store_true", help="print rows for records not indexed")
    args = ap.parse_args(argv)
    if args.draft:
        print("\n".join(draft_rows()))
    if args.check or not args.draft:
        problems = check()
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
