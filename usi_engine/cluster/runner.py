"""Where a batch command's tasks run: in this process, on local worker processes, or as
Ray tasks. gensfen, relabel, analyze and book think give their tasks to one
:class:`TaskRunner`, which picks the place from ``--workers`` and ``--ray``: each
worker runs the command's initializer once (its engine: a Searcher, a network, a
teacher) and then the tasks it is given, and the results come back to this process.

    >>> with TaskRunner(print, ("ready",)) as runner:       # in this process
    ...     sorted(runner.imap_unordered(abs, [-2, 1]))
    ready
    [1, 2]
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.pool
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["TaskRunner"]


class TaskRunner:
    """Tasks on ``processes`` worker processes (0: in this process), or on Ray where
    ``ray_address`` is given ('' starts a local Ray, else what ``ray.init(address=)``
    takes). ``initializer(*initargs)`` runs once in each worker before its tasks."""

    def __init__(self, initializer: Callable[..., Any], initargs: tuple[Any, ...] = (), *,
                 processes: int = 0, ray_address: str | None = None) -> None:
        self.initializer = initializer
        self.initargs = initargs
        self.processes = max(0, processes)
        self.ray_address = ray_address
        self._pool: Any = None

    @property
    def on_ray(self) -> bool:
        """Do the tasks run as Ray tasks (which see none of this machine's files)?"""
        return self.ray_address is not None

    def __enter__(self) -> TaskRunner:
        if self.on_ray:
            from usi_engine.cluster.ray_pool import RayPool
            self._pool = RayPool(self.ray_address or None, self.initializer, self.initargs)
        elif self.processes:
            self._pool = multiprocessing.Pool(self.processes, initializer=self.initializer,
                                              initargs=self.initargs)
        else:
            self.initializer(*self.initargs)
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        pool, self._pool = self._pool, None
        if isinstance(pool, multiprocessing.pool.Pool):
            if kind is None:
                pool.close()
            else:
                pool.terminate()        # Ctrl-C or an error: the workers go at once
            pool.join()
        elif pool is not None:
            pool.close()

    def imap_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
                       on_wait: Callable[[], None] | None = None,
                       wait_s: float = 1.0) -> Iterator[Any]:
        """``fn(task)`` of every task, in the order they finish; ``on_wait()`` every
        ``wait_s`` seconds while worker processes have nothing new (a progress line)."""
        if self._pool is None:
            yield from map(fn, tasks)
        elif self.on_ray:
            yield from self._pool.imap_unordered(fn, tasks)
        else:
            yield from _waiting(self._pool.imap_unordered(fn, tasks), on_wait, wait_s)

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        """``fn(task)`` of every task, in the tasks' order."""
        if self._pool is None:
            return map(fn, tasks)
        if self.on_ray:
            return self._pool.map(fn, tasks)
        return self._pool.imap(fn, tasks)


def _waiting(results: Any, on_wait: Callable[[], None] | None,
             wait_s: float) -> Iterator[Any]:
    while True:
        try:
            yield results.next(timeout=wait_s)
        except multiprocessing.TimeoutError:
            if on_wait is not None:
                on_wait()
        except StopIteration:
            return
