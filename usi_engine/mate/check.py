"""A composer's check of a tsume: once its mate is known, look for the flaws that a
composition must not have (KomoringHeights' YozumeNodeCount/YozumePath did this).

The attacker mates in the fewest moves and the defender makes it last longest, with
the lengths counted as published (a useless interposition, 無駄合, a drop taken at once,
does not count). So, at each turn of the main line:

* attacker's turns: another check that mates in fewer moves than the main line from
  there (**shorter mate**, 早詰: the length is wrong) or in as many (**alternative
  mate**, 余詰). Another mating last move (**alternative last move**, 最終手余詰) is
  a note, as the usual rules have it. A longer mate is no flaw (the attacker would not
  choose it), nor a detour (迂回) that comes back to a position of the main line;
* defender's turns: another reply after which the mate takes longer (**longer
  defence**: the main line is not the longest defence) or exactly as long (**equal
  variation**, 変化同手数: a note, not a flaw).

Each finding carries the line that shows it. Every question is a bounded df-pn solve
(``nodes`` each): a finding rests on a proved mate (and, where its length decides, on
a length proved shortest); what the bound leaves open is counted as undecided, never
reported either way.

    >>> from usi_engine.core.position import Position
    >>> start = Position("sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1")
    >>> report = check_composition(start, [start.parse_usi("G*5b")])
    >>> report.findings, report.undecided
    ([], 0)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from usi_engine.core.position import Position, move_to_usi
from usi_engine.mate.solver import MateSolver

#: The df-pn budget of each question (a mate after one move or reply).
DEFAULT_NODES = 200_000
FLAWS = ("shorter mate", "alternative mate", "longer defence")
#: what is said but is no flaw by the usual rules
NOTES = ("alternative last move", "equal variation")


@dataclass
class Finding:
    """One flaw (or note): its kind, the ply of the main line where it branches (1 =
    the first move), and the line from there that shows it (USI moves)."""

    kind: str            # one of FLAWS or NOTES
    ply: int
    line: list[str]

    def text(self) -> str:
        return f"{self.kind} at ply {self.ply}: {' '.join(self.line)}"


@dataclass
class CheckReport:
    findings: list[Finding] = field(default_factory=list)
    undecided: int = 0   # questions that the node bound left open
    questions: int = 0


@dataclass
class _Mate:
    line: list[int]      # the mating line (moves as ints); [] with no mate
    proved: bool         # a mate was proved
    open: bool           # neither a mate nor its absence was proved within the bound
    shortest: bool       # its length is proved the shortest against the longest defence
    length: int = -1     # its length as published (-1: the line's)

    def plies(self) -> int:
        return len(self.line) if self.length < 0 else self.length


def _mate_after(solver: MateSolver, position: Position, nodes: int,
                report: CheckReport) -> _Mate:
    """The attacker's (side to move's) mate from `position`. A stop() of the solver
    ends every question from then on."""
    report.questions += 1
    result = solver.solve(position, nodes=nodes, shortest=True, clear_stop=False)
    if result.status != "mate":
        return _Mate([], False, result.status == "timeout", False)
    line = list(result.pv)
    return _Mate(line, True, False, result.shortest, published_length(line, False))


def _taken_at_once(drop: int, reply: int) -> bool:
    # (moves are destination | origin << 7 | promotion << 14; origins 81..87 are drops)
    return (drop >> 7) & 127 >= 81 and drop & 127 == reply & 127


def published_length(line: list[int], defender_first: bool) -> int:
    """The plies of a mating line as published: a useless interposition (a defender's
    drop that the attacker's next move takes) and that capture are not counted.

    >>> from usi_engine.core.position import usi_to_move
    >>> published_length([usi_to_move(m) for m in "R*1a P*1b 1a1b".split()], False)
    1
    """
    plies = len(line)
    for k in range(0 if defender_first else 1, len(line) - 1, 2):
        if _taken_at_once(line[k], line[k + 1]):
            plies -= 2
    return plies


def _mate_by_every_reply(solver: MateSolver, after_check: Position, nodes: int,
                         report: CheckReport) -> _Mate:
    """The attacker's mate after the check just played, against the longest defence
    (a useless interposition counted as the defence it delays)."""
    replies = after_check.legal_moves()
    if not replies:
        return _Mate([], True, False, True, 0)
    longest = _Mate([], True, False, True, -1)
    shortest = True
    for reply in replies:
        position = after_check.copy()
        position.push(reply)
        mate = _mate_after(solver, position, nodes, report)
        if not mate.proved:
            return mate
        shortest = shortest and mate.shortest
        length = published_length([reply] + mate.line, True)
        if length > longest.length:
            longest = _Mate([reply] + mate.line, True, False, True, length)
    longest.shortest = shortest
    return longest


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
    """The flaws of the tsume `start` whose mate is `main_line` (moves as ints, its
    length as published). The solver's stop() (from another thread) ends the check:
    what it found is kept, the rest counted undecided (clear_stop=False: a stop that
    came already counts)."""
    if solver is None:
        solver = MateSolver()
    if clear_stop:
        solver.clear_stop()
    report = CheckReport()
    boards = []
    walk = start.copy()
    for move in main_line:
        walk.push(move)
        boards.append(_board(walk))
    position = start.copy()
    for ply, played in enumerate(main_line, start=1):
        # plies from here as published, this move included
        remaining = published_length(main_line[ply - 1:], ply % 2 == 0)
        if ply % 2 == 1:
            _alternative_checks(solver, position, played, ply, remaining, nodes, report,
                                set(boards[ply - 1:]))
        else:
            _alternative_defences(solver, position, played, ply, remaining, nodes, report)
        position.push(played)
    return report


def _alternative_checks(solver: MateSolver, position: Position, played: int, ply: int,
                        remaining: int, nodes: int, report: CheckReport,
                        main_boards: set[str]) -> None:
    for move in position.checks():
        if move == played:
            continue
        after = position.copy()
        after.push(move)
        mate = _mate_by_every_reply(solver, after, nodes, report)
        if not mate.proved:
            report.undecided += mate.open
            continue
        length = mate.plies() + 1
        if length > remaining:
            if not mate.shortest:
                report.undecided += 1   # (its shortest might not be longer)
            continue                    # a longer mate: the attacker would not play it
        if _reaches(after, mate.line, main_boards):
            continue                    # a detour back to the main line
        kind = ("shorter mate" if length < remaining
                else "alternative last move" if remaining == 1 else "alternative mate")
        report.findings.append(Finding(kind, ply, [move_to_usi(m)
                                                   for m in [move] + mate.line]))


def _alternative_defences(solver: MateSolver, position: Position, played: int, ply: int,
                          remaining: int, nodes: int, report: CheckReport) -> None:
    left = remaining - 1                  # the main line's plies after this reply
    for reply in position.legal_moves():
        if reply == played:
            continue
        after = position.copy()
        after.push(reply)
        mate = _mate_after(solver, after, nodes, report)
        if not mate.proved:
            report.undecided += 1   # (a defence that escapes would make it no tsume)
            continue
        length = published_length([reply] + mate.line, True) - 1
        if length < left:
            continue
        if not mate.shortest:
            report.undecided += 1   # its mate might be shorter than it looks
            continue
        kind = "longer defence" if length > left else "equal variation"
        report.findings.append(Finding(kind, ply, [move_to_usi(m)
                                                   for m in [reply] + mate.line]))


def report_lines(report: CheckReport) -> list[str]:
    """The report as lines for a console or ``info string``."""
    lines = [finding.text() for finding in report.findings]
    flaws = [f for f in report.findings if f.kind in FLAWS]
    summary = (f"composition check: {len(flaws)} flaw(s), "
               f"{len(report.findings) - len(flaws)} note(s), "
               f"{report.questions} questions, {report.undecided} undecided")
    return lines + [summary]
