# Lines from the USB serial port (the REPL's stdin), read without blocking: poll() returns
# a complete line (str, without its end), a refused line (REFUSED + the reason), STOP
# (Ctrl-C arrived as a byte) or None. Every source feeds its bytes through one
# LineAssembler, so the Pico, the simulated board and the VM treat bytes alike
# (docs/CONTROLLER.md, "The serial line under abuse"):
#   - "\n", "\r" and "\r\n" end a line; an empty line is no line (no answer);
#   - a line longer than MAX_LINE characters is refused whole once its end arrives;
#   - a line holding a byte that is not printable ASCII (NUL, control bytes, Ctrl-D,
#     DEL, anything >= 0x80) is refused whole, naming the first such byte; a tab is a space;
#   - Ctrl-C (0x03) drops the partial line and stops the table (on a Pico MicroPython turns
#     it into KeyboardInterrupt before the firmware sees it; main.py stops the same way).
# Nothing of a refused line is executed. The buffer is preallocated; a poll() reads at
# most POLL_BYTES bytes, so a pasted file is worked through a line per pass of the loop
# and the reader and the buttons are polled between any two lines (USB flow control keeps
# the rest in the computer until the firmware reads it).
import sys

from .line_assembler import MAX_LINE, POLL_BYTES, REFUSED, STOP, LineAssembler  # noqa: F401

try:
    import select
except ImportError:  # a port without select
    select = None


class StdinLines:
    """The Pico's USB serial line (sys.stdin), polled with select.poll."""

    def __init__(self, stream=None):
        s = stream or sys.stdin
        self.s = getattr(s, "buffer", s)      # bytes, so a non-ASCII byte stays one byte
        self.one = bytearray(1)
        self.asm = LineAssembler()
        self.p = None
        if select is not None:
            self.p = select.poll()
            self.p.register(s, select.POLLIN)

    def poll(self):
        if self.p is None:
            return None
        one = self.one
        for _ in range(POLL_BYTES):
            if not self.p.poll(0):
                return None
            if not self.s.readinto(one):
                return None
            r = self.asm.feed(one[0])
            if r is not None:
                return r
        return None
