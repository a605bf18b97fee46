"""The engine snapshot beside the journal (firmware/ledger/snapshot.py): a boot from it is the
same table as a boot that replays every event, for every point of real sessions; a torn,
stale or foreign snapshot is never trusted (the whole journal is replayed instead)."""
import os

import pytest
from app_support import Bench

import simtable as S
from ledger.journal import Journal
from ledger.snapshot import Snapshot
from game.transcript import Header, parse_event, read_events, strip


def engine_of(lines):
    h = Header()
    e = None
    for _, _, _, ev in read_events(lines, h):
        if e is None:
            e = h.engine()
        assert e.apply(*ev) is None
    return e if e is not None else h.engine()


def state_bytes(e):
    return [bytes(b) for b in e.state()]


def journal_with(root, head, events):
    j = Journal(root)
    j.start(head)
    for line in events:
        j.append(line)
    return j


@pytest.mark.parametrize("preset,seats,seed", [("table", 4, 1), ("classic", 5, 2),
                                               ("casino", 3, 3)])
def test_a_snapshot_at_any_point_restores_what_a_full_replay_builds(tmp_path, preset, seats,
                                                                    seed):
    head, events = S.script_session(preset, seats, seed)
    assert len(events) > 60
    for k in list(range(1, len(events), 7)) + [len(events)]:
        root = str(tmp_path / ("%s%d" % (preset, k))) + "/"
        os.makedirs(root)
        j = journal_with(root, head, events[:k])
        j.fold()
        e = engine_of([x + "\n" for x in head + events[:k]])
        snap = Snapshot(root)
        snap.save(e, j, k, b"\x07\x01")
        for line in events[k:k + 5]:           # events after the snapshot, in the tail
            j.append(line)
        j.close()
        j2 = Journal(root)
        assert j2.recover()
        fresh = engine_of([x + "\n" for x in head])
        s2 = Snapshot(root)
        skip = s2.restore(fresh, j2)
        assert skip == len("".join(x + "\n" for x in head + events[:k]))
        assert (s2.events, s2.extra) == (k, b"\x07\x01")
        assert state_bytes(fresh) == state_bytes(e)
        # the events after it, replayed from the offset, give the whole journal's engine
        g = j2.lines()
        try:
            for _, start, _, ev in read_events(g, Header(), skip):
                assert start >= skip
                assert fresh.apply(*ev) is None
        finally:
            g.close()
        assert state_bytes(fresh) == state_bytes(engine_of(
            [x + "\n" for x in head + events[:k + 5]]))


def _saved(tmp_path):
    head, events = S.script_session("table", 3, 4)
    root = str(tmp_path) + "/"
    j = journal_with(root, head, events[:30])
    j.fold()
    snap = Snapshot(root)
    snap.save(engine_of([x + "\n" for x in head + events[:30]]), j, 30)
    return root, j, head, events


def _trusted(root, head):
    j = Journal(root)
    j.recover()
    return Snapshot(root).restore(engine_of([x + "\n" for x in head]), j)


def test_a_torn_or_changed_snapshot_is_not_trusted(tmp_path):
    root, j, head, events = _saved(tmp_path)
    assert _trusted(root, head)
    path = root + "jsnap/state.bin"
    with open(path, "rb") as f:
        data = f.read()
    for bad in (data[:-1], data[:len(data) // 2], data[:-3] + bytes([data[-3] ^ 1]) + data[-2:],
                b"SNP0" + data[4:], b""):
        with open(path, "wb") as f:
            f.write(bad)
        assert _trusted(root, head) == 0, bad[:8]


def test_a_snapshot_of_another_journal_is_not_trusted(tmp_path):
    root, j, head, events = _saved(tmp_path)
    # the journal cut back before the snapshot's point (UNDO), then a different event
    j.cut(len("".join(x + "\n" for x in head + events[:29])))
    j.append(events[29].replace("1", "2") if "1" in events[29] else "void")
    j.fold()
    assert _trusted(root, head) == 0
    # a new session's journal
    j.start(head)
    for line in events[:30]:
        j.append(line.replace("stake 1 ", "stake 2 ") if line.startswith("stake 1 ")
                 else line)
    j.fold()
    assert _trusted(root, head) == 0


def test_the_table_boots_from_its_snapshot_to_the_same_place(tmp_path):
    # a session played on CPython, the power cut at the end: a boot from the snapshot the
    # table wrote, and a boot with the snapshot removed, show and answer the same
    head, events = S.script_session("table", 4, 5)
    # the last moment a player is to act (no card may come: the table may write then)
    k = len(events) - 1
    while True:
        e = engine_of([x + "\n" for x in head + events[:k]])
        if e.in_deal() and e.expected_card_slot() == -1:
            break
        k -= 1
    assert k > len(events) - 15
    events = events[:k + 1]
    flash = str(tmp_path / "flash")
    b = Bench(flash, settings=S.settings_text("table", 4),
              journal="".join(x + "\n" for x in head + events[:-1]))
    assert any("events replayed" in x for x in b.out), b.out[-5:]
    b.settle(3000)                              # quiet: the table takes its snapshot
    assert os.path.exists(os.path.join(flash, "jsnap", "state.bin"))
    screens = [b.screen(i) for i in range(9)]
    state = state_bytes(b.t.e)
    undo = (b.t.session.last_ev, b.t.session.undo_ok, b.t.nev)
    again = Bench(flash)
    said = [x for x in again.out if "events replayed" in x]
    assert said == ["# journal: 0 events replayed after a snapshot of %d" % (len(events) - 1)]
    assert [again.screen(i) for i in range(9)] == screens
    assert state_bytes(again.t.e) == state
    assert (again.t.session.last_ev, again.t.session.undo_ok, again.t.nev) == undo
    os.remove(os.path.join(flash, "jsnap", "state.bin"))
    full = Bench(flash)
    assert [x for x in full.out if "events replayed" in x] == [
        "# journal: %d events replayed" % (len(events) - 1)]
    assert state_bytes(full.t.e) == state
    assert (full.t.session.last_ev, full.t.session.undo_ok, full.t.nev) == undo
    # the rest of the session plays on from the snapshot's boot
    ev = parse_event(strip(events[-1]))
    assert again.t.e.apply(*ev) is None
