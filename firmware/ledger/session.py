# The session: the engine and its journal (and the snapshot that shortens a boot's
# replay). An event is applied, then journaled; UNDO and a refused journal write rebuild the
# engine from the journal. What the table shows of it is the controller's business: the
# session only reports through `say` (the serial line's "#" and "!" lines of its own).
from game import engine as E
from .seal import Seal
from .snapshot import Snapshot
from game.transcript import Header, ParseError, read_events, strip

# events UNDO may take back while the deal has not moved on, a bit each (an int: no heap)
_UNDOABLE = (1 << E.EV_STAKE | 1 << E.EV_BUY | 1 << E.EV_TWIST | 1 << E.EV_STICK
             | 1 << E.EV_SPLIT | 1 << E.EV_BURN | 1 << E.EV_DOUBLE | 1 << E.EV_SHOOT
             | 1 << E.EV_KITTY | 1 << E.EV_BANKDOUBLE | 1 << E.EV_SELL)


class Session:
    shuffles = None      # shuffle_check.ShuffleCheck with shuffle_check = on (an instance's
    #                      attribute then: a dict entry on the heap only when used)

    def __init__(self, root, say=None, flash=None):
        self.say = say                   # a line for the serial line (the table's narrator)
        if flash is None:
            from .journal import Journal
            self.journal = Journal(root)
            self.snap = Snapshot(root)
        else:                            # the board's raw flash region (raw_journal.py)
            from .raw_journal import RawJournal
            self.journal = RawJournal(flash, root)
            self.snap = Snapshot(root, flash, self.journal.page)
        self.e = None                    # the engine (None: no usable session)
        self.nev = 0                     # events in the session
        self.undo_ok = False             # the last event may be taken back
        self.last_ev = 0
        self.fold_wait = False           # a fold failed (flash full): wait for an event
        self.snap_wanted = False         # a fold just emptied the tail: a snapshot next
        self.keeping = ""                # a finished session being kept as this history
        self.kept = False                # journal.txt renamed to it
        # who makes a kept session's standings (the web part's, web.py: f(history path) ->
        # steps), and that making under way
        self.standings = None
        self.making = None
        self.seal = Seal()               # SHA-256 of the journal's lines (seal.py)
        self.watchdog = None             # fed every event of a replay (health_report.start)

    def start(self, header_lines):
        """A new session from settings' header lines; the reason when they do not make one."""
        h = Header()
        try:
            for line in header_lines:
                h.take(strip(line))
            e = h.engine()
        except ParseError as x:
            return "settings: " + str(x)
        self.journal.start(header_lines)
        self.seal.start(header_lines)
        self.snap.remove()
        self._check_shuffles()
        self.e = e
        self.nev = 0
        self.undo_ok = False
        return None

    def feed(self, ev, seat, amount, card):
        """Apply one event to the engine (not journaled): None, or why it was refused."""
        e = self.e
        ph = e.phase
        ended = e.deals_ended
        sc = self.shuffles
        mate = sc.mate(e) if sc is not None and ev == E.EV_CARD else 255
        why = e.apply(ev, seat, amount, card)
        if why is None:
            if sc is not None:
                sc.event(ev, card, e.packs, mate)
            self.last_ev = ev
            self.undo_ok = (1 << ev & _UNDOABLE != 0 and e.deals_ended == ended
                            and e.phase != E.PH_OVER
                            and not (e.phase == E.PH_BANKER and ph != E.PH_BANKER))
        return why

    def record(self, line):
        """Journal one accepted event's line; a full flash gives up the oldest hand history
        first. None, or why it could not be written (then replay(): it never happened)."""
        j = self.journal
        while True:
            try:
                j.append(line)
                self.seal.add(line)
                self.fold_wait = False
                self.nev += 1
                return None
            except OSError as x:
                why = "the journal could not be written (%s): event not taken" % x
            try:
                gone = j.prune_oldest()
            except OSError:
                gone = None
            if gone is None:
                return why
            self.say("# flash full: removed the oldest hand history %s" % gone)

    def replay(self):
        """Rebuild the engine from the journal (boot, UNDO): from the snapshot when it
        belongs to this journal, else from the first event. Drops a bad tail. The seal's
        hash is fed again from the journal: after a boot in the loop's quiet moments
        (seal.catch_up_some), else when the seal is taken."""
        self.seal.drop()
        self._check_shuffles()           # (from a snapshot: known again after a shuffle)
        self.e = None
        self.nev = 0
        self.undo_ok = False
        skip, h = self._restore()
        if not skip:
            h = Header()
        cut = -1
        why = None
        number = 0
        f = self.journal.lines(skip)       # from the snapshot's point, past the header
        try:
            for number, start, _, ev in read_events(f, h, 0, skip):
                if self.e is None:
                    try:
                        self.e = h.engine()
                    except ParseError as x:
                        why = x.reason
                        cut = start
                        break
                why = self.feed(ev[0], ev[1], ev[2], ev[3])
                if why is not None:
                    cut = start
                    break
                self.nev += 1
                if self.watchdog is not None:
                    self.watchdog.feed()
        except ParseError as x:
            number = x.line or number
            why = x.reason
            cut = x.offset
        finally:
            f.close()
        if self.shuffles is not None:
            self.shuffles.due = False    # (a verdict of the past is not said again)
        if cut >= 0:
            self.say("# journal line %d dropped: %s" % (number, why))
            self.journal.cut(cut)
        if self.e is None:
            try:
                self.e = h.engine()
            except ParseError:
                self.e = None          # no usable header: a new session
                return
        self.say("# journal: %d events replayed" % (self.nev - self.snap.events)
                 + (" after a snapshot of %d" % self.snap.events if self.snap.events else ""))

    def check_shuffles(self):
        """Settings' shuffle_check = on: each shuffle judged (shuffle_check.py)."""
        from game.shuffle_check import ShuffleCheck
        self.shuffles = ShuffleCheck()

    def _check_shuffles(self):
        if self.shuffles is not None:
            self.shuffles.restart(False)

    def _restore(self):
        """The engine from the journal's header with the snapshot's state in it, when the
        snapshot belongs to this journal: returns (the offset its events end at, 0: none;
        the header read)."""
        h = Header()
        f = self.journal.lines()
        try:
            for _ in read_events(f, h):
                break                    # the header is read: the engine can be made
            e = h.engine()
        except ParseError:
            return 0, h                  # the full replay says what is wrong
        finally:
            f.close()
        skip = self.snap.restore(e, self.journal)
        if skip:
            self.e = e
            self.nev = self.snap.events
            x = self.snap.extra
            self.last_ev = x[0]
            self.undo_ok = bool(x[1])
        return skip, h

    def undo(self, over):
        """Take the last event back; the reason when it cannot be."""
        if over:
            return "the session is over and kept: nothing to undo"
        if self.nev == 0:
            return "nothing to undo"
        if not self.undo_ok:
            if self.last_ev == E.EV_CARD:
                return "UNDO cannot take back a dealt card"
            return "UNDO cannot take back %s: the deal has moved on" % E.EVENT_WORDS[self.last_ev]
        self.journal.drop_last()
        self.replay()
        return None

    def archive(self):
        """Keep the finished session as hand history now: its name, "" when it could not
        be."""
        name = self.end()
        while self.keep_step():
            pass
        return name if self.kept else ""

    def end(self):
        """The session is over: the name it will be kept as (hand history), the keeping
        done by keep_step() a step a loop pass while the table takes no cards. The seal is
        taken (self.seal.text)."""
        self.seal.take(self.journal)
        try:
            self.keeping = self.journal.next_history()
        except OSError as x:
            self.say("! could not keep the hand history: %s" % x)
            self.keeping = ""
        self.kept = False
        return self.keeping

    def keep_step(self):
        """One step of keeping the finished session (each an erase, or a littlefs commit or
        two): the tail folded into journal.txt, its flash erased a sector at a time,
        journal.txt renamed to the history, room made, its standings made (with the web
        part: a deal a step), the snapshots' flash erased, an empty journal.txt for the
        next start(). False when nothing was left to do."""
        if not self.keeping:
            return False
        j = self.journal
        try:
            if not self.kept:
                if j.nbody:
                    j.fold_lines()
                elif j.stale:
                    j.drop_stale()
                else:
                    j.archive_as(self.keeping)
                    self.kept = True
                    for path in j.make_room():
                        self.say("# flash nearly full: removed the oldest hand history %s"
                                 % path)
                    if self.standings is not None:
                        self.making = self.standings(self.keeping)
                return True
            if self.making is not None:
                self._make_step()
                return True
            if self.snap.erase_step() or j.make_ready():
                return True
        except OSError as x:
            self.say("! could not keep the hand history: %s" % x)
        self.keeping = ""
        return False

    def _make_step(self):
        """One step of making the kept session's standings (a deal replayed, its row
        written); a flash that refuses leaves them to the phone's replay."""
        try:
            next(self.making)
        except StopIteration:
            self.making = None
        except OSError as x:
            self.say("! could not keep the standings of %s: %s" % (self.keeping, x))
            self.making = None

    def snapshot_due(self, after):
        """A boot or UNDO replayed at least `after` events that a snapshot would spare."""
        return self.nev - self.snap.events >= after

    def fold(self):
        """One step of the flash's housekeeping, so that the loop serves the reader and the
        buttons between steps (each an erase or two, the CPU stalled meanwhile): the
        journal's tail appended to journal.txt, then the stale tail file removed; with
        neither, a snapshot. False when the flash refused the fold (the tail stays valid;
        tried again after an event)."""
        j = self.journal
        if not j.fold_pending():
            if j.stale:
                j.drop_stale()           # (a removal that fails: the next line replaces it)
            else:
                self._save_snapshot()
            return True
        try:
            j.fold_lines()
        except OSError as x:
            self.fold_wait = True
            self.say("! journal: could not fold the tail (%s)" % x)
            return False
        self.snap_wanted = True
        return True

    def _save_snapshot(self):
        """With the tail folded: the engine as it stands, so the next boot replays from
        here (a line journaled since waits for the next fold)."""
        self.snap_wanted = False
        if self.e is None or self.snap.events == self.nev or not self.journal.snapshot_ok():
            return
        try:
            self.snap.save(self.e, self.journal, self.nev,
                           bytes((self.last_ev, 1 if self.undo_ok else 0)))
        except OSError as x:             # only time is lost: the journal is whole
            self.say("! snapshot: %s" % x)

    def close(self):
        """A clean stop leaves the whole journal in journal.txt (or a finished one kept)."""
        while self.keep_step():
            pass
        try:
            self.journal.fold()
        except OSError:
            pass                         # the tail still holds the lines: nothing is lost
        self.journal.close()


def print_journal(root=""):
    """The session in progress, as its transcript (journal.txt and its tail, wherever the
    board keeps it): `mpremote exec "from ledger import session; session.print_journal()"`."""
    import board
    flash = board.journal_flash() if hasattr(board, "journal_flash") else None
    s = Session(root, flash=flash)
    if not s.journal.recover():
        return
    f = s.journal.lines()
    try:
        for raw in f:
            print(raw.decode(), end="")
    finally:
        f.close()
