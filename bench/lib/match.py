"""The match core: two USI engines play games from an opening set, both colours of
each opening, many games at once, under cshogi's rules, with a record of every game.

Used by ``python -m bench.strength.match`` (pairs, gauntlets, self-play screens; it
needs cshogi alone, so it also runs on a machine that reaches no package registry).
``bench.strength.ab_match`` is the front end for shogiarena, whose runner differs.

* Game g of a pairing plays opening ``(offset + g // 2) % len(openings)``, engine A black
  when g is even and white when g is odd.
* Time controls: byoyomi, main time + byoyomi, main time + increment
  (:func:`bench.lib.timecontrol.parse_tc`); each side has its own (time odds).  The runner keeps each
  side's clock from the moment ``go`` is written to the moment ``bestmove`` is read.
* Rules (cshogi): an illegal move, a ``bestmove`` later than the time available plus
  the side's margin, ``resign``, a false entering-king declaration, a crash or a silent
  engine lose; checkmate, fourfold repetition (perpetual check loses), a valid
  declaration and ``max_plies`` (a draw) end the game.
* Records: one JSON line per game (pairing, game, opening, colours, names, result
  '1-0'/'0-1'/'1/2', reason, moves after the opening, and per move (mover 0 black /
  1 white, depth, nodes, ms, score)); a rerun with the same file plays only the
  games not yet there.  Optionally a CSA file per game and a USI log per game.
* Stops: ``stop_after`` seconds (no new game after it; those under way finish) and
  the SPRT (``sprt=(elo0, elo1)``: no new game once it decides).
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.lib.engines import (EngineSpec, TrafficLog, UsiClient, UsiError, UsiTimeout, parse_info,
                               score_cp)
from bench.lib.records import append_jsonl, csa_record, load_jsonl
from bench.lib.stats import score_summary, sprt_decision, sprt_llr
from bench.lib.suites import split_opening
from bench.lib.timecontrol import TimeControl

#: What both engines get unless an option says otherwise (when the engine offers it).
DEFAULT_OPTIONS = {"Threads": "1", "USI_Hash": "64", "NetworkDelay": "0", "NetworkDelay2": "0"}


#: The longest a node-limited move may take before it counts as lost on time (an engine
#: that ignores `go nodes` would otherwise hang the game).
NODE_LIMITED_MS = 60_000


class Clock:
    """One side's clock under its time control."""

    def __init__(self, tc: TimeControl):
        self.tc = tc
        self.remaining = tc.main_ms or 0

    def allowed(self) -> int:
        if self.tc.nodes is not None:
            return NODE_LIMITED_MS
        return self.remaining + (self.tc.byoyomi_ms or 0) + (self.tc.inc_ms or 0)

    def spend(self, ms: int) -> None:
        if self.tc.inc_ms is not None:
            self.remaining = max(0, self.remaining + self.tc.inc_ms - ms)
        else:
            self.remaining = max(0, self.remaining - ms)


#: Scores at or beyond this (either sign) are mates (+-(30000 - n)) or decisive.
MATE_SCORE_FLOOR = 29000


def last_info(lines: list[str]) -> tuple[int, int, int | None]:
    """(depth, nodes, score) of the last `info` line that has depth and nodes: the
    score in centipawns from the mover's side (a mate in n: +-(30000 - n)), or None;
    (0, 0, None) if there is no such line."""
    for line in reversed(lines):
        if line.split(" ", 1)[0] == "info":
            info = parse_info(line)
            if info.depth is not None and info.nodes is not None:
                return info.depth, info.nodes, score_cp(info)
    return 0, 0, None


# --- one game ------------------------------------------------------------------------


@dataclass
class Player:
    """One side of a match: its spec, time control and forfeit margin."""
    spec: EngineSpec
    tc: TimeControl
    margin_ms: int = 300
    proc: UsiClient | None = None
    name: str = ""
    log: TrafficLog | None = None

    def start(self, defaults: dict | None = None, check: set | None = None) -> None:
        """Start the process: ``usi``, the options (the defaults where offered; an
        option in ``check`` that the engine does not offer stops the run), ``isready``."""
        self.stop()
        self.proc = self.spec.start(log=self.log)
        self.proc.usi(60)
        unknown = sorted(o for o in check or () if not self.proc.has_option(o))
        if unknown:   # a typo, or a tuning option without USI_ENGINE_TUNE=1
            self.stop()
            raise SystemExit(f"{' '.join(self.spec.argv)}: no option {', '.join(unknown)}")
        options = {k: v for k, v in (defaults or {}).items() if self.proc.has_option(k)}
        options.update(self.spec.options)
        for key, value in options.items():
            self.proc.setoption(key, value)
        self.proc.isready(120)
        self.name = self.proc.id_name or self.spec.label

    def alive(self) -> bool:
        return self.proc is not None and self.proc.alive

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.quit()
            self.proc = None


def play_game(players: tuple[Player, Player], opening: str, max_plies: int,
              grace_s: float = 5.0) -> dict:
    """players = (black, white).  The record: result '1-0', '0-1' or '1/2', reason,
    start, moves after the opening, and per move (mover 0/1, depth, nodes, ms, score)."""
    import cshogi
    start, opening_moves = split_opening(opening)
    board = cshogi.Board() if start == "startpos" else cshogi.Board(start[5:])
    for m in opening_moves:
        board.push_usi(m)
    seen: dict[int, int] = {board.zobrist_hash(): 1}
    for p in players:
        p.proc.usinewgame()
    clocks = (Clock(players[0].tc), Clock(players[1].tc))
    moves: list[str] = []
    stats: list[tuple] = []

    def end(result: str, reason: str) -> dict:
        for side, p in enumerate(players):
            outcome = "draw" if result == "1/2" else "win" if (result == "1-0") == (side == 0) else "lose"
            if p.proc is not None:
                p.proc.try_send("gameover " + outcome)
        return {"result": result, "reason": reason, "start": start,
                "opening_moves": opening_moves, "moves": moves, "stats": stats}

    def side_to_move_loses(reason: str) -> dict:
        return end("0-1" if board.turn == cshogi.BLACK else "1-0", reason)

    while True:
        if len(opening_moves) + len(moves) >= max_plies:
            return end("1/2", "max plies")
        if board.is_game_over():
            return side_to_move_loses("checkmate")
        side = 0 if board.turn == cshogi.BLACK else 1
        player, clock = players[side], clocks[side]
        tc = player.tc
        allowed = clock.allowed()
        cmd = f"btime {clocks[0].remaining} wtime {clocks[1].remaining}"
        if tc.nodes is not None:
            cmd = f"nodes {tc.nodes}"
        elif tc.inc_ms is not None:
            cmd += f" binc {tc.inc_ms} winc {tc.inc_ms}"
        else:
            cmd += f" byoyomi {tc.byoyomi_ms or 0}"
        try:
            player.proc.position(start, [*opening_moves, *moves])
            player.proc.start_go(cmd)
            result = player.proc.wait_bestmove((allowed + player.margin_ms) / 1000 + grace_s,
                                               stop_grace=2.0)
        except UsiTimeout:
            player.proc.kill()
            return side_to_move_loses(f"time (no bestmove {allowed + player.margin_ms} ms + "
                                      f"{grace_s:g} s after go, nor 2 s after stop)")
        except UsiError as exc:
            return side_to_move_loses(f"engine failure: {exc}")
        lines = [line.text for line in result.lines]
        ms = round(result.elapsed_s * 1000)
        depth, nodes, score = last_info(lines)
        stats.append((side, depth, nodes, ms, score))
        if ms > allowed + player.margin_ms:
            return side_to_move_loses(f"time ({ms} ms)")
        clock.spend(ms)
        best = result.bestmove
        if best == "resign":
            return side_to_move_loses("resign")
        if best == "win":
            if board.is_nyugyoku():
                return end("1-0" if side == 0 else "0-1", "declaration")
            return side_to_move_loses("false declaration")
        move = board.move_from_usi(best) if len(best) in (4, 5) else 0
        if not move or not board.is_legal(move):
            return side_to_move_loses(f"illegal move {best}")
        board.push(move)
        moves.append(best)
        key = board.zobrist_hash()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 4:
            kind = board.is_draw()
            if kind == cshogi.REPETITION_WIN:      # the side to move was checked perpetually
                return end("1-0" if board.turn == cshogi.BLACK else "0-1", "perpetual check")
            if kind == cshogi.REPETITION_LOSE:
                return side_to_move_loses("perpetual check")
            return end("1/2", "repetition")


# --- scoring -------------------------------------------------------------------------


def a_score(record: dict) -> float:
    """Engine A's score in one game."""
    if record["result"] == "1/2":
        return 0.5
    black_won = record["result"] == "1-0"
    return 1.0 if black_won == (record["a_colour"] == "black") else 0.0


def summary(records: list[dict]) -> str:
    """A's score and interval, then each engine's mean depth, nodes and ms a move, then
    the endings."""
    lines = ["engine A: " + score_summary([a_score(r) for r in records])]
    for who in ("A", "B"):
        per_move = [s for r in records for s in r["stats"]
                    if (s[0] == 0) == ((r["a_colour"] == "black") == (who == "A"))]
        if per_move:
            n = len(per_move)
            lines.append(f"engine {who}: {n} moves, depth {sum(s[1] for s in per_move) / n:.1f}, "
                         f"nodes {sum(s[2] for s in per_move) / n:,.0f}, "
                         f"{sum(s[3] for s in per_move) / n:.0f} ms a move")
    reasons: dict[str, int] = {}
    for r in records:
        key = r["reason"].split(" (")[0]
        reasons[key] = reasons.get(key, 0) + 1
    lines.append("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    return "\n".join(lines)


def phase_table(records: list[dict], plies: int = 20, phases: int = 6) -> str:
    """Each engine's mean depth, nodes and think time a move by game phase: its moves among the
    game's first `plies` plies, the next `plies`, ..., the last phase taking the rest
    (the plies counted after the opening).  Shows where one search falls behind the
    other's depth as the game goes on.  Depth is also given over the moves whose score
    is not a mate ("open"): an engine that stops once it has found a mate (ours does;
    YaneuraOu searches on) pulls its plain mean down without seeing any less."""
    table: dict[tuple[str, int], list] = {}
    for r in records:
        for i, s in enumerate(r["stats"]):
            who = "A" if (s[0] == 0) == (r["a_colour"] == "black") else "B"
            table.setdefault((who, min(i // plies, phases - 1)), []).append(s)
    lines = []
    for phase in range(phases):
        cells = []
        for who in ("A", "B"):
            moves = table.get((who, phase), [])
            if moves:
                cells.append(f"{who} {len(moves)} moves, depth "
                             f"{sum(m[1] for m in moves) / len(moves):.1f}"
                             f"{_open_depth(moves)}, nodes "
                             f"{sum(m[2] for m in moves) / len(moves):,.0f}, "
                             f"{sum(m[3] for m in moves) / len(moves):,.0f} ms")
        if cells:
            span = (f"{phase * plies}-{(phase + 1) * plies - 1}" if phase < phases - 1
                    else f"{phase * plies}+")
            lines.append(f"plies {span}: " + "; ".join(cells))
    return "\n".join(lines)


def conversion_table(records: list[dict], margins: tuple[int, ...] = (300, 600, 1000)) -> str:
    """Who gets ahead and who turns it into a win: for each margin, the games in which A's
    own score first reached +margin before B's reached it (by B's own score), how many of
    them A won and lost, and the same for B.  Two searches with the same evaluation can
    differ in either: reaching an advantage (the middle game) or keeping it (defending
    the king while ahead in material, mating).  Games where neither reached the margin
    are counted apart; scores are each mover's own, as the records hold them."""
    lines = []
    for margin in margins:
        tally = {"A": [0, 0, 0], "B": [0, 0, 0]}    # games first ahead, won, lost
        neither = 0
        for r in records:
            first = None
            for s in r["stats"]:
                if s[4] is not None and s[4] >= margin:
                    first = "A" if (s[0] == 0) == (r["a_colour"] == "black") else "B"
                    break
            if first is None:
                neither += 1
                continue
            score = a_score(r) if first == "A" else 1.0 - a_score(r)
            tally[first][0] += 1
            tally[first][1] += score == 1.0
            tally[first][2] += score == 0.0
        cells = []
        for who in ("A", "B"):
            n, won, lost = tally[who]
            rate = f" ({won / n:.0%} won)" if n else ""
            cells.append(f"{who} first in {n}: +{won} -{lost}{rate}")
        lines.append(f"first at +{margin}: " + "; ".join(cells) + f"; neither {neither}")
    return "\n".join(lines)


def _open_depth(moves: list) -> str:
    """The cell's " (open D over N)": the mean depth D of the N moves without a mate
    score, when some moves had one; empty when none or all had."""
    open_moves = [m for m in moves if m[4] is None or abs(m[4]) < MATE_SCORE_FLOOR]
    if len(open_moves) == len(moves) or not open_moves:
        return ""
    return (f" (open {sum(m[1] for m in open_moves) / len(open_moves):.1f} over "
            f"{len(open_moves)})")


def load_records(out: str | Path, pairing: str | None = None) -> list[dict]:
    """The records of a JSON-lines file (of one pairing, or all), in game order."""
    records: dict = {}
    for r in load_jsonl(out):
        records[record_id(r.get("pairing", ""), r["game"])] = r      # later lines win
    return sorted((r for r in records.values() if pairing is None or r.get("pairing", "") == pairing),
                  key=lambda r: (r.get("pairing", ""), r["game"]))


def record_id(pairing: str, game: int) -> str:
    return f"{pairing}#{game}" if pairing else str(game)


# --- a match -------------------------------------------------------------------------


@dataclass
class Match:
    """A against B: `games` games from `openings`, `parallel` at once, records appended
    to `out`.  See the module doc."""
    a: Player
    b: Player
    openings: list[str]
    games: int
    out: Path
    pairing: str = ""
    parallel: int = 1
    offset: int = 0
    max_plies: int = 320
    stop_after: float = 0.0
    sprt: tuple[float, float] | None = None
    grace_s: float = 5.0
    defaults: dict = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    check_a: set = field(default_factory=set)     # options that must be offered
    check_b: set = field(default_factory=set)
    kifu_dir: Path | None = None
    log_dir: Path | None = None
    report: object = print                         # called with each game's line

    def run(self) -> list[dict]:
        """Play the games not yet recorded; returns all the pairing's records."""
        done = {r["game"]: r for r in load_records(self.out, self.pairing)}
        todo: queue.Queue = queue.Queue()
        for g in range(self.games):
            if g not in done:
                todo.put(g)
        if todo.empty():
            return [done[g] for g in sorted(done)]
        for d in (self.kifu_dir, self.log_dir):
            if d is not None:
                Path(d).mkdir(parents=True, exist_ok=True)
        for player, check in ((self.a, self.check_a), (self.b, self.check_b)):
            player.start(self.defaults, check)          # exits on an unknown option
            player.stop()
        lock = threading.Lock()
        stop_at = time.monotonic() + self.stop_after if self.stop_after else None
        decided: list[str] = []

        def worker() -> None:
            logs = (TrafficLog("A"), TrafficLog("B"))
            a = Player(self.a.spec, self.a.tc, self.a.margin_ms, log=logs[0])
            b = Player(self.b.spec, self.b.tc, self.b.margin_ms, log=logs[1])
            while (stop_at is None or time.monotonic() < stop_at) and not decided:
                try:
                    g = todo.get_nowait()
                except queue.Empty:
                    break
                try:
                    for p in (a, b):
                        if not p.alive():
                            p.start(self.defaults)
                except (UsiError, OSError) as exc:
                    self.report(f"game {g}: engine start failed: {exc}")
                    a.stop(), b.stop()
                    continue
                a_black = g % 2 == 0
                opening = self.openings[(self.offset + g // 2) % len(self.openings)]
                file = None
                if self.log_dir is not None:
                    file = open(Path(self.log_dir) / f"{self.pairing or 'game'}-g{g:04d}.log", "w")
                    for log in logs:
                        log.file, log.t0 = file, time.perf_counter()
                try:
                    record = play_game((a, b) if a_black else (b, a), opening, self.max_plies,
                                       self.grace_s)
                finally:
                    if file is not None:
                        for log in logs:
                            log.file = None
                        file.close()
                record.update(id=record_id(self.pairing, g), pairing=self.pairing, game=g,
                              opening=opening, a_colour="black" if a_black else "white",
                              a_name=a.name, b_name=b.name)
                if record["reason"].startswith(("engine failure", "time (no bestmove")):
                    a.stop(), b.stop()
                with lock:
                    append_jsonl(self.out, record)
                    done[g] = record
                    if self.kifu_dir is not None:
                        names = (a.name, b.name) if a_black else (b.name, a.name)
                        (Path(self.kifu_dir) / f"{self.pairing or 'game'}-g{g:04d}.csa").write_text(
                            csa_record(record["start"], record["opening_moves"] + record["moves"],
                                       names, record["result"], record["reason"]))
                    scores = [a_score(r) for r in done.values()]
                    line = (f"{self.pairing + ' ' if self.pairing else ''}game {g}: "
                            f"{record['result']} ({record['reason']}, {len(record['moves'])} plies); "
                            f"A {a_score(record):g}; {score_summary(scores)}")
                    if self.sprt:
                        llr = sprt_llr(scores, *self.sprt)
                        line += f"; LLR {llr:+.2f}"
                        verdict = sprt_decision(scores, *self.sprt)
                        if verdict and not decided:
                            decided.append(verdict)
                            line += f"; SPRT accepts {verdict}: no new game"
                    self.report(line)
            a.stop(), b.stop()

        threads = [threading.Thread(target=worker) for _ in range(max(1, self.parallel))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [done[g] for g in sorted(done)]


def distinct_openings(records: list[dict], plies: int) -> int:
    """How many different sequences of the first ``plies`` moves the games played
    (each game's start position and moves, the opening's included)."""
    return len({(r["start"], tuple([*r["opening_moves"], *r["moves"]][:plies]))
                for r in records})


def read_openings_or_exit(path: str | Path) -> list[str]:
    """The opening lines of ``path``; ``startpos`` alone: every game from the start."""
    from bench.lib.suites import read_openings
    if str(path) == "startpos":
        return ["startpos"]
    try:
        openings = read_openings(path)
    except OSError as exc:
        raise SystemExit(f"openings {path}: {exc}") from None
    if not openings:
        raise SystemExit(f"openings {path}: no opening in the file")
    return openings


if __name__ == "__main__":     # pragma: no cover
    sys.exit("use python -m bench.strength.match")
