"""The ``--ray [ADDRESS]`` option the batch commands share."""
from __future__ import annotations

import argparse

__all__ = ["add_ray_argument", "check_ray"]


def add_ray_argument(parser: argparse.ArgumentParser, unit: str) -> None:
    """``--ray`` (a local Ray) or ``--ray ADDRESS`` (a cluster's head, ``auto``, or
    ``ray://HOST:10001``): ``unit`` names what one Ray task does."""
    parser.add_argument(
        "--ray", nargs="?", const="", default=None, metavar="ADDRESS",
        help=f"run each task ({unit}) on Ray: without ADDRESS a local Ray started here, "
             "else the cluster at ADDRESS (HOST:PORT of its head, 'auto', or "
             "ray://HOST:10001); needs Ray (pip install ray); the output "
             "is the same as without --ray")


def check_ray(address: str | None) -> str | None:
    """An error message when --ray was given (``address`` not None: ``""`` for a local
    Ray) and Ray is not installed, else None."""
    if address is None:
        return None
    from usi_engine.cluster.ray_pool import MISSING_RAY, ray_available
    return None if ray_available() else MISSING_RAY
