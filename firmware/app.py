# The table controller: a cooperative polling loop. Each step() polls the shoe reader, the
# buttons and the serial line once (nothing blocks), feeds accepted events to the engine,
# journals them (flushed before anything is shown), answers on the serial line and
# redraws at most one display whose text changed.
#
# Serial output lines (the answer to an input line is exactly one "ok"/"error:" line):
#   ok #N <event>      an input line's event was accepted; N = events in the session
#   ok <text>          an input line's command was done (status, undo, help, ...)
#   error: <reason>    an input line was refused (nothing changed)
#   * #N <event>       an event from the shoe or the buttons was accepted
#   ! <reason>         a card, a press or the reader was refused / reported an anomaly
#   > <prompt>         the table's prompt, whenever it changes
#   # <info>           boot, recovery, deal results
# A card is named only when it is face up (the cut, a twist, the banker's own turn).
import sys
from array import array

import drvtime
import engine as E
import views as V
from buttons import CHORD, LONG, Buttons
from cards import card_name
from journal import Journal
from snapshot import Snapshot
from transcript import Header, ParseError, event_text, parse_event, read_events, strip

# buttons, in boards' BUTTONS order
B_STICK = 0
B_TWIST = 1
B_BUY = 2
B_SPLIT = 3
B_MINUS = 4
B_PLUS = 5
B_OK = 6
B_UNDO = 7

SRC_SHOE = 0
SRC_BUTTON = 1
SRC_SERIAL = 2

BANKER_DISPLAY = 8
MSG_MS = 4000
# the idle loop folds the journal's tail once it holds this many bytes (of journal.TAIL_MAX):
# fewer folds, each a blind spell of the loop, and still rarely a fold inside an append
FOLD_IDLE = 240
# between deals the tail is folded once nothing has happened for this long: a dealer who
# starts the next deal at once is not met by a blind loop
QUIET_MS = 1500
SNAP_AFTER = 16                          # events a boot may replay before a snapshot is due
# A collection once this much has been allocated since the last one: garbage then never
# spreads far above the live data, so what outlives it (a new session's engine, a message)
# is not left high in the heap, splitting the free space (MicroPython allocates first-fit
# from the bottom). The table's own collection after each burst usually comes first.
GC_EVERY = 24 * 1024

try:
    import gc as _gc
    _gc.mem_alloc                        # MicroPython's: CPython's gc has no heap figures
except (ImportError, AttributeError):
    _gc = None
UNDOABLE = (E.EV_STAKE, E.EV_BUY, E.EV_TWIST, E.EV_STICK, E.EV_SPLIT, E.EV_BURN,
            E.EV_DOUBLE, E.EV_SHOOT, E.EV_KITTY, E.EV_BANKDOUBLE, E.EV_SELL)
HELP = ("ok events: card C, stake S N, buy S N, twist S, stick S, split S, double S, "
        "burn S, shoot S N, kitty N, bankdouble, sell S N, stand, shuffle, void; "
        "commands: undo, status, new, press BUTTON [long], help, halt, "
        "tags write|enroll|check|stop")


def _settings(path):
    """settings.txt at `path` (None: the defaults)."""
    import settings as S
    return S.load(path) if path else S.Settings()


class Table:
    def __init__(self, board, root="", out=None, lines=None):
        self.board = board
        self.root = root
        self.out = out or sys.stdout
        self.lines_in = lines
        self.ui = V.UI()
        self.journal = Journal(root)
        self.snap = Snapshot(root)
        self.settings = None
        self.e = None
        self.nev = 0
        self.undo_ok = False
        self.last_ev = 0
        self.disp = None
        self.reader = None
        self.btn = None
        self.buf = [""] * 8
        self.hashes = array("i", [0] * 9)
        self.dirty = 0
        self.first = -1
        self.gen = 0                     # bumped whenever what a display shows may change
        self.held = -1                   # the display whose lines are in buf, built at
        self.held_gen = 0                # held_gen, with this highlight and hash
        self.held_hl = -1
        self.held_hash = 0
        self.last_prompt = ""
        self.msg_at = 0
        self.stop = False
        self.loops = 0
        self.min_free = -1
        self.pages = 8
        self.tm = None                   # tag mode (tagmode.TagMode), made on first use
        self.tm_busy = False
        self.web = None                  # web.Web on a board with a network (web.py)
        self.fold_wait = False           # a fold failed (flash full): wait for an event
        self.collect = False             # something happened since the last collection
        self.heap_due = False            # a deal ended: take the heap figures when idle
        self.active_at = 0               # ticks_ms when the loop last had something to do
        self._page_sent = self._after_page   # one bound method, made once
        self.max_alloc = 0               # heap in use after a collection, at its highest

    # ------------------------------------------------------------------ output
    def say(self, text):
        self.out.write(text + "\n")

    def _now(self):
        return drvtime.ticks_ms()

    # ------------------------------------------------------------------ boot
    def boot(self):
        if _gc is not None and hasattr(_gc, "threshold"):
            _gc.threshold(GC_EVERY)
        st = self.settings = _settings(self.root + "settings.txt")
        self.pages = st.height // 8
        b = self.board
        self.disp = b.make_displays(9, 64 if st.error else st.height)   # big buffers first
        if self.lines_in is None and hasattr(b, "make_serial"):
            self.lines_in = b.make_serial()
        self.say("# pontoon table: boot")
        if self.journal.recover():
            if self.journal.dropped:
                self.say("# journal: torn last line (%d bytes) dropped" % self.journal.dropped)
            self._replay()
        if self.e is None:
            if st.error:
                self._fatal(st.error)
            else:
                self._new_session()
        else:
            self.say("# resume #%d" % self.nev)
            self._after_event(-1)
        # every display drawn before the reader starts (the PN532 driver's reset sleeps
        # 0.2 s): the table is seen sooner, and no card could be read before anyway (the
        # prompt is out already: _after_event said it)
        self._all_dirty()
        while self.redraw_one():
            pass
        if _gc is not None:
            _gc.collect()                # the replay's garbage out before the reader's code
        uid_map = None
        if st.uid_map:
            from shoe_reader import UidMap
            try:
                uid_map = UidMap().load(self.root + st.uid_map)
            except (OSError, ValueError) as x:
                self.say("! uid map %s: %s" % (st.uid_map, x))
        self.reader = b.make_reader(uid_map=uid_map, gone_polls=st.gone_polls,
                                    timeout_ms=st.timeout_ms)
        levels = b.make_button_levels() if hasattr(b, "make_button_levels") else None
        self.btn = Buttons(b.make_buttons(), st.debounce_ms, st.long_ms, st.release_ms, levels)
        if hasattr(b, "make_button_timer"):
            from buttons import SampledButtons
            edges = b.make_button_edges() if hasattr(b, "make_button_edges") else None
            self.btn = SampledButtons(self.btn, b.make_button_timer, edges=edges)
        self._all_dirty()
        self._prompt()
        try:
            import gc
            gc.collect()
            self.say("# heap in use after boot %d, free %d" % (gc.mem_alloc(), gc.mem_free()))
        except (ImportError, AttributeError):
            pass

    def _fatal(self, text):
        self.ui.fatal = text
        self.say("error: " + text)
        self._all_dirty()

    def _new_session(self):
        st = self.settings
        h = Header()
        try:
            for line in st.header_lines():
                h.take(strip(line))
            e = h.engine()
        except ParseError as x:
            self._fatal("settings: " + str(x))
            return
        self.journal.start(st.header_lines())
        self.snap.remove()
        self.e = e
        self.nev = 0
        self.undo_ok = False
        self.ui.over = False
        self.ui.history = ""
        self.say("# new session: %s" % ", ".join(st.header_lines()))   # at event #0
        self._after_event(-1)

    def _replay(self):
        """Rebuild the engine from the journal (boot, UNDO): from the snapshot when it
        belongs to this journal, else from the first event. Drops a bad tail."""
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
                why = self._feed(ev[0], ev[1], ev[2], ev[3])
                if why is not None:
                    cut = start
                    break
                self.nev += 1
        except ParseError as x:
            number = x.line or number
            why = x.reason
            cut = x.offset
        finally:
            f.close()
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
        if self.e.finished():
            self._session_over()

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

    def _save_snapshot(self):
        """After a fold: the engine as it stands, so the next boot replays from here."""
        if self.e is None or self.snap.events == self.nev or self.journal.nbody:
            return
        try:
            self.snap.save(self.e, self.journal, self.nev,
                           bytes((self.last_ev, 1 if self.undo_ok else 0)))
        except OSError as x:             # only time is lost: the journal is whole
            self.say("! snapshot: %s" % x)

    def _feed(self, ev, seat, amount, card):
        e = self.e
        ph = e.phase
        ended = e.deals_ended
        why = e.apply(ev, seat, amount, card)
        if why is None:
            self.last_ev = ev
            self.undo_ok = (ev in UNDOABLE and e.deals_ended == ended and e.phase != E.PH_OVER
                            and not (e.phase == E.PH_BANKER and ph != E.PH_BANKER))
        return why

    # ------------------------------------------------------------------ events
    def event(self, ev, seat=0, amount=0, card=0, src=SRC_SERIAL):
        """Apply, journal, answer. None when accepted, else the reason."""
        ui = self.ui
        if ui.fatal:
            return "the table is stopped: " + ui.fatal
        if ui.over:
            return "the session is over: press OK or send 'new' for a new one"
        e = self.e
        ph = e.phase
        slot = e.expected_card_slot() if ev == E.EV_CARD else -1
        target = e.card_seat() if ev == E.EV_CARD else -1
        up = False
        if ev == E.EV_CARD and ph == E.PH_PLAY and slot > 0:
            up = bool(e.hand_flags(slot) & E.F_TWISTED)
        ended = e.deals_ended
        why = self._feed(ev, seat, amount, card)
        if why is not None:
            if ev == E.EV_CARD:
                why = why.replace(card_name(card), "that card")
            return why
        why = self._journal_append(event_text(ev, seat, amount, card))
        self._service()                  # a next card's answer may be waiting by now
        if why is not None:
            self._replay()              # the event never happened
            return why
        self.nev += 1
        if self.web is not None:
            self.web.on_event(ev, slot, up, card)
        if ev == E.EV_CARD:
            text = self._card_text(card, ph, slot, target, up)
            if src == SRC_BUTTON:        # entered by hand: the audit trail says so
                if "(face down)" in text:
                    text = text.replace("(face down)", "(face down, by hand)")
                else:
                    text += " (by hand)"
        else:
            text = event_text(ev, seat, amount, card)
        self.say(("ok #%d " if src == SRC_SERIAL else "* #%d ") % self.nev + text)
        if e.deals_ended != ended:
            self._deal_summary()
            self.heap_due = True
        prio = -1
        if ev == E.EV_CARD:
            prio = BANKER_DISPLAY if target == 0 else target - 1
        elif seat:
            prio = seat - 1
        self._after_event(prio)
        if e.finished():
            self._session_over()
        return None

    def _journal_append(self, line):
        """Journal one event line; a full flash gives up the oldest hand history first."""
        j = self.journal
        while True:
            try:
                j.append(line)
                self.fold_wait = False
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

    def _make_room(self):
        """After a session is kept: remove the oldest history files while the flash is low."""
        try:
            gone = self.journal.make_room()
        except OSError as x:
            self.say("! could not make room on the flash: %s" % x)
            return
        for path in gone:
            self.say("# flash nearly full: removed the oldest hand history %s" % path)

    def _card_text(self, card, ph, slot, seat, up):
        """The serial line of a card taken: slot and seat (Engine.card_seat) as they were
        before it."""
        e = self.e
        name = card_name(card)
        if slot <= -2:
            return "card %s cut for seat %d" % (name, seat)
        if slot < 0:
            slot = 1                     # a deal's first card: the first player's hand
        if seat == 0 or slot == 0:
            if ph == E.PH_BANKER:
                return "card %s to the %s: %s" % (name, V.banker_name(e).lower(),
                                                  V.total_text(e, 0, False))
            return "card to the %s (face down)" % V.banker_name(e).lower()
        flags = e.hand_flags(slot)
        tail = ""
        if flags & E.F_BUST:
            tail = ": bust"
        elif e.ncards(slot) == 2 and e.hand_kind(slot) == 4:
            tail = ": pontoon"
        if up:
            return "card %s to seat %d%s" % (name, seat, tail)
        return "card to seat %d (face down)%s" % (seat, tail)

    def _deal_summary(self):
        e = self.e
        if e.last_void:
            self.say("# deal %d void: every payment reverted (N3)" % e.deals)
            return
        parts = []
        first = 0 if e.casino else 1
        for s in range(first, e.seats + 1):
            parts.append("%s %s" % ("dealer" if s == 0 else s, V.signed(e.deal_net(s))))
        self.say("# deal %d over: %s %s; net %s" % (
            e.deals, V.banker_name(e).lower(),
            V.hand_line(e, 0).split("  ")[0].strip() if e.ncards(0) else "-", ", ".join(parts)))

    def _session_over(self):
        e = self.e
        self.ui.over = True
        try:
            self.ui.history = self.journal.archive()
        except OSError as x:
            self.say("! could not keep the hand history: %s" % x)
        self._make_room()
        parts = []
        for s in range(1, e.seats + 1):
            parts.append("%d %s" % (s, V.signed(e.balance(s))))
        self.say("# session over: balances %s; kept as %s" % (", ".join(parts), self.ui.history))
        self._all_dirty()

    def _after_event(self, prio):
        ui = self.ui
        ui.msg = ""
        ui.msg_seat = 0
        if ui.kind != V.K_NONE and ui.manual:
            ui.kind = V.K_NONE
            ui.manual = False
        self._sync_entry()
        self._all_dirty()
        self.first = prio
        self._prompt()

    def _sync_entry(self):
        """Open the amount entry the game asks for (stakes, the kitty) by itself."""
        ui = self.ui
        e = self.e
        if e is None or ui.manual:
            return
        kind = V.K_NONE
        seat = 0
        lo = hi = 0
        ph = e.phase
        r = e.rules
        shooter = self._window_seat()
        if ph == E.PH_STAKES or ph == E.PH_BETS or (
                e.casino and ph == E.PH_IDLE and not e.want_shuffle and not ui.over):
            kind = V.K_STAKE
            seat = V.acting_seat(e)
            lo = r.stake_min
            hi = r.stake_max
        elif ph == E.PH_IDLE and e.need_kitty:
            kind = V.K_KITTY
            lo = r.kitty_min
            hi = r.kitty_max
        elif shooter:
            kind = V.K_SHOOT            # X2: 0 = pass
            seat = shooter
            hi = e.kitty - e.outstanding_shoot
        if kind != ui.kind or seat != ui.seat or lo != ui.lo or hi != ui.hi:
            ui.kind = kind
            ui.seat = seat
            ui.lo = lo
            ui.hi = hi
            ui.value = lo

    def _prompt(self):
        e = self.e
        if e is None:
            return
        p = V.prompt(e, self.ui)
        seat = V.acting_seat(e)
        if e.phase == E.PH_PLAY and seat and not e.card_due():
            words, buy = V.actions(e, seat)
            p += ": " + " ".join(words) + (" (%s)" % buy if buy else "")
        if p != self.last_prompt:
            self.last_prompt = p
            self.say("> " + p)

    def refuse(self, text, seat=0):
        """A refusal that is not an answer to a serial line: displays and '!' line."""
        self.ui.msg = text
        self.ui.msg_seat = seat
        self.msg_at = self._now()
        self.say("! " + text)
        self._all_dirty()

    # ------------------------------------------------------------------ UNDO
    def undo(self):
        if self.ui.over:
            return "the session is over and kept: nothing to undo"
        if self.nev == 0:
            return "nothing to undo"
        if not self.undo_ok:
            if self.last_ev == E.EV_CARD:
                return "UNDO cannot take back a dealt card"
            return "UNDO cannot take back %s: the deal has moved on" % E.EVENT_WORDS[self.last_ev]
        self.journal.drop_last()
        self._replay()
        self._after_event(-1)
        return None

    # ------------------------------------------------------------------ serial
    def serial_line(self, line):
        words = strip(line)
        if not words:
            return
        w = words[0].lower()
        words[0] = w
        ui = self.ui
        if w == "help":
            self.say(HELP)
            return
        if w == "halt":
            self.stop = True
            self.say("ok halted")
            return
        if w == "status":
            self.say("ok " + self.status())
            return
        if w == "press":
            b = self._button_index(words)
            if b < 0:
                self.say("error: press takes a button: STICK TWIST BUY SPLIT MINUS PLUS OK "
                         "UNDO, then optionally 'long'")
                return
            self.say("ok press %s" % words[1].upper())
            self.press(b)
            return
        if w == "defaults":
            if ui.fatal and self.settings.error:
                self._use_defaults()
                self.say("ok defaults")
            else:
                self.say("error: the settings are fine: nothing to replace")
            return
        if w == "new":
            why = self.new_session()
            self.say("error: " + why if why else "ok new session")
            return
        if w == "tags":
            why = self.tags(" ".join(words))
            # the tag mode's own "tags: ..." lines follow (tools/tags.py reads those)
            self.say("error: " + why if why else "ok " + " ".join(words))
            return
        if w == "undo":
            why = self.undo()
            self.say("error: " + why if why else "ok undo: back at #%d" % self.nev)
            return
        try:
            ev, seat, amount, card = parse_event(words)
        except ParseError as x:
            self.say("error: %s" % x)
            return
        why = self.event(ev, seat, amount, card, SRC_SERIAL)
        if why:
            self.say("error: " + why)

    def tags(self, line):
        """Route a "tags ..." line to the tag mode (write, enroll, check the deck's tags)."""
        e = self.e
        if self.ui.fatal:
            return "the table is stopped: " + self.ui.fatal
        if e is not None and e.in_deal() and not (self.tm is not None and self.tm.active):
            return "tag mode is for between deals: finish or void this deal first"
        if self.tm is None:
            import tagmode
            st = self.settings
            self.tm = tagmode.for_reader(self.reader, self.disp, screen=BANKER_DISPLAY,
                                         uidmap_path=self.root + (st.uid_map or "uidmap.txt"))
        self.tm.command(line)
        self.tm_busy = True
        return None

    def _tags_step(self):
        """One step of the tag mode; at its end the table's screens come back."""
        line = self.tm.poll()
        if line is not None:
            self.say(line)
            return True
        if not self.tm.active:
            self.tm_busy = False
            for i in range(len(self.hashes)):
                self.hashes[i] = 0       # the banker's display showed the tag mode
            self.reader.ignore_field()   # the last tag may still lie on the reader
            self._all_dirty()
            self.tm = None               # its buffers go; made again at the next use
            self.collect = True
        return True

    def _button_index(self, words):
        if len(words) < 2 or len(words) > 3 or (len(words) == 3 and words[2] != "long"):
            return -1
        names = ("STICK", "TWIST", "BUY", "SPLIT", "MINUS", "PLUS", "OK", "UNDO")
        name = words[1].upper()
        if name not in names:
            return -1
        return names.index(name) + (LONG if len(words) == 3 else 0)

    def status(self):
        e = self.e
        if e is None:
            return "stopped: " + self.ui.fatal
        bal = []
        for s in range(1, e.seats + 1):
            bal.append("%d %s" % (s, V.signed(e.balance(s))))
        return "status: %d events, deal %d, %s, kitty %d, balances %s; %s" % (
            self.nev, e.deals, "dealer: the house" if e.casino else "banker %d" % e.banker,
            e.kitty, ", ".join(bal), V.prompt(e, self.ui))

    def new_session(self):
        e = self.e
        if self.ui.fatal:
            return "the table is stopped: " + self.ui.fatal
        if not self.ui.over:
            if e is not None and e.in_deal():
                return "a deal is in progress: finish or void it first"
            if self.nev:
                self.ui.history = self.journal.archive()
        self._new_session()
        return None

    def _use_defaults(self):
        self.settings = _settings(None)
        self.ui.fatal = ""
        self._new_session()
        self.dirty |= 0xFF               # clear the stop message on displays now unused too

    # ------------------------------------------------------------------ buttons
    def press(self, b):
        long = b >= LONG
        b &= LONG - 1
        ui = self.ui
        e = self.e
        if ui.msg:                       # a new press replaces the last refusal
            ui.msg = ""
            self._all_dirty()
        if ui.fatal:
            if b == B_OK and self.settings.error:
                self._use_defaults()
            return
        if self.tm_busy:
            if b == B_UNDO:              # UNDO stops the tag mode; other presses wait
                self.tm.stop()
            return
        if ui.over:
            if b == B_OK:
                self.new_session()
            return
        if ui.kind == V.K_MENU:
            if b == B_MINUS:
                ui.menu_i = (ui.menu_i - 1) % len(ui.menu)
            elif b == B_PLUS:
                ui.menu_i = (ui.menu_i + 1) % len(ui.menu)
            elif b == B_OK:
                item = ui.menu[ui.menu_i]
                ui.kind = V.K_NONE
                ui.manual = False
                self._sync_entry()
                self._menu(item)
            elif b == B_UNDO:
                ui.kind = V.K_NONE
                ui.manual = False
                self._sync_entry()
            self._all_dirty()
            return
        if ui.kind == V.K_CARD:
            self._card_step(b, long)
            return
        if ui.kind != V.K_NONE and not long:
            if b == B_MINUS or b == B_PLUS:
                v = ui.value + (1 if b == B_PLUS else -1)
                if ui.kind == V.K_SELL_SEAT and v == e.banker:
                    v += 1 if b == B_PLUS else -1   # N4: the bank goes to another seat
                if ui.lo <= v <= ui.hi:
                    ui.value = v
                self._dirty_entry()
                return
            if b == B_OK:
                self._commit()
                return
            if b == B_UNDO and ui.kind == V.K_SHOOT and not ui.manual and \
                    ui.shoot_skip > e.shoot_pos:
                self._unpass()
                return
            if b == B_UNDO and ui.manual:
                ui.kind = V.K_NONE
                ui.manual = False
                self._sync_entry()
                self._all_dirty()
                self._prompt()           # a sale's prompt ends with it
                return
            if b == B_BUY and ui.kind == V.K_BUY:
                ui.kind = V.K_NONE
                ui.manual = False
                self._all_dirty()
                return
        if long:
            if b == B_OK:
                self._open_menu()
            elif b == B_PLUS and ui.kind != V.K_NONE:
                ui.value = ui.hi
                self._dirty_entry()
            elif b == B_MINUS and ui.kind != V.K_NONE:
                ui.value = ui.lo
                self._dirty_entry()
            return
        seat = V.acting_seat(e)
        why = None
        if b == B_STICK:
            if e.casino and e.phase == E.PH_IDLE:
                why = self._same_bets()
            elif e.phase == E.PH_BANKER and not e.casino:
                why = self.event(E.EV_STAND, 0, 0, 0, SRC_BUTTON)
            else:
                why = self.event(E.EV_STICK, seat, 0, 0, SRC_BUTTON)
        elif b == B_TWIST:
            why = self.event(E.EV_TWIST, seat, 0, 0, SRC_BUTTON)
        elif b == B_SPLIT:
            why = self.event(E.EV_SPLIT, seat, 0, 0, SRC_BUTTON)
        elif b == B_BUY:
            if e.casino:
                why = self.event(E.EV_DOUBLE, seat, 0, 0, SRC_BUTTON)
            else:
                why = self._open_buy(seat)
        elif b == B_OK:
            if e.want_shuffle and not e.in_deal():
                why = self.event(E.EV_SHUFFLE, 0, 0, 0, SRC_BUTTON)
            else:
                why = "nothing to confirm: " + V.prompt(e, ui)
        elif b == B_UNDO:
            why = self.undo()
            if why is None:
                self.say("* undo: back at #%d" % self.nev)
        if why:
            self.refuse(why, seat)

    def _dirty_entry(self):
        ui = self.ui
        if ui.kind >= V.K_SELL_SEAT:     # the sale's and a card's other displays too
            self._all_dirty()            # the buyer's display follows the choice
            self._prompt()
        self._dirty(BANKER_DISPLAY)
        if ui.seat:
            self._dirty(ui.seat - 1)
            self.first = ui.seat - 1

    def _open_buy(self, seat):
        e = self.e
        slot = e.current_slot()
        if slot < 0:
            return "no player acts now: " + V.prompt(e, self.ui)
        lo = e.initial_stake(seat)
        hi = e.buy_max(seat, slot)
        why = e.check(E.EV_BUY, seat, lo)
        if why:
            return why
        self._entry(V.K_BUY, seat, lo, hi)
        return None

    def _entry(self, kind, seat, lo, hi):
        ui = self.ui
        ui.kind = kind
        ui.manual = True
        ui.seat = seat
        ui.lo = lo
        ui.hi = hi
        ui.value = lo
        self._all_dirty()
        self.first = seat - 1 if seat else BANKER_DISPLAY

    def _commit(self):
        ui = self.ui
        kind = ui.kind
        seat = ui.seat
        v = ui.value
        if kind == V.K_STAKE:
            why = self.event(E.EV_STAKE, seat, v, 0, SRC_BUTTON)
        elif kind == V.K_BUY:
            why = self.event(E.EV_BUY, seat, v, 0, SRC_BUTTON)
        elif kind == V.K_KITTY:
            why = self.event(E.EV_KITTY, 0, v, 0, SRC_BUTTON)
        elif kind == V.K_CARD:
            why = self.event(E.EV_CARD, 0, 0, v, SRC_BUTTON)   # refused: the entry stays
        elif kind >= V.K_SELL_SEAT:
            why = self._sale_step(kind, seat, v)
        elif v == 0:
            why = self._pass_shoot(seat)
        else:
            why = self.event(E.EV_SHOOT, seat, v, 0, SRC_BUTTON)
        if why:
            self.refuse(why, seat)

    def _open_menu(self):
        e = self.e
        ui = self.ui
        items = []
        if V.card_wanted(e):
            items.append(V.M_CARD)       # the tag of the card in hand will not read
        if e.want_shuffle and not e.in_deal():
            items.append(V.M_SHUFFLE)
        if e.phase == E.PH_BANKER and not e.casino:
            items.append(V.M_STAND)
        seat = V.acting_seat(e)
        if e.phase == E.PH_PLAY and seat:
            if e.rules.burn and e.check(E.EV_BURN, seat) is None:
                items.append(V.M_BURN)
            if e.casino and e.check(E.EV_DOUBLE, seat) is None:
                items.append(V.M_DOUBLE)
        window = e.phase == E.PH_DEAL2 and e.pos == 0 and not e.casino
        if window and e.rules.banker_doubling and not e.doubled:
            items.append(V.M_BANKDOUBLE)
        if e.rules.shoot and (window or (e.phase == E.PH_PLAY and seat)):
            items.append(V.M_SHOOT)
        if e.rules.shoot and not e.in_deal():
            items.append(V.M_KITTY)
        if self._sale_possible():
            items.append(V.M_SELL)
        if e.casino and e.phase == E.PH_IDLE and not e.want_shuffle and e.initial_stake(1):
            items.append(V.M_SAME_BETS)
        if self.web is not None:
            items.append(V.M_CODES)
        if e.in_deal():
            items.append(V.M_VOID)
        else:
            items.append(V.M_NEW)
            items.append(V.M_TAGS_WRITE)
            items.append(V.M_TAGS_ENROLL)
            items.append(V.M_TAGS_CHECK)
        ui.menu = items
        ui.menu_i = 0
        ui.kind = V.K_MENU
        ui.manual = True
        self._all_dirty()

    def _menu(self, item):
        e = self.e
        why = None
        if item == V.M_SHUFFLE:
            why = self.event(E.EV_SHUFFLE, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_STAND:
            why = self.event(E.EV_STAND, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_VOID:
            why = self.event(E.EV_VOID, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_BURN:
            why = self.event(E.EV_BURN, V.acting_seat(e), 0, 0, SRC_BUTTON)
        elif item == V.M_DOUBLE:
            why = self.event(E.EV_DOUBLE, V.acting_seat(e), 0, 0, SRC_BUTTON)
        elif item == V.M_BANKDOUBLE:
            why = self.event(E.EV_BANKDOUBLE, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_KITTY:
            room = e.rules.kitty_max - e.kitty
            if room < 1:
                why = "the kitty is at its maximum (X8)"
            else:
                self._entry(V.K_KITTY, 0, 1 if e.kitty else e.rules.kitty_min, room)
        elif item == V.M_SHOOT:
            seat = V.acting_seat(e)
            lo = 1
            if not seat:
                seat = self._window_seat()
                lo = 0                   # X2: 0 = pass
            room = e.kitty - e.outstanding_shoot
            if not seat or room < 1:
                why = "no shoot bet is possible now (X2, X4)"
            else:
                self._entry(V.K_SHOOT, seat, lo, room)
        elif item == V.M_SELL:
            why = self._open_sale()
        elif item == V.M_CARD:
            why = self._open_card()
        elif item == V.M_SAME_BETS:
            why = self._same_bets()
        elif item == V.M_NEW:
            why = self.new_session()
        elif item == V.M_TAGS_WRITE:
            why = self.tags("tags write")
        elif item == V.M_TAGS_ENROLL:
            why = self.tags("tags enroll")
        elif item == V.M_TAGS_CHECK:
            why = self.tags("tags check")
        elif item == V.M_CODES:
            self._codes_menu()
        if why:
            self.refuse(why)

    def _codes_menu(self):
        """The pages' address, then each seat's phone code, one a press (MINUS/PLUS)."""
        ui = self.ui
        where = self.web.net.where()
        ui.address = where[7:].rstrip("/") if where.startswith("http://") else where
        ui.menu = [V.M_SEAT_CODE + s for s in range(self.e.seats + 1)]
        ui.menu_i = 0
        ui.kind = V.K_MENU
        ui.manual = True
        self._all_dirty()

    # ------------------------------------------------------------------ button-only paths
    # The sale of the bank (N4), passing in the shoot window (X2) and the casino's "same
    # bets": every event of the transcript language can be given without a serial line.
    def _window_seat(self):
        """X2: the seat the shoot window offers now (after the engine's shoot bets and the
        passes chosen on the buttons); 0 when the window is closed or the kitty is covered."""
        e = self.e
        ui = self.ui
        if not (e.rules.shoot and e.phase == E.PH_DEAL2 and e.pos == 0):
            ui.shoot_skip = 0            # passes live only while their window is open
            return 0
        i = e.shoot_pos if e.shoot_pos > ui.shoot_skip else ui.shoot_skip
        if i >= e.nplayers or e.kitty - e.outstanding_shoot < 1:
            return 0
        return e.porder[i]

    def _pass_shoot(self, seat):
        """X2: `seat` places no shoot bet; a pass is no event (TRANSCRIPT.md: a player who
        does not shoot sends nothing), so it lives in the UI until the window closes."""
        e = self.e
        if seat != self._window_seat():
            return "no shoot bet is possible now (X2, X4)"
        for i in range(e.nplayers):
            if e.porder[i] == seat:
                self.ui.shoot_skip = i + 1
        self.say("# seat %d passes: no shoot bet (X2)" % seat)
        self._ui_moved(seat - 1)
        return None

    def _unpass(self):
        e = self.e
        ui = self.ui
        ui.shoot_skip -= 1
        self.say("# seat %d may shoot again (X2)" % e.porder[ui.shoot_skip])
        self._ui_moved(e.porder[ui.shoot_skip] - 1)

    def _ui_moved(self, prio):
        """A choice that is not an event changed what the displays show."""
        self.ui.kind = V.K_NONE
        self.ui.manual = False
        self._sync_entry()
        self._all_dirty()
        self.first = prio
        self._prompt()

    def _sale_possible(self):
        e = self.e
        return (e.rules.preset == 1 and not e.casino and not e.in_deal() and e.banker > 0
                and e.phase == E.PH_IDLE)

    def _open_sale(self):
        """N4, step 1: the banker chooses the buyer (-/+ over the other seats)."""
        e = self.e
        if not self._sale_possible():
            return "the bank can be sold only between deals of the classic game (N4)"
        lo = 2 if e.banker == 1 else 1
        hi = e.seats - 1 if e.banker == e.seats else e.seats
        self._entry(V.K_SELL_SEAT, 0, lo, hi)
        self.ui.value = e.banker % e.seats + 1       # the banker's left (B2)
        self._prompt()
        return None

    def _sale_step(self, kind, seat, v):
        """N4, OK on each step: buyer chosen -> price; price chosen -> the buyer's OK;
        the buyer's OK -> the `sell` event."""
        ui = self.ui
        if kind == V.K_SELL_SEAT:
            self._entry(V.K_SELL_PRICE, v, 0, 20 * self.e.rules.stake_max)
        elif kind == V.K_SELL_PRICE:
            ui.price = v
            self._entry(V.K_SELL_OK, seat, v, v)
        else:
            return self.event(E.EV_SELL, seat, ui.price, 0, SRC_BUTTON)
        self._prompt()
        return None

    def _same_bets(self):
        """`casino`: one press re-places every seat's bet of the previous round."""
        e = self.e
        if e.want_shuffle or e.phase != E.PH_IDLE:
            return "same bets: only before the first bet of a round (D2)"
        bets = [e.initial_stake(s) for s in range(1, e.seats + 1)]
        if 0 in bets:
            return "no bets of a previous round to repeat (D2)"
        seat = 1
        while True:
            why = self.event(E.EV_STAKE, seat, bets[seat - 1], 0, SRC_BUTTON)
            if why or e.phase != E.PH_BETS:
                return why
            seat = e.next_stake_seat()

    # ------------------------------------------------------------------ a card by hand
    # A card whose tag will not read (a damaged sticker, a tag outside the UID map) is
    # chosen on the buttons and goes through event() like a read card: journaled first,
    # then shown as a read card would be (a face-down card only on its own seat's display).
    def _open_card(self):
        e = self.e
        ui = self.ui
        if not V.card_wanted(e):
            return "no card is due now: " + V.prompt(e, ui)
        slot = e.expected_card_slot()
        seat = e.card_seat()
        if slot <= -2:
            up = True                    # the cut is face up (B1)
            who = "cut S%d" % seat
        elif seat == 0:
            up = e.phase == E.PH_BANKER  # his own draws in his turn (K1)
            who = "dealer" if e.casino else "banker"
        else:
            up = e.phase == E.PH_PLAY and bool(e.hand_flags(slot) & E.F_TWISTED)
            who = "seat %d" % seat
        self._entry(V.K_CARD, seat, 0, 51)
        ui.card_up = up
        ui.card_for = who
        self._prompt()
        return None

    def _card_step(self, b, long):
        """MINUS/PLUS: the rank down/up; held: the suit; OK: the card; UNDO: no card. Every
        card stays reachable (one already on the table is refused on OK, R2: skipping it
        would tell where it is)."""
        ui = self.ui
        c = ui.value
        if b == B_OK:
            self._commit()
        elif b == B_UNDO:
            ui.kind = V.K_NONE
            ui.manual = False
            self._sync_entry()
            self._all_dirty()
            self._prompt()
        elif b == B_MINUS or b == B_PLUS:
            d = 1 if b == B_PLUS else -1
            if long:
                c = (c & ~3) | ((c & 3) + d) % 4
            else:
                c = ((c >> 2) + d) % 13 * 4 + (c & 3)
            ui.value = c
            self._dirty_entry()
        else:
            self.refuse("Card: -/+, OK or UNDO", ui.seat)

    # ------------------------------------------------------------------ displays
    def _dirty(self, i):
        self.dirty |= 1 << i
        self.gen += 1

    def _all_dirty(self):
        e = self.e
        n = min(e.seats, 8) if e is not None else 8
        self.dirty |= ((1 << n) - 1) | (1 << BANKER_DISPLAY)
        self.gen += 1

    def _lines(self, i):
        buf = self.buf
        e = self.e
        if e is None:
            for k in range(8):
                buf[k] = ""
            V.fatal_view(self.ui, buf)
            return 0
        if i == BANKER_DISPLAY:
            hl = V.banker_view(e, self.ui, buf)
        elif i >= e.seats and not self.ui.fatal:
            for k in range(8):           # a display no seat uses stays blank
                buf[k] = ""
            return -1
        else:
            hl = V.seat_view(e, self.ui, i + 1, buf)
            if self.web is not None:     # the seat's code for its phone page, if room
                for k in (7, 5, 4):
                    if not buf[k]:
                        buf[k] = "Phone code " + self.web.code(i + 1)
                        break
        if self.pages == 4:
            # 128x32 panels: the header, the current hand, the prompt and the action line
            buf[1] = buf[hl] if 1 <= hl <= 4 else buf[1]
            buf[2] = buf[6]
            buf[3] = buf[7]
            hl = 1 if 1 <= hl <= 4 else (2 if i == BANKER_DISPLAY else -1)
        return hl

    def _service(self):
        if self.reader is not None and not self.tm_busy:    # (the tag mode's own reader)
            self.reader.service()

    def _after_page(self):
        """A display page went out: the reader gets a look, then the loop goes round (the
        rest of the display follows without building its lines again)."""
        self._service()
        return True

    def redraw_one(self):
        """Redraw one dirty display (the priority one first). True if one was looked at."""
        d = self.dirty
        if not self.settings.seat_displays:
            d &= 1 << BANKER_DISPLAY     # phones are the seat displays (web.py)
            self.dirty = d
        if self.tm_busy:
            d &= ~(1 << BANKER_DISPLAY)  # the tag mode shows its progress there
        elif d and self.reader is not None and self.reader.urgent():
            return False                 # a card being read goes before any display page
        if not d:
            return False
        i = self.first
        if i < 0 or not d & (1 << i):
            i = 0
            while not d & (1 << i):
                i += 1
        self.first = -1
        self.dirty &= ~(1 << i)
        if i == self.held and self.gen == self.held_gen:
            hl = self.held_hl            # the rest of an interrupted display: buf holds
            h = self.held_hash           # its lines still (no rebuild for a page)
        else:
            hl = self._lines(i)
            h = hl + 7
            for k in range(self.pages):
                h = (h * 31 + hash(self.buf[k])) & 0x3FFFFFFF
            self.held = i
            self.held_gen = self.gen
            self.held_hl = hl
            self.held_hash = h
            self._service()              # building the lines took a while on a Pico
        if h == self.hashes[i]:
            return True
        self.hashes[i] = h
        # one page a pass, so a card is read between pages; before the reader is up (boot)
        # the whole display at once
        r = self.disp.show(i, self.buf, hl,
                           self._page_sent if self.reader is not None else None)
        if r == -2:                      # seat_displays.INTERRUPTED by a card: finish later
            self.hashes[i] = 0
            self.dirty |= 1 << i
            self.first = i
        elif r < 0:
            self.hashes[i] = 0           # try again when it answers
        return True

    # ------------------------------------------------------------------ the loop
    def step(self):
        """One pass of the loop. True if anything happened."""
        busy = False
        r = None
        if self.tm_busy:
            busy = self._tags_step()     # the tag mode has the reader to itself
        else:
            r = self.reader.poll()
        if r is not None:
            busy = True
            if isinstance(r, int):
                why = self.event(E.EV_CARD, 0, 0, r, SRC_SHOE)
                if why:
                    self.refuse("card: " + why)
            else:
                self.refuse("reader " + r)
        now = self._now()
        b = self.btn.poll(now)
        if b >= 0:
            busy = True
            if b == CHORD:
                self.refuse("two buttons at once: none taken, press one at a time")
            else:
                self.press(b)
        if self.lines_in is not None:
            line = self.lines_in.poll()
            if line is not None:
                busy = True
                c = line[:1]
                if c == "\x15":             # serial_lines.REFUSED: nothing of it runs
                    self.say("error: " + line[1:])
                elif c == "\x03":           # serial_lines.STOP: Ctrl-C as a byte
                    self.stop = True
                    self.say("# stopped from the serial line (Ctrl-C)")
                else:
                    self.serial_line(line)
        if self.ui.msg and now - self.msg_at > MSG_MS:
            self.ui.msg = ""
            self._all_dirty()
        if busy:
            self.collect = True
            self.active_at = now
        if not busy and self.first < 0 and not self.tm_busy and self._fold_due():
            self._fold()                 # (once the acting seat's display is drawn)
            busy = True
        elif self.redraw_one():
            busy = True
        elif not (busy or self.dirty or self.tm_busy):
            self._idle()
        self.loops += 1
        return busy

    def _idle(self):
        """Nothing else to do in this pass: housekeeping (on a Pico the loop is blind
        meanwhile: a collection 19 ms, each heap figure another 8 ms, gc.mem_free()
        walking the heap)."""
        # the heap figures once a deal, when the table waits for a player
        figures = self.heap_due and (self._players_turn() or self._quiet())
        if not (self.collect or figures):
            return
        # one collection after each burst of activity, while the table waits: the
        # garbage of the last events goes now rather than in the middle of a card
        self.collect = False
        if _gc is None:
            self.heap_due = False
            return
        if figures:
            self.heap_figures()
        else:
            _gc.collect()

    def heap_figures(self):
        """The heap's figures now (each walks the heap): the low point before this
        collection, what it holds after. Nothing on a port without them (CPython)."""
        self.heap_due = False
        if _gc is None:
            return
        self._heap()
        _gc.collect()
        a = _gc.mem_alloc()
        if a > self.max_alloc:
            self.max_alloc = a

    def _fold_due(self):
        """The journal's tail goes into journal.txt while the table waits for a player,
        not a card, once it is half full; or between deals once the table has been quiet
        a while. Never while a card may come: on a Pico a fold is a few hundred ms of flash
        work with the loop blind, and a tail left to fill is folded by the append that
        overflows it, at whatever moment that is."""
        j = self.journal
        e = self.e
        if self.fold_wait or e is None:
            return False
        if not j.nbody:
            # nothing to fold, but a boot or UNDO replayed many events: a snapshot, once
            # the table is quiet, spares the next boot that replay
            return (self.nev - self.snap.events >= SNAP_AFTER and self._quiet()
                    and (self._players_turn() or not e.in_deal()))
        if j.nbody >= FOLD_IDLE and self._players_turn():
            return True
        return not e.in_deal() and self._quiet()

    def _players_turn(self):
        """In a deal, waiting for a stake or a decision: a card now would be refused.
        (Between deals a card may come at any moment: it starts the next deal.)"""
        e = self.e
        return e is not None and e.in_deal() and e.expected_card_slot() == -1

    def _quiet(self):
        return drvtime.ticks_diff(self._now(), self.active_at) >= QUIET_MS

    def _fold(self):
        try:
            self.journal.fold()
        except OSError as x:             # the tail stays valid; tried again after an event
            self.fold_wait = True
            self.say("! journal: could not fold the tail (%s)" % x)
            return
        self._save_snapshot()

    def _heap(self):
        if _gc is None:
            return
        f = _gc.mem_free()
        if self.min_free < 0 or f < self.min_free:
            self.min_free = f

    def run(self):
        net = None
        if self.settings.web and hasattr(self.board, "make_network"):
            net = self.board.make_network(self.settings)
        if net is not None:
            import web                   # only a board with a network has it (Pico W UF2)
            web.run(self, net)
        while not self.stop:
            if not self.step():
                self.reader.wait(0.001)      # wakes early when the PN532 has a frame ready
        while self.redraw_one():
            pass
        try:
            self.journal.fold()          # a clean stop leaves the whole journal in journal.txt
        except OSError:
            pass                         # the tail still holds the lines: nothing is lost
        self.journal.close()
        if self.heap_due:
            self.heap_figures()          # the last deal's, not taken yet
        self._heap()
        self.say("# loops %d, lowest free heap seen %d" % (self.loops, self.min_free))
        rd = self.reader
        if rd is not None and hasattr(rd, "max_gap_ms"):
            self.say("# reader polled %d times, longest gap between two polls %d ms"
                     % (rd.polls, rd.max_gap_ms))
        if self.max_alloc:
            self.say("# heap in use at its highest after a collection %d" % self.max_alloc)
        try:
            import gc
            gc.collect()
            self.say("# heap in use after gc %d, free %d" % (gc.mem_alloc(), gc.mem_free()))
        except (ImportError, AttributeError):
            pass

    def show_error(self, text):
        """Last resort (main.py): every display says the table stopped."""
        self.ui.fatal = text
        self.held = -1                   # buf is about to hold other lines
        if self.disp is None:
            return
        for i in range(9):
            try:
                self._lines(i)
                self.disp.show(i, self.buf, 0)
            except Exception:  # noqa: BLE001 - a display that fails here is left as it is
                pass


table = None


def main(board=None, root=""):
    global table
    if board is None:
        import board
    table = Table(board, root)
    try:
        table.boot()
        table.run()
    finally:
        btn = getattr(table, "btn", None)
        if hasattr(btn, "stop"):
            btn.stop()               # the Pico's button timer would sample on at the REPL
