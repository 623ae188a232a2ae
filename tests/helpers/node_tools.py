"""Test helper: the Node helpers under tools/ (tools/tsshogi, tools/browser), each
installed once with ``npm ci`` from its package.json and lock file into a cache folder
($USI_ENGINE_NODE_CACHE/NAME, default ~/.cache/usi_engine/NAME), since the tree's own
node_modules may be missing or stale.  The calling test is skipped when node or npm
is missing or npm cannot reach the registry."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def node_helper(name: str, package: str, scripts: tuple[str, ...]) -> Path:
    """The cache folder of tools/NAME with ``package`` installed at the version its
    lock file pins, and ``scripts`` copied beside it."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip(f"node and npm are needed for the {name} tests")
    source = ROOT / "tools" / name
    base = os.environ.get("USI_ENGINE_NODE_CACHE")
    cache = Path(base) / name if base else Path.home() / ".cache" / "usi_engine" / name
    cache.mkdir(parents=True, exist_ok=True)
    for file in ("package.json", "package-lock.json", *scripts):
        data = (source / file).read_bytes()
        if not (cache / file).exists() or (cache / file).read_bytes() != data:
            (cache / file).write_bytes(data)
    lock = json.loads((source / "package-lock.json").read_text())
    wanted = lock["packages"][f"node_modules/{package}"]["version"]
    installed = cache / "node_modules" / package / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != wanted:
        try:
            done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=cache,
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            pytest.skip("npm ci timed out (no registry?)")
        if done.returncode != 0:
            pytest.skip(f"npm ci failed (no registry?): {done.stderr.strip()[-300:]}")
    return cache
