"""Many games at once between two USI engines, with cshogi as the only dependency: for
a many-core machine that reaches no package registry (where shogiarena's dependency
tree cannot be installed), e.g. the 16-core device machine.

    # ours (hand-set evaluation) against YaneuraOu's material edition, 300 ms byoyomi,
    # 200 games, 15 at a time, records appended to ymat.jsonl (a rerun resumes):
    python bench/parallel_match.py --a "bench/engine.sh" --a-option EvalType=hand \\
        --b ~/.cache/usi-peers/yaneuraou-material --b-option BookFile=no_book \\
        --games 200 --byoyomi 300 --parallel 15 --out ymat.jsonl
    python bench/parallel_match.py --out ymat.jsonl --summary   # the table again

Time odds: --a-byoyomi gives engine A its own ms a move (e.g. 600 against B's 300).

Game g plays opening g // 2 (from --offset, in file order) of sfen/openings.txt with
engine A as black when g is even and as white when odd. Both engines get Threads 1,
USI_Hash 64, NetworkDelay 0 and NetworkDelay2 0 unless an option says otherwise; each
worker keeps its two processes for its games (`usinewgame` before each). The rules are
cshogi's: an illegal move, a `bestmove` later than byoyomi + --time-margin, `resign`,
a false entering-king declaration or a crash loses; checkmate, fourfold repetition
(perpetual check loses) and --max-plies end the game. One JSON line per game (the
moves, result, reason and each engine's depth, nodes, time and score per move); the summary
is engine A's score with its 95% interval (bench/ab_match.py's figures).
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import cshogi

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_match import score_summary  # noqa: E402  (bench/ab_match.py)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OPTIONS = {"Threads": "1", "USI_Hash": "64", "NetworkDelay": "0",
                   "NetworkDelay2": "0"}


class EngineFailure(Exception):
    """The engine died, or said nothing in time."""


@dataclass
class Engine:
    """One USI engine process: a reader thread queues its lines, so that every wait
    has a time-out."""
    command: str
    options: dict[str, str]
    proc: subprocess.Popen | None = None
    lines: queue.Queue = field(default_factory=queue.Queue)
    name: str = "?"

    def start(self) -> None:
        self.proc = subprocess.Popen(self.command, shell=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1, cwd=ROOT)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.send("usi")
        known = set()
        for line in self.until("usiok", 30):
            words = line.split()
            if line.startswith("id name "):
                self.name = line[8:]
            elif words[:2] == ["option", "name"] and len(words) > 2:
                known.add(words[2])
        unknown = sorted(set(self.options) - known)
        if unknown:   # a typo, or a tuning option without USI_ENGINE_TUNE=1
            self.stop()
            raise SystemExit(f"{self.command}: no option {', '.join(unknown)}")
        for key, value in {**DEFAULT_OPTIONS, **self.options}.items():
            if key in known:
                self.send(f"setoption name {key} value {value}")
        self.send("isready")
        self.until("readyok", 120)

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def send(self, text: str) -> None:
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise EngineFailure(f"write failed: {exc}") from exc

    def until(self, prefix: str, seconds: float) -> list[str]:
        """Lines up to and including the first that starts with prefix."""
        deadline = time.monotonic() + seconds
        seen = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise EngineFailure(f"no {prefix} within {seconds} s") from None
            if line is None:
                raise EngineFailure("the process ended")
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def stop(self) -> None:
        if self.proc is not None:
            try:
                self.send("quit")
                self.proc.wait(timeout=3)
            except (EngineFailure, subprocess.TimeoutExpired):
                self.proc.kill()
            self.proc = None


def last_info(lines: list[str]) -> tuple[int, int, int | None]:
    """(depth, nodes, score) of the last `info` line that has depth and nodes: the
    score in centipawns from the mover's side (a mate in n: +-(30000 - n)), or None;
    (0, 0, None) if there is no such line."""
    for line in reversed(lines):
        words = line.split()
        if words and words[0] == "info" and "depth" in words and "nodes" in words:
            try:
                depth = int(words[words.index("depth") + 1])
                nodes = int(words[words.index("nodes") + 1])
            except (ValueError, IndexError):
                continue
            return depth, nodes, _score(words)
    return 0, 0, None


def _score(words: list[str]) -> int | None:
    if "score" not in words or words.index("score") + 2 >= len(words):
        return None
    kind, value = words[words.index("score") + 1:words.index("score") + 3]
    try:
        if kind == "cp":
            return int(value)
        if kind == "mate":
            n = int(value.lstrip("+-") or 0)
            return -(30000 - n) if value.startswith("-") else 30000 - n
    except ValueError:
        return None
    return None


def play_game(engines: tuple[Engine, Engine], opening: str, byoyomi: tuple[int, int],
              margin: int, max_plies: int) -> dict:
    """engines = (black, white), byoyomi = each one's ms a move (black's, white's). The
    record: result '1-0', '0-1' or '1/2', reason, moves after the opening, and per move
    (mover 0/1, depth, nodes, ms, score)."""
    board = cshogi.Board()
    words = opening.split()
    if words[0] == "startpos":
        start, opening_moves = "startpos", words[2:] if len(words) > 2 else []
    else:
        split = words.index("moves") if "moves" in words else len(words)
        start, opening_moves = "sfen " + " ".join(words[1:split]), words[split + 1:]
        board.set_sfen(" ".join(words[1:split]))
    seen: dict[int, int] = {}
    for m in opening_moves:
        board.push_usi(m)
    seen[board.zobrist_hash()] = 1
    for e in engines:
        e.send("usinewgame")
    moves, stats = [], []

    def end(result: str, reason: str) -> dict:
        return {"result": result, "reason": reason, "moves": moves, "stats": stats}

    def side_to_move_loses(reason: str) -> dict:
        return end("0-1" if board.turn == cshogi.BLACK else "1-0", reason)

    while True:
        if len(opening_moves) + len(moves) >= max_plies:
            return end("1/2", "max plies")
        if board.is_game_over():
            return side_to_move_loses("checkmate")
        side = 0 if board.turn == cshogi.BLACK else 1
        engine, limit = engines[side], byoyomi[side]
        engine.send(" ".join(["position", start, "moves", *opening_moves, *moves]))
        t0 = time.monotonic()
        engine.send(f"go btime 0 wtime 0 byoyomi {limit}")
        try:
            lines = engine.until("bestmove", (limit + margin) / 1000 + 10)
        except EngineFailure as exc:
            return side_to_move_loses(f"engine failure: {exc}")
        ms = round((time.monotonic() - t0) * 1000)
        depth, nodes, score = last_info(lines)
        stats.append((side, depth, nodes, ms, score))
        if ms > limit + margin:
            return side_to_move_loses(f"time ({ms} ms)")
        words = lines[-1].split()
        best = words[1] if len(words) > 1 else ""
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


def load_done(out: Path) -> dict[int, dict]:
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                done[record["game"]] = record
    return done


def a_score(record: dict) -> float:
    """Engine A's score in one game."""
    if record["result"] == "1/2":
        return 0.5
    black_won = record["result"] == "1-0"
    return 1.0 if black_won == (record["a_colour"] == "black") else 0.0


def summary(records: list[dict]) -> str:
    """A's score and interval, then each engine's mean depth, nodes and ms a move."""
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


def parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"option {pair!r}: expected NAME=VALUE")
        options[key] = value
    return options


def run(args: argparse.Namespace) -> None:
    openings = [line.strip() for line in Path(args.openings).read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    out = Path(args.out)
    done = load_done(out)
    todo = queue.Queue()
    for g in range(args.games):
        if g not in done:
            todo.put(g)
    write_lock = threading.Lock()
    for command, options in ((args.a, args.a_option), (args.b, args.b_option)):
        probe = Engine(command, parse_options(options))   # exits on an unknown option
        probe.start()
        probe.stop()

    stop_at = time.monotonic() + args.stop_after if args.stop_after else None

    def worker() -> None:
        a = Engine(args.a, parse_options(args.a_option))
        b = Engine(args.b, parse_options(args.b_option))
        while stop_at is None or time.monotonic() < stop_at:
            try:
                g = todo.get_nowait()
            except queue.Empty:
                break
            try:
                for e in (a, b):
                    if e.proc is None or e.proc.poll() is not None:
                        e.start()
            except EngineFailure as exc:
                print(f"game {g}: engine start failed: {exc}", file=sys.stderr)
                a.stop(), b.stop()
                continue
            a_black = g % 2 == 0
            opening = openings[(args.offset + g // 2) % len(openings)]
            a_ms = args.a_byoyomi or args.byoyomi
            record = play_game((a, b) if a_black else (b, a), opening,
                               (a_ms, args.byoyomi) if a_black else (args.byoyomi, a_ms),
                               args.time_margin, args.max_plies)
            record.update(game=g, opening=opening, a_colour="black" if a_black else "white",
                          a_name=a.name, b_name=b.name)
            if record["reason"].startswith("engine failure"):
                a.stop(), b.stop()
            with write_lock:
                with out.open("a") as f:
                    f.write(json.dumps(record) + "\n")
                done[g] = record
                print(f"game {g}: {record['result']} ({record['reason']}, "
                      f"{len(record['moves'])} plies); A {a_score(record):g}; "
                      f"{score_summary([a_score(r) for r in done.values()])}", flush=True)
        a.stop(), b.stop()

    threads = [threading.Thread(target=worker) for _ in range(args.parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def phase_table(records: list[dict], plies: int = 20, phases: int = 6) -> str:
    """Each engine's mean depth and nodes a move by game phase: its moves among the
    game's first `plies` plies, the next `plies`, ..., the last phase taking the rest
    (the plies counted after the opening).  Shows where one search falls behind the
    other's depth as the game goes on."""
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
                             f"{sum(m[1] for m in moves) / len(moves):.1f}, nodes "
                             f"{sum(m[2] for m in moves) / len(moves):,.0f}")
        if cells:
            span = (f"{phase * plies}-{(phase + 1) * plies - 1}" if phase < phases - 1
                    else f"{phase * plies}+")
            lines.append(f"plies {span}: " + "; ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", help="engine A's command (a shell command line)")
    ap.add_argument("--b", help="engine B's command")
    ap.add_argument("--a-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--b-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--byoyomi", type=int, default=300, help="ms a move (300)")
    ap.add_argument("--a-byoyomi", type=int, default=0, metavar="MS",
                    help="engine A's ms a move, for time odds (default: --byoyomi)")
    ap.add_argument("--parallel", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                    help="games at a time (cores less one)")
    ap.add_argument("--openings", default=str(ROOT / "sfen" / "openings.txt"))
    ap.add_argument("--offset", type=int, default=0, help="first opening's index (0)")
    ap.add_argument("--time-margin", type=int, default=300,
                    help="ms a move may take beyond the byoyomi before it loses (300)")
    ap.add_argument("--max-plies", type=int, default=320, help="a draw after this many plies")
    ap.add_argument("--stop-after", type=float, default=0, metavar="SECONDS",
                    help="start no game after this many seconds (games under way finish)")
    ap.add_argument("--out", required=True, help="JSON lines, one a game (appended)")
    ap.add_argument("--summary", action="store_true", help="print the summary of --out and exit")
    ap.add_argument("--phases", action="store_true",
                    help="with --summary: also each engine's depth and nodes by game phase")
    args = ap.parse_args(argv)
    if not args.summary:
        if not args.a or not args.b:
            ap.error("--a and --b are needed to play")
        run(args)
    records = list(load_done(Path(args.out)).values())
    print(summary(records) if records else "no game recorded")
    if records and args.phases:
        print(phase_table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
