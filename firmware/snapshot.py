# The engine as it stood at a point of the journal (jsnap/state.bin), so that a boot or an
# UNDO replays only the events after it instead of the whole session (on a Pico about 2 ms
# an event: a 330-event session took 0.7 s to replay).
#
# Taken after the journal's tail is folded into journal.txt. Trusted only when its own
# bytes check (CRC-32: a power cut mid-write leaves a torn file) and the journal still
# begins with exactly the bytes it was taken after (their length and CRC-32): a cut, an
# UNDO past it or a new session makes it stale, and the boot replays the whole journal as
# it would without one. The journal stays the one record; this file only saves time.
#
#   b"SNP1", then little-endian u32: journal bytes, events, their CRC-32, the state's
#   CRC-32; then two bytes the controller keeps of the last event (what UNDO may take back)
#   and every Engine.state() buffer's bytes in order, its scalars first (the state's CRC
#   covers all of them)
import os
from array import array
from binascii import crc32

MAGIC = b"SNP1"
_HEAD = 4 + 16
_EXTRA = 2


def _u32(b, i):
    return b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24


def _put32(b, i, v):
    for k in range(4):
        b[i + k] = (v >> (8 * k)) & 0xFF


class Snapshot:
    def __init__(self, root=""):
        self.dir = root + "jsnap"
        self.path = root + "jsnap/state.bin"
        self.events = 0            # of the snapshot found by restore() or written by save()
        self.offset = 0            # journal bytes it follows
        self.extra = b"\x00\x00"

    def save(self, engine, journal, events, extra=b"\x00\x00"):
        """Write the engine's state as it is after `events` events = the whole journal,
        with two bytes of the controller's own (given back by restore()). Raises OSError
        (the journal is not affected)."""
        bufs = engine.state()
        size = _EXTRA
        for b in bufs:
            size += len(bytes(b))
        out = bytearray(_HEAD + size)
        out[0:4] = MAGIC
        out[_HEAD:_HEAD + _EXTRA] = extra
        k = _HEAD + _EXTRA
        for b in bufs:
            raw = bytes(b)
            out[k:k + len(raw)] = raw
            k += len(raw)
        offset = journal.size
        _put32(out, 4, offset)
        _put32(out, 8, events)
        _put32(out, 12, journal.crc(offset))
        _put32(out, 16, crc32(memoryview(out)[_HEAD:]))
        try:
            os.stat(self.dir)
        except OSError:
            os.mkdir(self.dir)
        with open(self.path, "wb") as f:
            f.write(out)
        self.events = events
        self.offset = offset

    def restore(self, engine, journal):
        """Put the snapshot's state into `engine` (fresh from the journal's header) if it
        belongs to this journal; returns the journal offset to replay from (0: none).
        self.extra: the two bytes save() was given."""
        self.events = self.offset = 0
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError:
            return 0
        bufs = engine.state()
        size = _EXTRA
        for b in bufs:
            size += len(bytes(b))
        if len(data) != _HEAD + size or data[0:4] != MAGIC:
            return 0
        if _u32(data, 16) != crc32(memoryview(data)[_HEAD:]):
            return 0
        offset = _u32(data, 4)
        if offset > journal.size or _u32(data, 12) != journal.crc(offset):
            return 0
        self.extra = data[_HEAD:_HEAD + _EXTRA]
        k = _HEAD + _EXTRA
        for b in bufs:
            n = len(bytes(b))
            chunk = bytearray(data[k:k + n])
            if isinstance(b, bytearray):
                b[:] = chunk
            else:                  # array('i') or array('h'): raw bytes back into items
                memoryview(b)[:] = array("i" if n == 4 * len(b) else "h", chunk)
            k += n
        engine.set_registers(bufs[0])
        self.events = _u32(data, 8)
        self.offset = offset
        return offset

    def remove(self):
        try:
            os.remove(self.path)
        except OSError:
            pass
        self.events = self.offset = 0
