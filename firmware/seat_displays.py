# Seat displays: N SSD1306 panels (unchanged adafruit_ssd1306 driver) sharing ONE frame
# buffer. show() renders one display's lines into the driver's buffer, then sends only the
# 128-column pages whose checksum differs from what that panel last received.
#
# Text: one line per 8-pixel page, up to 21 characters of the 5x7 font (6-pixel advance)
# written straight into the driver's MONO_VLSB buffer; font=None uses the driver's own
# framebuf text() instead (8x8, 16 characters). A highlighted line is drawn inverted.
# State per display: one I2CDevice and one 30-bit CRC per page (8 x 4 bytes).
# A display that stops answering makes show() return -1; it is re-initialised and fully
# redrawn on the next show() that reaches it.
from array import array

from adafruit_bus_device.i2c_device import I2CDevice
from font5x7 import ADVANCE, FIRST, FONT, WIDTH

try:
    from binascii import crc32
except ImportError:  # a port without binascii.crc32
    crc32 = None

_MASK = 0x3FFFFFFF
COLUMNS = 21


def _hash(mv):
    if crc32 is not None:
        return crc32(mv) & _MASK
    h = 0
    for b in mv:
        h = (h * 31 + b) & _MASK
    return h


class SeatDisplays:
    def __init__(self, targets, width=128, height=64, font=FONT):
        """targets: list of (busio-like i2c, address), one per display (index order)."""
        from adafruit_ssd1306 import SSD1306_I2C
        self.n = len(targets)
        self.width = width
        self.pages = height // 8
        self.font = font
        self._devs = [I2CDevice(i2c, addr, probe=False) for i2c, addr in targets]
        self.ok = bytearray(self.n)                     # 1: initialised and answering
        self._crc = array("i", [-1] * (self.n * self.pages))
        self._cmd = bytearray(b"\x00\x21\x00\x7f\x22\x00\x07")   # columns 0..127, pages a..b
        self._cmd[3] = width - 1
        self.bytes_sent = 0          # payload + address bytes pushed by show()
        self.last_bytes = 0
        self.last_pages = 0
        self.failures = 0
        drv = None
        for i in range(self.n):
            i2c, addr = targets[i]
            try:
                drv = SSD1306_I2C(width, height, i2c, addr=addr)
            except (OSError, ValueError):
                continue
            drv.i2c_device = self._devs[i]
            self._drv = drv
            self._blank()
            self._mark(i, self._zero)
            self.ok[i] = 1
            break
        if drv is None:
            raise OSError("no seat display answers")
        self._mv = memoryview(drv.buffer)
        for i in range(self.n):
            if not self.ok[i]:
                self._init(i)

    def _blank(self):
        self._zero = _hash(memoryview(self._drv.buffer)[1:1 + self.width])

    def _mark(self, i, h):
        o = i * self.pages
        for p in range(self.pages):
            self._crc[o + p] = h

    def _init(self, i):
        drv = self._drv
        drv.i2c_device = self._devs[i]
        try:
            drv.init_display()           # also clears the panel (fill(0) + show())
        except OSError:
            self.ok[i] = 0
            self.failures += 1
            return False
        self.ok[i] = 1
        self._mark(i, self._zero)
        return True

    def redraw(self, i):
        """Forget what display i shows: the next show() sends every page."""
        self._mark(i, -1)

    def _render(self, p, line, inv):
        drv = self._drv
        drv.fill_rect(0, p * 8, self.width, 8, 1 if inv else 0)
        if not line:
            return
        if self.font is None:
            drv.text(line, 0, p * 8, 0 if inv else 1)
            return
        buf = drv.buffer
        f = self.font
        bg = 0xFF if inv else 0
        x = 1 + p * self.width
        end = x + self.width - WIDTH
        for ch in line:
            if x > end:
                break
            g = ord(ch) - FIRST
            if g < 0 or g >= 95:
                g = 31                   # '?'
            g *= WIDTH
            for k in range(WIDTH):
                buf[x + k] = f[g + k] ^ bg
            x += ADVANCE

    def _push(self, dev, a, b):
        cmd = self._cmd
        cmd[5] = a
        cmd[6] = b
        with dev:
            dev.write(cmd)
        buf = self._drv.buffer
        w = self.width
        i0 = w * a                       # the byte before page a carries the 0x40 control
        keep = buf[i0]
        buf[i0] = 0x40
        try:
            with dev:
                dev.write(buf, start=i0, end=1 + w * (b + 1))
        finally:
            buf[i0] = keep
        self.last_bytes += len(cmd) + 1 + (1 + w * (b + 1) - i0) + 1

    def show(self, i, lines, highlight=-1):
        """Show up to `pages` lines on display i (line `highlight` inverted). Returns the
        number of pages sent (0: nothing changed) or -1 if the display does not answer."""
        if not self.ok[i] and not self._init(i):
            return -1
        drv = self._drv
        dev = self._devs[i]
        drv.i2c_device = dev
        base = i * self.pages
        w = self.width
        mv = self._mv
        crc = self._crc
        changed = 0                                      # bit mask of pages to send
        n = len(lines)
        for p in range(self.pages):
            self._render(p, lines[p] if p < n else "", p == highlight)
            h = _hash(mv[1 + p * w:1 + (p + 1) * w])
            if h != crc[base + p]:
                changed |= 1 << p
                crc[base + p] = h
        self.last_bytes = 0
        self.last_pages = 0
        p = 0
        try:
            while p < self.pages:
                if changed & (1 << p):
                    q = p
                    while q + 1 < self.pages and changed & (1 << (q + 1)):
                        q += 1
                    self._push(dev, p, q)
                    self.last_pages += q - p + 1
                    p = q + 1
                else:
                    p += 1
        except OSError:
            self.ok[i] = 0
            self.failures += 1
            self._mark(i, -1)
            return -1
        self.bytes_sent += self.last_bytes
        return self.last_pages

    def clear(self, i):
        return self.show(i, ())
