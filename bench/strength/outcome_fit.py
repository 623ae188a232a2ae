"""How well each term of the hand-set evaluation predicts the results of played games.

Reads shogiarena game.db files (runs of `python -m bench.strength.ab_match` or `shogiarena run`), takes
every third position between plies 20 and 100 that is not in check, and scores it with
the hand-set evaluation split into its terms: material (`evaluate.material_weights()`),
the hand premium (pieces in hand above their board value), attack (distance to the
enemy king), defence (distance to the own king) and king exposure. A logistic
regression of the game's result on those terms (400 centipawns = 10:1 odds) gives each
term's weight relative to material's: 1.0 means the evaluation already weighs the term
as the results do, above 1 that the results favour it more. The fit is repeated on the
two halves of the positions (alternate blocks of 300) to show how stable it is.

    python -m bench.strength.outcome_fit /work/runs/yo_pc /work/runs/yo_pc2    # run directories

A correlation, not a cause: the side that is winning also brings its pieces nearer the
enemy king. Settle any change of weights by games (README, session of 2026-11-26,
eighth, did so for the attack terms and the hand premium).
"""
from __future__ import annotations

import argparse
import math
import sqlite3
from pathlib import Path

import numpy as np

from bench.lib.records import recorded_moves
from usi_engine.eval import handwritten as evaluate

TERMS = ("hand premium", "attack", "defence", "exposure")
ODDS = math.log(10) / 4          # per 100 centipawns: 400 cp = 10:1


def sampled_positions(run_dirs: list[str]) -> list[tuple[str, int, float]]:
    """(sfen, +1 black to move / -1 white, black's result 1, 0.5 or 0) per sample."""
    rows = []
    for run in run_dirs:
        db = str(Path(run) / "game.db")
        results = dict(sqlite3.connect(db).execute("select id, game_result from game"))
        game, ply = None, 0
        for gid, pos, _mover, _move, _score in recorded_moves(db):
            game, ply = gid, (ply + 1 if gid == game else 0)
            if 20 <= ply <= 100 and ply % 3 == 0 and not pos.is_check():
                result = results[gid]
                black = 1.0 if "BLACK_WIN" in result else 0.0 if "WHITE_WIN" in result else 0.5
                rows.append((pos.sfen(), 1 if pos.turn == 0 else -1, black))
    return rows


def term_scores(rows) -> np.ndarray:
    """Columns: material, then each of TERMS, in centipawns for black."""
    def scores(weights):
        evaluate.load_weights(weights)
        return np.array([evaluate.evaluate_sfen(s) * side for s, side, _ in rows], float)
    full = evaluate.default_weights()
    material = scores(evaluate.material_weights())
    columns = [material]
    for names in (("hand",), ("attack",), ("defence",), ("king_exposure", "hand_pressure")):
        weights = evaluate.material_weights()
        for name in names:
            weights[name] = full[name]
        columns.append(scores(weights) - material)
    evaluate.load_weights(full)
    return np.stack(columns, 1)


def fit(x: np.ndarray, result: np.ndarray, steps: int = 20000) -> np.ndarray:
    """Logistic regression by gradient descent; weights per 100 centipawns."""
    x = x / 100.0
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-ODDS * x @ w))
        w -= 2.0 * x.T @ ((p - result) * p * (1 - p)) / len(result)
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run directories holding game.db")
    args = parser.parse_args()
    rows = sampled_positions(args.runs)
    x = term_scores(rows)
    result = np.array([r for _, _, r in rows])
    block = (np.arange(len(rows)) // 300) % 2
    print(f"{len(rows)} positions from {len(args.runs)} runs")
    print(f"{'fit':<10}" + "".join(f"{t:>14}" for t in TERMS))
    for label, mask in (("all", block >= 0), ("half 0", block == 0), ("half 1", block == 1)):
        w = fit(x[mask], result[mask])
        print(f"{label:<10}" + "".join(f"{w[i + 1] / w[0]:>14.2f}" for i in range(len(TERMS))))


if __name__ == "__main__":
    main()
