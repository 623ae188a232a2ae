"""Gauntlet: usi_engine against peer engines, on cshogi's match runner.

    python bench/match.py                                  # 10 games a pairing, 200 ms byoyomi
    python bench/match.py --games 20 --tc 1000             # 1 s byoyomi
    python bench/match.py --tc 10000+100                   # 10 s main time + 100 ms increment
    python bench/match.py --opponent fairy-stockfish-skill-5,gpsshogi --out-dir /tmp/gauntlet

Each pairing is one call of ``cshogi.cli.main`` (the runner behind ``python -m
cshogi.cli``): it alternates colours every game, plays each opening twice (once
with each colour), adjudicates mate, repetition (fourfold; perpetual check loses),
the entering-king declaration, illegal moves and the maximum game length
(``--draw`` plies, a draw), and writes the CSA and PGN records.

cshogi's engine class is replaced (``cshogi.cli.Engine``) by :class:`GauntletEngine`,
which speaks the same USI but:

* times every ``go`` itself, from the moment the command is flushed to the moment
  ``bestmove`` is read, and forfeits a move that takes longer than the time
  available (remaining main time + byoyomi or increment) plus ``--time-margin``
  ms: the engine is made to resign and the game is recorded as lost on time.
  (cshogi alone would not notice an overrun under pure byoyomi, and allows 1 s of
  slack under a main time);
* never blocks forever: a reader thread with time-outs notices an engine that
  dies (loss, reason ``crash``) or sends no ``bestmove`` (``stop`` is sent; if
  still nothing, the process is killed: loss on time, ``no bestmove``);
* checks each ``bestmove`` itself: an illegal move is recorded as such (cshogi
  prints the same text for an illegal move and for perpetual check), and a
  ``bestmove win`` that is not a valid entering-king declaration loses (cshogi
  would score it a win);
* logs every line sent and received, with time stamps, one log per game.

Outputs in ``--out-dir`` (default bench/out/, git-ignored; files of a previous run
with the same names are replaced):

* ``results.csv``: one row per game: pairing, black, white, our colour, result,
  reason, plies, each side's longest think and the time allowed, events, moves;
* ``elo.png``: per opponent, the Elo difference with its 95% interval, and the
  running score;
* ``summary.txt``: the table printed at the end;
* ``kifu/<opponent>.csa`` and ``.pgn`` (all the games of a pairing in one file),
  ``logs/<opponent>-gNN.log`` (USI traffic), ``logs/cshogi.log`` (the runner's
  own output).

Elo is computed from the score fraction (draws count half); see :func:`elo_stats`.
Nothing is installed by this script: a missing peer is reported with the package
to install, and the gauntlet goes on with the peers that are there.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import io
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers  # noqa: E402  (bench/peers.py)

REAL_STDOUT = sys.stdout

#: Fairy-Stockfish's "Skill Level" for the weakened opponent in the default gauntlet
#: (-20..20; 20 is full strength). Chosen so the default gauntlet has one opponent of
#: roughly our strength; see bench/README.md for how it was picked.
DEFAULT_FSF_SKILL = 5

#: Short, common openings (USI moves from the start position). Each is played twice,
#: once with each colour, so the pairings are balanced and the games differ.
DEFAULT_OPENINGS = [
    "7g7f 3c3d 2g2f 8c8d",                          # quiet opening
    "2g2f 8c8d 2f2e 8d8e 6i7h 4a3b",                # double wing (aigakari)
    "7g7f 8c8d 7i6h 3c3d 6g6f 7a6b",                # yagura
    "7g7f 3c3d 6g6f 8c8d 2h6h",                     # fourth-file rook
    "7g7f 3c3d 2h7h",                               # third-file rook
    "5g5f 5c5d 2h5h",                               # central rook
    "7g7f 3c3d 2g2f 4c4d 2f2e 2b3c",                # static rook v. ranging rook
    "2g2f 3c3d 7g7f 4c4d 3i4h 3a4b",                # static rook, white's fourth-file rook
    "2g2f 8c8d 7g7f 8d8e 8h7g 3c3d 7i8h 2b7g+ 8h7g",  # bishop exchange
    "7g7f 8c8d 2g2f 8d8e 8h7g 3c3d 7i6h 4a3b",      # bishop exchange declined
]

#: Node limit of the default gpsshogi opponent (about 0.1-0.25 s a move on this machine).
DEFAULT_GPS_NODES = 50000
#: The byoyomi told to a node-limited gpsshogi: long enough that only the node limit binds.
GPS_NODES_BYOYOMI_MS = 10000

Z975 = 1.959963984540054  # the 97.5% quantile of the standard normal


# --- Elo --------------------------------------------------------------------------------


def elo_from_score(p: float) -> float:
    """Elo difference for an expected score p (logistic model): -400 log10(1/p - 1)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_stats(scores: list[float]) -> dict:
    """Score, Elo and its 95% interval from per-game scores x_i in {0, 0.5, 1}.

    Formulas (n games):

        p     = (wins + draws / 2) / n                       the score fraction
        s^2   = (1/n) * sum_i (x_i - p)^2                    per-game score variance
        SE    = s / sqrt(n)                                   standard error of p
        p_lo  = p - 1.95996 * SE,  p_hi = p + 1.95996 * SE    95% normal interval
        Elo(q) = -400 * log10(1/q - 1)
        Elo   = Elo(p), interval [Elo(p_lo), Elo(p_hi)]       (ends outside (0, 1) -> -/+inf)

    When every game was lost (p = 0) or won (p = 1), SE is 0 and Elo is infinite; the
    finite end of the interval is then the exact binomial (Clopper-Pearson) bound for
    no wins: p_hi = 1 - 0.025**(1/n) (and symmetrically p_lo = 0.025**(1/n) for no
    losses), with draws counted as half a win as above.
    """
    n = len(scores)
    if n == 0:
        return {"n": 0}
    wins = sum(1 for x in scores if x == 1.0)
    losses = sum(1 for x in scores if x == 0.0)
    draws = n - wins - losses
    p = sum(scores) / n
    var = sum((x - p) ** 2 for x in scores) / n
    se = math.sqrt(var / n)
    if p == 0.0:
        lo, hi = 0.0, 1.0 - 0.025 ** (1.0 / n)
    elif p == 1.0:
        lo, hi = 0.025 ** (1.0 / n), 1.0
    else:
        lo, hi = p - Z975 * se, p + Z975 * se
    return {"n": n, "wins": wins, "losses": losses, "draws": draws, "score": p, "se": se,
            "p_lo": lo, "p_hi": hi, "elo": elo_from_score(p),
            "elo_lo": elo_from_score(lo), "elo_hi": elo_from_score(hi)}


def fmt_elo(x: float) -> str:
    if math.isinf(x):
        return "-inf" if x < 0 else "+inf"
    return f"{round(x) + 0:+d}"        # + 0: no "-0"


# --- time control ----------------------------------------------------------------------


@dataclass
class TimeControl:
    main_ms: int | None = None       # None: no main time (pure byoyomi)
    byoyomi_ms: int | None = None
    inc_ms: int | None = None

    def __str__(self) -> str:
        if self.byoyomi_ms is not None:
            return (f"{self.main_ms} ms + {self.byoyomi_ms} ms byoyomi" if self.main_ms
                    else f"{self.byoyomi_ms} ms byoyomi")
        return f"{self.main_ms} ms + {self.inc_ms} ms increment"


def parse_tc(text: str) -> TimeControl:
    """``200`` or ``byoyomi=200``: 200 ms a move (byoyomi); ``10000+100``: 10 s main
    time plus a 100 ms increment (Fischer); ``10000/200``: 10 s main time, then 200 ms
    byoyomi; ``inc=100``: no main time, 100 ms increment."""
    t = text.strip().lower().replace(" ", "")
    if m := re.fullmatch(r"(?:byoyomi=)?(\d+)", t):
        return TimeControl(None, int(m[1]), None)
    if m := re.fullmatch(r"(\d+)\+(\d+)", t):
        return TimeControl(int(m[1]), None, int(m[2]))
    if m := re.fullmatch(r"(\d+)/(\d+)", t):
        return TimeControl(int(m[1]), int(m[2]), None)
    if m := re.fullmatch(r"inc=(\d+)", t):
        return TimeControl(0, None, int(m[1]))
    raise argparse.ArgumentTypeError(
        f"bad --tc {text!r}: use MS (byoyomi), MAIN+INC (increment) or MAIN/BYOYOMI, in ms")


# --- engines -----------------------------------------------------------------------------


@dataclass
class EngineSpec:
    key: str
    label: str
    argv: list[str]
    options: dict
    cwd: str | None = None
    env: dict | None = None
    tc: "TimeControl | None" = None   # its own time control (None: the gauntlet's --tc)
    note: str = ""


@dataclass
class SideStats:
    colour: str = "?"
    moves: int = 0
    max_ms: float = 0.0
    total_ms: float = 0.0
    late: int = 0                     # moves over the allowed time but within the margin
    max_allowed_ms: float = 0.0


@dataclass
class GameRecord:
    number: int
    opponent: str
    log_path: str
    log: object
    sides: dict = field(default_factory=lambda: {"ours": SideStats(), "opp": SideStats()})
    events: list = field(default_factory=list)    # (role, kind, text)
    moves: list = field(default_factory=list)     # USI moves, the opening included
    opening: str = ""
    runner_line: str = ""                          # cshogi's "まで N 手で ..." line
    last_bestmove: dict = field(default_factory=dict)
    last_position: dict = field(default_factory=dict)   # role -> last "position ..." sent
    last_score: dict = field(default_factory=dict)      # role -> "cp N" / "mate N" of the last go
    t0: float = field(default_factory=time.monotonic)


class Recorder:
    """The game being played, shared by both engine wrappers and the runner callback."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.current: GameRecord | None = None
        self.opponent = ""
        self.game_in_pairing = 0
        self.global_number = 0
        self.finished: list[GameRecord] = []

    def game(self) -> GameRecord:
        if self.current is None:
            self.game_in_pairing += 1
            self.global_number += 1
            path = self.log_dir / f"{self.opponent}-g{self.game_in_pairing:02d}.log"
            self.current = GameRecord(self.global_number, self.opponent, str(path),
                                      open(path, "w"))
        return self.current

    def finish(self) -> GameRecord:
        g = self.game()
        g.log.close()
        self.current = None
        self.finished.append(g)
        return g


class CapturedStdout(io.TextIOBase):
    """Where cshogi.cli prints: kept in a log, and the game-end line is parsed."""

    END = re.compile(r"まで(\d+)手で(.*)")

    def __init__(self, recorder: Recorder, log):
        self.recorder, self.log, self.buf = recorder, log, ""

    def write(self, s: str) -> int:
        self.log.write(s)
        self.buf += s
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            if self.END.match(line) and self.recorder.current is not None:
                self.recorder.current.runner_line = line
        return len(s)

    def flush(self) -> None:
        self.log.flush()


class GauntletEngine:
    """Drop-in for ``cshogi.usi.Engine`` as ``cshogi.cli.main`` uses it (connect,
    setoption, isready, usinewgame, position, go, ponderhit, stop, gameover, quit),
    with time-outs, its own clock, legality checks and logs. See the module doc."""

    def __init__(self, spec: EngineSpec, role: str, recorder: Recorder, tc: TimeControl,
                 margin_ms: int, grace_s: float):
        self.spec, self.role, self.rec, self.tc = spec, role, recorder, tc
        self.margin_ms, self.grace_s = margin_ms, grace_s
        self.proc = None           # cshogi.cli reconnects when this is None
        self.name = spec.label
        self.usi = None
        self.moves: list[str] = []
        self.sfen = "startpos"
        self.forfeited = False

    # -- helpers -------------------------------------------------------------------
    def _event(self, kind: str, text: str) -> None:
        g = self.rec.game()
        g.events.append((self.role, kind, text))
        g.log.write(f"EVENT {self.role} {kind}: {text}\n")
        print(f"    !! {self.spec.label}: {kind}: {text}", file=REAL_STDOUT, flush=True)

    def _send(self, line: str, listener=None) -> float | None:
        if listener:
            listener(line)
        if self.usi is None:
            return None
        try:
            return self.usi.send(line)
        except peers.EngineDied:
            return None

    # -- the cshogi.usi.Engine interface --------------------------------------------
    def connect(self, listener=None) -> None:
        g = self.rec.game()
        stderr_path = g.log_path[:-4] + f"-{self.role}.stderr"
        self.usi = peers.UsiProcess(self.spec.argv, cwd=self.spec.cwd, env=self.spec.env,
                                    stderr_path=stderr_path, log=g.log, name=self.role, t0=g.t0)
        self.proc = self.usi.proc
        self.forfeited = False
        self.usi.send("usi")
        _, lines = self.usi.wait_for("usiok", 60)
        for ln in lines:
            if ln.startswith("id name "):
                self.engine_id = ln[8:]
        if listener:
            listener(self.name)

    def setoption(self, name, value, listener=None) -> None:
        self._send(f"setoption name {name} value {value}", listener)

    def isready(self, listener=None) -> None:
        self._send("isready", listener)
        self.usi.wait_for("readyok", 60)

    def usinewgame(self, listener=None) -> None:
        self.moves = []
        self._send("usinewgame", listener)

    def position(self, moves=None, sfen="startpos", listener=None) -> None:
        self.moves = list(moves or [])
        self.sfen = sfen
        g = self.rec.game()
        if len(self.moves) >= len(g.moves):
            g.moves = list(self.moves)
        cmd = "position " + sfen + (" moves " + " ".join(self.moves) if self.moves else "")
        g.last_position[self.role] = cmd
        self._send(cmd, listener)

    def _board(self):
        import cshogi
        b = cshogi.Board()
        for m in self.moves:
            b.push_usi(m)
        return b

    def go(self, ponder=False, btime=None, wtime=None, byoyomi=None, binc=None, winc=None,
           nodes=None, listener=None):
        g = self.rec.game()
        side = len(self.moves) % 2                      # 0: black (sente) to move
        st = g.sides[self.role]
        st.colour = "black" if side == 0 else "white"
        remaining = (btime if side == 0 else wtime) or 0
        inc = (binc if side == 0 else winc) if byoyomi is None else None
        allowed = remaining + (byoyomi or 0) + (inc or 0)
        cmd = "go"
        if ponder:
            cmd += " ponder"
        btime = btime or 0             # the standard form: "go btime 0 wtime 0 byoyomi N"
        wtime = wtime or 0
        cmd += f" btime {btime} wtime {wtime}"
        if byoyomi is not None:
            cmd += f" byoyomi {byoyomi}"
        else:
            if binc is not None:
                cmd += f" binc {binc}"
            if winc is not None:
                cmd += f" winc {winc}"
        if listener:
            listener(cmd)
        if self.usi is None or self.forfeited:
            return "resign", None
        try:
            t_sent = self.usi.send(cmd)
        except peers.EngineDied as exc:
            self._event("crash", f"engine gone before move {len(self.moves) + 1}: {exc}")
            self.forfeited = True
            return "resign", None
        deadline = t_sent + (allowed + self.margin_ms) / 1000.0 + self.grace_s
        line = None
        stopped = False
        while True:
            try:
                t, line = self.usi.readline(deadline - time.monotonic())
            except peers.EngineTimeout:
                if not stopped:
                    self._send("stop")
                    stopped = True
                    deadline = time.monotonic() + 2.0
                    continue
                self._event("time", f"no bestmove {((time.monotonic() - t_sent) * 1000):.0f} ms "
                            f"after go at move {len(self.moves) + 1} (allowed {allowed} ms); "
                            "killed")
                self.usi.proc.kill()
                self.forfeited = True
                return "resign", None
            except peers.EngineDied as exc:
                self._event("crash", f"during go at move {len(self.moves) + 1}: {exc}")
                self.forfeited = True
                return "resign", None
            if listener:
                listener(line)
            if line.startswith("info ") and " score " in line:
                sm = re.search(r" score (cp|mate) (\S+)", line)
                if sm:
                    g.last_score[self.role] = f"{sm[1]} {sm[2]}"
            if line.split(" ", 1)[0] == "bestmove":
                break
        elapsed_ms = (t - t_sent) * 1000.0
        st.moves += 1
        st.total_ms += elapsed_ms
        st.max_ms = max(st.max_ms, elapsed_ms)
        st.max_allowed_ms = max(st.max_allowed_ms, allowed)
        items = line.split()
        best = items[1] if len(items) > 1 else ""
        ponder_move = items[3] if len(items) >= 4 and items[2] == "ponder" else None
        g.last_bestmove[self.role] = best
        if elapsed_ms > allowed + self.margin_ms:
            self._event("time", f"move {len(self.moves) + 1} ({best}) took {elapsed_ms:.0f} ms, "
                        f"allowed {allowed} ms + margin {self.margin_ms} ms")
            self.forfeited = True
            return "resign", None
        if elapsed_ms > allowed:
            st.late += 1
        if best in ("resign",):
            return best, None
        board = self._board()
        if best == "win":
            if not board.is_nyugyoku():
                self._event("illegal", f"bestmove win at move {len(self.moves) + 1} is not a "
                            f"valid entering-king declaration (sfen {board.sfen()})")
                self.forfeited = True
                return "resign", None
            return best, None
        ok = False
        try:
            mv = board.move_from_usi(best)
            ok = bool(mv) and board.is_legal(mv)
        except Exception:  # noqa: BLE001 - malformed move text
            ok = False
        if not ok:
            self._event("illegal", f"bestmove {best!r} at move {len(self.moves) + 1} is illegal "
                        f"(sfen {board.sfen()})")
            self.forfeited = True
            # cshogi adjudicates the illegal move itself (a loss); keep the text sane.
            return (best if re.fullmatch(r"[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i]", best)
                    else "resign"), None
        g.moves = self.moves + [best]
        return best, ponder_move

    def go_mate(self, byoyomi=None, listener=None):
        raise NotImplementedError

    def ponderhit(self, listener=None) -> None:
        self._send("ponderhit", listener)

    def stop(self, listener=None) -> None:
        self._send("stop", listener)

    def gameover(self, result=None, listener=None) -> None:
        # cshogi.cli sends a bare "gameover"; USI wants win|lose|draw, so fill it in.
        self._send("gameover " + (result or self._result_for_me()), listener)

    def _result_for_me(self) -> str:
        import cshogi
        g = self.rec.game()
        other = "opp" if self.role == "ours" else "ours"
        lost = {r for r, kind, _ in g.events if kind in ("time", "crash", "illegal")}
        lost |= {r for r, m in g.last_bestmove.items() if m == "resign"}
        if self.role in lost:
            return "lose"
        if other in lost:
            return "win"
        if "win" in g.last_bestmove.values():
            return "win" if g.last_bestmove.get(self.role) == "win" else "lose"
        try:
            b = cshogi.Board()
            for m in g.moves:
                b.push_usi(m)
        except Exception:  # noqa: BLE001
            return "draw"
        me_to_move = (len(g.moves) % 2 == 0) == (g.sides[self.role].colour == "black")
        if b.is_game_over():
            return "lose" if me_to_move else "win"
        rep = b.is_draw()
        if rep == cshogi.REPETITION_WIN:      # the side to move wins (perpetual check)
            return "win" if me_to_move else "lose"
        if rep == cshogi.REPETITION_LOSE:
            return "lose" if me_to_move else "win"
        return "draw"

    def quit(self, listener=None) -> None:
        if listener:
            listener("quit")
        if self.usi is not None:
            t0 = time.monotonic()
            self.usi.quit(timeout=3.0)
            if self.usi.proc.returncode is not None and self.usi.proc.returncode < 0 \
                    and not self.forfeited:
                self._event("quit", f"did not exit within 3 s of quit; killed "
                            f"(waited {time.monotonic() - t0:.1f} s)")
        self.usi = None
        self.proc = None


# --- one pairing -------------------------------------------------------------------------


def classify(g: GameRecord, cshogi_result: str) -> tuple[str, str]:
    """(winner: 'ours'|'opp'|'draw', reason) for a finished game."""
    text = g.runner_line
    ev = {kind: role for role, kind, _ in g.events}
    m = CapturedStdout.END.match(text)
    plies = int(m[1]) if m else len(g.moves)
    tail = m[2] if m else ""
    if "持将棋" in tail:
        return "draw", "max plies"
    if "千日手" in tail:
        return "draw", "repetition"
    for kind, reason in (("time", "time forfeit"), ("crash", "crash"), ("illegal", "illegal move")):
        if kind in ev:
            loser = ev[kind]
            return ("opp" if loser == "ours" else "ours"), reason
    if "入玉宣言" in tail:
        return cshogi_result, "entering-king declaration"
    if "反則" in tail:
        return cshogi_result, "perpetual check"
    if "切れ負け" in tail:
        return cshogi_result, "time (runner)"
    loser = "opp" if cshogi_result == "ours" else "ours"
    if g.last_bestmove.get(loser) == "resign":
        return cshogi_result, "resign"
    try:
        import cshogi
        b = cshogi.Board()
        for mv in g.moves:
            b.push_usi(mv)
        if b.is_game_over():
            return cshogi_result, "checkmate"
    except Exception:  # noqa: BLE001
        pass
    return cshogi_result, "resign (runner)" if plies else "?"


def check_resignations(rows: list[dict], movetime_ms: int) -> None:
    """Second opinion on every game usi_engine lost by resigning: Fairy-Stockfish (full
    strength) searches the position in which we resigned for ``movetime_ms``; its score
    goes into the ``resign_check`` column, and a resignation on a mate score that it does
    not confirm is flagged as suspect. A flag is a lead, not a verdict: the checker can
    miss a long mate in a short search. Skipped (with a note) when Fairy-Stockfish is
    not installed."""
    todo = [r for r in rows if r["result"] == "loss" and r["reason"] == "resign" and r["position"]]
    if not todo:
        return
    path = peers.find_peer("fairy-stockfish")
    if not path:
        print("note: resignations not checked: " + peers.missing_message("fairy-stockfish"))
        return
    print(f"checking our {len(todo)} resignation(s) with Fairy-Stockfish, {movetime_ms} ms each:")
    fsf = peers.UsiProcess([path], name="check", options={"Threads": 1, "Hash": 64,
                                                          "UCI_Variant": "shogi"})
    try:
        fsf.handshake()
        for r in todo:
            fsf.send("usinewgame")
            fsf.send(r["position"])
            fsf.send(f"go movetime {movetime_ms}")
            _, lines = fsf.wait_for("bestmove", movetime_ms / 1000 + 30)
            score = ""
            for ln in lines:
                sm = re.search(r" score (cp|mate) (\S+)", ln)
                if ln.startswith("info ") and sm:
                    score = f"{sm[1]} {sm[2]}"
            ours_mate = r["our_last_score"].startswith("mate")
            flag = ""
            if ours_mate and not score.startswith("mate -"):
                flag = (f" <-- not confirmed: the checker sees no mate in {movetime_ms} ms "
                        "(a long mate is possible: re-check the position longer)")
            r["resign_check"] = f"fairy-stockfish {movetime_ms} ms: {score}"
            print(f"  game {r['game']} v {r['opponent']}, after {r['plies']} plies: ours "
                  f"{r['our_last_score'] or '?'}, Fairy-Stockfish {score or '?'}{flag}")
            if flag:
                r["events"] = (r["events"] + "; " if r["events"] else "") + \
                    f"ours:suspect-resign: resigned on {r['our_last_score']}, checker {score}"
    except (peers.EngineDied, peers.EngineTimeout) as exc:
        print(f"  !! resign check stopped: {exc}")
    finally:
        fsf.quit()
    print()


def play_pairing(ours: EngineSpec, opp: EngineSpec, args, recorder: Recorder,
                 out_dir: Path, opening_file: str | None) -> list[dict]:
    import cshogi.cli as cli

    recorder.opponent = opp.key
    recorder.game_in_pairing = 0
    kifu = out_dir / "kifu"
    csa_path, pgn_path = kifu / f"{opp.key}.csa", kifu / f"{opp.key}.pgn"
    for p in (csa_path, pgn_path):
        if p.exists():
            p.unlink()
    tc = args.tc
    opp_tc = opp.tc or tc
    rows: list[dict] = []
    prev = {"engine1_won": 0, "engine2_won": 0, "draw": 0}

    def factory(key, connect=False):
        if key == "ours":
            return GauntletEngine(ours, "ours", recorder, tc, args.time_margin, args.grace)
        return GauntletEngine(opp, "opp", recorder, opp_tc, args.opp_time_margin, args.grace)

    def callback(totals: dict) -> bool:
        g = recorder.game()
        if totals["engine1_won"] > prev["engine1_won"]:
            res = "ours"
        elif totals["engine2_won"] > prev["engine2_won"]:
            res = "opp"
        else:
            res = "draw"
        prev.update({k: totals[k] for k in prev})
        winner, reason = classify(g, res)
        if winner != res:
            g.events.append(("runner", "note", f"runner scored {res}, adjudicated {winner}"))
        recorder.finish()
        so, sp = g.sides["ours"], g.sides["opp"]
        black = ours.label if so.colour == "black" else opp.label
        white = opp.label if so.colour == "black" else ours.label
        score = {"ours": 1.0, "opp": 0.0, "draw": 0.5}[winner]
        m = CapturedStdout.END.match(g.runner_line)
        plies = int(m[1]) if m else len(g.moves)
        row = {
            "game": g.number, "pairing": f"usi_engine vs {opp.key}", "opponent": opp.key,
            "game_in_pairing": recorder.game_in_pairing, "black": black, "white": white,
            "our_colour": so.colour,
            "result": {1.0: "win", 0.0: "loss", 0.5: "draw"}[score],
            "result_bw": ("1-0" if (winner == "ours") == (so.colour == "black") else "0-1")
            if winner != "draw" else "1/2-1/2",
            "our_score": score, "reason": reason, "plies": plies,
            "tc": str(tc) if opp_tc is tc else f"ours {tc}; {opp.key} {opp_tc}", "our_max_ms": round(so.max_ms), "our_mean_ms":
                round(so.total_ms / so.moves) if so.moves else "",
            "opp_max_ms": round(sp.max_ms), "allowed_ms": round(max(so.max_allowed_ms, sp.max_allowed_ms)),
            "our_late_moves": so.late, "opp_late_moves": sp.late,
            "events": "; ".join(f"{r}:{k}: {t}" for r, k, t in g.events),
            "our_last_score": g.last_score.get("ours", ""), "resign_check": "",
            "position": g.last_position.get("ours", ""),
            "opening": " ".join(g.moves[:opening_len(g.moves, opening_file)]),
            "moves": " ".join(g.moves), "log": os.path.relpath(g.log_path, out_dir),
        }
        rows.append(row)
        print(f"  game {recorder.game_in_pairing:>2}/{args.games}: {black} (black) v {white}: "
              f"{row['result_bw']:<7} our {row['result']:<4} by {reason:<14} in {plies:>3} plies; "
              f"longest think ours {so.max_ms:.0f} ms, {opp.key} {sp.max_ms:.0f} ms "
              f"(allowed {row['allowed_ms']} ms)", file=REAL_STDOUT, flush=True)
        return True

    old_engine = cli.Engine
    cli.Engine = factory
    runner_log = open(out_dir / "logs" / "cshogi.log", "a")
    runner_log.write(f"\n=== usi_engine vs {opp.key} ({time.strftime('%Y-%m-%d %H:%M:%S')}) ===\n")
    captured = CapturedStdout(recorder, runner_log)
    try:
        with contextlib.redirect_stdout(captured):
            cli.main("ours", opp.key, ours.options, opp.options,
                     names=[ours.label, opp.label], games=args.games, resign=args.resign,
                     byoyomi=[tc.byoyomi_ms, opp_tc.byoyomi_ms],
                     time=[tc.main_ms or None, opp_tc.main_ms or None],
                     inc=[tc.inc_ms, opp_tc.inc_ms], draw=args.draw, opening=opening_file,
                     opening_moves=64, opening_seed=args.seed,
                     csa=str(csa_path), multi_csa=True, pgn=str(pgn_path),
                     print_summary=False, callback=callback)
    except (peers.EngineDied, peers.EngineTimeout, OSError) as exc:
        print(f"  !! pairing against {opp.key} stopped: {exc}", file=REAL_STDOUT)
        if recorder.current is not None:
            recorder.current.log.write(f"ABORTED: {exc}\n")
            recorder.finish()
    finally:
        cli.Engine = old_engine
        runner_log.close()
    return rows


_OPENING_CACHE: dict = {}


def opening_len(moves: list[str], opening_file: str | None) -> int:
    if not opening_file:
        return 0
    if opening_file not in _OPENING_CACHE:
        lines = []
        for ln in Path(opening_file).read_text().splitlines():
            lines.append(ln.strip()[15:].split())
        _OPENING_CACHE[opening_file] = lines
    best = 0
    for op in _OPENING_CACHE[opening_file]:
        if op and moves[:len(op)] == op:
            best = max(best, len(op))
    return best


# --- main -------------------------------------------------------------------------------


def opponent_spec(key: str, hash_mb: int) -> EngineSpec | str:
    """The EngineSpec for an opponent name, or a message saying why not."""
    m = re.fullmatch(r"gpsshogi(?:-nodes(\d+))?", key)
    if m:
        path = peers.find_peer("gpsshogi")
        if not path:
            return peers.missing_message("gpsshogi")
        # Thread 1: the machine has 2 cores and both engines must not fight over them.
        if m[1] is None:
            return EngineSpec(key, "gpsshogi", [path], {"Thread": 1},
                              note="own clock: gpsusi counts whole seconds and takes ~1 s a "
                                   "move at any byoyomi under 1 s")
        # gpsusi's own clock cannot do sub-second moves (see bench/README.md), so this
        # opponent is limited by nodes instead, and told a byoyomi long enough never to
        # bind; its actual time per move is what the node limit makes it.
        return EngineSpec(key, f"gpsshogi {int(m[1])} nodes",
                          [path, "--node-count-hard-limit", m[1]], {"Thread": 1},
                          tc=TimeControl(None, GPS_NODES_BYOYOMI_MS, None),
                          note=f"--node-count-hard-limit {m[1]}, byoyomi {GPS_NODES_BYOYOMI_MS} ms")
    m = re.fullmatch(r"fairy-stockfish(?:-skill(-?\d+))?", key)
    if m:
        path = peers.find_peer("fairy-stockfish")
        if not path:
            return peers.missing_message("fairy-stockfish")
        opts = {"UCI_Variant": "shogi", "Threads": 1, "Hash": hash_mb}
        label = "Fairy-Stockfish"
        if m[1] is not None:
            level = int(m[1])
            if not -20 <= level <= 20:
                return f"{key}: Skill Level must be in -20..20"
            opts["Skill Level"] = level
            label += f" skill {level}"
        return EngineSpec(key, label, [path], opts)
    return (f"unknown opponent {key!r}: use fairy-stockfish, fairy-stockfish-skillN "
            f"(N in -20..20), gpsshogi or gpsshogi-nodesN")


def plot(stats: dict, rows: list[dict], path: Path, tc: TimeControl) -> str | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib); no plot written"
    opps = list(stats)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, max(3.2, 1.1 * len(opps) + 1.8)),
                                   gridspec_kw={"width_ratios": [1.2, 1]})
    CLIP = 800.0
    for i, o in enumerate(opps):
        s = stats[o]
        y = len(opps) - 1 - i
        e, lo, hi = (max(-CLIP, min(CLIP, v)) for v in (s["elo"], s["elo_lo"], s["elo_hi"]))
        # an infinite Elo (all games lost or won) is drawn at the clip as a red arrow head
        marker = "o" if not math.isinf(s["elo"]) else ("<" if s["elo"] < 0 else ">")
        ax1.errorbar([e], [y], xerr=[[e - lo], [hi - e]], fmt=marker, ms=8, capsize=6,
                     color="C0" if marker == "o" else "C3")
        for end, edge, mk in ((s["elo_lo"], -CLIP, "<"), (s["elo_hi"], CLIP, ">")):
            if math.isinf(end):          # an open end of the interval
                ax1.plot([edge], [y], marker=mk, color="C3", ms=7)
        label = (f"{fmt_elo(s['elo'])}  [{fmt_elo(s['elo_lo'])}, {fmt_elo(s['elo_hi'])}]\n"
                 f"score {s['score']:.3f} ({s['wins']}W {s['losses']}L {s['draws']}D)")
        ax1.text(0.99, y + 0.18, label, transform=ax1.get_yaxis_transform(), ha="right",
                 va="bottom", fontsize=8)
    ax1.axvline(0, color="grey", lw=0.8)
    ax1.set_yticks(range(len(opps)))
    ax1.set_yticklabels(list(reversed(opps)))
    ax1.set_ylim(-0.6, len(opps) - 0.1)
    ax1.set_xlim(-CLIP - 50, CLIP + 50)
    ax1.set_xlabel("Elo difference of usi_engine (95% interval; clipped at ±800)")
    ax1.set_title("usi_engine vs each opponent")
    for k, o in enumerate(opps):
        xs = [r["our_score"] for r in rows if r["opponent"] == o]
        run = [sum(xs[:j + 1]) / (j + 1) for j in range(len(xs))]
        ax2.plot(range(1, len(run) + 1), run, marker="o", ms=3, label=o, color=f"C{k}")
    ax2.axhline(0.5, color="grey", lw=0.8)
    ax2.xaxis.get_major_locator().set_params(integer=True)
    ax2.set_ylim(-0.05, 1.05)
    ax2.set_xlabel("games played")
    ax2.set_ylabel("running score of usi_engine")
    ax2.set_title(f"running score ({tc})")
    ax2.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10, help="games per opponent (10)")
    ap.add_argument("--tc", type=parse_tc, default=parse_tc("200"),
                    help="time control in ms: N (byoyomi, default 200), MAIN+INC, MAIN/BYOYOMI")
    ap.add_argument("--opponent", default=None,
                    help="comma-separated: fairy-stockfish (full strength), fairy-stockfish-skillN "
                         "(Skill Level N in -20..20), gpsshogi-nodesN (gpsusi limited to N nodes a "
                         "move), gpsshogi (its own clock: needs --tc >= 1000 and a wide "
                         "--opp-time-margin); default "
                         f"fairy-stockfish-skill{DEFAULT_FSF_SKILL},fairy-stockfish,gpsshogi-nodes{DEFAULT_GPS_NODES}")
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "out"),
                    help="where results.csv, elo.png, kifu/ and logs/ go (bench/out/)")
    ap.add_argument("--engine", default=None,
                    help="command that starts our engine (default: this Python -m usi_engine, "
                         "from the repository root)")
    ap.add_argument("--hash", type=int, default=64, help="hash MB for our engine and Fairy-Stockfish")
    ap.add_argument("--threads", type=int, default=1,
                    help="our search threads (1, as the peers are given one)")
    ap.add_argument("--draw", type=int, default=256, help="a game longer than this many plies is a draw")
    ap.add_argument("--resign", type=int, default=None,
                    help="adjudicate a loss when the side to move reports a score below -N cp")
    ap.add_argument("--openings", default=None,
                    help="file of `startpos moves ...` lines (default: the 10 built-in openings)")
    ap.add_argument("--no-openings", action="store_true", help="start every game from the start position")
    ap.add_argument("--seed", type=int, default=1, help="shuffle seed for the openings (1)")
    ap.add_argument("--check-resigns", type=int, default=1000, metavar="MS",
                    help="let Fairy-Stockfish search each position where we resigned for MS ms "
                         "and flag resignations on a mate it does not see (1000; 0: off)")
    ap.add_argument("--time-margin", type=int, default=100,
                    help="ms over the allowed time before a move of ours is forfeited (100)")
    ap.add_argument("--opp-time-margin", type=int, default=100,
                    help="the same for the opponents (100); e.g. 1500 lets full gpsshogi, "
                         "which counts whole seconds, play at --tc 2000")
    ap.add_argument("--grace", type=float, default=5.0,
                    help="seconds past the allowed time before `stop` is sent to a silent engine (5)")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")

    out_dir = Path(args.out_dir)
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    (out_dir / "kifu").mkdir(parents=True, exist_ok=True)
    try:
        import cshogi  # noqa: F401
        import cshogi.cli  # noqa: F401
    except ImportError:
        print("cshogi is not installed: pip install cshogi (or pip install -e '.[bench]')")
        return 2

    print(peers.machine_line())
    ours_argv = peers.split_command(args.engine) if args.engine else peers.our_engine_command()
    ours = EngineSpec("ours", "usi_engine", ours_argv,
                      {"USI_Hash": args.hash, "MaxMovesToDraw": args.draw,
                       "Threads": args.threads,
                       # the runner's clock is local: only a small margin is kept back
                       # (as Fairy-Stockfish's own move overhead does), so that both
                       # engines think about as long; 0 lost a game on time at 1 s when
                       # a compile job loaded the machine (a 1188 ms move)
                       "NetworkDelay": 0, "NetworkDelay2": 50},
                      cwd=str(peers.REPO), env=peers.our_engine_env())
    names = (args.opponent.split(",") if args.opponent else
             [f"fairy-stockfish-skill{DEFAULT_FSF_SKILL}", "fairy-stockfish",
              f"gpsshogi-nodes{DEFAULT_GPS_NODES}"])
    opponents = []
    for key in (n.strip() for n in names if n.strip()):
        spec = opponent_spec(key, args.hash)
        if isinstance(spec, str):
            print("note: " + spec)
        else:
            opponents.append(spec)
    if not opponents:
        print("no opponent available; nothing to play")
        return 2

    opening_file = None
    if not args.no_openings:
        if args.openings:
            opening_file = args.openings
        else:
            opening_file = str(out_dir / "openings.txt")
            Path(opening_file).write_text("".join(f"startpos moves {o}\n" for o in DEFAULT_OPENINGS))
    print(f"ours: {' '.join(ours_argv)} (cwd {peers.REPO})")
    print(f"time control: {args.tc}; {args.games} games per opponent, colours alternating; "
          f"draw after {args.draw} plies; forfeit margin {args.time_margin} ms; "
          f"openings: {opening_file or 'none (start position)'}")
    print("opponents:")
    for o in opponents:
        print(f"  {o.key}: {' '.join(o.argv)} {o.options}" + (f"; {o.note}" if o.note else ""))
    print(f"output: {out_dir}\n")

    recorder = Recorder(out_dir / "logs")
    for old in (out_dir / "logs").glob("*"):
        old.unlink()
    all_rows: list[dict] = []
    t_start = time.monotonic()
    for opp in opponents:
        t0 = time.monotonic()
        print(f"usi_engine vs {opp.label} [{opp.key}]", flush=True)
        rows = play_pairing(ours, opp, args, recorder, out_dir, opening_file)
        all_rows.extend(rows)
        print(f"  ({time.monotonic() - t0:.0f} s)\n", flush=True)

    if args.check_resigns > 0:
        check_resignations(all_rows, args.check_resigns)

    # CSV
    cols = ["game", "pairing", "opponent", "game_in_pairing", "black", "white", "our_colour",
            "result", "result_bw", "our_score", "reason", "plies", "tc", "our_max_ms",
            "our_mean_ms", "opp_max_ms", "allowed_ms", "our_late_moves", "opp_late_moves",
            "events", "our_last_score", "resign_check", "opening", "moves", "position", "log"]
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in all_rows:
            w.writerow(r)
    for p in (out_dir / "logs").glob("*.stderr"):
        if p.stat().st_size == 0:
            p.unlink()

    # summary
    stats = {}
    lines = [f"usi_engine gauntlet, {args.tc}, {time.strftime('%Y-%m-%d %H:%M')}",
             f"{'opponent':<26} {'games':>5} {'W':>3} {'L':>3} {'D':>3} {'score':>6} "
             f"{'Elo':>6} {'95% interval':>17}  {'ours: max ms':>12} {'forfeits/illegal':>16}"]
    for opp in opponents:
        rs = [r for r in all_rows if r["opponent"] == opp.key]
        if not rs:
            lines.append(f"{opp.key:<26} {0:>5}  (no game finished)")
            continue
        s = elo_stats([r["our_score"] for r in rs])
        stats[opp.key] = s
        bad = sum(1 for r in rs if r["reason"] in ("time forfeit", "illegal move", "crash")
                  and r["result"] == "loss")
        lines.append(f"{opp.key:<26} {s['n']:>5} {s['wins']:>3} {s['losses']:>3} {s['draws']:>3} "
                     f"{s['score']:>6.3f} {fmt_elo(s['elo']):>6} "
                     f"{'[' + fmt_elo(s['elo_lo']) + ', ' + fmt_elo(s['elo_hi']) + ']':>17}  "
                     f"{max(r['our_max_ms'] for r in rs):>12} {bad:>16}")
    reasons: dict = {}
    for r in all_rows:
        reasons[(r["result"], r["reason"])] = reasons.get((r["result"], r["reason"]), 0) + 1
    lines.append("our results by reason: " + ", ".join(
        f"{res} by {why}: {n}" for (res, why), n in sorted(reasons.items())))
    events = [(r["game"], r["opponent"], r["events"]) for r in all_rows if r["events"]]
    if events:
        lines.append("events (time forfeits, illegal moves, crashes, slow quits, suspect resignations):")
        lines += [f"  game {g} v {o}: {e}" for g, o, e in events]
    else:
        lines.append("events: none (no time forfeit, illegal move, crash or hang)")
    lines.append("Elo = -400 log10(1/p - 1), p = score with draws as half; 95% interval from "
                 "p +/- 1.96 SE, SE = sd(per-game score)/sqrt(n); all lost/won: exact binomial bound.")
    lines.append(f"total time {time.monotonic() - t_start:.0f} s")
    summary = "\n".join(lines)
    print(summary)
    (out_dir / "summary.txt").write_text(summary + "\n")
    if stats:
        msg = plot(stats, all_rows, out_dir / "elo.png", args.tc)
        print(msg or f"wrote {out_dir / 'results.csv'}, {out_dir / 'elo.png'}, "
                     f"{out_dir / 'summary.txt'}, kifu/ and logs/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
