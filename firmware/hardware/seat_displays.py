# Seat displays: N SSD1306 panels (unchanged adafruit_ssd1306 driver) sharing ONE frame
# buffer. show() renders one display's changed lines into the driver's buffer, then sends
# only the columns that changed: for each 8-pixel page, the span from the first to the last
# character that differs from what that panel last received (a card added to a hand is a
# few characters, a short span on the bus instead of a whole page).
#
# Text: one line per 8-pixel page, up to 21 characters of the 5x7 font (6-pixel advance)
# written straight into the driver's MONO_VLSB buffer; font=None uses the driver's own
# framebuf text() instead (8x8, 16 characters). A highlighted line is drawn inverted.
# State per display: one I2CDevice, the characters each page shows (one byte each) and
# the highlighted page, all in preallocated bytearrays.
# A display that stops answering makes show() return -1; it is re-initialised and fully
# redrawn on the next show() that reaches it.
# Each panel's status byte (one byte read: bit 6 = display off) tells a panel that lost its
# power (off, yet ACKing) from a lit one; whether a module's reads mean that is checked
# (reads[i]: "off" read right after its settings here, "on" read once lit, faults.py).
# Start-up: the driver's own init_display() runs once, against a recorder, for its command
# sequence; each panel then gets those commands in one write (not one write a command), is
# not cleared (its RAM is unknown: the first show() sends every page, which is the clear)
# and is switched on once that first show() has drawn all of it (no power-on noise seen).
from micropython import const


import sys

from adafruit_bus_device.i2c_device import I2CDevice
from .drvtime import count_up
from .font5x7 import ADVANCE, FONT

if sys.implementation.name != "micropython":  # CPython: the viper functions run as Python
    from game.native_shim import micropython, ptr8  # noqa: F401

_UNKNOWN = 0  # a page whose content is not known (after a failure or redraw())
_NO_HIGHLIGHT = 255
_INTERRUPTED = const(-2)
# Whole pages go out at most _RUN_PAGES in one write: the longest the bus is held by a
# display while a card may be waiting: no longer than the PN532 takes to activate a tag
# entering the field, which is not answered before then anyway
_RUN_PAGES = const(2)


_DISPLAY_ON = 0xAF
STATUS_OFF = 0x40        # the status byte's bit 6: display off (docs/DEVICES.md)
READ_OFF = 1             # reads[i]: its status said "off" right after its settings
READ_ON = 2              # reads[i]: and "on" once lit: its reads can be trusted
_SET_COLUMNS = 0x21
_ON = b"\x00\xaf"


# The two loops a page costs, as machine code on a Pico (viper: in Python they were the
# slowest part of a redraw). A line is read as its UTF-8 bytes, n characters of it:
# a character outside the font (and each of its continuation bytes' lead) counts as '?',
# one cell, as it is drawn. The font's geometry is font5x7's: 5 columns, 6-pixel advance,
# 95 glyphs from ' '.
@micropython.viper
def _cells(text: ptr8, o: int, line: ptr8, n: int, cols: int, whole: int) -> int:
    """Bring the cells text[o:o+cols] to the line's n characters (blank after them).
    Returns first | last << 8 of the cells that changed (all of them when whole), or -1."""
    first = -1
    last = 0
    b = 0                                # byte of the line
    for k in range(cols):
        c = 32
        if k < n:
            c = line[b]
            b += 1
            if c > 126 or c < 32:        # not in the font: '?'
                if c >= 0xC0:            # a multi-byte character: skip the rest of it
                    while (line[b] & 0xC0) == 0x80:
                        b += 1
                c = 63
        if whole or c != text[o + k]:
            text[o + k] = c
            if first < 0:
                first = k
            last = k
    if first < 0:
        return -1
    return first | (last << 8)


@micropython.viper
def _draw(buf: ptr8, x: int, width: int, font: ptr8, line: ptr8, n: int, inv: int):
    """One page of `width` columns from buf[x]: cleared (set when inv), then the line's
    first n characters (as many as fit), inverted when inv."""
    fill = 0xFF if inv else 0
    for k in range(width):
        buf[x + k] = fill
    end = x + width - 5
    b = 0
    for _ in range(n):
        if x > end:
            break
        c = line[b]
        b += 1
        if c >= 0xC0:
            while (line[b] & 0xC0) == 0x80:
                b += 1
        g = c - 32
        if g < 0 or g >= 95:
            g = 31                       # '?'
        g *= 5
        for k in range(5):
            buf[x + k] = font[g + k] ^ fill
        x += 6


class _Recorder:
    """The bus as the driver's constructor sees it: the command bytes its poweron() and
    init_display() write are kept in `cmds` (control byte 0x00 first: a stream of
    commands in one write) but "display on", up to the column address the clear's show()
    begins with; nothing is sent."""

    def __init__(self):
        self.cmds = bytearray(b"\x00")
        self.done = False

    def try_lock(self):
        return True

    def unlock(self):
        pass

    def writeto(self, addr, buf, start=0, end=None):
        end = len(buf) if end is None else end
        if self.done or end - start != 2 or buf[start] != 0x80:
            return                       # the clear's data: not wanted
        c = buf[start + 1]
        if c == _SET_COLUMNS:
            self.done = True             # show() begins: the clear is not wanted either
        elif c != _DISPLAY_ON:
            self.cmds.append(c)

    def readfrom_into(self, addr, buf, start=0, end=None):
        pass


class SeatDisplays:
    def __init__(self, targets, width=128, height=64, font=FONT):
        """targets: list of (busio-like i2c, address), one per display (index order)."""
        from adafruit_ssd1306 import SSD1306_I2C
        self.n = len(targets)
        self.width = width
        self.pages = height // 8
        self.font = font
        self.advance = 8 if font is None else ADVANCE
        self.cols = width // self.advance
        self._devs = [I2CDevice(i2c, addr, probe=False) for i2c, addr in targets]
        self.ok = bytearray(self.n)                     # 1: initialised and answering
        # What each panel shows: one byte per character cell, 0 = not known.
        self._text = bytearray(self.n * self.pages * self.cols)
        self._hl = bytearray(self.n)
        # columns a..b, pages a..b: each command byte after a control byte 0x80 (Co = 1: one
        # command, then another control byte), so that the page's data follow in the same
        # write (one transfer a page, not two: one start and address fewer)
        self._cmd = bytearray(b"\x80\x21\x80\x00\x80\x7f\x80\x22\x80\x00\x80\x07")
        self.bytes_sent = 0          # payload + address bytes pushed by show()
        self.last_bytes = 0
        self.last_pages = 0
        self.failures = 0
        self._dark = bytearray(self.n)   # 1: initialised, not switched on yet
        self.reads = bytearray(self.n)   # READ_OFF | READ_ON: what its status reads showed
        self._status = bytearray(1)
        rec = _Recorder()
        drv = SSD1306_I2C(width, height, rec, addr=targets[0][1])
        self._init_cmds = bytes(rec.cmds)
        self._buf = drv.buffer           # the one frame buffer, the driver's own
        # with this project's font the driver is done once it has given its commands and
        # its buffer (the instance, its framebuf and its module are heap); its 8x8 text
        # needs it
        self._drv = drv if font is None else None
        if font is not None:
            drv = None
            from . import drivers
            drivers.forget_displays()
        for i in range(self.n):          # (none answering: the table plays on, health.py
            self._init(i)                # says so)

    def _mark(self, i, value):
        n = self.pages * self.cols
        o = i * n
        self._text[o:o + n] = bytes([value]) * n        # in C, not a Python loop

    def _init(self, i):
        dev = self._devs[i]
        try:
            with dev:
                dev.write(self._init_cmds)
                dev.readinto(self._status)   # "off" now, if its reads mean anything
        except OSError:
            self.ok[i] = 0
            self.failures = count_up(self.failures)
            return False
        self.reads[i] = READ_OFF if self._status[0] & STATUS_OFF else 0
        self.ok[i] = 1
        self._dark[i] = 1
        self._mark(i, _UNKNOWN)          # its RAM holds noise: every page goes out whole
        self._hl[i] = _NO_HIGHLIGHT
        return True

    def refresh(self, i):
        """Display i gets its settings again now but "display off" (a panel that lost its
        power keeps none; a lit one stays lit), the next show() every page, then "display
        on"."""
        dev = self._devs[i]
        try:
            with dev:
                dev.i2c.writevto(dev.device_address, (_ON[:1], memoryview(self._init_cmds)[2:]))
        except OSError:
            self.ok[i] = 0
        self._dark[i] = 1
        self._mark(i, _UNKNOWN)

    def status(self, i):
        """Display i's status byte (one byte read), -1 when it does not answer."""
        dev = self._devs[i]
        try:
            with dev:
                dev.readinto(self._status)
        except OSError:
            return -1
        return self._status[0]

    def lit(self, i):
        """Display i is initialised, answering and switched on (as far as it was told)."""
        return self.ok[i] and not self._dark[i]

    def revive(self, i):
        """Display i answers again after it did not: its settings again (display off),
        every page at the next show(). False when it still does not answer."""
        return self._devs[i] is not None and self._init(i)

    def disable(self, i):
        """Display i is never tried again (its segment is switched off): no device."""
        self._devs[i] = None
        self.ok[i] = 0

    def redraw(self, i):
        """Forget what display i shows: the next show() sends every page."""
        self._mark(i, _UNKNOWN)

    def _render(self, p, line, inv):
        if self.font is None:
            drv = self._drv
            drv.fill_rect(0, p * 8, self.width, 8, 1 if inv else 0)
            if line:
                drv.text(line, 0, p * 8, 0 if inv else 1)
            return
        _draw(self._buf, 1 + p * self.width, self.width, self.font, line, len(line),
              1 if inv else 0)

    def _push(self, dev, p, q, c0, c1):
        """Send columns c0..c1 of pages p..q (whole pages when q > p) from the shared
        buffer, in one write: the address commands, then the data (in horizontal
        addressing mode that range is one contiguous span)."""
        cmd = self._cmd
        cmd[3] = c0
        cmd[5] = c1
        cmd[9] = p
        cmd[11] = q
        buf = self._buf
        w = self.width
        i0 = w * p + c0                  # the byte before the span carries the 0x40 control
        end = 1 + w * q + c1 + 1
        keep = buf[i0]
        buf[i0] = 0x40
        try:                             # (a view and a pair a page: garbage, not heap kept)
            with dev:
                dev.i2c.writevto(dev.device_address, (cmd, memoryview(buf)[i0:end]))
        finally:
            buf[i0] = keep
        self.last_bytes += len(cmd) + 1 + (end - i0)

    def show(self, i, lines, highlight=-1, stop=None):
        """Show up to `pages` lines on display i (line `highlight` inverted). Returns the
        number of pages sent (0: nothing changed), -1 if the display does not answer, or
        _INTERRUPTED when stop() (asked before the next page once one was drawn) said that
        other work goes first: the pages not sent yet go out with the next show()."""
        if not self.ok[i] and (self._devs[i] is None or not self._init(i)):
            return -1
        dev = self._devs[i]
        cols = self.cols
        adv = self.advance
        w = self.width
        text = self._text
        old_hl = self._hl[i]
        self._hl[i] = highlight if 0 <= highlight < self.pages else _NO_HIGHLIGHT
        n = len(lines)
        self.last_bytes = 0
        self.last_pages = 0
        # nothing to give way to (no stop()): whole pages go out in one write
        run_pages = _RUN_PAGES if stop is not None else self.pages
        asked = 0                        # last_bytes when stop() was last asked: it is
        try:                             # asked again only once more went on the bus
            run = -1                     # first page of a run of whole pages to send
            for p in range(self.pages + 1):
                if self.last_bytes != asked and (p < self.pages or run >= 0) and \
                        stop is not None:
                    asked = self.last_bytes
                    if stop():
                        self._interrupt(i, p, run, old_hl, highlight)
                        self.bytes_sent = count_up(self.bytes_sent, self.last_bytes)
                        return _INTERRUPTED
                first = -1
                last = -1
                if p < self.pages:
                    line = lines[p] if p < n else ""
                    o = (i * self.pages + p) * cols
                    whole = (p == highlight) != (p == old_hl) or text[o] == _UNKNOWN
                    # the cells compared in machine code (a copy of each line shown, to
                    # compare strings instead, would hold heap for every display)
                    r = _cells(text, o, line, len(line), cols, 1 if whole else 0)
                    if r >= 0:
                        first = r & 0xFF
                        last = r >> 8
                    if first >= 0:
                        self._render(p, line, p == highlight)
                        self.last_pages += 1
                full = first == 0 and last == cols - 1
                if run >= 0 and not full:
                    self._push(dev, run, p - 1, 0, w - 1)
                    run = -1
                    if first >= 0 and stop is not None:
                        asked = self.last_bytes
                        if stop():
                            o = (i * self.pages + p) * cols    # drawn, recorded, not sent
                            for k in range(o, o + cols):
                                text[k] = _UNKNOWN
                            self._interrupt(i, p + 1, -1, old_hl, highlight)
                            self.bytes_sent = count_up(self.bytes_sent, self.last_bytes)
                            return _INTERRUPTED
                if full:
                    if run >= 0 and p - run >= run_pages:
                        self._push(dev, run, p - 1, 0, w - 1)
                        run = -1
                    if run < 0:
                        run = p
                elif first >= 0:
                    c1 = w - 1 if last == cols - 1 else (last + 1) * adv - 1
                    self._push(dev, p, p, first * adv, c1)
            if self._dark[i]:            # every page is drawn now: let it be seen
                with dev:
                    dev.write(_ON)
                self._dark[i] = 0
                self.last_bytes += 3
        except OSError:
            self.ok[i] = 0
            self.failures = count_up(self.failures)
            self._mark(i, _UNKNOWN)
            return -1
        self.bytes_sent = count_up(self.bytes_sent, self.last_bytes)
        return self.last_pages

    def _interrupt(self, i, p, run, old_hl, highlight):
        # pages from `run` were drawn but not sent, pages from p not looked at: make the
        # next show() send them whole where a diff against the panel would be wrong
        cols = self.cols
        o = i * self.pages
        moved = old_hl != (highlight if 0 <= highlight < self.pages else _NO_HIGHLIGHT)
        for q in range(run if run >= 0 else p, self.pages):
            if q < p or (moved and (q == old_hl or q == highlight)):
                k = (o + q) * cols
                for c in range(k, k + cols):
                    self._text[c] = _UNKNOWN

    def clear(self, i):
        return self.show(i, ())
