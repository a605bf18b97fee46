"""The seal (firmware/ledger/seal.py): SHA-256 over the journal's lines from the header on, the first
8 hex digits shown at a session's end. It is the hash of the history file's bytes, whatever
the journal went through (UNDO, a boot's replay, the file or the raw flash tail), the same on
CPython and the MicroPython VM; any one-byte change to a history file breaks it."""
import hashlib
import os
import subprocess
import sys

from hypothesis import given, settings, strategies as st

from ledger import seal
from ledger import session as SS
from boards.simdev.flash import Flash
from conftest import FIRMWARE, ROOT, TOOLS

import simtable as S

HEAD, EVENTS = S.script_session("classic", 3, seed=39, banker=1, deals=2)
STAKE = EVENTS.index(next(x for x in EVENTS if x.startswith("stake")))
SCENARIO = os.path.join(ROOT, "host_tests", "scenarios", "table", "aces_soft_hard.txt")


def sha8(data):
    x = hashlib.sha256(data).hexdigest()[:8].upper()
    return x[:4] + " " + x[4:]


def _session(tmp_path, raw, name):
    root = str(tmp_path / name) + "/"
    os.makedirs(root)
    return SS.Session(root, say=lambda text: None, flash=Flash() if raw else None), root


def _play(s, events):
    for line in events:


        from game.transcript import parse_event, strip
        ev = parse_event(strip(line))
        assert s.feed(*ev) is None, line
        assert s.record(line) is None



def _kept(s):
    name = s.archive()
    with open(name, "rb") as f:
        return f.read()


def test_the_seal_is_the_sha256_of_the_kept_file_on_both_journals(tmp_path):
    for raw in (False, True):
        s, _ = _session(tmp_path, raw, "plain%d" % raw)
        assert s.start(HEAD) is None
        _play(s, EVENTS)
        data = _kept(s)
        assert data == "".join(x + "\n" for x in HEAD + EVENTS).encode()
        assert s.seal.text == sha8(data)


def test_undo_and_a_boots_replay_keep_the_seal_true(tmp_path):
    for raw in (False, True):
        s, root = _session(tmp_path, raw, "undo%d" % raw)
        assert s.start(HEAD) is None
        _play(s, EVENTS[:STAKE + 1])
        assert s.undo(False) is None           # the first stake taken back, staked again
        _play(s, EVENTS[STAKE:STAKE + 8])
        # a boot: the journal replayed, the running hash fed again from it
        flash = s.journal.dev if raw else None
        s.close()
        b = SS.Session(root, say=lambda text: None, flash=flash)
        assert b.journal.recover()
        b.replay()
        b.seal.catch_up(b.journal)
        _play(b, EVENTS[STAKE + 8:])
        data = _kept(b)
        assert data == "".join(x + "\n" for x in HEAD + EVENTS).encode()
        assert b.seal.text == sha8(data)


def test_a_boots_hash_caught_up_in_slices_between_events_and_folds(tmp_path):
    """After a boot the running hash follows the journal a few lines a quiet pass
    (housekeeping): events journaled and tails folded between two slices change nothing."""
    for raw in (False, True):
        s, root = _session(tmp_path, raw, "slices%d" % raw)
        assert s.start(HEAD) is None
        _play(s, EVENTS[:STAKE + 8])
        flash = s.journal.dev if raw else None
        s.close()
        b = SS.Session(root, say=lambda text: None, flash=flash)
        assert b.journal.recover()
        b.replay()
        assert b.seal.behind()
        done = False
        for k, ev in enumerate(EVENTS[STAKE + 8:]):
            if not done:
                done = b.seal.catch_up_some(b.journal, 2)
            _play(b, [ev])
            if k % 5 == 4:
                b.fold()
        assert done and not b.seal.behind()
        data = _kept(b)
        assert data == "".join(x + "\n" for x in HEAD + EVENTS).encode()
        assert b.seal.text == sha8(data)


def test_the_seal_is_taken_once_and_the_digest_format():
    sl = seal.Seal()
    sl.start(["rules table", "seats 3"])
    sl.add("card AS")
    assert sl.text == ""
    want = sha8(b"rules table\nseats 3\ncard AS\n")
    assert sl.take(None) == want and sl.take(None) == want
    assert seal.short(bytes.fromhex("3f9a21c7ff")) == "3F9A 21C7"


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_one_byte_change_breaks_the_seal(data):
    with open(SCENARIO, "rb") as f:
        text = f.read()
    i = data.draw(st.integers(0, len(text) - 1), label="position")
    b = data.draw(st.integers(0, 255).filter(lambda v: v != text[i]), label="byte")
    bad = text[:i] + bytes((b,)) + text[i + 1:]
    assert seal.of_lines(bad.splitlines(True)) != seal.of_lines(text.splitlines(True))


def _replay(*args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, "replay.py")] + list(args),
                          capture_output=True, text=True)


def test_replay_says_whether_a_file_is_the_sealed_one(tmp_path):
    with open(SCENARIO, "rb") as f:
        text = f.read()
    digits = sha8(text).replace(" ", "")
    p = _replay("--seal", digits.lower(), SCENARIO)
    assert p.returncode == 0 and p.stdout.count("\n") == 1
    assert "sealed: seal %s" % sha8(text) in p.stdout
    changed = tmp_path / "changed.txt"
    changed.write_bytes(text.replace(b"stake 1 ", b"stake 1 1", 1))
    p = _replay("--seal", digits, str(changed))
    assert p.returncode == 1 and "NOT the sealed file" in p.stdout and p.stdout.count("\n") == 1
    for bad in (["--seal", "3F9A", SCENARIO], ["--seal", digits], ["--seal", "XYZ12345", SCENARIO],
                ["--seal", digits, str(tmp_path / "none.txt")]):
        p = _replay(*bad)
        assert p.returncode == 2 and p.stderr.startswith("replay: error:"), bad


def test_the_micropython_vm_seals_alike(micropython, tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "from ledger import seal\n"
        "s = seal.Seal()\n"
        "s.start(%r)\n"
        "for line in %r:\n    s.add(line)\n"
        "print(s.take(None))\n"
        "print(seal.of_lines(open(%r, 'rb')))\n" % (HEAD, EVENTS, SCENARIO))
    p = micropython([str(script)], micropypath=FIRMWARE)
    assert p.returncode == 0, p.stderr
    with open(SCENARIO, "rb") as f:
        text = f.read()
    assert p.stdout.decode().split("\n")[:2] == [
        sha8("".join(x + "\n" for x in HEAD + EVENTS).encode()), sha8(text)]
    p = subprocess.run([os.path.join(os.path.dirname(sys.executable), "micropython"),
                        os.path.join(TOOLS, "replay.py"), "--seal",
                        sha8(text).replace(" ", ""), SCENARIO], capture_output=True)
    assert p.returncode == 0, p
