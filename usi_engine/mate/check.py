"""A composer's check of a tsume: once its mate is known, look for the flaws that a
composition must not have (KomoringHeights' YozumeNodeCount/YozumePath did this):

* 余詰 (an alternative mate): at an attacker's turn on the main line, another check
  that also mates; at the last move, another mating move (最終手余詰);
* a longer defence: at a defender's turn, another reply after which the mate takes
  longer than the main line (the length is then not the published one);
* 変化同手数 (an equal variation): another reply after which the mate is exactly as
  long: not a flaw by the usual rules, said so that the composer may look.

Each finding carries the line that shows it. Every sub-question is a bounded df-pn
solve (``nodes`` each), so a finding is a proved mate; what could not be decided within
the bound is counted as undecided, never reported as sound. As the published
convention has it, a detour (迂回: an alternative that comes back to a position of the
main line) is no alternative mate, and a useless interposition (無駄合: a drop taken at
once that only lengthens the mate by those two plies) no longer defence.

    >>> from usi_engine.core.position import Position
    >>> report = check_composition(Position("sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1"),
    ...                            [Position("sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1").parse_usi("G*5b")])
    >>> report.findings, report.undecided
    ([], 0)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from usi_engine.core.position import Position, move_to_usi
from usi_engine.mate.solver import MateSolver

#: The df-pn budget of each sub-question (a mate after one move or reply).
DEFAULT_NODES = 200_000


@dataclass
class Finding:
    """One flaw (or note): its kind, the ply of the main line where it branches (1 =
    the first move), and the line from there that shows it (USI moves)."""

    kind: str            # "alternative mate", "alternative last move", "longer defence",
    #                      "equal variation"
    ply: int
    line: list[str]

    def text(self) -> str:
        return f"{self.kind} at ply {self.ply}: {' '.join(self.line)}"


@dataclass
class CheckReport:
    findings: list[Finding] = field(default_factory=list)
    undecided: int = 0   # sub-questions that the node bound left open
    questions: int = 0


def _mate_after(solver: MateSolver, position: Position, nodes: int) -> tuple[str, list[int]]:
    """('mate', line) for the side to move (the attacker), else ('nomate' or
    'timeout', []). A stop() of the solver ends every question from then on."""
    result = solver.solve(position, nodes=nodes, shortest=True, clear_stop=False)
    return result.status, list(result.pv) if result.status == "mate" else []


def _mates_by_every_reply(solver: MateSolver, after_check: Position, nodes: int,
                          report: CheckReport) -> tuple[str, list[int]]:
    """Whether the attacker mates whatever the defender replies to the check just
    played: ('mate', the longest reply's line), ('nomate', []) or ('timeout', [])."""
    replies = after_check.legal_moves()
    if not replies:
        return "mate", []
    longest: list[int] = []
    for reply in replies:
        position = after_check.copy()
        position.push(reply)
        report.questions += 1
        status, line = _mate_after(solver, position, nodes)
        if status != "mate":
            return status, []
        if len(line) + 1 > len(longest):
            longest = [reply] + line
    return "mate", longest


def _board(position: Position) -> str:
    """A position's SFEN without its move number (the same position at any ply)."""
    return position.sfen().rsplit(" ", 1)[0]


def _reaches(position: Position, line: list[int], boards: set[str]) -> bool:
    """Does playing `line` from `position` pass through one of `boards`?"""
    walk = position.copy()
    for move in line:
        walk.push(move)
        if _board(walk) in boards:
            return True
    return False


def check_composition(start: Position, main_line: list[int], nodes: int = DEFAULT_NODES,
                      solver: MateSolver | None = None,
                      clear_stop: bool = True) -> CheckReport:
    """The flaws of the tsume `start` whose mate is `main_line` (moves as ints). The
    solver's stop() (from another thread) ends the check: what it found is kept, the
    rest counted undecided (clear_stop=False: a stop that came already counts)."""
    if solver is None:
        solver = MateSolver()
    if clear_stop:
        solver.clear_stop()
    report = CheckReport()
    position = start.copy()
    boards = []
    walk = start.copy()
    for move in main_line:
        walk.push(move)
        boards.append(_board(walk))
    total = len(main_line)
    for ply, played in enumerate(main_line, start=1):
        if ply % 2 == 1:
            _alternative_checks(solver, position, played, ply, total, nodes, report,
                                set(boards[ply - 1:]))
        else:
            _alternative_defences(solver, position, played, ply, total, nodes, report)
        position.push(played)
    return report


def _alternative_checks(solver: MateSolver, position: Position, played: int, ply: int,
                        total: int, nodes: int, report: CheckReport,
                        main_boards: set[str]) -> None:
    for move in position.checks():
        if move == played:
            continue
        after = position.copy()
        after.push(move)
        status, line = _mates_by_every_reply(solver, after, nodes, report)
        if status == "timeout":
            report.undecided += 1
        elif status == "mate" and not _reaches(after, line, main_boards):
            kind = "alternative last move" if ply == total else "alternative mate"
            report.findings.append(Finding(kind, ply, [move_to_usi(m)
                                                       for m in [move] + line]))


def _alternative_defences(solver: MateSolver, position: Position, played: int, ply: int,
                          total: int, nodes: int, report: CheckReport) -> None:
    remaining = total - ply          # the main line's plies after this reply
    for reply in position.legal_moves():
        if reply == played:
            continue
        after = position.copy()
        after.push(reply)
        report.questions += 1
        status, line = _mate_after(solver, after, nodes)
        if status != "mate":
            report.undecided += 1   # (a defence that escapes would make it no tsume)
            continue
        if _useless_interposition(reply, line, remaining):
            continue
        if len(line) > remaining:
            kind = "longer defence"
        elif len(line) == remaining:
            kind = "equal variation"
        else:
            continue
        report.findings.append(Finding(kind, ply, [move_to_usi(m) for m in [reply] + line]))


def _useless_interposition(reply: int, line: list[int], remaining: int) -> bool:
    """A drop that the attacker takes at once, the mate two plies longer for it."""
    # (moves are destination | origin << 7 | promotion << 14; origins 81..87 are drops)
    if (reply >> 7) & 127 < 81 or not line or len(line) != remaining + 2:
        return False
    return reply & 127 == line[0] & 127


def report_lines(report: CheckReport) -> list[str]:
    """The report as lines for a console or ``info string``."""
    lines = [finding.text() for finding in report.findings]
    flaws = [f for f in report.findings if f.kind != "equal variation"]
    summary = (f"composition check: {len(flaws)} flaw(s), "
               f"{len(report.findings) - len(flaws)} equal variation(s), "
               f"{report.questions} questions, {report.undecided} undecided")
    return lines + [summary]

