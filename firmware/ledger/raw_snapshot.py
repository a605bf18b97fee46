# Snapshots (snapshot.py's records) in the raw flash region after the journal's tail
# (raw_journal.py): each a run of whole pages from a page boundary, written after the last,
# so that taking one costs page programs and never an erase. A boot tries
# them newest first and takes the first that checks (its CRC, and the journal still
# beginning with the bytes it was taken after); a torn one fails its CRC. Once the space
# is more than half used, a new session's start erases it; until then records of older
# sessions stay, never matching a new journal's bytes. When it is full, no more snapshots
# are taken until then: a boot replays more events, nothing is lost.
from .raw_journal import _ERASED, PAGE, SECTOR, TAIL_SECTORS
from .snapshot import MAGIC, Snapshot


class RawSnapshot(Snapshot):
    def __init__(self, dev, root="", page=None):
        Snapshot.__init__(self, root)
        self.dev = dev
        self.start = TAIL_SECTORS * SECTOR
        self.end = dev.ioctl(4, 0) * SECTOR     # the region's size
        self.free = -1                 # where the next record goes (-1: not looked for yet)
        self._page = bytearray(PAGE) if page is None else page   # (the journal's, shared)
        self.full = 0                  # snapshots not taken for want of room

    def _read(self, pos):
        self.dev.readblocks(pos // SECTOR, self._page, pos % SECTOR)

    def _records(self):
        """Positions of the pages that begin with the record magic, oldest first; sets
        self.free after the last page written."""
        found = []
        pos = self.start
        free = pos
        while pos < self.end:
            self._read(pos)
            if self._page[0:4] == MAGIC:
                found.append(pos)
            if self._page != _ERASED:
                free = pos + PAGE
            pos += PAGE
        self.free = free
        return found

    def _stored(self, n):
        found = self._records()
        for pos in reversed(found):
            if pos + n > self.end:
                continue
            data = bytearray(n)
            self.dev.readblocks(pos // SECTOR, data, pos % SECTOR)
            yield data

    def _write(self, out):
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

    def erase_step(self):
        """One sector of the space erased, the last written first (a session's end, while
        the table takes no cards); False when it is all erased."""
        if self.free < 0:
            self._records()
        if self.free <= self.start:
            return False
        s = (self.free - 1) // SECTOR
        self.dev.ioctl(6, s)
        self.free = s * SECTOR
        return True

    def remove(self):
        """A new session: the space erased once it is more than half used (it was at the
        last session's end, unless the power went first)."""
        if self.free < 0:
            self._records()
        if self.free - self.start > (self.end - self.start) // 2:
            pos = self.start
            while pos < self.free:
                self.dev.ioctl(6, pos // SECTOR)
                pos += SECTOR
            self.free = self.start
        self.events = self.offset = 0
