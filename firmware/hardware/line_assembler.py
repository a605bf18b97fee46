# The serial line's bytes -> whole lines (the rules are in serial_lines.py and
# docs/CONTROLLER.md). Its own small module: the simulated board's VM-side client
# (boards/simdev/remote_io.py) feeds its bytes through it too.
from .drvtime import TICKS_MAX

MAX_LINE = 80
POLL_BYTES = 2 * MAX_LINE + 2
REFUSED = "\x15"          # NAK: poll() returned a refused line; the reason follows
STOP = "\x03"             # poll() returned Ctrl-C

_NAMES = ((0, "NUL"), (4, "Ctrl-D"), (0x1B, "ESC"), (0x7F, "DEL"))   # in flash, not a dict


class LineAssembler:
    """Bytes in, whole lines out. feed(b) -> None, a line, REFUSED + reason, or STOP."""

    def __init__(self, max_line=MAX_LINE):
        self.max = max_line
        self.buf = bytearray(max_line)
        self.n = 0
        self.length = 0               # characters of the line so far (beyond max too)
        self.bad = -1                 # first byte that is not printable ASCII, or -1
        self.bad_at = 0
        self.cr = False               # the last byte was "\r" (so "\r\n" is one end)

    def _reset(self):
        self.n = 0
        self.length = 0
        self.bad = -1

    def feed(self, b):
        if b == 10 and self.cr:       # the "\n" of "\r\n"
            self.cr = False
            return None
        self.cr = b == 13
        if b == 10 or b == 13:
            return self._end()
        if b == 3:
            self._reset()
            return STOP
        if b == 9:
            b = 32
        if self.length < TICKS_MAX:      # (a line with no end: counted up to a small int)
            self.length += 1
        if (b < 32 or b > 126) and self.bad < 0:
            self.bad = b
            self.bad_at = self.length
        if self.n < self.max:
            self.buf[self.n] = b
            self.n += 1
        return None

    def _end(self):
        length = self.length
        bad = self.bad
        n = self.n
        self._reset()
        if bad >= 0:
            name = None
            for code, text in _NAMES:
                if code == bad:
                    name = text
            return "%sbyte 0x%02X%s at column %d is not printable ASCII: line refused" % (
                REFUSED, bad, " (%s)" % name if name else "", self.bad_at)
        if length > self.max:
            return "%sline longer than %d characters (%d): refused whole" % (
                REFUSED, self.max, length)
        if n == 0:
            return None
        return bytes(self.buf[:n]).decode()
