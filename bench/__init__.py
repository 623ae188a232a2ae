"""Benchmarks, matches and diagnostic suites for usi_engine (not part of the package).

Run from the repository root, e.g. ``python -m bench.speed.perft_bench`` or
``python -m bench perft``; ``python -m bench`` lists the commands.  The shared code is
in :mod:`bench.lib`; bench/README.md describes every entry point.
"""
