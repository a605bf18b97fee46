# The engine as it stood at a point of the journal (jsnap/state.bin), so that a boot or an
# UNDO replays only the events after it instead of the whole session (a whole session's
# replay is the slowest part of a boot: docs/DEVELOPING.md).
#
# Taken after the journal's tail is folded into journal.txt. Trusted only when its own
# bytes check (CRC-32: a power cut mid-write leaves a torn file) and the journal still
# begins with exactly the bytes it was taken after (their length and CRC-32): a cut, an
# UNDO past it or a new session makes it stale, and the boot replays the whole journal as
# it would without one. The journal stays the one record; this file only saves time.
#
#   b"SNP2", then little-endian u32: journal bytes, events, the journal's check (the CRC-32
#   of those bytes: Journal.mark()), the state's CRC-32, where the journal's store was
#   (RawJournal: the flash position its check ends at; 0 for files); then two bytes the
#   controller keeps of the last event (what UNDO may take back) and every Engine.state()
#   buffer's bytes in order, its scalars first (the state's CRC covers all of them)
#
# Kept in jsnap/state.bin (the stock UF2, the host), or on the shoe's own UF2 in the raw
# flash region after the journal's tail (raw_journal.py): there each record is a run of
# whole pages from a page boundary, written after the last, so that taking one costs page
# programs and never an erase. A boot tries them newest first and takes the first that
# checks (its CRC, and the journal still beginning with the bytes it was taken after); a
# torn one fails its CRC. Once the space is more than half used, a new session's start
# erases it; until then records of older sessions stay, never matching a new journal's
# bytes. When it is full, no more snapshots are taken until then: a boot replays more
# events, nothing is lost. One class for both stores (the shoe's heap holds one).
import os
from array import array
from binascii import crc32

MAGIC = b"SNP2"
_HEAD = 4 + 20
_EXTRA = 2
# the raw flash region (the shoe's UF2): the journal's tail in its first TAIL_SECTORS
# sectors (raw_journal.py), the snapshots after
SECTOR = 4096
PAGE = 256
TAIL_SECTORS = 12
_ERASED = (  # written out: a literal stays in flash, b"\xff" * PAGE would be built in RAM
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
)


def _u32(b, i):
    return b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24


def _put32(b, i, v):
    for k in range(4):
        b[i + k] = (v >> (8 * k)) & 0xFF


class Snapshot:
    def __init__(self, root="", dev=None, page=None):
        """dev: the raw flash region (its journal's `page` buffer shared); None: a file."""
        self.dir = root + "jsnap"
        self.path = root + "jsnap/state.bin"
        self.events = 0            # of the snapshot found by restore() or written by save()
        self.offset = 0            # journal bytes it follows
        self.extra = b"\x00\x00"
        self.dev = dev
        if dev is not None:
            self.start = TAIL_SECTORS * SECTOR
            self.end = dev.ioctl(4, 0) * SECTOR     # the region's size
            self.free = -1         # where the next record goes (-1: not looked for yet)
            self._page = bytearray(PAGE) if page is None else page
            self.full = 0          # snapshots not taken for want of room

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
        offset, where, check = journal.mark()
        _put32(out, 4, offset)
        _put32(out, 8, events)
        _put32(out, 12, check)
        _put32(out, 16, crc32(memoryview(out)[_HEAD:]))
        _put32(out, 20, where)
        self._write(out)
        self.events = events
        self.offset = offset

    def _write(self, out):
        if self.dev is not None:
            self._program(out)
            return
        try:
            os.stat(self.dir)
        except OSError:
            os.mkdir(self.dir)
        with open(self.path, "wb") as f:
            f.write(out)

    def _stored(self, n):
        """The stored snapshots' bytes (at least the n a record of this engine takes),
        newest first: a file holds one."""
        if self.dev is not None:
            for pos in reversed(self._records()):
                if pos + n <= self.end:
                    data = bytearray(n)
                    self.dev.readblocks(pos // SECTOR, data, pos % SECTOR)
                    yield data
            return
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError:
            return
        yield data

    def restore(self, engine, journal):
        """Put the snapshot's state into `engine` (fresh from the journal's header) if it
        belongs to this journal; returns the journal offset to replay from (0: none).
        self.extra: the two bytes save() was given."""
        self.events = self.offset = 0
        bufs = engine.state()
        size = _EXTRA
        for b in bufs:
            size += len(bytes(b))
        for data in self._stored(_HEAD + size):
            if self._fits(data, size, journal):
                return self._put_back(data, bufs, engine)
        return 0

    def _fits(self, data, size, journal):
        if len(data) < _HEAD + size or data[0:4] != MAGIC:
            return False
        data = memoryview(data)[:_HEAD + size]
        if _u32(data, 16) != crc32(data[_HEAD:]):
            return False
        return journal.matches(_u32(data, 4), _u32(data, 20), _u32(data, 12))

    def _put_back(self, data, bufs, engine):
        offset = _u32(data, 4)
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

    def erase_step(self):
        """One sector of the raw space erased, the last written first (a session's end,
        while the table takes no cards); False when it is all erased (a file: always)."""
        if self.dev is None:
            return False
        if self.free < 0:
            self._records()
        if self.free <= self.start:
            return False
        s = (self.free - 1) // SECTOR
        self.dev.ioctl(6, s)
        self.free = s * SECTOR
        return True

    def remove(self):
        """A new session: the file removed; the raw space erased once it is more than half
        used (it was at the last session's end, unless the power went first)."""
        if self.dev is None:
            try:
                os.remove(self.path)
            except OSError:
                pass
        else:
            if self.free < 0:
                self._records()
            if self.free - self.start > (self.end - self.start) // 2:
                pos = self.start
                while pos < self.free:
                    self.dev.ioctl(6, pos // SECTOR)
                    pos += SECTOR
                self.free = self.start
        self.events = self.offset = 0

    # ------------------------------------------------------------------ the raw region
    def _records(self):
        """Positions of the pages that begin with the record magic, oldest first; sets
        self.free after the last page written."""
        found = []
        pos = self.start
        free = pos
        page = self._page
        while pos < self.end:
            self.dev.readblocks(pos // SECTOR, page, pos % SECTOR)
            if page[0:4] == MAGIC:
                found.append(pos)
            if page != _ERASED:
                free = pos + PAGE
            pos += PAGE
        self.free = free
        return found

    def _program(self, out):
        if self.free < 0:
            self._records()
        n = (len(out) + PAGE - 1) // PAGE * PAGE
        pos = self.free
        if pos + n > self.end:
            self.full += 1
            return
        buf = bytearray(b"\xff" * n)
        buf[:len(out)] = out
        self.free = pos + n            # a torn program still took these pages
        self.dev.writeblocks(pos // SECTOR, buf, pos % SECTOR)
