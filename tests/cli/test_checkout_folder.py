"""Started inside a checkout whose core is not compiled (where the README's
``pip install .`` leaves a user): every child process the package starts runs the
compiled copy, and a Python started there uses the installed copy instead of failing;
an engine that dies before ``usiok`` has its stderr shown on the bridge's console."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_csa_bridge import PASSWORD
from usi_engine.csa.bridge import Bridge, BridgeConfig
from usi_engine.usi.client import UsiClient, default_engine_command

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("*.py", "*.pyx", "*.pxd", "*.pxi", "*.pyi", "*.h")


def make_uncompiled_clone(folder: Path) -> Path:
    """``folder`` holding the package's sources alone, as a clone does before any build."""
    for pattern in SOURCES:
        for source in (ROOT / "usi_engine").rglob(pattern):
            target = folder / source.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return folder


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    return make_uncompiled_clone(tmp_path_factory.mktemp("clone"))


def plain_env() -> dict[str, str]:
    """No PYTHONPATH: the interpreter finds the package as a user's would."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def test_the_engine_a_child_runs_is_this_copy_wherever_it_is_started(checkout):
    with UsiClient(default_engine_command(), cwd=checkout, env=plain_env()) as engine:
        engine.handshake()
        assert engine.go("depth 1", timeout=30).bestmove
        assert engine.name.startswith("usi_engine")
    assert not any("not compiled" in text for text in engine.stderr_tail)


def test_python_started_in_an_uncompiled_checkout_uses_the_compiled_copy(checkout):
    done = subprocess.run([sys.executable, "-c",
                           "import usi_engine; print(usi_engine.Position().perft(2))"],
                          cwd=checkout, env=plain_env(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["900"]
    note = " is not compiled; using the installed copy in "
    assert note in done.stderr
    assert done.stderr.split(note)[0].rstrip("\\/").endswith("usi_engine")   # this folder


def test_python_m_usi_engine_in_an_uncompiled_checkout_runs_the_compiled_copy(checkout):
    done = subprocess.run([sys.executable, "-m", "usi_engine", "perft", "2"], cwd=checkout,
                          env=plain_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("nodes 900 ")


def test_an_uncompiled_checkout_with_no_other_copy_says_how_to_build_it(checkout):
    # -S: no site-packages (so no installed or editable copy), -E: no PYTHONPATH
    done = subprocess.run([sys.executable, "-S", "-E", "-c", "import usi_engine"],
                          cwd=checkout, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "the compiled core is not built in" in done.stderr
    assert "pip install -e ." in done.stderr


def test_an_engine_that_dies_before_usiok_has_its_stderr_on_the_console(tmp_path):
    # (the text is put together at run time: the console also shows the command line)
    dying = [sys.executable, "-c", "import sys; print('Import' + 'Error: no module named "
             "nowhere', file=sys.stderr); sys.exit(1)"]
    config = BridgeConfig(host="127.0.0.1", port=4081, id="tester", password=PASSWORD,
                          engine=dying, log_dir=str(tmp_path / "logs"), engine_timeout_s=20)
    console = io.StringIO()
    assert Bridge(config, stream=console).run() == 2
    text = console.getvalue()
    assert "the engine exited (code 1) before usiok" in text
    assert "ImportError: no module named nowhere" in text
    session = next((tmp_path / "logs").glob("csa-session-*.log")).read_text()
    stderr_lines = [line for line in session.splitlines() if " engine stderr " in line]
    assert len(stderr_lines) == 1 and stderr_lines[0].endswith("ImportError: no module named "
                                                               "nowhere")
