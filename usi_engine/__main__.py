"""Command line: `usi-engine` speaks USI on stdin/stdout; sub-commands for perft,
bench and tsume solving.

    usi-engine                                   # the USI loop
    usi-engine perft 5 [--sfen SFEN] [--divide]  # last line: nodes N time_ms T nps X
    usi-engine bench [--depth D]                 # last line: nodes N time_ms T nps X
    usi-engine mate SFEN [--time-ms T]           # USI `checkmate ...`, then whether the
                                                 # length is proven shortest
    usi-engine csa --host H --id ID ...          # play on a CSA server (floodgate)
    usi-engine gensfen --out DIR --positions N   # self-play training data (PackedSfenValue)
    usi-engine learn DATA... --out kp.bin        # train the learned evaluation on it
    usi-engine learn-net DATA... --out kpnn.bin  # train the network on top of it
    usi-engine relabel DATA... --out DIR --engine CMD  # a USI teacher's scores instead
    usi-engine convert IN --to {usi,kif,ki2,csa,jkf} [-o OUT]  # game records
    usi-engine book convert|merge|sort|think|from-records ...  # opening books
    usi-engine analyze RECORDS_OR_FOLDERS --out DIR [--nodes N]  # game analysis reports

Bad arguments get one line on stderr and exit code 2; Ctrl-C one line and 130; a
closed output pipe (``usi-engine bench | head -1``) stops the command quietly with 141
(128 + SIGPIPE, as shells report a command killed by SIGPIPE).
"""
from __future__ import annotations

import argparse
import errno
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, NoReturn

from usi_engine import __version__

# numpy's BLAS threads spin on idle cores after start-up; only the training
# subcommands do linear algebra, and bench or perft would share the cores with them
# (1-3% of a bench profile was OpenBLAS spinning). Set before numpy is imported.
if not any(arg in ("learn", "learn-net") for arg in sys.argv[1:2]):
    for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

#: Exit code for bad input (as argparse uses); 130 for Ctrl-C, as shells do; 141
#: (128 + SIGPIPE, as a C program killed by SIGPIPE) when the reader of the output
#: went away (``usi-engine bench | head -1``): writing stops, without a traceback.
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
#: Upper bounds of the numeric arguments: what the core takes (C ints), or what
#: could ever finish.
MAX_PERFT_DEPTH = 30
MAX_BENCH_DEPTH = 100
MAX_HASH_MB = 32768              # as USI_Hash
MAX_TIME_MS = 2**31 - 1          # 24 days
#: perft from this depth up shows its progress (one root move at a time) on a terminal.
PERFT_PROGRESS_DEPTH = 7


def _fail(message: str, command: str = "") -> int:
    """One line on stderr (``usi-engine[ command]: error: ...``); returns the usage
    exit code."""
    print(f"usi-engine{' ' + command if command else ''}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _progress(text: str) -> None:
    """A progress note on stderr, only when stderr is a terminal (rewritten in place)."""
    if sys.stderr.isatty():
        from usi_engine.console.progress import in_place
        print(in_place(text), end="", file=sys.stderr, flush=True)


def _nodes_line(nodes: int, seconds: float) -> str:
    ms = int(seconds * 1000)
    return f"nodes {nodes} time_ms {ms} nps {int(nodes / seconds) if seconds > 0 else 0}"


def cmd_perft(args: argparse.Namespace) -> int:
    from usi_engine.core.position import Position, STARTPOS_SFEN, move_to_usi
    try:
        pos = Position(args.sfen or STARTPOS_SFEN)
    except ValueError as exc:
        return _fail(str(exc))
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for usi, count in sorted(pos.divide(args.depth).items()):
            print(f"{usi}: {count}")
            total += count
    elif args.depth >= PERFT_PROGRESS_DEPTH and sys.stderr.isatty():
        # The same count, a root move at a time, so a long run shows how far it is.
        total = 0
        moves = pos.legal_moves()
        for number, move in enumerate(moves, start=1):
            _progress(f"perft {args.depth}: move {number}/{len(moves)} "
                      f"({move_to_usi(move)}), {total} nodes so far")
            pos.push(move)
            total += pos.perft(args.depth - 1)
            pos.pop()
        _progress("")
    else:
        total = pos.perft(args.depth)
    print(_nodes_line(total, time.perf_counter() - start))
    return 0


#: The bench positions: opening to endgame, both sides to move, a drop-heavy
#: middle game ("matsuri") and a short tsume. Changing this list changes the
#: bench signature, so only append with care.
BENCH_SFENS: tuple[str, ...] = (
    # the initial position and two openings
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "ln2kgsnl/1r1sg2b1/p1pp1p1pp/1p2p1p2/9/2PP3P1/PP2PPP1P/1B1K1S1R1/LNSG1G1NL b - 11",
    # middle games
    "ln2kg1nl/1r1sgs3/p1pp1p3/4p1pRp/4b4/1PPP2P1P/P1B1PPN2/3S1S3/LN1GKG2L w 2Pp 30",
    "ln1gkg3/1r1s1s2+B/ppppp1npp/6p2/5l1P1/2P6/PPNPPPP1P/3S1S1R1/+b2GKG1NL w Lp 30",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    # late middle games and endgames
    "ln2k1s1l/3sg4/p1pp1p3/4p1p1p/9/2P3P1P/P1G1PPN2/5S3/L1rRKG2L w 2BGN3Psn2p 50",
    "ln2kl+R1l/3sg2+P1/p1pp1p3/4p1p1p/9/2P3PgP/P1n1PPN2/2+rPK1G2/4S3L w BG2SNPb2p 70",
    "ln1+B5/1r1s2S2/ppppp3p/6pk1/5Pn2/N8/3PPnP1P/1P1SKS3/2G2G2L w 2G2L2Prb3p 90",
    # a 3-ply tsume
    "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1",
)

#: Default bench depth: a few seconds for the whole list on one core.
BENCH_DEPTH = 5
#: Fixed table size so the node count does not depend on USI_Hash.
BENCH_HASH_MB = 16


def cmd_bench(args: argparse.Namespace) -> int:
    """Search every position of :data:`BENCH_SFENS` to a fixed depth.

    Deterministic: one thread, a fixed-size table cleared (``new_game``) before
    each position, no time limit, so the total node count is a signature of the
    search code. Last line: ``nodes N time_ms T nps X``.
    """
    from usi_engine.eval.loader import EvalLoader, load_network
    from usi_engine.eval.weights import WeightFileError
    from usi_engine.core.position import Position, move_to_usi
    from usi_engine.search.searcher import Searcher

    if args.eval_file is not None and args.eval != "learned":
        return _fail(f"--eval-file goes with --eval learned, not with --eval {args.eval}")
    loader = EvalLoader()
    loader.apply(args.eval, "")           # the hand-written weights, or the shipped ones
    network = loader.network
    if args.eval_file is not None:
        try:
            network = load_network(args.eval_file)
        except WeightFileError as exc:    # the weights asked for, or an error: no fallback
            return _fail(f"--eval-file {args.eval_file}: {exc}")
    searcher = Searcher()
    searcher.set_evaluation(network)
    searcher.set_hash(BENCH_HASH_MB)
    total_nodes = 0
    total_seconds = 0.0
    for number, sfen in enumerate(BENCH_SFENS, start=1):
        position = Position(sfen)
        searcher.new_game()
        start = time.perf_counter()
        result = searcher.search(position, depth=args.depth)
        seconds = time.perf_counter() - start
        total_nodes += result.nodes
        total_seconds += seconds
        best = move_to_usi(result.best) if result.best else "none"
        score = (f"mate {result.score_mate}" if result.score_mate is not None
                 else f"cp {result.score_cp}")
        print(f"position {number}/{len(BENCH_SFENS)} depth {result.depth} nodes {result.nodes} "
              f"time_ms {int(seconds * 1000)} score {score} bestmove {best}", flush=True)
    # Time only the searches: set-up and printing are not the engine's speed.
    print(_nodes_line(total_nodes, total_seconds))
    return 0


def cmd_mate(args: argparse.Namespace) -> int:
    """Solve one tsume (prints the USI `checkmate ...` line) or a suite (a progress line
    per problem and a summary)."""
    from usi_engine.mate.solver import MateSolver
    from usi_engine.mate.report import length_note
    from usi_engine.core.position import Position

    # Read and check the input before allocating the table (256 MB by default).
    if args.suite is None:
        if not args.sfen:
            return _fail("give an SFEN (or startpos/sfen ... [moves ...]) or --suite FILE")
        text = " ".join(args.sfen).strip()
        if text.startswith("position "):
            text = text[len("position "):]      # the whole USI command pasted
        try:
            position = Position(text)
        except ValueError as exc:
            return _fail(str(exc))
    else:
        if args.sfen:
            return _fail("give either an SFEN or --suite FILE, not both")
        from usi_engine.mate.suites import read_fields, read_tsume_suite, suite_is_strict
        try:
            # name | sfen | length lines (usi_engine.mate.suites); a suite whose comments
            # hold STRICT_MARK counts every defence in its lengths
            problems = [(p.name, p.sfen, p.length) for p in read_tsume_suite(args.suite)]
            lines = [(number, " | ".join(parts))                       # the same lines
                     for number, parts in read_fields(args.suite)]
            args.strict = args.strict or suite_is_strict(args.suite)
        except (OSError, UnicodeDecodeError) as exc:
            return _fail(f"--suite {args.suite}: cannot read it as a text file ({exc})")
        except ValueError as exc:
            return _fail(f"--suite {args.suite}: {exc}")
        # A file without one problem that parses is not a suite (a README, a typo'd path
        # to the wrong file): say so rather than "solved 0/N".
        first_bad = None
        for (number, line), (_, sfen, _) in zip(lines, problems):
            try:
                Position(sfen)
                break
            except ValueError as exc:
                excerpt = line if len(line) <= 40 else line[:37] + "..."
                first_bad = first_bad or f"line {number} {excerpt!r}: {exc}"
        else:
            if first_bad is None:
                return _fail(f"--suite {args.suite}: no problem in it (expected "
                             "'name | sfen | length' lines)")
            return _fail(f"--suite {args.suite}: no valid problem in it; first bad "
                         f"{first_bad}")
    solver = MateSolver()
    try:
        solver.set_hash(args.hash)
    except MemoryError as exc:
        return _fail(f"--hash {args.hash}: {exc}")
    if args.suite is None:
        result = solver.solve(position, time_ms=args.time_ms, published=not args.strict)
        print(result.usi())
        if result.status == "mate":
            print("# " + length_note(result))
        return 0
    solved = exact = proven = 0
    total_ms = total_nodes = 0
    width = max((len(name) for name, _, _ in problems), default=4)
    print(f"# lengths counted {'strictly (every defence)' if args.strict else 'as published'}"
          f"; a length marked '?' is not proven shortest (a limit came first)")
    print(f"{'problem':<{width}}  result   plies   expected  time_ms       nodes")
    done = 0
    try:
        for number, (name, sfen, published) in enumerate(problems, start=1):
            try:
                position = Position(sfen)
            except ValueError as exc:
                print(f"{name:<{width}}  error: {exc}")
                done = number
                continue
            _progress(f"solving {name} ({number}/{len(problems)})")
            solver.clear()
            result = solver.solve(position, time_ms=args.time_ms, published=not args.strict)
            plies = len(result.pv) if result.status == "mate" else 0
            solved += result.status == "mate"
            exact += result.status == "mate" and plies == published
            proven += result.status == "mate" and result.shortest
            length = f"{plies}{'' if result.shortest else '?'}" if plies else "-"
            total_ms += result.time_ms
            total_nodes += result.nodes
            _progress("")
            print(f"{name:<{width}}  {result.status:<7}  {length:>5}  "
                  f"{published if published is not None else '?':>9}  {result.time_ms:>7}  "
                  f"{result.nodes:>10}", flush=True)
            done = number
    except KeyboardInterrupt:
        # what was solved before Ctrl-C is still worth its summary line
        _progress("")
        print(f"interrupted after {done} of {len(problems)} problems: solved {solved}/{done}, "
              f"expected length matched {exact}, proven shortest {proven}, "
              f"time_ms {total_ms}, nodes {total_nodes}", flush=True)
        raise
    print(f"solved {solved}/{len(problems)}, expected length matched {exact}, "
          f"proven shortest {proven}, "
          f"time_ms {total_ms}, nodes {total_nodes}")
    return 0


def cmd_usi(_args: argparse.Namespace) -> int:
    from usi_engine.usi.loop import main as usi_main
    return usi_main()


def cmd_csa(args: argparse.Namespace) -> int:
    """Play on a CSA server (floodgate) through the bridge in :mod:`usi_engine.csa.bridge`."""
    from usi_engine.csa.bridge import Bridge, ConfigError, build_config
    try:
        config = build_config(args)
    except ConfigError as exc:
        return _fail(str(exc), "csa")
    try:
        bridge = Bridge(config)
    except OSError as exc:
        return _fail(f"cannot write the logs in {config.log_dir}: {exc}", "csa")
    return bridge.run()


def add_csa_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``csa`` sub-command's options (every one may also come from --config)."""
    csa = sub.add_parser(
        "csa", help="play on a CSA server (floodgate) with this or any USI engine",
        description="Log in to a CSA server (floodgate: --host wdoor.c.u-tokyo.ac.jp "
                    "--game floodgate-300-10F), accept the games it proposes and play them "
                    "with this engine or any USI engine (--engine), sending floodgate's "
                    "'* score/PV comments. Every setting may come from a TOML file "
                    "(--config); the password best from the CSA_PASSWORD environment "
                    "variable. The console and a log folder (--log-dir) show every line "
                    "sent and received (the LOGIN line's password masked) and a CSA record "
                    "of each game. A failed connection or login is retried with a back-off "
                    "from 5 s to 5 min, 8 times (about 15 minutes; --retries) before giving "
                    "up; the first failure says so at once. A server name that does not "
                    "resolve is an error at once. Exit code 0 when the games were "
                    "played, 1 when it gave up, 2 for bad settings, 130 for Ctrl-C "
                    "(which resigns a game in progress and logs out).",
        epilog="See docs/floodgate.md for a first game on floodgate.")
    csa.add_argument("--host", help="server name or address (floodgate: wdoor.c.u-tokyo.ac.jp)")
    csa.add_argument("--port", type=int, help="server port (default 4081)")
    csa.add_argument("--id", help="login name")
    csa.add_argument("--password", help="password (better: the config file or the "
                     "CSA_PASSWORD environment variable; a command line is visible to others)")
    csa.add_argument("--password-env", help="environment variable holding the password "
                     "(default CSA_PASSWORD)")
    csa.add_argument("--game", help="game name sent with the login, e.g. floodgate-300-10F")
    csa.add_argument("--games", type=int, help="games to play in a row (default 1)")
    csa.add_argument("--keep-alive", type=float, help="seconds between keep-alive empty "
                     "lines (default 30; 0 = none)")
    csa.add_argument("--margin-ms", type=int, help="ms kept back on every move for the "
                     "network (default 1000)")
    csa.add_argument("--ponder", action="store_true", help="think on the opponent's time")
    csa.add_argument("--increment-as-byoyomi", action="store_true",
                     help="send a Fischer increment as byoyomi, for engines that know no "
                          "binc/winc (e.g. gpsusi)")
    csa.add_argument("--engine", help="USI engine command line (default: this engine)")
    csa.add_argument("--option", action="append", metavar="NAME=VALUE",
                     help="setoption for the engine (repeatable)")
    csa.add_argument("--log-dir", help="directory of the logs and CSA records (default csa-logs)")
    csa.add_argument("--retries", type=_int_in(0, 1000), metavar="N",
                     help="retries of a failed connection or login before giving up "
                          "(default 8: about 15 minutes; 0: give up at the first failure)")
    csa.add_argument("--config", help="TOML file with the same settings (Python 3.11+)")
    csa.set_defaults(func=cmd_csa, depth=0)


def cmd_convert(args: argparse.Namespace) -> int:
    """Convert a game record (see :mod:`usi_engine.record`)."""
    from usi_engine.record import RecordError, encode_record, read_record, write_records
    try:
        records = read_record(sys.stdin.read() if args.input == "-" else Path(args.input),
                              format=args.from_format)
        text = write_records(records, args.to)
    except RecordError as exc:
        return _fail(str(exc), "convert")
    except OSError as exc:
        return _fail(f"cannot read {args.input}: {exc.strerror or exc}", "convert")
    if args.output:
        try:
            Path(args.output).write_bytes(encode_record(text, args.output))
        except OSError as exc:
            return _fail(f"cannot write {args.output}: {exc.strerror or exc}", "convert")
    else:
        sys.stdout.write(text)
    return 0


def add_convert_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``convert`` sub-command: game records from one format to another."""
    convert = sub.add_parser(
        "convert", help="convert game records (KIF, KI2, CSA, JKF, USI)",
        description="Read a game record (KIF/KIFU, KI2, CSA, JKF, or USI position lines; "
                    "the format from the extension or the text, CP932 or UTF-8) and write "
                    "it in another format: to standard output, or to OUT (.kif/.ki2/.csa "
                    "in CP932, others in UTF-8). Every move is checked for legality; a bad "
                    "record gives one line naming the file and line, and exit code 2. "
                    "'usi' writes one 'position ...' line per game; a CSA file's games are "
                    "written one after another.")
    convert.add_argument("input", metavar="IN", help="the record file ('-': standard input)")
    convert.add_argument("--to", required=True, choices=("usi", "kif", "ki2", "csa", "jkf"),
                         help="the format to write")
    convert.add_argument("--from", dest="from_format",
                         choices=("usi", "kif", "ki2", "csa", "jkf"),
                         help="the input's format (default: from its extension or text)")
    convert.add_argument("-o", "--output", metavar="OUT", help="write to this file")
    convert.set_defaults(func=cmd_convert)


def cmd_gensfen(args: argparse.Namespace) -> int:
    """Self-play training data (see :mod:`usi_engine.training.gensfen`)."""
    from usi_engine.training.gensfen import run
    return run(args)


def add_gensfen_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``gensfen`` sub-command's arguments (the work is in :mod:`usi_engine.training.gensfen`,
    imported only when the command runs)."""
    p = sub.add_parser(
        "gensfen", help="self-play training data (YaneuraOu PackedSfenValue files)",
        description="Play the engine against itself and write every searched position with "
                    "its score, move and game result as 40-byte PackedSfenValue records, in "
                    "batches DIR/batch-NNNNN.psv. Rerunning the same command resumes; the same "
                    "seed and settings give the same bytes whatever the worker count. Last "
                    "line: positions N games G seconds T positions_per_s X.")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--positions", required=True, type=_int_in(1, 10**12), metavar="N",
                   help="positions to generate (rounded up to whole batches)")
    p.add_argument("--seed", type=_int_in(0, 2**63 - 1), default=1, help="random seed (default 1)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=_int_in(1, 10**9), default=None,
                       help="nodes per search (default 4000)")
    limit.add_argument("--depth", type=_int_in(1, 100), default=None,
                       help="depth per search instead of a node count")
    p.add_argument("--workers", type=_int_in(1, 1024), default=os.cpu_count() or 1,
                   help="worker processes (default: the core count)")
    p.add_argument("--batch-positions", type=_int_in(1, 10**8), default=10000, metavar="N",
                   help="records per batch file (default 10000)")
    p.add_argument("--batches", metavar="LIST",
                   help="make only these batches, e.g. 10-19 or 0-4,7 (to share out the work)")
    p.add_argument("--openings", metavar="FILE",
                   help="opening file, one 'startpos moves ...' or SFEN a line (default: "
                        "the opening set shipped in the package, usi_engine/data/openings.txt)")
    p.add_argument("--random-plies", type=_int_in(0, 100), default=4, metavar="N",
                   help="up to N random legal moves after the opening (default 4)")
    p.add_argument("--eval", choices=("hand", "learned"), default="hand",
                   help="evaluation used by the searches (default hand)")
    p.add_argument("--eval-file", metavar="PATH", help="weights for --eval learned")
    p.add_argument("--hash-mb", type=_int_in(1, 4096), default=16, metavar="MB",
                   help="search table per worker in MB (default 16)")
    from usi_engine.cluster.arguments import add_ray_argument
    add_ray_argument(p, "a batch")
    p.set_defaults(func=cmd_gensfen)


def cmd_learn(args: argparse.Namespace) -> int:
    """Train the king-piece evaluation (see :mod:`usi_engine.training.learn`)."""
    from usi_engine.training.learn import main_learn
    try:
        return main_learn(args)
    except ValueError as exc:
        return _fail(str(exc))


def add_learn_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``learn`` sub-command's arguments."""
    p = sub.add_parser(
        "learn", help="train the learned evaluation on PackedSfenValue records",
        description="Fit the king-piece weights to the records' search scores and game "
                    "results (cross-entropy of win probabilities, Adam, mini-batches); the "
                    "last files are held out for validation and its loss is printed each "
                    "epoch, epoch 0 being the starting weights. Writes a weight file for "
                    "the EvalFile option.")
    p.add_argument("data", nargs="+", help="record files, or folders of *.psv / *.bin files")
    p.add_argument("--out", required=True, metavar="FILE", help="weight file to write")
    p.add_argument("--epochs", type=_int_in(1, 10000), default=8,
                   help="passes over the training data (default 8)")
    p.add_argument("--batch-size", type=_int_in(16, 10**7), default=16384,
                   help="positions per step (default 16384)")
    p.add_argument("--lr", type=_float_in(1e-6, 1e4), default=1.0,
                   help="Adam step in centipawns (default 1.0), decayed linearly to 10%%")
    p.add_argument("--lambda", dest="lambda_", type=_float_in(0.0, 1.0), default=0.7,
                   help="weight of the search score against the game result (default 0.7)")
    p.add_argument("--scale", type=_float_in(1.0, 1e5), default=600.0,
                   help="centipawns per unit of log-odds (default 600)")
    p.add_argument("--reg", type=_float_in(0.0, 1e3), default=1e-6,
                   help="L2 pull towards the starting weights (default 1e-6)")
    p.add_argument("--max-score", type=_int_in(1, 32000), default=3000,
                   help="leave out records scored beyond this (default 3000)")
    p.add_argument("--val-fraction", type=_float_in(0.0, 0.9), default=0.05,
                   help="fraction of the files held out for validation (default 0.05)")
    p.add_argument("--seed", type=_int_in(0, 2**63 - 1), default=1,
                   help="random seed of the split, the order and the start (default 1)")
    p.add_argument("--init", default="hand",
                   help="starting weights: hand (the hand-written evaluation; the default) or a weight file")
    p.set_defaults(func=cmd_learn)


def cmd_learn_net(args: argparse.Namespace) -> int:
    """Train the network on top of the king-piece table: the square head
    (:mod:`usi_engine.training.learn_net`) or the layered one (``learn_layers``)."""
    from usi_engine.eval import kp
    from usi_engine.training.learn_layers import train_layers
    from usi_engine.training.learn_net import NetConfig, train_net
    head = args.head
    hidden = args.hidden or (kp.HIDDEN if head == "square" else 128)
    if head == "square" and hidden != kp.HIDDEN:
        return _fail(f"the square head is {kp.HIDDEN} wide (--hidden goes with --head layers)")
    train = train_layers if head == "layers" else train_net
    try:
        cfg = NetConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                        out_lr=args.out_lr, lambda_=args.lambda_, scale=args.scale,
                        max_score=args.max_score, val_fraction=args.val_fraction,
                        seed=args.seed, init=args.init or "", hidden=hidden)
        train(args.data, args.out, cfg, log=lambda line: print(line, flush=True))
    except ValueError as exc:
        return _fail(str(exc))
    return 0


def add_learn_net_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``learn-net`` sub-command's arguments."""
    p = sub.add_parser(
        "learn-net", help="train the network of the learned evaluation (numpy)",
        description="Fit a KP table and the small network on top of it (a 32-wide "
                    "accumulator per king, squared clipped ReLU, one output) to the "
                    "records' search scores and game results, as learn does. Writes a "
                    "network file for the EvalFile option after every epoch.")
    p.add_argument("data", nargs="+", help="record files, or folders of *.psv / *.bin files")
    p.add_argument("--out", required=True, metavar="FILE", help="network file to write")
    p.add_argument("--epochs", type=_int_in(1, 10000), default=4,
                   help="passes over the training data (default 4)")
    p.add_argument("--batch-size", type=_int_in(16, 10**7), default=8192,
                   help="positions per step (default 8192)")
    p.add_argument("--lr", type=_float_in(1e-8, 10.0), default=1e-3,
                   help="Adam step of the first layer (default 0.001), decayed to 10%%")
    p.add_argument("--out-lr", type=_float_in(1e-6, 1e4), default=0.5,
                   help="Adam step of the output layer and KP table in cp (default 0.5)")
    p.add_argument("--lambda", dest="lambda_", type=_float_in(0.0, 1.0), default=0.7,
                   help="weight of the search score against the game result (default 0.7)")
    p.add_argument("--scale", type=_float_in(1.0, 1e5), default=600.0,
                   help="centipawns per unit of log-odds (default 600)")
    p.add_argument("--max-score", type=_int_in(1, 32000), default=3000,
                   help="leave out records scored beyond this (default 3000)")
    p.add_argument("--val-fraction", type=_float_in(0.0, 0.9), default=0.05,
                   help="fraction of the files held out for validation (default 0.05)")
    p.add_argument("--seed", type=_int_in(0, 2**63 - 1), default=1,
                   help="random seed of the split, the order and the start (default 1)")
    p.add_argument("--init", default=None,
                   help="KP table to start from with a new network (default: the one "
                        "shipped), or a network file to go on training")
    p.add_argument("--head", choices=("square", "layers"), default="square",
                   help="square: the 32-wide network of kpnn.bin (default); layers: the "
                        "NNUE-style head, two int8 layers of 32 over wider accumulators")
    p.add_argument("--hidden", type=_int_in(32, 256), default=None,
                   help="accumulator width of --head layers, a multiple of 32 (default 128)")
    p.set_defaults(func=cmd_learn_net)


def cmd_relabel(args: argparse.Namespace) -> int:
    """Relabel records with a USI teacher's scores (see :mod:`usi_engine.training.relabel`)."""
    from usi_engine.training.relabel import run
    return run(args)


def add_relabel_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``relabel`` sub-command's arguments."""
    # The defaults of usi_engine.training.relabel (not imported here: it loads numpy).
    DEFAULT_GO, DEFAULT_MAX_SCORE, DEFAULT_TIMEOUT_S = "go btime 0 wtime 0 byoyomi 100", 3000, 30.0
    p = sub.add_parser(
        "relabel", help="replace the records' scores by a USI engine's (a teacher)",
        description="Ask a USI engine for its score of every record's position and write "
                    "the records with that score (side to move; mate N as +-(32000 - N)) "
                    "to DIR, one file per input file with the same name, for usi-engine "
                    "learn. Files already in DIR are skipped (a rerun resumes). Records the "
                    "teacher gives no score for are dropped. Last line: records N "
                    "relabelled M dropped D seconds T records_per_s X. Exit code 1 when a "
                    "file failed (its reason on stderr).")
    p.add_argument("data", nargs="+", help="record files, or folders of *.psv / *.bin files")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--engine", required=True, metavar="CMD",
                   help="the teacher's command line, e.g. '/usr/games/gpsusi "
                        "--node-count-hard-limit 3000'")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="setoption for the teacher before isready (repeatable)")
    p.add_argument("--go", default=DEFAULT_GO, metavar="LINE",  # relabel.DEFAULT_GO
                   help=f"the go command sent for each position (default '{DEFAULT_GO}'; "
                        "e.g. 'go depth 6' or 'go nodes 20000' where the teacher knows them)")
    p.add_argument("--workers", type=_int_in(1, 1024), default=os.cpu_count() or 1,
                   help="worker processes, one teacher each (default: the core count)")
    p.add_argument("--timeout-s", type=_float_in(0.05, 1e6), default=DEFAULT_TIMEOUT_S,
                   metavar="S", help="seconds a position may take before 'stop' (default "
                                     f"{DEFAULT_TIMEOUT_S:g}); then the teacher is restarted")
    p.add_argument("--quiet-only", action="store_true",
                   help="drop, unasked, the records whose stored move captures or whose "
                        "stored |score| is beyond --max-score (the trainer leaves those out)")
    p.add_argument("--max-score", type=_int_in(0, 32000), default=None,
                   help=f"with --quiet-only (default {DEFAULT_MAX_SCORE})")
    p.add_argument("--score-factor", type=_float_in(0.0, 100.0), default=1.0, metavar="F",
                   help="multiply the teacher's centipawns (not mates) by F (default 1)")
    p.add_argument("--limit", type=_int_in(1, 10**12), default=None, metavar="N",
                   help="at most the first N records of each file")
    from usi_engine.cluster.arguments import add_ray_argument
    add_ray_argument(p, "a file")
    p.set_defaults(func=cmd_relabel)


def cmd_book(args: argparse.Namespace) -> int:
    """Opening books (see :mod:`usi_engine.book.tools`)."""
    from usi_engine.book.tools import main_book
    if args.action is None:
        return _fail("book needs an action: convert, merge, sort, think or from-records", "book")
    try:
        return main_book(args)
    except OSError as exc:
        if exc.filename is None:
            return _fail(str(exc), "book")
        inputs = [str(path) for path in
                  [getattr(args, "input", None), *(getattr(args, "inputs", None) or [])]
                  if path is not None]
        verb = "cannot read" if str(exc.filename) in inputs else "cannot write"
        return _fail(f"{verb} {exc.filename}: {exc.strerror or exc}", "book")
    except ValueError as exc:
        return _fail(str(exc), "book")


def cmd_analyze(args: argparse.Namespace) -> int:
    """Game analysis (see :mod:`usi_engine.analysis.cli`)."""
    from usi_engine.analysis.cli import main_analyze
    return main_analyze(args)


def add_analyze_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``analyze`` sub-command's arguments."""
    from usi_engine.analysis.cli import add_analyze_parser as add
    add(sub, _int_in)
    sub.choices["analyze"].set_defaults(func=cmd_analyze)


def add_book_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``book`` sub-command's arguments."""
    p = sub.add_parser(
        "book", help="opening books: convert, merge, sort, think, from-records",
        description="Make and change opening books: YaneuraOu's text books (.db; any "
                    "name not ending in .bin) and Apery's binary books (.bin), chosen by "
                    "the file name. Progress on stderr when it is a terminal.")
    actions = p.add_subparsers(dest="action", title="actions", parser_class=_Parser)
    convert = actions.add_parser(
        "convert", help=".db to .bin or .bin to .db",
        description="Convert a book. A .bin holds keys, not positions: reading one walks "
                    "the tree from the start position (or --root) through every legal "
                    "move, one ply past the book's positions.")
    convert.add_argument("input")
    convert.add_argument("output")
    convert.add_argument("--root", metavar="SFEN", help="where a .bin's tree starts")
    merge = actions.add_parser(
        "merge", help="merge books (counts summed, the deeper value kept)")
    merge.add_argument("inputs", nargs="+")
    merge.add_argument("--out", dest="output", required=True, metavar="FILE")
    sort = actions.add_parser(
        "sort", help="sort a text book for BookOnTheFly (in place unless --out)",
        description="Rewrite a text book sorted by SFEN (byte order), each position once "
                    "at its smallest ply, canonical hands, moves by count then value.")
    sort.add_argument("input")
    sort.add_argument("--out", dest="output", metavar="FILE")
    think = actions.add_parser(
        "think", help="search each position and write values and depths",
        description="Search each position of a book (.db/.bin), each position of the "
                    "first --plies plies of an opening file (lines 'startpos moves ...' or "
                    "'sfen ... moves ...'), or the start position (input 'startpos'), to "
                    "--depth with MultiPV --multipv, and write each line's move, reply, "
                    "value and depth to --out. With --expand-plies N, then search the "
                    "positions after every move the book would play (within BookEvalDiff "
                    "30 of the best, BookEvalBlackLimit 0, BookEvalWhiteLimit -140), "
                    "breadth first, up to ply N and --max-positions positions. Resumable: "
                    "positions already in --out at that depth are skipped; --out is saved "
                    "every --save-every seconds.")
    think.add_argument("input")
    think.add_argument("--out", dest="output", required=True, metavar="FILE")
    think.add_argument("--depth", type=_int_in(1, 64), default=12,
                       help="search depth of each position (default 12)")
    think.add_argument("--multipv", type=_int_in(1, 64), default=4,
                       help="lines searched and written for each position (default 4)")
    think.add_argument("--plies", type=_int_in(0, 1000), default=16,
                       help="of an opening file: plies from each line's start (default 16)")
    think.add_argument("--expand-plies", type=_int_in(0, 1000), default=0, metavar="N",
                       help="follow the book's playable moves up to ply N (default 0: no)")
    think.add_argument("--max-positions", type=_int_in(1, 10**8), default=100000,
                       metavar="N", help="with --expand-plies: at most N positions "
                                         "(default 100000)")
    think.add_argument("--workers", type=_int_in(1, 1024), default=1,
                       help="worker processes, one single-threaded search each (default 1)")
    think.add_argument("--hash", type=_int_in(1, MAX_HASH_MB), default=64, metavar="MB",
                       help="table size per worker in MB (default 64)")
    think.add_argument("--eval-file", metavar="PATH", help="weights (default: those shipped)")
    think.add_argument("--save-every", type=_float_in(1.0, 1e6), default=60.0, metavar="S",
                       help="seconds between saves of --out (default 60)")
    from usi_engine.cluster.arguments import add_ray_argument
    add_ray_argument(think, "a position")
    records = actions.add_parser(
        "from-records", help="a book of the moves played in games",
        description="Count each (position, move) of the games: USI 'position' lines "
                    "('[position] startpos|sfen ... moves ...', one game a line), or game "
                    "records (.kif/.kifu/.ki2/.csa/.jkf, main lines). Values and depths are "
                    "0 (set BookDepthLimit 0 to play such a book, or run book think on it).")
    records.add_argument("inputs", nargs="+")
    records.add_argument("--out", dest="output", required=True, metavar="FILE")
    records.add_argument("--winner-only", action="store_true",
                         help="only the winner's moves (games without a known winner "
                              "are skipped: a record's result, or a position line ending "
                              "in mate)")
    records.add_argument("--max-ply", type=_int_in(1, 100000), default=40, metavar="N",
                         help="only moves played from positions of ply <= N (default 40)")
    p.set_defaults(func=cmd_book)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``usi-engine perft: error: ...`` and exit 2
    (the usage is in --help)."""

    def error(self, message: str) -> "NoReturn":  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _ascii_int(text: str) -> int:
    digits = text[1:] if text[:1] in "+-" else text
    if not digits or not all(ch in "0123456789" for ch in digits):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}")
    return int(text)


def _ascii_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None


def _bounded(convert: Callable[[str], Any], low: Any, high: Any, name: str
             ) -> Callable[[str], Any]:
    """An argparse type: convert(text), which must lie from low to high (NaN never does)."""
    def parse(text: str) -> Any:
        value = convert(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {text[:40]}")
        return value
    parse.__name__ = name
    return parse


def _int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer (ASCII digits) from low to high."""
    return _bounded(_ascii_int, low, high, "integer")


def _float_in(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number from low to high."""
    return _bounded(_ascii_float, low, high, "number")


def build_parser() -> argparse.ArgumentParser:
    from usi_engine.mate.suites import STRICT_MARK
    parser = _Parser(
        prog="usi-engine",
        description="A shogi engine speaking USI. Without a command it runs the USI loop "
                    "on stdin/stdout (register the usi-engine executable in a GUI); the "
                    "commands below count and time (perft, bench), solve tsume (mate), "
                    "play on a CSA server (csa), make and learn from training data "
                    "(gensfen, relabel, learn, learn-net), handle books (book), convert "
                    "and analyse game records (convert, analyze).",
        epilog="Bad arguments: one line on stderr and exit code 2. Ctrl-C: exit code "
               "130. Output piped into a reader that stops early (usi-engine bench | "
               "head -1): the command stops quietly with exit code 141 (128 + SIGPIPE).")
    parser.add_argument("--version", action="version", version=f"usi_engine {__version__}")
    sub = parser.add_subparsers(dest="command", title="commands", parser_class=_Parser)
    perft = sub.add_parser(
        "perft", help="count leaf positions (legal moves only)",
        description="Count the positions DEPTH plies ahead (legal moves only). Last line: "
                    "nodes N time_ms T nps X. From depth 7 on a terminal, progress is shown "
                    "on stderr.")
    perft.add_argument("depth", type=_int_in(0, MAX_PERFT_DEPTH),
                       help=f"plies to look ahead, 0 to {MAX_PERFT_DEPTH} (5 takes about "
                            "0.2 s from the start position, each ply about 25 times more)")
    perft.add_argument("--sfen", help="start from this SFEN (or 'startpos moves ...') "
                                      "instead of the initial position")
    perft.add_argument("--divide", action="store_true", help="print the count below each move")
    perft.set_defaults(func=cmd_perft)
    mate = sub.add_parser(
        "mate", help="solve a tsume: prints the USI checkmate line",
        description="Solve a tsume (the side to move attacks): prints one line as USI's "
                    "'checkmate <moves>', 'checkmate nomate' or 'checkmate timeout', and "
                    "after a mate a line '# mate in N plies: proven shortest, ...' or '... "
                    "not proven shortest ...' (with a time limit the solver may stop before "
                    "it has ruled out shorter mates and settled the longest defences: more "
                    "time may then give another length). With --suite, a line per problem "
                    "(a length marked '?' is not proven shortest) and a summary (progress "
                    "on a terminal).")
    mate.add_argument("sfen", nargs="*",
                      help="the position: an SFEN, 'sfen <SFEN>' or 'startpos', optionally "
                           "followed by 'moves ...' (quote it or not)")
    mate.add_argument("--time-ms", type=_int_in(1, MAX_TIME_MS), default=None, metavar="MS",
                      help="time limit per problem in ms (default: none: the solver runs "
                           "until it proves a mate or that there is none)")
    mate.add_argument("--suite", metavar="FILE",
                      help="solve every problem of a file of 'name | sfen | length' lines")
    mate.add_argument("--hash", type=_int_in(1, MAX_HASH_MB), default=256, metavar="MB",
                      help=f"solver table size in MB, 1 to {MAX_HASH_MB} (default 256)")
    mate.add_argument("--strict", action="store_true",
                      help="count every defence, useless interpositions too (default: "
                           "as published tsume lengths, which pass over them; a suite "
                           f"whose comments say '{STRICT_MARK}' is counted strictly)")
    mate.set_defaults(func=cmd_mate)
    bench = sub.add_parser(
        "bench", help="fixed positions to a fixed depth (node count signature)",
        description="Search the fixed bench positions to a fixed depth with a 16 MB table. "
                    "Last line: nodes N time_ms T nps X; N is the same for the same code.")
    bench.add_argument("--depth", type=_int_in(1, MAX_BENCH_DEPTH), default=BENCH_DEPTH,
                       help=f"search depth per position, 1 to {MAX_BENCH_DEPTH} "
                            f"(default {BENCH_DEPTH})")
    bench.add_argument("--eval", choices=("learned", "hand"), default="learned",
                       help="evaluation: learned (the EvalFile weights, default) or hand")
    bench.add_argument("--eval-file", metavar="PATH",
                       help="weights for --eval learned (default: those shipped)")
    bench.set_defaults(func=cmd_bench)
    add_csa_parser(sub)
    add_gensfen_parser(sub)
    add_learn_parser(sub)
    add_learn_net_parser(sub)
    add_relabel_parser(sub)
    add_book_parser(sub)
    add_analyze_parser(sub)
    add_convert_parser(sub)
    return parser


def _break_is_interrupt() -> None:
    """On Windows, Ctrl-Break (CTRL_BREAK_EVENT, which is all a parent can send to a
    process group of its own) stops a command as Ctrl-C does, not by killing it."""
    import signal
    import threading
    ctrl_break = getattr(signal, "SIGBREAK", None)      # Windows only
    if ctrl_break is not None and threading.current_thread() is threading.main_thread():
        signal.signal(ctrl_break, signal.default_int_handler)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    _break_is_interrupt()
    if not argv:
        return cmd_usi(argparse.Namespace())
    args = build_parser().parse_args(argv)
    if args.command is None:
        return cmd_usi(args)
    try:
        code = args.func(args)
        sys.stdout.flush()      # here, not at exit, so that a closed pipe is caught
        return code
    except KeyboardInterrupt:
        _progress("")
        print("usi-engine: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:
        if not is_closed_pipe(exc):
            raise
        _drop_stdout()
        return EXIT_BROKEN_PIPE


def is_closed_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` is what writing to a pipe whose reader is gone raises:
    BrokenPipeError (EPIPE) on POSIX; on Windows also a plain OSError with EINVAL
    (the C runtime's answer to a write on a closed pipe)."""
    if isinstance(exc, BrokenPipeError):
        return True
    return (sys.platform == "win32" and isinstance(exc, OSError)
            and exc.errno == errno.EINVAL)


def _drop_stdout() -> None:
    """The reader of stdout is gone: point stdout at /dev/null so that nothing more
    (Python's flush at exit included) fails or prints a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
