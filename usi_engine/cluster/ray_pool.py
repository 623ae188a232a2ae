"""Batches as Ray tasks: the same work the commands give their local process pools,
run on a Ray cluster (``pip install ray``, or ``pip install '.[cluster]'`` in a checkout).

Each task is a function of the package applied to one batch; a Ray worker process
runs the command's initializer once (its engine: a Searcher, a network, a teacher)
and keeps it for every later task it is given. The driver gets each batch's result
whole and writes it itself, as the local run does, so the output does not depend on
where a batch ran and a rerun resumes from the files. A task whose worker dies is run
again (``max_retries``): a batch is a pure function of its inputs, so nothing is lost
and nothing differs.

    pool = RayPool("auto", initializer=_worker_init, initargs=(settings,))
    for result in pool.imap_unordered(_analyze_task, tasks):
        ...
    pool.close()

``address`` None starts a local Ray on this machine (``ray.init()``); otherwise it is
what ``ray.init(address=...)`` takes: ``auto`` (the cluster this machine belongs to),
``HOST:PORT`` of a head node, or ``ray://HOST:10001`` for Ray Client.
"""
from __future__ import annotations

import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["RayPool", "RayConnectError", "ray_available", "MISSING_RAY"]

MISSING_RAY = ("--ray needs Ray: pip install ray (in a checkout: pip install '.[cluster]') "
               "on this machine and on every machine of the cluster")

_STATE: dict[str, Any] = {}


class RayConnectError(ValueError):
    """Ray could not be started or reached at the address given (the message says which)."""


def unreachable(address: str) -> str | None:
    """Why ``HOST:PORT`` (or ``ray://HOST:PORT``) takes no TCP connection within 10 s,
    or None when it does or the address is not of that form (``auto``): Ray itself
    would retry an unreachable head for minutes before it says so."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not host:
        return None
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    return None


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def _call(initializer: Callable[..., None] | None, initargs: tuple, fn: Callable[[Any], Any],
          task: Any) -> Any:
    """Runs in a Ray worker: the initializer once per worker (again if the arguments
    change), then ``fn(task)``."""
    key = (initializer, initargs)
    if initializer is not None and _STATE.get("key") != key:
        initializer(*initargs)
        _STATE["key"] = key
    return fn(task)


class RayPool:
    """A pool of Ray tasks with a per-worker initializer (see the module)."""

    def __init__(self, address: str | None, initializer: Callable[..., None] | None = None,
                 initargs: tuple = (), max_retries: int = 3, cpus_per_task: float = 1.0) -> None:
        import ray
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            where = f"the Ray cluster at {address}" if address else "a local Ray"
            problem = unreachable(address) if address else None
            if problem:
                raise RayConnectError(f"--ray: cannot reach {where}: {problem}")
            try:
                ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
            except Exception as exc:      # Ray raises ConnectionError, RuntimeError, ...
                raise RayConnectError(f"--ray: cannot start or reach {where}: "
                                      f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                                      ) from None
        self._remote = ray.remote(num_cpus=cpus_per_task, max_retries=max_retries)(_call)
        self._initializer, self._initargs = initializer, initargs
        self._init_ref = ray.put(initargs)

    def _submit(self, fn: Callable[[Any], Any], task: Any) -> Any:
        return self._remote.remote(self._initializer, self._init_ref, fn, task)

    def imap_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        """``fn(task)`` of every task, in the order they finish."""
        pending = [self._submit(fn, task) for task in tasks]
        while pending:
            done, pending = self._ray.wait(pending, num_returns=1)
            for ref in done:
                yield self._ray.get(ref)

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        """``fn(task)`` of every task, in the tasks' order (each as soon as it and
        those before it are done)."""
        refs = [self._submit(fn, task) for task in tasks]
        for ref in refs:
            yield self._ray.get(ref)

    def close(self) -> None:
        """Leave the cluster (a local Ray started here is shut down)."""
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()

    def __enter__(self) -> "RayPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
