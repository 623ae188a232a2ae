"""``usi-engine mate``: solve a tsume, or a suite of them."""
from __future__ import annotations

import argparse
from typing import Any

from usi_engine.cli.common import MAX_HASH_MB, MAX_TIME_MS, fail, progress_note, int_in


def cmd_mate(args: argparse.Namespace) -> int:
    """Solve one tsume (prints the USI `checkmate ...` line) or a suite (a progress line
    per problem and a summary)."""
    from usi_engine.mate.solver import MateSolver
    from usi_engine.mate.report import length_note
    from usi_engine.core.position import Position

    # Read and check the input before allocating the table (256 MB by default).
    if args.check and args.suite is not None:
        return fail("--check takes one SFEN, not --suite")
    if args.suite is None:
        if not args.sfen:
            return fail("give an SFEN (or startpos/sfen ... [moves ...]) or --suite FILE")
        text = " ".join(args.sfen).strip()
        if text.startswith("position "):
            text = text[len("position "):]      # the whole USI command pasted
        try:
            position = Position(text)
        except ValueError as exc:
            return fail(str(exc))
    else:
        if args.sfen:
            return fail("give either an SFEN or --suite FILE, not both")
        from usi_engine.mate.suites import read_fields, read_tsume_suite, suite_is_strict
        try:
            # name | sfen | length lines (usi_engine.mate.suites); a suite whose comments
            # hold STRICT_MARK counts every defence in its lengths
            problems = [(p.name, p.sfen, p.length) for p in read_tsume_suite(args.suite)]
            lines = [(number, " | ".join(parts))                       # the same lines
                     for number, parts in read_fields(args.suite)]
            args.strict = args.strict or suite_is_strict(args.suite)
        except (OSError, UnicodeDecodeError) as exc:
            return fail(f"--suite {args.suite}: cannot read it as a text file ({exc})")
        except ValueError as exc:
            return fail(f"--suite {args.suite}: {exc}")
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
                return fail(f"--suite {args.suite}: no problem in it (expected "
                             "'name | sfen | length' lines)")
            return fail(f"--suite {args.suite}: no valid problem in it; first bad "
                         f"{first_bad}")
    solver = MateSolver()
    try:
        solver.set_hash(args.hash)
    except MemoryError as exc:
        return fail(f"--hash {args.hash}: {exc}")
    if args.suite is None:
        result = solver.solve(position, **_solve_options(args, position))
        print(result.usi())
        if result.status == "mate":
            print("# " + length_note(result))
            if args.check and len(result.pv) % 2 == 0:
                print("# --check: not run, the side to move defends (a composition's "
                      "check starts with the attacker's move)")
            elif args.check:
                from usi_engine.mate.check import check_composition, report_lines
                report = check_composition(position, result.pv, nodes=args.check_nodes,
                                           solver=solver)
                for line in report_lines(report):
                    print("# " + line)
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
            progress_note(f"solving {name} ({number}/{len(problems)})")
            solver.clear()
            result = solver.solve(position, **_solve_options(args, position))
            plies = len(result.pv) if result.status == "mate" else 0
            solved += result.status == "mate"
            exact += result.status == "mate" and plies == published
            proven += result.status == "mate" and result.shortest
            length = f"{plies}{'' if result.shortest else '?'}" if plies else "-"
            total_ms += result.time_ms
            total_nodes += result.nodes
            progress_note("")
            print(f"{name:<{width}}  {result.status:<7}  {length:>5}  "
                  f"{published if published is not None else '?':>9}  {result.time_ms:>7}  "
                  f"{result.nodes:>10}", flush=True)
            done = number
    except KeyboardInterrupt:
        # what was solved before Ctrl-C is still worth its summary line
        progress_note("")
        print(f"interrupted after {done} of {len(problems)} problems: solved {solved}/{done}, "
              f"expected length matched {exact}, proven shortest {proven}, "
              f"time_ms {total_ms}, nodes {total_nodes}", flush=True)
        raise
    print(f"solved {solved}/{len(problems)}, expected length matched {exact}, "
          f"proven shortest {proven}, "
          f"time_ms {total_ms}, nodes {total_nodes}")
    return 0


def _solve_options(args: argparse.Namespace, position: Any) -> dict[str, Any]:
    """MateSolver.solve's options from the command line's, for this position."""
    from usi_engine.mate.solver import defender_moves_first
    return dict(time_ms=args.time_ms, nodes=args.nodes, published=not args.strict,
                shortest=args.post_search != "None",
                upper_bound=args.post_search == "UpperBound",
                defender_first=defender_moves_first(position, not args.checked_side_attacks))


def add_mate_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``mate`` command's arguments."""
    from usi_engine.mate.suites import STRICT_MARK
    mate = sub.add_parser(
        "mate", help="solve a tsume: prints the USI checkmate line",
        description="Solve a tsume (the side to move attacks, unless it alone has a "
                    "king or is in check: see --checked-side-attacks): prints one line as USI's "
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
    mate.add_argument("--time-ms", type=int_in(1, MAX_TIME_MS), default=None, metavar="MS",
                      help="time limit per problem in ms (default: none: the solver runs "
                           "until it proves a mate or that there is none)")
    mate.add_argument("--nodes", type=int_in(1, 10**15), default=0, metavar="N",
                      help="node limit per problem (default: none), as 'go nodes N mate'")
    mate.add_argument("--post-search", choices=("None", "UpperBound", "MinLength"),
                      default="MinLength",
                      help="once a mate is found (KomoringHeights' PostSearchLevel): None "
                           "stops at it, UpperBound at the first line as long as its proof "
                           "allows, MinLength (default) proves the shortest mate against the "
                           "longest defence")
    mate.add_argument("--checked-side-attacks", action="store_true",
                      help="with both kings and the side to move in check, it attacks "
                           "(parrying with a check); by default it defends, and the line "
                           "begins with its reply (as RootIsAndNodeIfChecked true); with one "
                           "king its owner always defends")
    mate.add_argument("--suite", metavar="FILE",
                      help="solve every problem of a file of 'name | sfen | length' lines")
    mate.add_argument("--hash", type=int_in(1, MAX_HASH_MB), default=256, metavar="MB",
                      help=f"solver table size in MB, 1 to {MAX_HASH_MB} (default 256)")
    mate.add_argument("--strict", action="store_true",
                      help="count every defence, useless interpositions too (default: "
                           "as published tsume lengths, which pass over them; a suite "
                           f"whose comments say '{STRICT_MARK}' is counted strictly)")
    mate.add_argument("--check", action="store_true",
                      help="a composer's check once the mate is found: shorter and other "
                           "mates at the attacker's turns of the main line (hayazume, "
                           "yozume), defences after which the mate is longer (the length is "
                           "then not the published one), and as notes equal variations "
                           "(henka dotesu) and other mating last moves, each printed with "
                           "its line; detours back to the main line and useless "
                           "interpositions are passed over")
    mate.add_argument("--check-nodes", type=int_in(1000, 10**9), default=200_000,
                      metavar="N", help="the df-pn budget of each question of --check "
                                        "(default 200000); what it leaves open is counted "
                                        "as undecided")
    mate.set_defaults(func=cmd_mate)

