"""Where things are: the checkout, its reference files, and the bench's outputs."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
SFEN = REPO / "sfen"
OPENINGS = REPO / "usi_engine" / "data" / "openings.txt"   # shipped in the package (gensfen)
PERFT = SFEN / "perft.txt"
TSUME_DIR = SFEN / "tsume"
BLUNDERS = BENCH / "blunders"
OUT = BENCH / "out"                    # git-ignored
ENGINE_SH = BENCH / "engine.sh"        # this checkout's engine, for match runners
