"""The SkillLevel ladder: each level against the one above it, and the lowest levels
against Fairy-Stockfish's Skill Levels, for the table in docs/skill.md.

    # rungs 0..19 (level L against L + 1), 40 games each at 1 s byoyomi, resumable;
    # the records go to bench/results/skill-ladder/level-L-vs-L+1-1s.jsonl.gz:
    python -m bench.strength.skill_ladder --rungs 0-19 --games 40 --tc 1000
    # level 0 and 5 against Fairy-Stockfish at Skill Level -5 and 0:
    python -m bench.strength.skill_ladder --against-fsf 0:-5,5:0 --games 40 --tc 1000
    # the table from the records made so far (nothing is played):
    python -m bench.strength.skill_ladder --table

Below level 20 the search stops at depth level + 1, so the low rungs do not depend on
the machine's speed or load: their games take milliseconds a move. A rung's Elo is the
lower level's, against the level above; the ladder's sum from a level up to 20 (where
every rung to 20 was played) is its distance below full strength.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from bench.lib.match import a_score, load_records
from bench.lib.paths import ENGINE_SH
from bench.lib.stats import elo_stats, fmt_elo

RESULTS = Path(__file__).resolve().parent.parent / "results" / "skill-ladder"


def rung_file(level: int, tc: int) -> Path:
    return RESULTS / f"level-{level}-vs-{level + 1}-{tc // 1000}s.jsonl.gz"


def fsf_file(level: int, fsf_skill: int, tc: int) -> Path:
    return RESULTS / f"level-{level}-vs-fairy-stockfish-skill{fsf_skill}-{tc // 1000}s.jsonl.gz"


def play(out: Path, b: list[str], a_level: int, games: int, tc: int, engine: str) -> None:
    """One pairing through bench.strength.match (A: this engine at ``a_level``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "bench.strength.match", "--a", engine,
               "--a-option", f"SkillLevel={a_level}", *b, "--tc", str(tc), "--games",
               str(games), "--parallel", "1", "--out", str(out)]
    subprocess.run(command, check=True)


def parse_rungs(text: str) -> list[int]:
    """``0-19`` or ``0,3,5``: the lower level of each rung."""
    if "-" in text:
        low, high = (int(x) for x in text.split("-"))
        return list(range(low, high + 1))
    return [int(x) for x in text.split(",")]


def row(name: str, path: Path) -> tuple[str, float] | None:
    """A table row for the records in ``path`` and the Elo of its A, or None."""
    if not path.exists():
        return None
    s = elo_stats([a_score(r) for r in load_records(path)])
    if not s["n"]:
        return None
    return (f"| {name} | {s['n']} | +{s['wins']} -{s['losses']} ={s['draws']} | "
            f"{s['score']:.3f} | {fmt_elo(s['elo'])} [{fmt_elo(s['elo_lo'])}, "
            f"{fmt_elo(s['elo_hi'])}] |", s["elo"])


def table(tc: int) -> str:
    lines = ["| pairing | games | W-L-D (the first named) | score | Elo [95%] |",
             "|---|---|---|---|---|"]
    for level in range(20):
        found = row(f"level {level} against {level + 1}", rung_file(level, tc))
        if found:
            lines.append(found[0])
    for path in sorted(RESULTS.glob(f"level-*-vs-fairy-stockfish-skill*-{tc // 1000}s.jsonl.gz")):
        named = re.fullmatch(r"level-(\d+)-vs-fairy-stockfish-skill(-?\d+)-\d+s\.jsonl\.gz",
                             path.name)
        if named is None:
            continue
        found = row(f"level {named.group(1)} against Fairy-Stockfish Skill Level "
                    f"{named.group(2)}", path)
        if found:
            lines.append(found[0])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rungs", help="rungs to play: 0-19 or 0,3,5 (level L against L+1)")
    parser.add_argument("--against-fsf", metavar="L:S,...",
                        help="level L against Fairy-Stockfish at Skill Level S")
    parser.add_argument("--games", type=int, default=40, help="games a pairing (default 40)")
    parser.add_argument("--tc", type=int, default=1000, help="byoyomi in ms (default 1000)")
    parser.add_argument("--engine", default=str(ENGINE_SH),
                        help="the engine's command (default bench/engine.sh)")
    parser.add_argument("--table", action="store_true", help="print the table and exit")
    args = parser.parse_args(argv)
    if not args.table:
        for level in parse_rungs(args.rungs) if args.rungs else []:
            play(rung_file(level, args.tc), ["--b", args.engine, "--b-option",
                                             f"SkillLevel={level + 1}"],
                 level, args.games, args.tc, args.engine)
        for pair in args.against_fsf.split(",") if args.against_fsf else []:
            level, skill = (int(x) for x in pair.split(":"))
            play(fsf_file(level, skill, args.tc), ["--opponent", f"fairy-stockfish-skill{skill}"],
                 level, args.games, args.tc, args.engine)
    print(table(args.tc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
