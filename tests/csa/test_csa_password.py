"""The CSA bridge masks the password field of the LOGIN line, and changes nothing
else: no other console or log line, and never the game record (issue #42). With a
one-character password, or one that is also a CSA token, replacing the password
wherever it occurs garbled words, move lines and the record."""
from __future__ import annotations

from pathlib import Path

import pytest

from test_csa_bridge import ScriptServer, run_bridge, summary

@pytest.mark.parametrize("text, masked", [
    ("LOGIN me x", "LOGIN me *****"),
    ("LOGIN me floodgate-300-10F,FU", "LOGIN me floodgate-300-10F,*****"),
    ("LOGIN me +", "LOGIN me *****"),
    ("LOGIN LOGIN LOGIN", "LOGIN LOGIN *****"),
    ("LOGIN me 1 x1", "LOGIN me ***** x1"),
    ("LOGIN:me OK", "LOGIN:me OK"),
    ("+7776FU,T1", "+7776FU,T1"),
    ("LOGOUT", "LOGOUT"),
])
def test_mask_login_masks_the_password_field_only(text, masked):
    from usi_engine.csa.game import mask_login
    assert mask_login(text) == masked


@pytest.mark.parametrize("password", ["x", "y", "FU", "+", "1", "LOGIN", "T", "%"])
def test_short_or_token_passwords_leave_every_other_line_and_the_record_intact(
        tmp_path, password):
    seen = {}

    def script(conn):
        seen["login"] = conn.login()
        conn.start(summary("+"))
        conn.our_move(t=1)
        conn.send("-3334FU,T1")
        conn.our_move(t=1)
        conn.end("%TORYO", "#RESIGN", "#WIN")

    server = ScriptServer(script)
    code, bridge, console, _ = run_bridge(tmp_path, server, password=password)
    assert code == 0
    assert seen["login"] == f"LOGIN tester test-300-10F,{password}"   # sent as it is
    record = Path(bridge.reports[0].record_path).read_text()
    assert "*****" not in record
    assert "'Max_Moves:256\n" in record and "\n-3334FU\nT1\n" in record
    assert "+1716FU\nT1\n" in record and "%TORYO" in record
    logs = [console] + [f.read_text() for f in (tmp_path / "logs").glob("*.log")]
    for text in logs:
        masked = [line for line in text.splitlines() if "*****" in line]
        assert all(line.endswith("LOGIN tester test-300-10F,*****") for line in masked), masked
    assert "LOGIN tester test-300-10F,*****" in console
    assert "closed by the server" in console or "LOGOUT" in console
    assert "-3334FU,T1" in console and "Max_Moves:256" in console
