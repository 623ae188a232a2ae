"""The bench signature: the node counts of `usi-engine bench`, pinned.

`usi-engine bench` searches fixed positions to a fixed depth with a fresh 16 MB table
on one thread, so its node count is a fingerprint of the search: the same code gives
the same count on every machine.  A commit that changes the search (pruning,
reductions, ordering, evaluation, the table) changes it; a commit that only moves code
must not.

When a commit changes the search on purpose, update the numbers below in that same
commit and say why in its message, with the new figures as a trailer line, e.g.
"Bench: 30,482 (default), 534,771 (--eval hand --depth 10)".  An unexpected change
here is a change of behaviour: find out which commit did it before updating.
"""
import subprocess
import sys

import pytest

from conftest import ROOT

#: (arguments after `bench`, nodes): the default bench (learned evaluation, depth 5)
#: and the hand-set evaluation at depth 10 (about a second).
SIGNATURES = [
    ((), 29_206),
    (("--eval", "hand", "--depth", "10"), 395_629),
]


def bench_nodes(*args: str) -> int:
    done = subprocess.run([sys.executable, "-m", "usi_engine", "bench", *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1].split()
    assert last[0::2] == ["nodes", "time_ms", "nps"], last     # nodes N time_ms T nps X
    return int(last[1])


@pytest.mark.parametrize("args, nodes", SIGNATURES, ids=["default", "hand-depth-10"])
def test_the_bench_node_count_is_pinned(args, nodes):
    assert bench_nodes(*args) == nodes


def test_the_bench_readme_states_the_pinned_counts():
    text = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    for args, nodes in SIGNATURES:
        assert f"{nodes:,}" in text, f"bench/README.md does not give {nodes:,} for bench {args}"
