"""The journal's two files (firmware/ledger/journal.py): events go to a small tail file that
littlefs keeps inline, folded into journal.txt between deals; every power-cut instant of a
fold recovers to the same journal; a full flash gives up the oldest hand history, never the
running session."""
import errno
import os

from app_support import Bench

import runner as R
import simtable as S
from ledger.journal import TAIL_MAX, Journal

HEAD = ["rules table", "seats 3"]
EVENTS = ["card 8H", "card 9C", "card 9D", "stake 1 2", "stake 2 3", "card 4C"]


def journal_at(tmp_path, events=EVENTS):
    root = str(tmp_path) + "/"
    j = Journal(root)
    j.start(HEAD)
    for line in events:
        j.append(line)
    return j, root


def whole(j):
    g = j.lines()
    try:
        return b"".join(g).decode()
    finally:
        g.close()


def text(lines):
    return "".join(x + "\n" for x in lines)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_events_go_to_the_tail_and_fold_into_journal_txt(tmp_path):
    j, root = journal_at(tmp_path)
    assert read(root + "journal.txt") == text(HEAD).encode()      # untouched by appends
    assert read(root + "jtail/lines.txt") == ("@%d\n" % len(text(HEAD)) + text(EVENTS)).encode()
    assert whole(j) == text(HEAD + EVENTS) and j.size == len(text(HEAD + EVENTS))
    j.fold()
    assert read(root + "journal.txt") == text(HEAD + EVENTS).encode()
    assert not os.path.exists(root + "jtail/lines.txt")
    j.append("stick 1")
    assert whole(j) == text(HEAD + EVENTS + ["stick 1"])
    j.close()
    k = Journal(root)
    assert k.recover() and whole(k) == text(HEAD + EVENTS + ["stick 1"])


def test_a_fold_in_two_halves_recovers_at_either_instant(tmp_path):
    # session.fold() runs fold_lines() and drop_stale() on two loop passes, the reader and
    # the buttons served between them
    j, root = journal_at(tmp_path)
    j.fold_lines()
    assert read(root + "journal.txt") == text(HEAD + EVENTS).encode()
    assert os.path.exists(root + "jtail/lines.txt") and j.stale    # stale, not yet removed
    assert whole(j) == text(HEAD + EVENTS) and j.size == len(text(HEAD + EVENTS))
    j.close()
    cut = Journal(root)                                      # the power goes between them
    assert cut.recover() and whole(cut) == text(HEAD + EVENTS) and not cut.stale
    assert not os.path.exists(root + "jtail/lines.txt")
    # a line between the halves takes the stale tail's place
    (tmp_path / "b").mkdir()
    j, root = journal_at(tmp_path / "b")
    j.fold_lines()
    j.append("stick 1")
    assert not j.stale
    assert read(root + "jtail/lines.txt") == (
        "@%d\n" % len(text(HEAD + EVENTS)) + "stick 1\n").encode()
    j.close()
    k = Journal(root)
    assert k.recover() and whole(k) == text(HEAD + EVENTS + ["stick 1"])
    # or the second half
    (tmp_path / "c").mkdir()
    j, root = journal_at(tmp_path / "c")
    j.fold_lines()
    j.drop_stale()
    assert not os.path.exists(root + "jtail/lines.txt") and not j.stale
    assert whole(j) == text(HEAD + EVENTS)


def test_the_tail_never_outgrows_the_inline_limit(tmp_path):
    events = ["stake %d %d" % (1 + i % 8, 1 + i % 5) for i in range(200)]
    j, root = journal_at(tmp_path, [])
    folds = 0
    for line in events:
        before = os.path.getsize(root + "journal.txt")
        j.append(line)
        folds += os.path.getsize(root + "journal.txt") != before
        assert os.path.getsize(root + "jtail/lines.txt") <= TAIL_MAX
    assert whole(j) == text(HEAD + events)
    # about 10 bytes an event: one fold per ~45 events, not a journal.txt write per event
    assert 3 <= folds <= 1 + len(text(events)) // (TAIL_MAX - 60), folds


def test_a_fold_cut_at_any_instant_recovers_the_same_journal(tmp_path):
    want = text(HEAD + EVENTS)
    j, root = journal_at(tmp_path)
    j.close()
    main, tail = read(root + "journal.txt"), read(root + "jtail/lines.txt")
    body = tail.split(b"\n", 1)[1]
    # journal.txt as the fold leaves it: not yet appended, torn (host file systems only),
    # appended but the tail not yet removed
    for k in range(len(body) + 1):
        with open(root + "journal.txt", "wb") as f:
            f.write(main + body[:k])
        with open(root + "jtail/lines.txt", "wb") as f:
            f.write(tail)
        r = Journal(root)
        assert r.recover(), k
        assert whole(r) == want, k
        assert r.dropped == 0, k
        r.append("stick 1")
        assert whole(r) == want + "stick 1\n", k
        r.close()
        assert S.journal_text(root) == (want + "stick 1\n").encode(), k


def test_stray_tails_are_dropped(tmp_path):
    j, root = journal_at(tmp_path)
    j.close()
    tail = read(root + "jtail/lines.txt")
    for bad in (b"@12", b"@x\ncard 2C\n", b"@999999\ncard 2C\n", tail.replace(b"\n", b"", 1)):
        with open(root + "jtail/lines.txt", "wb") as f:
            f.write(bad)
        r = Journal(root)
        assert r.recover() and whole(r) == text(HEAD), bad
        assert not os.path.exists(root + "jtail/lines.txt")
    os.remove(root + "journal.txt")
    with open(root + "jtail/lines.txt", "wb") as f:
        f.write(tail)
    assert not Journal(root).recover()                     # no journal: no session
    assert not os.path.exists(root + "jtail/lines.txt")


def test_torn_line_and_undo_in_the_tail_and_in_journal_txt(tmp_path):
    j, root = journal_at(tmp_path)
    j.close()
    with open(root + "jtail/lines.txt", "ab") as f:
        f.write(b"stick")
    r = Journal(root)
    assert r.recover() and r.dropped == 5 and whole(r) == text(HEAD + EVENTS)
    r.drop_last()                                             # UNDO: rewrites the tail
    assert whole(r) == text(HEAD + EVENTS[:-1])
    assert read(root + "journal.txt") == text(HEAD).encode()
    r.fold()
    r.drop_last()                                             # UNDO in journal.txt: a copy
    assert read(root + "journal.txt") == text(HEAD + EVENTS[:-2]).encode()
    r.append("card 2C")
    assert whole(r) == text(HEAD + EVENTS[:-2] + ["card 2C"])


class SmallFlash(Journal):
    """A flash with `free` bytes left; each removed history file frees `per_file`."""

    def __init__(self, root, free, per_file=4096):
        super().__init__(root)
        self.free = free
        self.per_file = per_file

    def free_bytes(self):
        return self.free

    def prune_oldest(self):
        path = super().prune_oldest()
        if path:
            self.free += self.per_file
        return path


def history(root, n):
    os.makedirs(root + "history", exist_ok=True)
    for k in range(1, n + 1):
        with open(root + "history/%04d.txt" % k, "w") as f:
            f.write(text(HEAD))


def test_make_room_removes_the_oldest_history_but_never_the_newest(tmp_path):
    root = str(tmp_path) + "/"
    history(root, 5)
    j = SmallFlash(root, free=50_000)
    gone = j.make_room(reserve=60_000)
    assert gone == [root + "history/0001.txt", root + "history/0002.txt", root + "history/0003.txt"]
    assert sorted(os.listdir(root + "history")) == ["0004.txt", "0005.txt"]
    assert j.make_room(reserve=10 ** 9) == [root + "history/0004.txt"]
    assert os.listdir(root + "history") == ["0005.txt"]


def test_full_flash_mid_session_gives_up_old_history_not_the_event(tmp_path):
    b = Bench(str(tmp_path / "f"), settings=S.settings_text("table", 4))
    history(b.flash, 3)
    j = b.t.session.journal
    real = j.append
    fails = [2]

    def append(line):
        if fails[0]:
            fails[0] -= 1
            raise OSError(errno.ENOSPC, "no space")
        real(line)
    j.append = append
    assert b.send("banker 1").startswith("error")      # not an event: nothing journaled
    ans = b.send("card 8H")
    assert ans.startswith("ok #1"), (ans, b.out[-5:])
    gone = [x for x in b.out if x.startswith("# flash full: removed")]
    assert gone == ["# flash full: removed the oldest hand history %shistory/0001.txt" % b.flash,
                    "# flash full: removed the oldest hand history %shistory/0002.txt" % b.flash]
    assert b.journal().endswith("card 8H\n")
    # nothing left to give up: the event is refused, the session goes on unchanged
    fails[0] = 1
    ans = b.send("card 9C")
    assert ans.startswith("error: the journal could not be written"), ans
    assert b.journal().endswith("card 8H\n") and b.t.nev == 1
    assert os.listdir(b.flash + "history") == ["0003.txt"]
    assert b.send("card 9C").startswith("ok #2")


def test_a_finished_session_makes_room_for_the_next(tmp_path):
    head, events = S.script_session("table", 4, seed=5)
    flash = str(tmp_path / "f")
    S.fresh_flash(flash, S.settings_text("table", 4))
    history(flash + "/", 4)
    j = SmallFlash(flash + "/", free=0, per_file=22_000)
    with open(os.path.join(flash, "journal.txt"), "w") as f:
        f.write(text(head + events))
    b = Bench(flash, boot=False)
    from table import app

    class Table(app.Table):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.session.journal = j
    real = app.Table
    app.Table = Table
    try:
        b.boot()
    finally:
        app.Table = real
    assert b.t.ui.over
    assert sorted(os.listdir(flash + "/history")) == ["0004.txt", "0005.txt"]
    assert sum(x.startswith("# flash nearly full") for x in b.out) == 3, b.out
    assert read(flash + "/history/0005.txt") == text(head + events).encode()


def test_a_session_writes_journal_txt_about_once_a_deal(tmp_path):
    head, events = S.script_session("table", 6, seed=2)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("table", 6))
    d = S.Driver(head, events, seed=2)
    sizes = []
    inner = d.on_output

    def on_output(line):
        inner(line)
        if S.acked_at(line) is not None and os.path.exists(os.path.join(flash, "journal.txt")):
            sizes.append(os.path.getsize(os.path.join(flash, "journal.txt")))
    d.on_output = on_output
    r = R.CPython(flash, d)
    r.boot()
    r.run()
    assert d.done and d.errors == [] and d.retries == 0
    writes = sum(1 for a, b in zip(sizes, sizes[1:]) if a != b)
    assert len(events) > 150
    # folds happen when idle between deals: after each deal, each cut card (B1) and shuffle
    between = sum(1 for x in events if x == "shuffle") + 8 + 8
    assert 8 <= writes <= between, (writes, len(events))
    files = S.history_files(flash)
    assert [ln.rstrip("\n") for ln in open(files[0])][len(head):] == events
