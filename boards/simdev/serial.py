# The serial line of the simulated boards: bytes the host types, through the firmware's
# own LineAssembler, so the simulated table treats them as the Pico treats its USB line
# (firmware/hardware/serial_lines.py). Host-side only: the Pico's firmware never imports it.
from hardware.line_assembler import POLL_BYTES, LineAssembler


class QueueLines:
    """A byte source fed by the host (simulated board, tests): push(line) types a line and
    its end, push_bytes(data) any bytes; poll() works like StdinLines.poll()."""

    def __init__(self):
        self.q = bytearray()
        self.at = 0
        self.asm = LineAssembler()

    def push(self, line):
        self.push_bytes(line.encode() + b"\n")

    def push_bytes(self, data):
        if self.at:
            self.q = self.q[self.at:]
            self.at = 0
        self.q.extend(data)

    def pending(self):
        return len(self.q) - self.at

    def poll(self):
        q = self.q
        for _ in range(POLL_BYTES):
            if self.at >= len(q):
                return None
            b = q[self.at]
            self.at += 1
            r = self.asm.feed(b)
            if r is not None:
                return r
        return None
