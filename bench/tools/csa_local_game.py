"""Play one game through two `usi-engine csa` bridges on a private shogi-server.

Starts a copy of shogi-server (the software that runs floodgate) on 127.0.0.1 on a
free port, runs two bridges against it in threads, and prints what the floodgate
section of the README quotes: the end lines of the server's own record, the share
of each side's moves that carry a `'*` comment, and the smallest time margin left
on each side's clock when its move was sent.

    python -m bench.tools.csa_local_game --game local-300-10F   # floodgate's 300 s + 10 s Fischer
    python -m bench.tools.csa_local_game --game test-60-2F --engine-b /usr/games/gpsusi \\
        --b-increment-as-byoyomi --b-option Thread=1

Needs ruby and ruby-webrick; shogi-server is taken from $SHOGI_SERVER_DIR or
../shared/tools/shogi-server beside the checkout. Logs and records go to --out.
"""
from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

from bench.lib.paths import OUT, REPO
from usi_engine.csa.bridge import Bridge, BridgeConfig
from usi_engine.csa.config import parse_option
from usi_engine.usi.client import split_command

SERVER_DIR = Path(os.environ.get("SHOGI_SERVER_DIR",
                                  REPO.parent / "shared" / "tools" / "shogi-server"))


def start_server(workdir: Path) -> tuple[subprocess.Popen, int]:
    copy = workdir / "shogi-server"
    shutil.copytree(SERVER_DIR, copy)
    out = open(workdir / "server.out", "w")
    process = subprocess.Popen(["ruby", "shogi-server", "--max-identifier", "32", "local", "0"],
                               cwd=copy, stdout=out, stderr=subprocess.STDOUT)
    for _ in range(200):
        found = re.search(r"port=(\d+)", (workdir / "server.out").read_text())
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    sys.exit("shogi-server did not start:\n" + (workdir / "server.out").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="local-300-10F",
                        help="game name; shogi-server pairs floodgate-* names only on its "
                             "floodgate schedule, so use another prefix (default %(default)s)")
    parser.add_argument("--out", default=str(OUT / "csa"))
    parser.add_argument("--margin-ms", type=int, default=1000)
    for side in ("a", "b"):
        parser.add_argument(f"--engine-{side}", help="USI engine command (default: this engine)")
        parser.add_argument(f"--{side}-option", action="append", default=[],
                            metavar="NAME=VALUE")
        parser.add_argument(f"--{side}-ponder", action="store_true")
        parser.add_argument(f"--{side}-increment-as-byoyomi", action="store_true")
    args = parser.parse_args()
    workdir = Path(args.out) / datetime.now().strftime("%Y%m%d-%H%M%S")
    workdir.mkdir(parents=True)
    server, port = start_server(workdir)
    configs = []
    for side, name in (("a", "side_a"), ("b", "side_b")):
        engine = getattr(args, f"engine_{side}")
        configs.append(BridgeConfig(
            host="127.0.0.1", port=port, id=name, password=f"pw-{name}", game=args.game,
            margin_ms=args.margin_ms, log_dir=str(workdir / name), echo=False,
            engine=split_command(engine) if engine else None,
            options=[parse_option(o) for o in getattr(args, f"{side}_option")],
            ponder=getattr(args, f"{side}_ponder"),
            increment_as_byoyomi=getattr(args, f"{side}_increment_as_byoyomi")))
    bridges = [Bridge(c, stream=io.StringIO()) for c in configs]
    codes: list[int | None] = [None, None]
    started = time.monotonic()
    threads = [threading.Thread(target=lambda i=i: codes.__setitem__(i, bridges[i].run()))
               for i in range(2)]
    try:
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.5)
        except KeyboardInterrupt:
            for bridge in bridges:
                bridge.request_stop()
            for thread in threads:
                thread.join()
    finally:
        server.terminate()
        server.wait()
    print(f"date {datetime.now():%Y-%m-%d %H:%M}, game {args.game}, wall "
          f"{time.monotonic() - started:.0f} s, exit codes {codes}")
    for config, bridge in zip(configs, bridges):
        engine = " ".join(config.engine) if config.engine else "usi_engine"
        for report in bridge.reports:
            share = 100 * report.commented / report.our_moves if report.our_moves else 0
            print(f"{config.id} ({engine}): {report.line()}; '* share {share:.0f}%")
    records = sorted((workdir / "shogi-server").rglob("*.csa"))
    for record in records:
        lines = record.read_text(errors="replace").splitlines()
        moves = sum(1 for l in lines if re.match(r"^[+-]\d{4}[A-Z]{2}$", l))
        comments = sum(1 for l in lines if l.startswith("'** "))
        print(f"server record {record}: {moves} moves, {comments} with '** comments")
        ends = [l for l in lines if l.startswith(("%", "'summary", "'$END_TIME"))]
        print("end lines:", " | ".join(ends))
    return 0 if codes == [0, 0] else 1


if __name__ == "__main__":
    sys.exit(main())
