# Field faults, found and recovered without a press (docs/CONTROLLER.md "Faults"): each is
# reported once, as one "! fault <part> <what>" line and on the banker's display, and
# reported again only after it was recovered and came back.
#   reader silent     the PN532 reset through RSTPDN and configured again (ShoeReader)
#   bus stuck         SDA held low: the bus cleared (bus_recovery.py), the switch set again
#   display N holds   a segment that keeps holding the bus: its channel switched off at
#                     the switch, its display(s) marked failed for good
#   switch reset      its channel register read back wrong: set again
#   display N lost power   lit, yet its status byte says "display off" (a panel whose
#                     supply dropped and came back ACKs as before, dark, its RAM and
#                     settings gone): its settings and whole picture again
#   display N not answering / came back   it NACKs; once it ACKs again, set up and redrawn
# The status byte (bit 6: display off) is read from one display in use at a time, one every
# _LOOK_MS when nothing else is to do, and from every one at a deal's end. A module whose
# reads do not say "off" right after its settings and "on" once lit is mended blind instead
# (said once): one such display every _REFRESH_MS given its settings and picture again once
# the table is quiet, and every one at a deal's end.
import sys

from micropython import const

from . import drvtime
from .health import fault
from .seat_displays import READ_OFF, READ_ON, STATUS_OFF

_READER = const(1)
_SWITCH = const(4)
_REFRESH_MS = const(150)     # one blind display given its settings and picture, when quiet
_LOOK_MS = const(50)         # the switch's register and one display's status byte read,
#                              when nothing else is to do
_QUIET_MS = const(300)       # quiet: nothing happened for so long (a player deciding, the
#                              cards gathered between deals), so no card is on its way
_PH_IDLE = const(2)          # engine.PH_IDLE: between deals
_BANKER = const(8)           # screens._BANKER


class Faults:
    def __init__(self, table, bus=None, mux=None, slots=None):
        self.t = table
        self.bus = bus                   # stuck(), clear(): board.make_bus_clear()
        self.mux = mux                   # tca9548a.TCA9548A
        self.slots = slots               # display i -> (switch channel, address)
        self.active = 0                  # the faults reported and not recovered yet
        self.counts = [0, 0, 0, 0]       # since boot: reader, bus, switch, display
        self.cut_off = 0                 # channels switched off for good
        self.checked = 0                 # ticks_ms of the last look (switch, a display)
        self.refreshed = 0               # ticks_ms of the last refresh
        self.next_display = 0            # the display the next refresh is for
        self.next_look = 0               # the display the next status look is for
        self.swept = -1                  # the deal after whose end every display was
        #                                  looked at or drawn whole (_sweep)
        self.sweeping = 0                # bit i: display i is still to be looked at (_sweep)
        self.blind = 0                   # bit i: display i's reads mean nothing (said once)
        self.gone = 0                    # bit i: display i reported not answering
        self.looks = 0                   # status bytes read (the bench's count)

    def _report(self, bit, text):
        words = text.split()             # counted for `health`: "reader", "display 3", ...
        fault(" ".join(words[:2]) if words[0] == "display" else words[0])
        if not self.active & bit:
            self.active |= bit
            self.t.refuse("fault " + text)

    # --- the reader
    def reader_failed(self):
        """A reader round trip failed: a stuck bus is the first suspect (every transfer
        fails then, the reader's first)."""
        if self.bus is not None and self.bus.stuck():
            self.clear_bus()

    def reader_silent(self, reader):
        """The PN532 has not answered for a while: reset and set up again."""
        self.counts[0] += 1
        self._report(_READER, "reader silent: reset")
        restart_reader(reader)

    # --- the bus
    def clear_bus(self):
        """SDA held low: cleared (fault_recovery.clear_bus)."""
        from . import fault_recovery
        try:
            fault_recovery.clear_bus(self)
        finally:
            _let_go()

    # --- the switch and the displays
    def display_failed(self, i):
        """Display i did not answer: the bus, then the switch, are looked at."""
        if self.bus is not None and self.bus.stuck():
            self.clear_bus()
        else:
            self.check_switch()

    def check_switch(self):
        """The switch's channel register read back; set again when it was reset. True
        when the displays can be looked at through it."""
        mux = self.mux
        if mux is None or mux.mask < 0:
            return True
        try:
            same = mux.check()
        except OSError:
            return False
        if same:
            self.active &= ~_SWITCH
            return True
        self.counts[2] += 1
        self._report(_SWITCH, "switch reset: set again")
        mux.mask = -1                    # written again by the next display's transfer
        self.active &= ~_SWITCH
        return False

    def quiet(self, now):
        """Nothing else to do in this pass (no card, no press, no display to draw)."""
        rd = self.t.reader
        if self.active & _READER and rd is not None and not rd.link.silent:
            self.active &= ~_READER      # answering again: a new silence is reported
        if self.bus is not None and self.bus.stuck():    # (one register read on a Pico)
            self.clear_bus()
            return
        e = self.t.session.e
        shown = e is not None and self.t.screens.disp is not None
        if shown and self._sweep(e):
            return
        if drvtime.ticks_diff(now, self.checked) >= _LOOK_MS:
            # (a byte or two on the bus each: no need to wait for quiet) the switch first:
            # a look through a reset one would set it again unseen, or blame the display
            self.checked = now
            if self.check_switch() and shown:
                self.look_next(e)
            return
        if not shown:
            return
        if drvtime.ticks_diff(now, self.t.house.active_at) < _QUIET_MS:
            return                       # a card or a press may follow at once: no redraw
        if self.blind and drvtime.ticks_diff(now, self.refreshed) >= _REFRESH_MS:
            self.refreshed = now
            self.refresh()

    def _in_use(self, e, i):
        return i == _BANKER or i < min(e.seats, _BANKER)

    def look_next(self, e):
        """The next display in use that can be read is looked at."""
        for _ in range(_BANKER + 1):
            i = self.next_look
            self.next_look = 0 if i >= _BANKER else i + 1
            if self._in_use(e, i) and i < self.t.screens.disp.n and \
                    not self.blind >> i & 1 and self.look(i):
                return

    def look(self, i):
        """Display i's status byte read: a panel that lost its power (lit, yet "off")
        or went away or came back is reported and set up again. False when there was
        nothing to read (switched off for good)."""
        sc = self.t.screens
        disp = sc.disp
        if disp._devs[i] is None:
            return False
        st = disp.status(i)
        self.looks += 1
        if st < 0:
            if self.bus is not None and self.bus.stuck():
                self.clear_bus()         # not the display's doing
            elif not self.check_switch():
                pass                     # nor this: looked at again in a round
            elif disp.ok[i] or not self.gone >> i & 1:
                disp.ok[i] = 0           # drawn again once it answers
                self._display(i, "not answering")
                self.gone |= 1 << i
            return True
        if not disp.ok[i]:               # answers again (or after a bus or switch fault)
            if not disp.revive(i):
                return True
            sc.hashes[i] = 0
            sc.mark(i)
        if self.gone >> i & 1:           # (or a redraw set it up again already)
            self.gone &= ~(1 << i)
            self._display(i, "came back: set again")
            return True
        if not disp.lit(i):
            return True                  # set up, its first picture on its way
        reads = disp.reads[i]
        if not reads & READ_ON:          # lit: does it say so?
            if reads & READ_OFF and not st & STATUS_OFF:
                disp.reads[i] = reads | READ_ON
            else:
                self.blind |= 1 << i
                self.t.say("# display %d: its status byte cannot be read (%02x): mended "
                           "blind, redrawn whole at quiet moments" % (_number(i), st))
            return True
        if st & STATUS_OFF:
            self._display(i, "lost power: set again")
            self._refresh(i)
        return True

    def _display(self, i, what):
        self.counts[3] += 1
        n = _number(i)
        fault("display %d" % n)
        self.t.refuse("fault display %d %s" % (n, what))

    def refresh(self):
        """The next blind display in use gets its settings and its whole picture again."""
        e = self.t.session.e
        for _ in range(_BANKER + 1):
            i = self.next_display
            self.next_display = 0 if i >= _BANKER else i + 1
            if self._in_use(e, i) and self.blind >> i & 1 and self._refresh(i):
                return

    def _refresh(self, i):
        sc = self.t.screens
        disp = sc.disp
        if i >= disp.n or not disp.ok[i]:
            return False
        disp.refresh(i)
        sc.hashes[i] = 0
        sc.mark(i)
        return True

    def _sweep(self, e):
        """Between deals every display in use is looked at (a blind one drawn whole
        with its settings), one a pass: one that lost its power during the deal is right
        again before the next begins. True if one was."""
        if e.phase == _PH_IDLE and e.deals != self.swept:
            self.swept = e.deals
            for i in range(min(self.t.screens.disp.n, _BANKER + 1)):
                if self._in_use(e, i):
                    self.sweeping |= 1 << i
        if not self.sweeping:
            return False
        i = 0
        while not self.sweeping >> i & 1:
            i += 1
        self.sweeping &= ~(1 << i)
        if self.blind >> i & 1:
            self._refresh(i)
        else:
            self.look(i)
        return True


def _number(i):
    """Display i as its fault lines name it: seat i + 1's, the banker's 9."""
    return _BANKER + 1 if i == _BANKER else i + 1


def restart_reader(reader):
    """The PN532 reset and set up as at boot (fault_recovery.restart_reader): False
    without a reset pin, or when the chip still does not answer."""
    from . import fault_recovery
    try:
        return fault_recovery.restart_reader(reader)
    finally:
        _let_go()


def _let_go():
    """The recovery code goes once a fault is mended: imported again at the next."""
    name = "hardware.fault_recovery"
    sys.modules.pop(name, None)
    pkg = sys.modules.get("hardware")
    if pkg is not None and hasattr(pkg, "fault_recovery"):
        delattr(pkg, "fault_recovery")


def watch(table):
    """The field faults watched from now on (the table's boot, once its reader is made):
    by the reader, the displays' redraws and the quiet moments (housekeeping.py)."""
    b = table.board
    f = Faults(table, b.make_bus_clear() if hasattr(b, "make_bus_clear") else None,
               b.make_mux() if hasattr(b, "make_mux") else None, getattr(b, "SLOTS", None))
    disp = table.screens.disp
    if disp is not None:                 # missing at boot: said by the power-on check
        for i in range(disp.n):
            if not disp.ok[i]:
                f.gone |= 1 << i
    table.screens.faults = f
    table.house.faults = f
    if hasattr(table.reader, "doctor"):
        table.reader.doctor = f
    return f
