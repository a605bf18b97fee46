# The serial line of the simulated boards: bytes the host types, through the firmware's
# own LineAssembler, so the simulated table treats them as the Pico treats its USB line
# (firmware/hardware/serial_lines.py). Host-side only: the Pico's firmware never imports it.
from hardware.line_assembler import POLL_BYTES, LineAssembler


class UsbOut:
    """The Pico's USB serial output as MicroPython's rp2 port gives it (v1.28,
    shared/tinyusb/mp_usbd_cdc.c) to a host that keeps the port open: bytes go to a 256-byte
    transmit buffer the host empties while it reads. While it does not (reading = False), a
    write that finds the buffer full waits TX_TIMEOUT_MS for room (the board's clock runs
    meanwhile: the table stands still) and gives up; a stream write (py/stream.c,
    mp_stream_rw) that was taken in part asks again for the rest, which waits as long once
    more, and returns what was taken. writable() is select.poll's POLLOUT (a byte fits).
    `sink(text)` gets what the host reads."""

    TX_BUFFER = 256 + 64          # CFG_TUD_CDC_TX_BUFSIZE and the IN packet in flight
    TX_TIMEOUT_MS = 500           # MICROPY_HW_USB_CDC_TX_TIMEOUT

    def __init__(self, clock, sink):
        self.clock = clock
        self.sink = sink
        self.reading = True
        self.held = bytearray()       # in the Pico's buffer, not read yet
        self.stalled_ms = 0           # the time writes waited for room, in all
        self.dropped_bytes = 0
        self.buffer = self            # the byte stream (sys.stdout.buffer's place)

    def writable(self):
        return self.reading or len(self.held) < self.TX_BUFFER

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        if self.reading:
            self.sink(bytes(data).decode())
            return len(data)
        room = self.TX_BUFFER - len(self.held)
        take = min(room, len(data))
        self.held.extend(data[:take])
        if take < len(data):          # full: it waits for the host, then gives up
            waits = 2 if take else 1  # (taken in part: the stream asks again, waits again)
            self.clock.advance_us(waits * self.TX_TIMEOUT_MS * 1000)
            self.stalled_ms += waits * self.TX_TIMEOUT_MS
            self.dropped_bytes += len(data) - take
        return take

    def host_reads(self, on):
        self.reading = on
        if on and self.held:
            data, self.held = bytes(self.held), bytearray()
            self.sink(data.decode())


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
