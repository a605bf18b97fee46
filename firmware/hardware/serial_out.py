# The table's serial output, written only while the host takes it, so that a host with the
# port open but not reading (a paused terminal) never holds the table up.
#
# MicroPython's rp2 port (v1.28, shared/tinyusb/mp_usbd_cdc.c, mp_usbd_cdc_tx_strn): with
# the host's port open (DTR), a write waits while the 256-byte USB transmit buffer is full,
# up to MICROPY_HW_USB_CDC_TX_TIMEOUT from its last progress, then drops the rest;
# select.poll says POLLOUT while at least one byte fits. Written straight, every line said
# while the host does not read would stop the loop for that timeout (no card read, no
# press seen, no display drawn). So a line goes out at once only while the port takes bytes
# and nothing waits before it; otherwise it waits in a bounded queue that pump() (every pass
# of the loop) hands on in small pieces while POLLOUT holds. A line that does not fit the
# queue is dropped; once the queue is empty again one line says how many were, and where
# the table is (the events it holds: "; at #N"), as a lost acknowledgement would have.
# The line written as the host's buffer fills may still wait (POLLOUT promises one byte,
# not the line; a stream write taken in part asks again for the rest, py/stream.c, and
# waits again): once per pause, not once per line.
import sys

try:
    import select
except ImportError:  # a port without select
    select = None

# the text stream of MicroPython's stdout ends each line with CR LF; its bytes are written
# here, so the same ending is kept
EOL = b"\r\n" if sys.implementation.name == "micropython" else b"\n"
# a burst beyond the USB buffer while the host reads (a deal's end, the help line); a host
# that does not read fills any size
QUEUE_BYTES = 512
PIECE = 32               # bytes handed on a time from the queue (each gated by POLLOUT)


class SerialOut:
    """A text stream (write(str)) in front of `stream`: see above. `stream` may offer
    writable() itself (the simulated USB port, boards/simdev/serial.py); sys.stdout is
    polled with select; anything else is taken to take everything."""

    def __init__(self, stream=None, session=None):
        s = stream or sys.stdout
        self.s = s
        self.raw = getattr(s, "buffer", None)     # bytes out: a partial write is counted
        self.q = bytearray(QUEUE_BYTES)
        self.head = 0                     # queued bytes are q[head:head + n]
        self.n = 0
        self.dropped = 0                  # lines dropped since the queue was last empty
        self.lost = 0                     # lines dropped since boot
        self.session = session            # its event count goes in the marker
        self.poll = None
        self.ask = getattr(s, "writable", None)
        if self.ask is None and select is not None and s is sys.stdout:
            try:
                p = select.poll()
                p.register(s, select.POLLOUT)
                self.poll = getattr(p, "ipoll", p.poll)     # (ipoll allocates nothing)
            except (OSError, TypeError, ValueError, AttributeError):
                self.poll = None
        if self.raw is not None and self.ask is None and self.poll is None:
            self.raw = None               # nothing says how much it takes: text, as ever

    def writable(self):
        if self.ask is not None:
            return self.ask()
        if self.poll is not None:
            for _ in self.poll(0):
                return True
            return False
        return True

    def write(self, text):
        if not self.n and self.writable():
            self._put(text)
            return
        self._queue(text)

    def _put(self, text):
        """Write text now; whatever the port did not take waits in the queue."""
        if self.raw is None:
            self.s.write(text)
            return
        data = self._bytes(text)
        k = self.raw.write(data)
        if k is not None and 0 <= k < len(data):
            self._queue_bytes(data, k)

    def _bytes(self, text):
        data = text.encode()
        if self.raw is not None and EOL != b"\n":
            data = data.replace(b"\n", EOL)
        return data

    def _queue(self, text):
        self._queue_bytes(self._bytes(text), 0)

    def _queue_bytes(self, data, start):
        m = len(data) - start
        if m > QUEUE_BYTES - self.n:
            self.dropped += 1
            self.lost += 1
            if start and QUEUE_BYTES - self.n >= len(EOL):
                self._queue_bytes(EOL, 0)     # the line begun ends here, cut short
            return
        q = self.q
        at = (self.head + self.n) % QUEUE_BYTES
        for i in range(start, len(data)):
            q[at] = data[i]
            at += 1
            if at == QUEUE_BYTES:
                at = 0
        self.n += m

    def pump(self):
        """Hand queued bytes on while the port takes them (a pass of the loop's worth)."""
        if not (self.n or self.dropped):
            return
        if self.raw is None:              # a text stream: the whole queue at once
            if self.n and self.writable():
                h, n = self.head, self.n
                data = bytes(self.q[h:min(QUEUE_BYTES, h + n)])
                if h + n > QUEUE_BYTES:
                    data += bytes(self.q[:h + n - QUEUE_BYTES])
                self.head = self.n = 0
                self.s.write(data.decode())
        while self.n and self.writable():
            k = min(PIECE, self.n, QUEUE_BYTES - self.head)
            w = self.raw.write(bytes(self.q[self.head:self.head + k]))
            k = k if w is None else w
            if k <= 0:
                return
            self.head = (self.head + k) % QUEUE_BYTES
            self.n -= k
        if not self.n and self.dropped and self.writable():
            n, self.dropped = self.dropped, 0
            s = self.session
            self._put("# serial: %d lines dropped while the host was not reading%s\n"
                      % (n, "; at #%d" % s.nev if s is not None else ""))
