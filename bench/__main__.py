"""``python -m bench COMMAND [ARGS]``: run a bench entry point by its short name
(``python -m bench`` lists them); the same as ``python -m bench.GROUP.SCRIPT ARGS``."""
from __future__ import annotations

import runpy
import sys

COMMANDS = {
    # speed
    "perft": "bench.speed.perft_bench",
    "nps": "bench.speed.nps_bench",
    "game-nps": "bench.speed.game_nps",
    "threads": "bench.speed.threads_bench",
    "memory": "bench.speed.memory_bench",
    "eval-speed": "bench.speed.eval_speed",
    "halfkp-train-speed": "bench.speed.halfkp_train_speed",
    "nnue-nps": "bench.speed.nnue_nps",
    # strength
    "match": "bench.strength.match",
    "ab": "bench.strength.ab_match",
    "spsa": "bench.strength.spsa_tune",
    "blunders": "bench.strength.blunder_suite",
    "refutations": "bench.strength.refutation_suite",
    "mate-speed": "bench.strength.mate_speed",
    "outcome-fit": "bench.strength.outcome_fit",
    "search-profile": "bench.strength.search_profile",
    "skill-ladder": "bench.strength.skill_ladder",
    # tsume
    "tsume": "bench.tsume.tsume_bench",
    "usi-tsume": "bench.tsume.usi_tsume_bench",
    "long-tsume": "bench.tsume.long_bench",
    "make-tsume": "bench.tsume.make_tsume_suites",
    # tools
    "make-openings": "bench.tools.make_openings",
    "csa-game": "bench.tools.csa_local_game",
    "bad-input": "bench.tools.bad_input_transcript",
    "book-exit": "bench.tools.book_exit",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__.strip() + "\n")
        width = max(map(len, COMMANDS))
        for name, module in COMMANDS.items():
            print(f"  {name:<{width}}  python -m {module}")
        return 0
    module = COMMANDS.get(argv[0])
    if module is None:
        print(f"unknown command {argv[0]!r}; python -m bench lists them", file=sys.stderr)
        return 2
    sys.argv = [f"python -m {module}", *argv[1:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
