"""Power cuts and torn journals: the firmware replays its journal and continues the deal
exactly where it was.

CPython (fast, in-process): a recorded 2-deal `classic` session cut after every single
event (and with a torn half line after every third one), each run recovering to the same
final ledger and the engine state identical to the uninterrupted run at the cut. On the
MicroPython VM: a full `table` session killed at four cut points (a subset, for time)."""
import os

import pytest
from app_support import Bench

import runner as R
import simtable as S
from boards.simdev.flash import Flash


def engine_state(e):
    return (bytes(e.registers()), bytes(e.hb), bytes(e.hw), bytes(e.sw), bytes(e.sb), bytes(e.order),
            bytes(e.loc))


def _record(tmp_path_factory, raw):
    """An uninterrupted run; the journal's bytes after each acknowledged event (and the raw
    flash region's, with `raw`: the shoe's own UF2)."""
    head, events = S.script_session("classic", 3, seed=39, banker=1, deals=2,
                                    options=("stake_max=10",))
    flash = str(tmp_path_factory.mktemp("rec") / "flash")
    settings = S.settings_text("classic", 3, banker=1, options=("stake_max=10",))
    S.fresh_flash(flash, settings)
    d = S.Driver(head, events, seed=7)
    region = Flash() if raw else None
    snaps = {}
    inner = d.on_output

    def on_output(line):
        inner(line)
        if S.acked_at(line) is not None:
            snaps[d.acked] = flash_files(flash)
            if raw:
                snaps[d.acked]["raw"] = bytes(region.data)
    d.on_output = on_output
    r = R.CPython(flash, d, raw_flash=region)
    r.boot()
    r.run()
    assert d.done and d.errors == [] and d.retries == 0
    return head, events, settings, snaps, journal_ledger(flash, region)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return _record(tmp_path_factory, False)


@pytest.fixture(scope="module")
def recorded_raw(tmp_path_factory):
    return _record(tmp_path_factory, True)


def flash_files(flash):
    """The journal's files as the power cut leaves them: journal.txt and its tail."""
    out = {}
    for name in ("journal.txt", "jtail/lines.txt"):
        path = os.path.join(flash, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                out[name] = f.read()
    return out


def journal_ledger(flash, region=None):
    path = os.path.join(flash, "whole-journal.txt")
    with open(path, "wb") as f:
        f.write(S.journal_text(flash, region))
    return S.ledger(path)


def resume(tmp_path, head, events, settings, files):
    flash = str(tmp_path / "cut")
    S.fresh_flash(flash, settings)
    region = None
    for name, data in files.items():
        if name == "raw":
            region = Flash()
            region.data[:] = data
            continue
        os.makedirs(os.path.dirname(os.path.join(flash, name)), exist_ok=True)
        with open(os.path.join(flash, name), "wb") as f:
            f.write(data)
    d = S.Driver(head, events, seed=3)
    r = R.CPython(flash, d, raw_flash=region)
    t = r.boot().table
    booted = (t.nev, engine_state(t.e), list(d.output))
    r.run()
    assert d.done and d.acked == len(events)
    lines = S.journal_text(flash, region).decode().splitlines()
    assert lines[len(head):] == events
    return booted, journal_ledger(flash, region), d


def test_recorded_session_is_interesting(recorded):
    head, events, _, snaps, led = recorded
    words = set(ln.split()[0] for ln in events)
    assert {"stake", "card", "stick", "twist", "stand", "buy", "sell"} <= words
    assert len(events) >= 30 and len(snaps) == len(events) + 1   # #0 .. #N
    assert len(led["deals"]) == 2 and led["events"] == []


def test_power_cut_after_every_event_cpython(recorded, tmp_path):
    head, events, settings, snaps, led = recorded
    for k in range(len(events) + 1):
        (nev, state, out), got, d = resume(tmp_path, head, events, settings, snaps[k])
        assert nev == k, k
        assert state == engine_state(S.shadow(head, events, k)), "state differs after cut %d" % k
        assert "# resume #%d" % k in out
        assert got["balances"] == led["balances"] and got["kitty"] == led["kitty"], k
        assert d.errors == [] and d.retries == 0, (k, d.errors)


def test_power_cut_after_every_event_raw_flash(recorded_raw, recorded, tmp_path):
    # the shoe's own UF2: the tail and the snapshots in the raw flash region
    head, events, settings, snaps, led = recorded_raw
    assert led == recorded[4]
    assert all("jtail/lines.txt" not in x for x in snaps.values())
    for k in range(len(events) + 1):
        (nev, state, out), got, d = resume(tmp_path, head, events, settings, snaps[k])
        assert nev == k, k
        assert state == engine_state(S.shadow(head, events, k)), "state differs after cut %d" % k
        assert "# resume #%d" % k in out
        assert got["balances"] == led["balances"] and got["kitty"] == led["kitty"], k
        assert d.errors == [] and d.retries == 0, (k, d.errors)


def test_torn_line_after_every_third_event_cpython(recorded, tmp_path):
    head, events, settings, snaps, led = recorded
    for k in range(0, len(events), 3):
        torn = dict(snaps[k])
        last = "jtail/lines.txt" if "jtail/lines.txt" in torn else "journal.txt"
        torn[last] += events[k][: max(1, len(events[k]) // 2)].encode()
        (nev, state, out), got, d = resume(tmp_path, head, events, settings, torn)
        assert nev == k
        assert any(x.startswith("# journal: torn last line") for x in out), out
        assert got["balances"] == led["balances"], k


def test_power_cuts_on_micropython(tmp_path):
    head, events = S.script_session("table", 4, seed=9)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("table", 4))
    d = S.Driver(head, events, seed=9)
    cuts = [3, len(events) // 3, 2 * len(events) // 3, len(events) - 1]
    resumed = []
    for cut in cuts + [None]:
        r = R.VM(flash, d, heap=R.VM_HEAP).boot()
        happened = cut is not None and r.run(until=lambda r: d.acked >= cut)
        if happened:
            r.power_cut()
        else:
            r.run()
            r.halt()
        rc = r.rc
        resumed.append([x for x in d.output if x.startswith(("# resume #", S.NEW_SESSION))][-1])
        if cut is not None:
            assert happened and d.acked == cut, (cut, d.acked, d.output[-5:])
        else:
            assert rc == 0, d.output[-10:]
    assert resumed[0].startswith(S.NEW_SESSION)          # nothing to resume at the first boot
    assert resumed[1:] == ["# resume #%d" % c for c in cuts]
    assert d.done and d.errors == [] and d.retries == 0
    files = S.history_files(flash)
    assert len(files) == 1
    with open(files[0]) as f:
        assert [ln.rstrip("\n") for ln in f][len(head):] == events
    want = S.shadow(head, events, len(events))
    led = S.ledger(files[0])
    assert led["balances"] == {str(s): want.balance(s) for s in range(1, 5)}
    assert led["finished"]


def _journal(head, events, n):
    return "\n".join(head + events[:n]) + "\n"


@pytest.mark.parametrize("tail,note", [
    ("card 7", "torn last line"),                 # no newline
    ("stake 2 x\n", "journal line"),              # does not parse
    ("stick 3\n", "journal line"),                # does not replay (not its turn)
    ("\xff\xfe\n", "journal line"),               # not UTF-8
])
def test_bad_last_line_is_dropped(tmp_path, tail, note):
    head, events = S.script_session("table", 4, seed=5)
    n = 6
    text = _journal(head, events, n).encode() + tail.encode("latin-1")
    b = Bench(str(tmp_path / "f"), settings=S.settings_text("table", 4), journal=text)
    assert b.t.nev == n
    assert any(note in x for x in b.out), b.out
    assert b.journal() == _journal(head, events, n)
    assert "# resume #%d" % n in b.out


def test_finished_journal_is_kept_and_a_new_session_starts(tmp_path):
    head, events = S.script_session("table", 4, seed=5)
    b = Bench(str(tmp_path / "f"), settings=S.settings_text("table", 4),
              journal=_journal(head, events, len(events)))
    assert b.t.ui.over and b.t.e.finished()
    hist = os.path.join(b.flash, "history", "0001.txt")
    assert os.path.exists(hist) and not os.path.exists(b.flash + "journal.txt")
    assert "Session over" in b.screen(8)
    assert b.send("stake 2 1").startswith("error: the session is over")
    b.press("OK")
    assert not b.t.ui.over and b.t.nev == 0
    assert b.journal() == "rules table\nseats 4\n"
    # after a reboot the new session goes on; the old one stays in the history
    b.boot()
    assert b.t.nev == 0 and not b.t.ui.over and os.path.exists(hist)
