# The table controller: a cooperative polling loop. Each step() polls the shoe reader, the
# buttons and the serial line once (nothing blocks), feeds accepted events to the engine,
# journals them (flushed before anything is shown), answers on the serial line and
# redraws at most one display whose text changed. The parts, one job each:
#   session.py       the engine and its journal: apply, journal, undo, replay, archive
#   narrator.py      the serial line's narration and prompt; console.py its commands
#   controls.py      the buttons (menu.py, bank_sale.py, shoot_window.py, card_entry.py)
#   screens.py       which display to draw next, and its lines (views.py)
#   housekeeping.py  collections, heap figures, when the journal's tail is folded
#   tag_run.py       a tag-mode run between deals
#   buzzer.py        the tick of a card taken, the buzz of one refused or unread
#
# Serial output lines (the answer to an input line is exactly one "ok"/"error:" line):
#   ok #N <event>      an input line's event was accepted; N = events in the session
#   ok <text>          an input line's command was done (status, undo, help, ...)
#   error: <reason>    an input line was refused (nothing changed)
#   * #N <event>       an event from the shoe or the buttons was accepted
#   ! <reason>         a card, a press or the reader was refused / reported an anomaly
#   > <prompt>         the table's prompt, whenever it changes
#   # <info>           boot, recovery, deal results


import sys

from hardware import drvtime
from game import engine as E
from . import views as V
from hardware.buttons import CHORD, Buttons
from game.cards import card_name
from .console import Console
from .controls import Controls
from hardware.faults import watch as watch_faults
from hardware.health import HEALTH
from .housekeeping import Housekeeping, collect, heap_line
from .narrator import Narrator
from .screens import BANKER_DISPLAY, Screens
from hardware.bus_turn import BusTurn
from hardware.serial_out import SerialOut
from hardware.shoe_reader import ANOMALY
from .sources import SRC_BUTTON, SRC_SERIAL, SRC_SHOE
from ledger import forget
from ledger.session import Session
from game.transcript import event_text


MSG_MS = 4000


def _bit(seat):
    """The bit of seat `seat`'s display (the banker display's for 0, a seat with no display
    or none at all)."""
    return 1 << (seat - 1) if 0 < seat <= BANKER_DISPLAY else 1 << BANKER_DISPLAY


def _nothing():
    pass


def _settings(path):
    """settings.txt at `path` (None: the defaults)."""
    from ledger import settings
    return settings.load(path) if path else settings.Settings()


def _inputs(b, st, pins):
    """The buzzer (a board with one, and sound = on) and the buttons: sampled by the board's
    timer where it has one, so that no press is lost to a long pass of the loop."""
    buzzer = b.make_buzzer() if st.sound and hasattr(b, "make_buzzer") else None
    levels = b.make_button_levels() if hasattr(b, "make_button_levels") else None
    btn = Buttons(pins, st.debounce_ms, st.long_ms, st.release_ms, levels)
    if hasattr(b, "make_button_timer"):
        from hardware.buttons import SampledButtons
        edges = b.make_button_edges() if hasattr(b, "make_button_edges") else None
        btn = SampledButtons(btn, b.make_button_timer, edges=edges)
    return buzzer, btn


class Table:
    def __init__(self, board, root="", out=None, lines=None):
        self.board = board
        self.root = root
        self.lines_in = lines
        self.ui = V.UI()
        self.settings = None
        self.reader = None
        self.btn = None
        self.buzzer = None               # buzzer.Buzzer: a board with one and sound = on
        self.web = None                  # web.Web on a board with a network (web.py)
        self.stop = False
        self.loops = 0
        self.msg_at = 0
        flash = board.journal_flash() if hasattr(board, "journal_flash") else None
        self.session = Session(root, flash=flash)
        self.out = SerialOut(out or sys.stdout, self.session)   # never waits for the host
        self.narrator = Narrator(self.out, self.session, self.ui)
        self.say = self.session.say = self.narrator.say   # one bound method, made once
        self.turn = BusTurn()            # whose turn the I2C bus is (hardware/bus_turn.py)
        self.screens = Screens(self.session, self.ui, self.turn)
        self.house = Housekeeping(self.session)
        self.controls = Controls(self)
        self.console = Console(self)
        self.tags = None                 # tag_run.TagRun, made by tag_run() on first use
        self.collect_first = False       # a collection before a finished session's keeping

    # what the web part and the host's tools read
    @property
    def e(self):
        return self.session.e

    @property
    def nev(self):
        return self.session.nev

    # ------------------------------------------------------------------ boot
    def boot(self):
        b = self.board
        from . import health_report             # (the check's code: boot only, let go after)
        wd = HEALTH.watchdog = health_report.start(b)   # from here on a hung boot or loop
        self.session.watchdog = wd       # resets the shoe (a long replay too)
        st = self.settings = _settings(self.root + "settings.txt")
        sc = self.screens
        sc.seat_displays = st.seat_displays
        sc.pages = st.height // 8
        sc.disp = b.make_displays(9, 64 if st.error else st.height)   # big buffers first
        if self.lines_in is None and hasattr(b, "make_serial"):
            self.lines_in = b.make_serial()
        self.say("# pontoon table: boot")
        self.say("# boot reason: " + HEALTH.cause)      # (board.reset_cause)
        s = self.session
        st.shuffle_check and s.check_shuffles()
        if s.journal.recover():
            if s.journal.dropped:
                self.say("# journal: torn last line (%d bytes) dropped" % s.journal.dropped)
            s.replay()
            if s.e is not None and s.e.finished():
                self._session_over()
        s.journal.next_history()         # known ahead, not inside the press that ends a session
        if s.e is None:
            if st.error:
                self._fatal(st.error)
            else:
                self._new_session()
        else:
            self.say("# resume #%d" % s.nev)
            self.after_event(-1)
        self.narrator.tell()
        # every display drawn before the reader starts (the PN532 driver's reset sleeps):
        # the table is seen sooner, and no card could be read before anyway (the
        # prompt is out already: after_event said it)
        sc.all_dirty()
        sc.draw_all()
        collect()                        # the replay's garbage out before the reader's code
        self.house.start(self.turn)
        pins = health_report.power_on(self)      # the reader made, every part checked
        forget(health_report.__name__)   # (its functions: heap)
        del health_report
        self.turn.reader = self.reader
        watch_faults(self)               # the reader, the bus, the switch, the displays
        self.buzzer, self.btn = _inputs(b, st, pins)
        self.turn.btn = self.btn
        sc.all_dirty()
        self.narrator.prompt()
        line = heap_line("after boot")
        if line:
            self.say(line)

    def _fatal(self, text):
        self.ui.fatal = text
        self.say("error: " + text)
        self.screens.all_dirty()

    def _new_session(self):
        st = self.settings
        why = self.session.start(st.header_lines())
        if why:
            self._fatal(why)
            return
        self.ui.over = False
        self.ui.history = ""
        self.say("# new session: %s" % ", ".join(st.header_lines()))   # at event #0
        self.after_event(-1)

    def new_session(self):
        s = self.session
        if self.ui.fatal:
            return "the table is stopped: " + self.ui.fatal
        if not self.ui.over:
            if s.e is not None and s.e.in_deal():
                return "a deal is in progress: finish or void it first"
        # what the new session keeps (its engine, the history) goes low in the heap, below
        # the garbage of the last one, where it cannot split the free space
        collect()
        if not self.ui.over and s.nev:
            self.ui.history = s.archive()
            self.narrator.sealed(self.ui.history)
        while s.keep_step():             # the last session's keeping, not done yet
            pass
        self.reader_unwatched()          # (the table took no cards meanwhile)
        self.rearm()
        self._new_session()
        return None

    def use_defaults(self):
        self.settings = _settings(None)
        self.screens.seat_displays = self.settings.seat_displays
        self.ui.fatal = ""
        self._new_session()
        self.screens.mark_some(0xFF)     # clear the stop message on displays now unused too

    # ------------------------------------------------------------------ events
    def event(self, ev, seat=0, amount=0, card=0, src=SRC_SERIAL):
        """Apply, journal, answer. None when accepted, else the reason. The narration
        after the answer (a deal's end, the prompt) waits until the display the event
        concerns is drawn (Narrator.tell): a card's or a press's display goes out sooner."""
        nr = self.narrator
        if nr.due:
            nr.tell()                    # the last event's lines: of the state before this
        ui = self.ui
        if ui.fatal:
            return "the table is stopped: " + ui.fatal
        if ui.over:
            return "the session is over: press OK or send 'new' for a new one"
        s = self.session
        e = s.e
        ph = e.phase
        slot = e.expected_card_slot() if ev == E.EV_CARD else -1
        target = e.card_seat() if ev == E.EV_CARD else -1
        up = False
        if ev == E.EV_CARD and ph == E.PH_PLAY and slot > 0:
            up = bool(e.hand_flags(slot) & E.F_TWISTED)
        ended = e.deals_ended
        why = s.feed(ev, seat, amount, card)
        if why is not None:
            if ev == E.EV_CARD:
                why = why.replace(card_name(card), "that card")
            return why
        why = s.record(event_text(ev, seat, amount, card))
        self.service()                   # a next card's answer may be waiting by now
        if why is not None:
            s.replay()                   # the event never happened
            return why
        if self.web is not None:
            self.web.on_event(ev, slot, up, card)
        if ev == E.EV_CARD:
            text = nr.card_text(card, ph, slot, target, up)
            if src == SRC_BUTTON:        # entered by hand: the audit trail says so
                if "(face down)" in text:
                    text = text.replace("(face down)", "(face down, by hand)")
                else:
                    text += " (by hand)"
        else:
            text = event_text(ev, seat, amount, card)
        self.say(("ok #%d " if src == SRC_SERIAL else "* #%d ") % s.nev + text)
        if ev != E.EV_CARD:
            self.rearm()                 # the table moved on: a card comes out anew
        if e.deals_ended != ended:
            nr.deal_over_later()
            self.house.heap_due = True
        prio = BANKER_DISPLAY            # no seat: the banker's (stand, shuffle, kitty...)
        if ev == E.EV_CARD:
            prio = BANKER_DISPLAY if target == 0 else target - 1
        elif seat:
            prio = seat - 1
        few = 0
        if ev <= E.EV_DOUBLE and ev != E.EV_STAKE and e.phase == ph and e.deals_ended == ended:
            # a card or a play within the deal's phase changes only the displays of the
            # seat it concerns, the seat the next card goes to, whoever acts now
            # (after_event), the deal's banker (his hand, his balance) and the banker
            # display; the other seats show what they showed (their lines not built again,
            # so a next card is read sooner)
            few = (_bit(target if ev == E.EV_CARD else seat) | _bit(e.card_seat())
                   | _bit(V.deal_banker(e)) | 1 << BANKER_DISPLAY)
        self.after_event(prio, few)
        if e.finished():
            self._session_over()
        return None

    def _session_over(self):
        self.collect_first = True        # before the keeping: what it keeps goes low in the
        ui = self.ui                     # heap (a pass of its own, after the displays)
        ui.over = True
        ui.history = self.session.end()  # kept by keep_step(), once every display is drawn
        self.narrator.over(ui.history)
        self.screens.all_dirty()

    def after_event(self, prio, few=0):
        """What the displays and the prompt show may have changed; display `prio` first.
        `few`: the only displays besides prio's and the acting seat's that the event may
        have changed (a bit each; 0: any), so long as no entry or message is shown."""
        ui = self.ui
        mode = ui.mode
        if ui.msg or mode is None or mode.shown():
            few = 0                      # (a message or an entry shows on other displays)
        ui.msg = ""
        ui.msg_seat = 0
        self.controls.after_event()
        sc = self.screens
        e = self.session.e               # then the display of whoever acts now: the others
        seat = V.acting_seat(e) if e is not None else -1    # are often as they were
        sc.second = seat - 1 if seat > 0 else BANKER_DISPLAY
        if few and ui.mode is mode and not mode.shown():
            sc.mark_some(few | 1 << prio | 1 << sc.second)
        else:
            sc.all_dirty()
        self.turn.goes_first(prio)
        self.narrator.prompt_later()

    def refuse(self, text, seat=0):
        """A refusal that is not an answer to a serial line: displays and '!' line."""
        self.narrator.tell()             # what is due is of the state before the refusal
        self.ui.msg = text
        self.ui.msg_seat = seat
        self.msg_at = drvtime.ticks_ms()
        self.say("! " + text)
        self.screens.all_dirty()

    def undo(self):
        self.narrator.tell()
        why = self.session.undo(self.ui.over)
        if why is None:
            self.rearm()
            self.after_event(-1)
        return why

    def rearm(self):
        """The last card read is judged by the engine again when it next comes out (the
        life of ShoeReader's last UID ends: a shuffle, a press, an UNDO, a new session)."""
        if self.reader is not None:
            self.reader.rearm()

    def tag_run(self):
        """The tag-mode run (tag_run.py), made on first use: most sessions never start one."""
        if self.tags is None:
            collect()                    # it stays: low in the heap, not above the garbage
            from .tag_run import TagRun
            self.tags = TagRun(self)
        return self.tags

    def tags_busy(self):
        return self.tags is not None and self.tags.busy

    # ------------------------------------------------------------------ the loop
    def service(self):
        """The reader gets a look (between display pages, after a journal write)."""
        self.turn.service()

    def step(self):
        """One pass of the loop. True if anything happened."""
        busy = False
        r = None
        tags = self.tags
        if tags is not None and tags.busy:
            busy = tags.step()           # the tag mode has the reader to itself
        else:
            # the display of the card just read goes out whole before the reader's way
            # back to listening (the bus turn puts the release off)
            r = self.reader.poll(self.turn.release_waits(self.screens.dirty))
        card = False
        if r is not None:
            busy = True
            bz = self.buzzer             # a refusal's buzz before the '!' line
            if r != ANOMALY:
                card = True
                why = self.event(E.EV_CARD, 0, 0, r, SRC_SHOE)
                if why:
                    if bz is not None:
                        bz.buzz()
                    self.refuse("card: " + why)
                elif bz is not None:
                    bz.tick()
            else:
                if bz is not None:
                    bz.buzz()
                self.refuse("reader " + self.reader.anomaly)
        now = drvtime.ticks_ms()
        if not card and self._buttons_and_lines(now):   # (a card's display first: a
            busy = True                                   # press or a line waits a pass)
        if self.ui.report and (busy or drvtime.ticks_diff(now, HEALTH.report_until) > 0):
            self.ui.report = None        # the power-on check's time is up, or the table
            self.screens.mark(BANKER_DISPLAY)            # is used
        if self.ui.msg and drvtime.ticks_diff(now, self.msg_at) > MSG_MS:
            self.ui.msg = ""
            self.screens.all_dirty()
        h = self.house
        if busy:
            h.busy(now)
        if self.ui.over:
            self.reader_unwatched()      # the session is over: no card is taken till the next
        sc = self.screens
        if not busy and not sc.dirty and not self.tags_busy() and self.session.keeping:
            if self.collect_first:
                self.collect_first = False
                collect()
            else:
                self.session.keep_step()     # the table takes no cards: the reader not watched
            self.reader_unwatched()
            busy = True
        elif not busy and self.turn.own < 0 and not self.tags_busy() and h.fold_due():
            collect()                    # the files it opens again stay: low in the heap
            self.session.fold()          # (once the acting seat's display is drawn)
            busy = True
        elif sc.redraw_one():
            busy = True
        elif not (busy or sc.dirty or self.tags_busy()):
            h.idle(self.reader.urgent())
        if self.narrator.due:
            self.narrator.tell()         # the event's lines, its display drawn
            self.service()
        bz = self.buzzer                 # a card's tick once its display went out; a
        if bz is not None and bz.on and drvtime.ticks_diff(now, bz.due) >= 0:   # (buzzer.py)
            bz.step()
        self.out.pump()                  # lines the host has not taken yet, if any
        self.loops = drvtime.count_up(self.loops)
        HEALTH.watchdog.feed()
        return busy

    def _buttons_and_lines(self, now):
        """A press, then a serial line, if one waits. True if one was taken."""
        taken = False
        b = self.btn.poll(now)
        if b >= 0:
            taken = True
            if b == CHORD:
                self.refuse("two buttons at once: none taken, press one at a time")
            else:
                self.narrator.tell()     # (a press may change what the prompt says)
                self.controls.press(b)
        if self.lines_in is not None:
            line = self.lines_in.poll()
            if line is not None:
                taken = True
                c = line[:1]
                if c == "\x15":             # serial_lines.REFUSED: nothing of it runs
                    self.say("error: " + line[1:])
                elif c == "\x03":           # serial_lines.STOP: Ctrl-C as a byte
                    self.stop = True
                    self.say("# stopped from the serial line (Ctrl-C)")
                else:
                    self.narrator.tell()
                    self.console.line(line)
        return taken

    def run(self):
        net = None
        if self.settings.web and hasattr(self.board, "make_network"):
            net = self.board.make_network(self.settings)
        if net is not None:
            from webui import web        # only a board with a network has it (Pico W UF2)
            web.run(self, net)
        while not self.stop:
            if not self.step():
                self.reader.wait(0.001)      # wakes early when the PN532 has a frame ready
        self.reader_unwatched()          # halted: no card is taken from here on
        self.screens.draw_all()
        self.session.close()
        h = self.house
        if h.heap_due:
            h.heap_figures()             # the last deal's, not taken yet
        h.low_point()
        self.say("# loops %d, lowest free heap seen %d" % (self.loops, h.min_free))
        rd = self.reader
        if rd is not None and hasattr(rd, "max_gap_ms"):
            self.say("# reader polled %d times, longest gap between two polls %d ms"
                     % (rd.polls, rd.max_gap_ms))
        if h.max_alloc:
            self.say("# heap in use at its highest after a collection %d" % h.max_alloc)
        line = heap_line("after gc")
        if line:
            self.say(line)

    def reader_unwatched(self):
        """No card is taken now (a session over, a boot): no gap in the reader's watch."""
        getattr(self.reader, "unwatched", _nothing)()

    def show_error(self, text):
        """Last resort (main.py): every display says the table stopped."""
        self.screens.show_error(text)


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
        if hasattr(table.board, "stop_watchdog"):  # the REPL (Ctrl-C, mpremote) is not fed:
            table.board.stop_watchdog()            # not reset either
