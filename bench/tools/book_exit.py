"""Where a book leaves its side, from a match's records (`bench/strength/match.py --out`):
for each game, how many book moves engine A played before its first search, A's own
score at that search, the other side's scores over the next plies (in A's view), and
A's result by the number of book moves.

    python -m bench.tools.book_exit bench/results/book-vs-nobook.jsonl.gz

A book move is a move of A's with depth 0 and no nodes in the record's stats; each
stats entry is [mover (0 black), depth, nodes, time_ms, score for the mover]. Scores are
clipped to +-800 before averaging. A book whose choices cost its side shows as negative
scores at the exit, seen by both engines.
"""
from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

CLIP = 800
FOLLOWING_PLIES = 12


def a_score(game: dict) -> float:
    """A's result in the game: 1, 0.5 or 0."""
    result, a_black = game["result"], game["a_colour"] == "black"
    if result not in ("1-0", "0-1"):
        return 0.5
    return 1.0 if (result == "1-0") == a_black else 0.0


def book_exit(game: dict) -> tuple[int, int, float] | None:
    """(A's book moves, A's score at its first search, the other side's mean score in
    A's view over the next plies), or None if A never searched."""
    a_side = 0 if game["a_colour"] == "black" else 1
    stats = game["stats"]
    book = 0
    for i, (side, depth, nodes, _, score) in enumerate(stats):
        if side != a_side:
            continue
        if depth == 0 and nodes == 0:
            book += 1
            continue
        others = [-s[4] for s in stats[i:i + FOLLOWING_PLIES] if s[0] != a_side and s[4] is not None]
        clipped = [max(-CLIP, min(CLIP, v)) for v in others]
        return book, max(-CLIP, min(CLIP, score or 0)), statistics.mean(clipped) if clipped else 0.0
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, help="a match's JSON-lines records")
    args = parser.parse_args(argv)
    games = [json.loads(line) for line in args.records.read_text().splitlines() if line.strip()]
    exits = [(book_exit(g), a_score(g)) for g in games]
    found = [(e, s) for e, s in exits if e is not None]
    if not found:
        print("no game in which A searched")
        return 1
    books = [e[0] for e, _ in found]
    print(f"games {len(found)}; A's book moves: mean {statistics.mean(books):.2f}, "
          f"median {statistics.median(books)}")
    print(f"A's own score at its first search: mean {statistics.mean(e[1] for e, _ in found):+.1f}, "
          f"median {statistics.median(e[1] for e, _ in found):+.1f}")
    print(f"B's scores over the next {FOLLOWING_PLIES} plies, in A's view: mean "
          f"{statistics.mean(e[2] for e, _ in found):+.1f}, "
          f"median {statistics.median(e[2] for e, _ in found):+.1f}")
    by_book: dict[int, list[float]] = defaultdict(list)
    for e, s in found:
        by_book[e[0]].append(s)
    for count in sorted(by_book):
        scores = by_book[count]
        print(f"  {count} book moves: {len(scores)} games, A scored {statistics.mean(scores):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
