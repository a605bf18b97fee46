"""The journal's tail and the snapshots in raw flash (firmware/ledger/raw_journal.py,
snapshot.py), on a simulated NOR flash (boards/simdev/flash.py) whose programs only
clear bits and whose power can go in the middle of any program or erase, tearing it bit by
bit: after a cut at every instant the journal recovers to what it was before the operation
in flight or after it, never to anything else, and takes the next line."""
import os
import random
from binascii import crc32

import pytest

from boards.simdev.flash import Flash, PowerCut
from ledger.journal import Journal
from ledger.raw_journal import FOLD_BYTES, PAGE, SECTOR, TAIL_SECTORS, RawJournal
from ledger.snapshot import Snapshot
from game.transcript import Header, read_events

HEAD = ["rules table", "seats 3"]
EVENTS = ["card 8H", "card 9C", "card 9D", "stake 1 2", "stake 2 3", "card 4C"]


def whole(j):
    g = j.lines()
    try:
        return b"".join(g).decode()
    finally:
        g.close()


def text(lines):
    return "".join(x + "\n" for x in lines)


def fresh(tmp_path, name="j"):
    root = str(tmp_path / name) + "/"
    os.makedirs(root, exist_ok=True)
    return root


def test_lines_go_to_raw_flash_two_programs_each_and_no_erase(tmp_path):
    flash = Flash()
    j = RawJournal(flash, fresh(tmp_path))
    assert not j.recover()
    j.start(HEAD)
    erases = flash.erases
    for line in EVENTS:
        before = flash.programs
        j.append(line)
        assert flash.programs - before == 2               # the text, then the newline
    assert flash.erases == erases
    assert whole(j) == text(HEAD + EVENTS)
    # the header too is in the tail, committed by the tail's own first line
    assert bytes(flash.data[:36]) == b"@0\n$rules table\n$seats 3\n$card 8H\n$c"
    with open(j.path, "rb") as f:
        assert f.read() == b""                             # journal.txt: empty till a fold
    assert j.size == len(text(HEAD + EVENTS))
    # what a snapshot checks the journal by: its size, and the flash's own bytes
    size, where, check = j.mark()
    assert (size, where) == (len(whole(j)), j.wpos)
    assert check == crc32(bytes(flash.data[:j.wpos]))
    assert j.matches(size, where, check) and not j.matches(size, where, check ^ 1)


def test_a_boot_finds_the_tail_and_undo_kills_a_record(tmp_path):
    flash = Flash()
    root = fresh(tmp_path)
    j = RawJournal(flash, root)
    j.recover()
    j.start(HEAD)
    for line in EVENTS:
        j.append(line)
    r = RawJournal(flash, root)
    assert r.recover() and whole(r) == text(HEAD + EVENTS) and r.size == j.size
    r.drop_last()                                          # UNDO: its "$" programmed to 0
    r.drop_last()
    assert whole(r) == text(HEAD + EVENTS[:-2])
    assert flash.data[r.wpos - len("card 4C") - 2] == 0
    r.append("stick 1")
    k = RawJournal(flash, root)
    assert k.recover() and whole(k) == text(HEAD + EVENTS[:-2] + ["stick 1"])
    assert k.last_line_start() == len(text(HEAD + EVENTS[:-2]))


def test_lines_across_pages_and_sectors_fold_when_the_tail_is_full(tmp_path):
    flash = Flash()
    root = fresh(tmp_path)
    j = RawJournal(flash, root)
    j.recover()
    j.start(HEAD)
    j.end = 2 * SECTOR                                     # a small tail: it fills
    lines = ["stake %d %d" % (1 + i % 8, 10 + i) for i in range(2000)]
    folds = 0
    for line in lines:
        before = j.base
        j.append(line)
        folds += j.base != before
    assert folds >= 2
    assert whole(j) == text(HEAD + lines)
    r = RawJournal(flash, root)
    r.end = 2 * SECTOR
    assert r.recover() and whole(r) == text(HEAD + lines)
    assert not j.fold_pending() or j.wpos >= FOLD_BYTES


def test_the_fold_in_quiet_moments_one_sector_a_step(tmp_path):
    flash = Flash()
    root = fresh(tmp_path)
    j = RawJournal(flash, root)
    j.recover()
    j.start(HEAD)
    lines = ["stake %d %d" % (1 + i % 8, 10 + i) for i in range(3300)]
    for line in lines:
        j.append(line)
    assert j.fold_pending() and j.wpos >= FOLD_BYTES
    used = j.wpos
    j.fold_lines()
    with open(j.path, "rb") as f:
        assert f.read() == text(HEAD + lines).encode()
    steps = 0
    while j.stale:
        before = flash.erases
        j.drop_stale()
        assert flash.erases - before == 1                # one 45 ms erase a loop pass
        steps += 1
        r = RawJournal(flash, root)                        # the power may go between them
        assert r.recover() and whole(r) == text(HEAD + lines)
    assert steps == (used - 1) // SECTOR + 1
    assert flash.data[:TAIL_SECTORS * SECTOR] == b"\xff" * (TAIL_SECTORS * SECTOR)


def _script():
    """Operations on a journal and what it holds after each (None: no journal)."""
    ops = [("start", HEAD)]
    ops += [("append", x) for x in EVENTS[:4]]
    ops += [("undo", None), ("append", "stake 2 5")]
    ops += [("append", "stake %d %d" % (1 + i % 3, 10 + i)) for i in range(24)]  # a page
    ops += [("fold", None), ("append", "card QS"), ("undo", None), ("undo", None)]
    ops += [("append", "card 2H"), ("cut", 0)]
    return ops


def _run(j, op, arg, lines):
    if op == "start":
        j.start(arg)
        lines[:] = list(arg)
    elif op == "append":
        j.append(arg)
        lines.append(arg)
    elif op == "undo":
        j.drop_last()
        lines.pop()
    elif op == "fold":
        j.fold()
    elif op == "cut":                                      # into journal.txt: the header
        j.cut(len(text(HEAD)))
        lines[:] = list(HEAD)


def test_a_power_cut_at_every_instant_recovers_before_or_after_the_operation(tmp_path):
    ops = _script()
    flash = Flash()
    j = RawJournal(flash, fresh(tmp_path, "ref"))
    j.recover()
    states = [None]
    lines = []
    for op, arg in ops:
        _run(j, op, arg, lines)
        assert whole(j) == text(lines)
        states.append(text(lines))
    total = flash.programs + flash.erases
    assert total > 60
    for k in range(total + 1):
        for seed in (1, 2):
            flash = Flash(seed=seed)
            root = fresh(tmp_path, "c%d_%d" % (k, seed))
            j = RawJournal(flash, root)
            j.recover()
            flash.cut_after = k
            lines = []
            done = 0
            try:
                for op, arg in ops:
                    _run(j, op, arg, lines)
                    done += 1
            except PowerCut:
                pass
            flash.power_on()
            r = RawJournal(flash, root)
            got = (whole(r) if r.recover() else None) or None   # empty: no session either
            want = (states[done], states[min(done + 1, len(ops))])
            assert got in want, (k, seed, done, ops[done] if done < len(ops) else None)
            if got is None:
                continue
            again = RawJournal(flash, root)                # a second boot: the same journal
            assert again.recover() and whole(again) == got, (k, seed)
            again.append("stick 1")
            assert whole(again) == got + "stick 1\n", (k, seed)
            last = RawJournal(flash, root)
            assert last.recover() and whole(last) == got + "stick 1\n", (k, seed)


def test_foreign_bytes_in_the_region_are_erased_and_a_file_tail_is_kept(tmp_path):
    # a Pico that ran the stock UF2: the region holds old firmware, littlefs a file tail
    root = fresh(tmp_path)
    old = Journal(root)
    old.start(HEAD)
    for line in EVENTS:
        old.append(line)
    old.close()
    assert os.path.exists(root + "jtail/lines.txt")
    flash = Flash()
    rng = random.Random(5)
    flash.data[:] = bytes(rng.getrandbits(8) for _ in range(len(flash.data)))
    j = RawJournal(flash, root)
    assert j.recover() and whole(j) == text(HEAD + EVENTS)
    assert not os.path.exists(root + "jtail/lines.txt")
    assert flash.data[:TAIL_SECTORS * SECTOR] == b"\xff" * (TAIL_SECTORS * SECTOR)
    j.append("stick 1")
    r = RawJournal(flash, root)
    assert r.recover() and whole(r) == text(HEAD + EVENTS + ["stick 1"])
    # no journal at all: the region is left erased
    flash.data[:] = bytes(rng.getrandbits(8) for _ in range(len(flash.data)))
    assert not RawJournal(flash, fresh(tmp_path, "none")).recover()
    assert flash.data[:TAIL_SECTORS * SECTOR] == b"\xff" * (TAIL_SECTORS * SECTOR)


def test_a_half_programmed_byte_never_reads_as_a_newline():
    # a program half done leaves a superset of the target's bits; a "$" zeroed half way
    # a subset of 0x24: the tail's format rests on neither ever being "\n"
    for target in range(0x20, 0x7F):                      # a transcript line's bytes
        for partial in range(256):
            if partial & target == target:
                assert partial != 10, (target, partial)
    assert all(x != 10 and x != 36 for x in range(256) if x & 0x24 == x and x != 0x24)


# ---------------------------------------------------------------------- snapshots
def _engine(lines):
    h = Header()
    e = None
    for _, _, _, ev in read_events(lines, h):
        if e is None:
            e = h.engine()
        assert e.apply(*ev) is None
    return e if e is not None else h.engine()


def _fresh_engine(j):
    h = Header()
    g = j.lines()
    try:
        for _ in read_events(g, h):
            break
    finally:
        g.close()
    return h.engine()


GAME_HEAD = ["rules table", "seats 3", "banker 3"]
GAME = ["card AD", "card AC", "card 8S", "stake 1 1", "stake 2 2", "card 6D", "card AH",
        "card 9C", "twist 1", "card 9D"]


def test_snapshots_in_raw_flash_newest_that_fits_wins(tmp_path):
    flash = Flash()
    root = fresh(tmp_path)
    j = RawJournal(flash, root)
    j.recover()
    j.start(GAME_HEAD)
    s = Snapshot(root, flash)
    s.remove()
    erases = flash.erases
    for n, line in enumerate(GAME[:5], 1):
        j.append(line)
        s.save(_engine(GAME_HEAD + GAME[:n]), j, n, b"\x05\x01")
    assert flash.erases == erases                          # page programs only
    r = Snapshot(root, flash)
    e = _fresh_engine(j)
    assert r.restore(e, j) == j.size and r.events == 5 and r.extra == b"\x05\x01"
    assert [bytes(b) for b in e.state()] == [bytes(b) for b in _engine(GAME_HEAD + GAME[:5]).state()]
    j.drop_last()                                          # UNDO: the one before fits
    r = Snapshot(root, flash)
    assert r.restore(_fresh_engine(j), j) == j.size and r.events == 4
    # the same line again: a snapshot checks the flash's bytes, where the undone record
    # stays (dead): the one taken after it no longer fits, the one before it does
    j.append(GAME[4])
    assert Snapshot(root, flash).restore(_fresh_engine(j), j) == len(text(GAME_HEAD + GAME[:4]))
    # another line, and its record torn: the one before it
    j.drop_last()
    j.append("stake 2 3")
    flash.cut_after = 0
    with pytest.raises(PowerCut):
        s.save(_engine(GAME_HEAD + GAME[:4] + ["stake 2 3"]), j, 5)
    flash.power_on()
    r = Snapshot(root, flash)
    assert r.restore(_fresh_engine(j), j) == len(text(GAME_HEAD + GAME[:4])) and r.events == 4


def test_a_full_snapshot_space_takes_no_more_and_a_new_session_erases_it(tmp_path):
    flash = Flash()
    root = fresh(tmp_path)
    j = RawJournal(flash, root)
    j.recover()
    j.start(GAME_HEAD)
    j.append(GAME[0])
    s = Snapshot(root, flash)
    e = _engine(GAME_HEAD + GAME[:1])
    size = s.end - s.start
    per = -(-(20 + 2 + sum(len(bytes(b)) for b in e.state())) // PAGE) * PAGE
    for _ in range(size // per + 3):
        s.save(e, j, 1)
    assert s.full == 3 and s.free <= s.end
    erases = flash.erases
    s.remove()                                             # a new session: erased
    assert flash.erases - erases == (s.end - s.start) // SECTOR - (size - size // per * per) // SECTOR
    assert s.free == s.start
    assert Snapshot(root, flash).restore(_fresh_engine(j), j) == 0
    assert isinstance(s, Snapshot)
