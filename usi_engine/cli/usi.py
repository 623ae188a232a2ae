"""The USI loop on stdin/stdout: what ``usi-engine`` runs without a command."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def cmd_usi(_args: argparse.Namespace | None = None) -> int:
    from usi_engine.usi.loop import main as usi_main
    return usi_main()
