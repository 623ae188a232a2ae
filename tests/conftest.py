"""Shared fixtures: the reference suites in sfen/."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SFEN_DIR = ROOT / "sfen"


def read_perft_suite():
    """[(name, sfen, {depth: count})] from sfen/perft.txt."""
    suite = []
    for line in (SFEN_DIR / "perft.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, sfen, counts = (part.strip() for part in line.split("|"))
        suite.append((name, sfen, {int(d): int(c) for d, c in
                                   (kv.split("=") for kv in counts.split())}))
    return suite


@pytest.fixture
def startpos():
    from usi_engine import Position
    return Position()
