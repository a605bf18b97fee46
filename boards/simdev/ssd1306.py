# SSD1306 on I2C (0x3C/0x3D), modelled from docs/DEVICES.md: control bytes, the command set with
# argument counts, the three addressing modes, 128x8-page display RAM.
#
# Protocol violations (argument bytes sent as display data, unknown command bytes — the
# symptom of data sent as commands —, bad control bytes, out-of-range arguments) are
# appended to .violations; with strict=True they raise ProtocolError at once.
# `tolerate` maps extra command bytes to their argument count for chip variants
# (e.g. {0xAD: 1}: IREF select on SSD1306B/SSD1315, which adafruit_ssd1306 sends).
from boards.simdev.bus import ProtocolError, Stats

ARGS = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xDA: 1, 0xD5: 1,
        0xD9: 1, 0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2}
SINGLE = (0xA4, 0xA5, 0xA6, 0xA7, 0xAE, 0xAF, 0xA0, 0xA1, 0xC0, 0xC8, 0x2E, 0x2F, 0xE3)

STATUS_LOW = 0x06               # the status byte's reserved low bits (obs)
HORIZONTAL = 0
VERTICAL = 1
PAGE = 2


class SSD1306:
    def __init__(self, width=128, height=64, strict=False, tolerate=None):
        self.width = width
        self.height = height
        self.strict = strict
        self.tolerate = tolerate or {}
        self.stats = Stats()
        # power-on RAM is noise (the datasheet promises nothing): a panel never drawn shows it
        self.ram = bytearray((k * 73 + (k >> 7) * 29 + 5) & 0xFF for k in range(128 * 8))
        self.violations = []
        self.alive = True            # fault injector: False = stops answering (NACK)
        # False: a module whose reads mean nothing (nothing drives SDA in a read: 0xFF)
        self.read_back = True
        # settings a panel keeps whatever it is sent ({name: value}): a test that shows a
        # state the firmware would set right again at its next refresh
        self.pinned = {}
        # power_cut(): the RAM bytes written since (all of them and the settings back: the
        # panel is right again, at right_ns)
        self.lost = False
        self.lost_ns = self.right_ns = 0
        self._fresh = bytearray(128 * 8)
        self._unwritten = 0
        self.bus = None
        self.reset()

    def power_cut(self, now_ns=0):
        """Fault injector: the panel's supply dropped and came back. Its RAM is noise again
        and every setting is the power-on one (display off, charge pump off, page
        addressing), yet it ACKs as before: no write fails."""
        for k in range(len(self.ram)):
            self.ram[k] = (k * 151 + 17) & 0xFF
        self.reset()
        self.lost = True
        self.lost_ns = now_ns
        self.right_ns = 0
        self._fresh[:] = bytes(len(self._fresh))
        self._unwritten = len(self._fresh)

    def _check_right(self):
        if self.lost and not self._unwritten and self.on and self.charge_pump and \
                self.mode != PAGE:
            self.lost = False
            self.right_ns = self.bus.clock.ns if self.bus is not None else 0

    def reset(self):
        self.mode = PAGE
        self.col = 0
        self.page = 0
        self.col_start, self.col_end = 0, 127
        self.page_start, self.page_end = 0, 7
        self.on = False
        self.commanded_on = False     # the last display on/off the firmware sent
        self.inverse = False
        self.entire_on = False
        self.contrast = 0x7F
        self.start_line = 0
        self.mux = 63                # multiplex ratio - 1: the rows driven (0xA8)
        self.seg_remap = False
        self.com_flip = False
        self.charge_pump = False
        self.cmd = None              # command waiting for arguments
        self.args = bytearray(6)
        self.nargs = 0
        self.need = 0
        self.data_bytes = 0
        self.commands = 0

    def _violate(self, text):
        self.violations.append(text)
        if self.strict:
            raise ProtocolError("SSD1306: " + text)

    # --- bus side
    @staticmethod
    def carries_data(data):
        """True when a write sends display data (control bytes walked as write() does):
        the moment a panel changes, for the tools that time it."""
        i = 0
        n = len(data)
        while i < n and data[i] & 0x80:          # Co = 1: one byte after each
            if data[i] & 0x40:
                return True
            i += 2
        return i < n and bool(data[i] & 0x40)

    def ack(self, bus):
        self.bus = bus
        return self.alive

    def read(self, bus, buf, n):
        # A read (R/W# = 1) gives the status byte (ds, "Status register read"; the I2C
        # interface's read mode): bit 6 = 1 display off, the other bits reserved (modules seen
        # return 0x03 or 0x06 in the low bits: obs); every byte of a longer read the same.
        # A panel that lost its power is off until "display on" again.
        # (a test's pinned `on` is a picture to look at, not a fault: the status says what
        # the firmware last sent)
        on = self.commanded_on if "on" in self.pinned else self.on
        v = (0x40 if not on else 0x00) | STATUS_LOW if self.read_back else 0xFF
        for i in range(n):
            buf[i] = v

    def write(self, bus, data):
        n = len(data)
        i = 0
        while i < n:
            c = data[i]
            i += 1
            if c & 0x3F:
                self._violate("control byte %02x has low bits set" % c)
            dc = c & 0x40
            if c & 0x80:                 # Co = 1: one byte, then another control byte
                if i >= n:
                    self._violate("control byte %02x without a following byte" % c)
                    return
                self._byte(data[i], dc)
                i += 1
            else:                        # Co = 0: the rest of the write
                while i < n:
                    self._byte(data[i], dc)
                    i += 1
        for k, v in self.pinned.items():
            setattr(self, k, v)

    def _byte(self, b, is_data):
        if is_data:
            if self.cmd is not None:
                self._violate("command %02x expects %d more argument byte(s) but display "
                              "data arrived (arguments must be sent as commands)"
                              % (self.cmd, self.need))
                self.cmd = None
            self._data(b)
        else:
            self.commands += 1
            self._command(b)

    def _data(self, b):
        self.data_bytes += 1
        k = self.page * 128 + self.col
        self.ram[k] = b
        if self.lost:
            if not self._fresh[k]:
                self._fresh[k] = 1
                self._unwritten -= 1
            self._check_right()
        m = self.mode
        if m == PAGE:
            self.col = (self.col + 1) & 127
        elif m == HORIZONTAL:
            if self.col >= self.col_end:
                self.col = self.col_start
                self.page = self.page_start if self.page >= self.page_end else self.page + 1
            else:
                self.col += 1
        else:
            if self.page >= self.page_end:
                self.page = self.page_start
                self.col = self.col_start if self.col >= self.col_end else self.col + 1
            else:
                self.page += 1

    def _command(self, b):
        if self.cmd is not None:
            self.args[self.nargs] = b
            self.nargs += 1
            if self.nargs == self.need:
                cmd = self.cmd
                self.cmd = None
                self._apply(cmd, self.args)
            return
        if b in ARGS or b in self.tolerate:
            self.cmd = b
            self.need = ARGS[b] if b in ARGS else self.tolerate[b]
            self.nargs = 0
            if self.need == 0:
                self.cmd = None
            return
        if b <= 0x0F:
            self.col = (self.col & 0xF0) | b
        elif b <= 0x1F:
            self.col = (self.col & 0x0F) | ((b & 0x07) << 4)
            if b > 0x17:
                self._violate("column high nibble %02x out of range" % b)
        elif 0x40 <= b <= 0x7F:
            self.start_line = b & 0x3F
        elif 0xB0 <= b <= 0xB7:
            self.page = b & 7
        elif b in SINGLE:
            if b in (0xAE, 0xAF):
                self.on = self.commanded_on = b == 0xAF
                if self.lost:
                    self._check_right()
            elif b in (0xA6, 0xA7):
                self.inverse = b == 0xA7
            elif b in (0xA4, 0xA5):
                self.entire_on = b == 0xA5
            elif b in (0xA0, 0xA1):
                self.seg_remap = b == 0xA1
            elif b in (0xC0, 0xC8):
                self.com_flip = b == 0xC8
        else:
            self._violate("unknown command byte %02x (display data sent as a command?)" % b)

    def _apply(self, cmd, a):
        if cmd == 0x20:
            if a[0] > 2:
                self._violate("addressing mode %02x (00, 01 or 02 allowed)" % a[0])
            else:
                self.mode = a[0]
        elif cmd == 0x21:
            if a[0] > 127 or a[1] > 127:
                self._violate("column range %d..%d out of 0..127" % (a[0], a[1]))
            self.col_start, self.col_end = a[0] & 127, a[1] & 127
            self.col = self.col_start
        elif cmd == 0x22:
            if a[0] > 7 or a[1] > 7:
                self._violate("page range %d..%d out of 0..7" % (a[0], a[1]))
            self.page_start, self.page_end = a[0] & 7, a[1] & 7
            self.page = self.page_start
        elif cmd == 0xA8:
            if not 15 <= a[0] <= 63:
                self._violate("multiplex ratio %d out of 16..64" % (a[0] + 1))
            self.mux = a[0] & 63
        elif cmd == 0x81:
            self.contrast = a[0]
        elif cmd == 0x8D:
            self.charge_pump = bool(a[0] & 0x04)

    # --- reading the display back
    def pixel(self, x, y):
        return (self.ram[(y >> 3) * 128 + x] >> (y & 7)) & 1

    def page_bytes(self, page):
        return bytes(self.ram[page * 128:(page + 1) * 128])

    def bitmap(self):
        """Rows of '#'/'.' for the visible height, in RAM coordinates."""
        rows = []
        for y in range(self.height):
            rows.append("".join("#" if self.pixel(x, y) else "." for x in range(self.width)))
        return rows

    def seen_ram(self):
        """The RAM as a person sees it: dark while the panel is switched off, and below the
        rows the multiplex ratio drives (a 128x32 panel shows pages 0..3)."""
        if not self.on:
            return bytes(len(self.ram))
        rows = (self.mux + 1) // 8 * 128
        if rows >= len(self.ram):
            return self.ram
        return bytes(self.ram[:rows]) + bytes(len(self.ram) - rows)

    def text_rows(self, font, first=32, width=5, advance=6):
        """Decode each 8-pixel page, as seen (seen_ram), as a line of text drawn with `font`
        (column bytes, one glyph of `width` bytes per char from `first`); '?' for cells
        that match no glyph. An inverted line decodes too; returns (lines, inverted
        flags)."""
        ram = self.seen_ram()
        glyphs = {}
        nglyph = len(font) // width
        for g in range(nglyph - 1, -1, -1):
            glyphs[bytes(font[g * width:(g + 1) * width])] = chr(first + g)
        lines = []
        inv = []
        for p in range(self.height // 8):
            row = ram[p * 128:(p + 1) * 128]
            flip = row[127] == 0xFF and row[126] == 0xFF
            x = 0
            s = ""
            while x + width <= 128:
                cell = bytes((b ^ 0xFF) if flip else b for b in row[x:x + width])
                s += glyphs.get(cell, "?")
                x += advance
            lines.append(s.rstrip())
            inv.append(flip)
        return lines, inv
