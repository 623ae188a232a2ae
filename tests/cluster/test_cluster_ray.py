"""--ray on a Ray cluster started here (a head and a second node, one CPU each, both
on this machine): analyze, gensfen, book think and relabel write the same bytes as
their local runs; a worker killed in the middle of a run loses no batch (Ray runs the
task again) and the run completes; a rerun resumes from the files.

Marked slow (starting Ray takes tens of seconds on two cores); needs Ray
(``pip install ray``): ``python -m pytest -m slow tests/cluster/test_cluster_ray.py``.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install ray)")

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RECORDS = Path(__file__).resolve().parents[1] / "records"
FAKE_TEACHER = Path(__file__).resolve().parents[1] / "helpers" / "usi_fake_teacher.py"
RAY = str(Path(sys.executable).with_name("ray"))
#: Token authentication (on by default since Ray 2.5x) is for real networks; this
#: cluster listens on 127.0.0.1 alone.  Every process of the tests gets this.
ENV = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """The address of a two-node Ray cluster on this machine."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    common = ["--num-cpus", "1", "--disable-usage-stats", "--node-ip-address", "127.0.0.1"]

    def ray(*args: str) -> None:
        done = subprocess.run([RAY, *args], capture_output=True, text=True, timeout=180, env=ENV)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ray("start", "--head", "--port", str(port), "--include-dashboard", "false", *common)
    try:
        ray("start", "--address", address, *common)
        yield address
    finally:
        subprocess.run([RAY, "stop", "--force"], capture_output=True, timeout=120, env=ENV)


def usi_engine(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "usi_engine", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=ENV)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def same_files(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_analyze_on_the_cluster_writes_what_the_local_run_writes(cluster, tmp_path):
    args = (str(RECORDS), "--nodes", "1500", "--multipv", "2")
    usi_engine("analyze", *args, "--out", str(tmp_path / "local"))
    usi_engine("analyze", *args, "--out", str(tmp_path / "ray"), "--ray", cluster)
    same_files(tmp_path / "local", tmp_path / "ray")


def test_book_think_on_the_cluster_writes_what_the_local_run_writes(cluster, tmp_path):
    args = ("--depth", "5", "--multipv", "3", "--expand-plies", "4", "--max-positions", "12",
            "--hash", "8")
    usi_engine("book", "think", "startpos", "--out", str(tmp_path / "local.db"), *args)
    usi_engine("book", "think", "startpos", "--out", str(tmp_path / "ray.db"), *args,
               "--ray", cluster)
    assert (tmp_path / "local.db").read_bytes() == (tmp_path / "ray.db").read_bytes()


def gensfen(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return usi_engine("gensfen", "--out", str(out), "--positions", "480", "--batch-positions",
                      "40", "--nodes", "300", "--seed", "11", *extra)


def test_gensfen_on_the_cluster_from_inside_an_uncompiled_checkout(cluster, tmp_path):
    # Ray's workers put the driver's folder first on their path: there, the clone's
    # uncompiled usi_engine/ hands its imports to the compiled copy
    from test_checkout_folder import make_uncompiled_clone
    clone = make_uncompiled_clone(tmp_path / "clone")
    gensfen(tmp_path / "local", "--workers", "1")
    env = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(Path(sys.executable).with_name("usi-engine")), "gensfen",
                           "--out", str(tmp_path / "ray"), "--positions", "480",
                           "--batch-positions", "40", "--nodes", "300", "--seed", "11",
                           "--ray", cluster], cwd=clone, capture_output=True, text=True,
                          timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    same_files(tmp_path / "local", tmp_path / "ray")


def test_gensfen_and_relabel_on_the_cluster_write_what_the_local_runs_write(cluster, tmp_path):
    gensfen(tmp_path / "local", "--workers", "1")
    gensfen(tmp_path / "ray", "--ray", cluster)
    same_files(tmp_path / "local", tmp_path / "ray")
    teacher = f"{sys.executable} {FAKE_TEACHER}"
    batches = [str(p) for p in sorted((tmp_path / "local").glob("batch-*.psv"))[:4]]
    usi_engine("relabel", *batches, "--out", str(tmp_path / "rl-local"), "--engine", teacher,
               "--workers", "1")
    usi_engine("relabel", *batches, "--out", str(tmp_path / "rl-ray"), "--engine", teacher,
               "--ray", cluster)
    same_files(tmp_path / "rl-local", tmp_path / "rl-ray")


def ray_task_pids() -> list[int]:
    """Ray worker processes running one of our tasks (Ray titles them ray::_call)."""
    done = subprocess.run(["pgrep", "-f", "ray::_call"], capture_output=True, text=True)
    return [int(pid) for pid in done.stdout.split()]


def test_a_killed_worker_loses_no_batch_and_a_rerun_resumes(cluster, tmp_path):
    reference = tmp_path / "local"
    gensfen(reference, "--workers", "1")
    out = tmp_path / "ray"
    run = subprocess.Popen([sys.executable, "-m", "usi_engine", "gensfen", "--out", str(out),
                            "--positions", "480", "--batch-positions", "40", "--nodes", "300",
                            "--seed", "11", "--ray", cluster], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    killed = 0
    deadline = time.monotonic() + 240
    while run.poll() is None and time.monotonic() < deadline and not killed:
        pids = ray_task_pids()
        if pids and len(list(out.glob("batch-*.psv"))) >= 1:
            os.kill(pids[0], signal.SIGKILL)        # a worker dies with a batch under way
            killed += 1
        time.sleep(0.05)
    stdout, stderr = run.communicate(timeout=600)
    assert killed == 1, "no Ray worker was seen running a batch"
    assert run.returncode == 0, stderr[-3000:]
    same_files(reference, out)
    # a rerun after a lost file makes that batch alone
    (out / "batch-00003.psv").unlink()
    done = gensfen(out, "--ray", cluster)
    assert "11 of 12 batches already in" in done.stderr
    same_files(reference, out)
