"""Nodes per second with one nn.bin: usi_engine against YaneuraOu's NNUE edition
(``yaneuraou-nnue`` from ../shared/tools/setup-peers.sh), one thread each, the same
hash size, the same positions (the engine's bench list, those with both kings), in
turn position by position so that a busy machine slows both alike.

    python -m bench.speed.nnue_nps                       # a random net (seed 1), 2 s a position
    python -m bench.speed.nnue_nps --net ~/nets/nn.bin --movetime 5000
    python -m bench.speed.nnue_nps --shape 1024x2-8-32   # against yaneuraou-nnue-1024x2-8-32

Both engines print nodes and time on their last ``info`` line; nps = nodes / time.
The node counts are each engine's own (interior and quiescence nodes), so the ratio
is of work per second on the same evaluation, not of strength.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from bench.lib import engines as peers
from bench.speed.nps_bench import UsiBench, bench_positions, fmt_int, nps

YANEURAOU_NNUE = Path.home() / ".cache" / "usi-peers" / "yaneuraou-nnue"
SHAPES = ("256x2-32-32", "512x2-16-32", "1024x2-8-32")


def net_folder(net: str | None, seed: int, shape: str) -> tempfile.TemporaryDirectory:
    """A folder holding ``nn.bin``: a copy of ``net``, else a random net of ``seed`` and
    ``shape`` ("256x2-32-32")."""
    folder = tempfile.TemporaryDirectory(prefix="nnue-nps-")
    target = Path(folder.name) / "nn.bin"
    if net:
        shutil.copyfile(Path(net).expanduser(), target)
    else:
        from usi_engine.eval import nnue_file
        with open(target, "wb") as f:
            nnue_file.write_net(nnue_file.random_net(seed=seed, shape=parse_shape(shape)), f)
    return folder


def parse_shape(text: str) -> tuple[int, int, int]:
    """"1024x2-8-32" -> (1024, 8, 32)."""
    width, rest = text.removeprefix("halfkp_").split("x2-")
    l1, l2 = rest.split("-")
    return int(width), int(l1), int(l2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", help="an nn.bin (halfkp_256x2-32-32); default: a random net")
    ap.add_argument("--seed", type=int, default=1, help="the random net's seed (1)")
    ap.add_argument("--movetime", type=int, default=2000, help="ms per position and engine (2000)")
    ap.add_argument("--hash", type=int, default=64, help="USI_Hash of both engines, MB (64)")
    ap.add_argument("--shape", default="256x2-32-32", choices=SHAPES,
                    help="the random net's shape (256x2-32-32); the peer is then YaneuraOu's "
                         "build of that shape (tools/yaneuraou/build-shapes.sh)")
    ap.add_argument("--peer", default=None, help="YaneuraOu NNUE's binary (default: the "
                    "build of --shape in ~/.cache/usi-peers)")
    args = ap.parse_args(argv)
    if args.peer is None:
        args.peer = str(YANEURAOU_NNUE if args.shape == SHAPES[0]
                        else YANEURAOU_NNUE.with_name(f"yaneuraou-nnue-{args.shape}"))
    if not Path(args.peer).exists():
        ap.error(f"{args.peer} is not built: run ../shared/tools/setup-peers.sh")
    positions, source, _ = bench_positions()
    # HalfKP needs both kings (YaneuraOu's NNUE edition crashes on a tsume board)
    positions = [(name, sfen) for name, sfen in positions
                 if "K" in sfen.split()[0] and "k" in sfen.split()[0]]
    folder = net_folder(args.net, args.seed, args.shape)
    options = {"USI_Hash": args.hash, "Threads": 1, "EvalDir": folder.name,
               "BookFile": "no_book", "USI_OwnBook": "false"}
    print(peers.machine_line())
    print(f"net: {args.net or f'random halfkp_{args.shape} (seed {args.seed})'}; movetime {args.movetime} ms; "
          f"hash {args.hash} MB; 1 thread; {len(positions)} positions from {source}")
    ours = UsiBench(peers.our_engine_command(), "usi_engine", options, cwd=str(peers.REPO),
                    env=peers.our_engine_env())
    theirs = UsiBench([args.peer], "yaneuraou-nnue", options, clear_hash_button=False)
    totals = {"ours": [0, 0.0], "theirs": [0, 0.0]}
    print(f"{'position':<24}{'ours nps':>12}{'YaneuraOu nps':>15}{'ratio':>8}")
    try:
        for name, sfen in positions:
            a = ours.run(sfen, None, args.movetime, 600)
            b = theirs.run(sfen, None, args.movetime, 600)
            for key, r in (("ours", a), ("theirs", b)):
                totals[key][0] += r["nodes"]
                totals[key][1] += r["time_ms"]
            ratio = nps(a["nodes"], a["time_ms"]) / nps(b["nodes"], b["time_ms"])
            print(f"{name:<24}{fmt_int(nps(a['nodes'], a['time_ms'])):>12}"
                  f"{fmt_int(nps(b['nodes'], b['time_ms'])):>15}{ratio:>8.2f}")
    finally:
        ours.close()
        theirs.close()
        folder.cleanup()
    ours_nps, their_nps = nps(*totals["ours"]), nps(*totals["theirs"])
    print(f"{'all':<24}{fmt_int(ours_nps):>12}{fmt_int(their_nps):>15}"
          f"{ours_nps / their_nps:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
