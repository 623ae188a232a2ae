"""``usi-engine csa``: play on a CSA server (floodgate) through the bridge."""
from __future__ import annotations

import argparse
from typing import Any

from usi_engine.cli.common import fail, int_in


def cmd_csa(args: argparse.Namespace) -> int:
    """Play on a CSA server (floodgate) through the bridge in :mod:`usi_engine.csa.bridge`."""
    from usi_engine.csa.bridge import Bridge, ConfigError, build_config
    try:
        config = build_config(args)
    except ConfigError as exc:
        return fail(str(exc), "csa")
    try:
        bridge = Bridge(config)
    except OSError as exc:
        return fail(f"cannot write the logs in {config.log_dir}: {exc}", "csa")
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
    csa.add_argument("--retries", type=int_in(0, 1000), metavar="N",
                     help="retries of a failed connection or login before giving up "
                          "(default 8: about 15 minutes; 0: give up at the first failure)")
    csa.add_argument("--config", help="TOML file with the same settings (Python 3.11+)")
    csa.set_defaults(func=cmd_csa, depth=0)
