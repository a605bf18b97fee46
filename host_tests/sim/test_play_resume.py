"""`make play` a second time (tools/play.py, issue 40): the table the last one left is resumed
by default, as the shoe itself does at power-on, with its deal number as the banker's display
and `status` say it and the deal's own events counted; --new starts a new table and keeps the
one it replaces as a history file beside the flash."""
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request

import simtable as S
from conftest import ROOT
from replay import replay_lines

WAIT_S = 60


def play(flash, *args):
    """Start tools/play.py on `flash`, wait for its table's prompt; returns (printed lines
    before the address, the /state, the process)."""
    p = subprocess.Popen([sys.executable, "tools/play.py", "--no-browser", "--flash",
                          str(flash)] + list(args), cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    said = []
    try:
        while True:
            assert select.select([p.stdout], [], [], WAIT_S)[0], "play.py printed no address"
            line = p.stdout.readline()
            assert line, p.stderr.read()
            m = re.match(r"^play: the table is at (http://\S+) ", line)
            if m:
                break
            said.append(line.rstrip("\n"))
        deadline = time.monotonic() + WAIT_S
        while True:
            with urllib.request.urlopen(m.group(1) + "state", timeout=WAIT_S) as r:
                st = json.loads(r.read())
            if st["boots"] == 1 and st["prompt"]:
                return said, st, p
            assert time.monotonic() < deadline, st
            select.select([], [], [], 0.1)           # (a pause between two polls)
    except BaseException:
        p.kill()
        raise


def stop(p):
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=WAIT_S)
    assert p.returncode == 0 and "Traceback" not in err, err
    return out


def in_deal_two(seats=3, seed=11, more=5):
    """A session's journal lines up to `more` events into its second deal, and that count."""
    head, events = S.script_session("table", seats, seed)
    e = replay_lines(head)
    for k, line in enumerate(events):
        before = e.deals
        e = replay_lines(head + events[:k + 1])
        if e.deals == 2 and before == 1 and e.in_deal():
            return head + events[:k + more], more
    raise AssertionError("no second deal")


def test_a_second_make_play_resumes_and_new_keeps_the_last_table(tmp_path):
    flash = tmp_path / "flash"
    S.fresh_flash(str(flash), S.settings_text("table", 3))
    lines, n = in_deal_two()
    (flash / "journal.txt").write_text("\n".join(lines) + "\n")    # left by a first make play
    said, st, p = play(flash)
    out = stop(p)
    assert said == ["play: resuming the table kept in %s (table, 3 seats; --new starts a new "
                    "one)" % os.path.relpath(str(flash), ROOT)], said
    # the deal in progress is deal 2 (as `status` and the banker's display say), and its own
    # events are counted, not the session's
    assert st["deal"][0] == "# deal 2 in progress: %d events so far (resumed)" % n, st["deal"]
    assert "`make play` resumes this table, `make play PLAY_ARGS=--new` starts a new one" in out
    journal = S.journal_text(str(flash)).decode()
    assert journal.splitlines()[:len(lines)] == lines     # the same table, nothing lost

    said, st, p = play(flash, "--new")                    # a new table: the old one kept
    stop(p)
    kept = tmp_path / "history" / "0001.txt"
    assert said == ["play: the last table's session is kept in %s"
                    % os.path.relpath(str(kept), ROOT)], said
    assert kept.read_text() == journal
    assert st["prompt"].startswith("Cut"), st

    said, st, p = play(flash)                              # and that one is resumed next time
    stop(p)
    assert said and said[0].startswith("play: resuming the table kept in "), said
    assert sorted(os.listdir(tmp_path / "history")) == ["0001.txt"]

    said, st, p = play(flash, "--seats", "5")              # other settings: a new table
    stop(p)
    assert not any("resuming" in x for x in said), said
    assert st["prompt"].startswith("Cut"), st
