# Lines from the USB serial port (the REPL's stdin), read without blocking: poll() returns
# a complete line (str, without its end) or None. On the Pico, select.poll on sys.stdin;
# the line buffer is preallocated. Over-long lines are cut at 80 characters.
import sys

try:
    import select
except ImportError:  # a port without select
    select = None

_MAX = 80


class StdinLines:
    def __init__(self, stream=None):
        self.s = stream or sys.stdin
        self.buf = bytearray(_MAX)
        self.n = 0
        self.p = None
        if select is not None:
            self.p = select.poll()
            self.p.register(self.s, select.POLLIN)

    def poll(self):
        if self.p is None:
            return None
        for _ in range(_MAX):
            if not self.p.poll(0):
                return None
            ch = self.s.read(1)
            if not ch:
                return None
            if ch == "\n" or ch == "\r":
                if self.n == 0:
                    continue
                line = bytes(self.buf[:self.n]).decode()
                self.n = 0
                return line
            if self.n < _MAX:
                self.buf[self.n] = ord(ch) & 0x7F
                self.n += 1
        return None


class QueueLines:
    """A line source fed by the host (simulated board, tests)."""

    def __init__(self):
        self.q = []

    def push(self, line):
        self.q.append(line)

    def poll(self):
        if self.q:
            return self.q.pop(0)
        return None
