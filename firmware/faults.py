# Field faults, found and recovered without a press (docs/CONTROLLER.md "Faults"): each is
# reported once, as one "! fault <part> <what>" line and on the banker's display, and
# reported again only after it was recovered and came back.
#   reader silent     the PN532 reset through RSTPDN and configured again (ShoeReader)
#   bus stuck         SDA held low: the bus cleared (bus_recovery.py), the switch set again
#   display N holds   a segment that keeps holding the bus: its channel switched off at
#                     the switch, its display(s) marked failed for good
#   switch reset      its channel register read back wrong: set again
# A display that lost its power ACKs as before and nothing can be read back from it, so
# at quiet moments one display in use at a time gets its settings and whole picture again
# (refresh()): a repowered panel is right again within a round of them.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


import drvtime

_READER = const(1)
_BUS = const(2)
_SWITCH = const(4)
_CHECK_MS = const(100)       # the bus's SDA and the switch's register looked at, when quiet
_REFRESH_MS = const(150)     # one display in use given its settings and picture, when quiet
_HOLDS = const(3)            # bus clears with one channel on: that segment holds the bus
_SAMCONFIG = const(0x14)     # PN532 SAMConfiguration (docs/DEVICES.md)
_SAM_NORMAL = b"\x01\x14\x01"  # normal mode, 1 s virtual-card timeout, IRQ pin used (as the driver)
_RESET_HOLD_S = 0.001        # RSTPDN held low (the chip needs far less)
_BOOT_S = 0.003              # RSTPDN high -> asked whether it answers, this often
_BOOT_TRIES = 20
_IDLE = const(0)             # shoe_reader's step: a listing goes out next
BANKER_DISPLAY = 8


class Faults:
    def __init__(self, table, bus=None, mux=None, slots=None):
        self.t = table
        self.bus = bus                   # bus_recovery.BusClear (board.make_bus_clear)
        self.mux = mux                   # tca9548a.TCA9548A
        self.slots = slots               # display i -> (switch channel, address)
        self.active = 0                  # the faults reported and not recovered yet
        self.counts = [0, 0, 0, 0]       # since boot: reader, bus, switch, display
        self.holds = bytearray(8)        # bus clears while a channel was on
        self.cut_off = 0                 # channels switched off for good
        self.checked = 0                 # ticks_ms of the last quiet check
        self.refreshed = 0               # ticks_ms of the last refresh
        self.next_display = 0            # the display the next refresh is for

    def _report(self, bit, text):
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
        self.counts[1] += 1
        mux = self.mux
        on = mux.mask if mux is not None and mux.mask > 0 else 0
        self._report(_BUS, "bus stuck: cleared")
        free = self.bus.clear()
        if mux is None:
            return
        mux.mask = -1                    # a transfer cut off: the switch is set again
        for ch in range(8):
            if on >> ch & 1 and not self.cut_off >> ch & 1:
                self.holds[ch] += 1
                if self.holds[ch] >= _HOLDS or not free:
                    self._cut_off(ch, free)
        self.active &= ~_BUS

    def _cut_off(self, ch, free):
        """Channel ch's segment keeps holding the bus: it is switched off for good."""
        self.cut_off |= 1 << ch
        disp = self.t.screens.disp
        for i in range(len(self.slots)):
            if self.slots[i][0] == ch and disp is not None and i < disp.n:
                disp.disable(i)
                self.counts[3] += 1
                self.t.refuse("fault display %d holds the bus: switched off"
                              % (BANKER_DISPLAY + 1 if i == BANKER_DISPLAY else i + 1))
        if not free:
            self.bus.clear()             # let go now that its channel will not come back
        try:
            self.mux.select_mask(0)
        except OSError:
            pass

    # --- the switch and the displays
    def display_failed(self, i):
        """Display i did not answer: the bus, then the switch, are looked at."""
        if self.bus is not None and self.bus.stuck():
            self.clear_bus()
        else:
            self.check_switch()

    def check_switch(self):
        mux = self.mux
        if mux is None or mux.mask < 0:
            return
        try:
            same = mux.check()
        except OSError:
            return
        if same:
            self.active &= ~_SWITCH
            return
        self.counts[2] += 1
        self._report(_SWITCH, "switch reset: set again")
        mux.mask = -1                    # written again by the next display's transfer
        self.active &= ~_SWITCH

    def quiet(self, now):
        """Nothing else to do in this pass (no card, no press, no display to draw)."""
        rd = self.t.reader
        if self.active & _READER and rd is not None and not rd.link.silent:
            self.active &= ~_READER      # answering again: a new silence is reported
        if drvtime.ticks_diff(now, self.checked) >= _CHECK_MS:
            self.checked = now
            if self.bus is not None and self.bus.stuck():
                self.clear_bus()
            self.check_switch()
            return
        if drvtime.ticks_diff(now, self.refreshed) >= _REFRESH_MS:
            self.refreshed = now
            self.refresh()

    def refresh(self):
        """The next display in use gets its settings and its whole picture again."""
        t = self.t
        sc = t.screens
        disp = sc.disp
        e = t.session.e
        if disp is None or e is None:
            return
        seats = min(e.seats, BANKER_DISPLAY)
        for _ in range(BANKER_DISPLAY + 1):
            i = self.next_display
            self.next_display = 0 if i >= BANKER_DISPLAY else i + 1
            if (i < seats or i == BANKER_DISPLAY) and i < disp.n and disp.ok[i]:
                disp.refresh(i)
                sc.hashes[i] = 0
                sc.mark(i)
                return


def restart_reader(reader):
    """The PN532 reset through RSTPDN (the driver's reset pin) and set up as at boot:
    SAMConfiguration, then the reader's RFConfiguration. Blocks a few ms. The listing
    starts again and lists the cards in the field again: one being read is read again, one
    reported stays reported (the reader's slots are kept). False without a reset pin, or
    when the chip still does not answer (then it is not reset again until it answers)."""
    link = reader.link
    pn = reader.pn
    pin = getattr(pn, "_reset_pin", None)
    link.command = 0
    reader._step = _IDLE
    reader._polled = -1              # blocked in the reset: not a gap in the watch
    if pin is None:
        return False
    pin.value = False
    drvtime.sleep(_RESET_HOLD_S)
    pin.value = True
    for _ in range(_BOOT_TRIES):
        drvtime.sleep(_BOOT_S)
        try:
            if pn.call_function(_SAMCONFIG, params=_SAM_NORMAL, timeout=0.05) is not None \
                    and link.configure(reader._cfg):
                link.reset()             # answering again
                return True
        except (OSError, RuntimeError):
            pass
    return False
