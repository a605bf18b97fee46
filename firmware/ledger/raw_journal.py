# The journal's tail in raw flash: on the shoe's own UF2 the board keeps a flash region out of
# littlefs (boards/uf2/shoe_flash.py), and an event line costs two page programs instead of
# a littlefs commit, which now and then erases a sector (the CPU stalled meanwhile). journal.txt stays in littlefs as before; the tail is folded into it when a
# session ends, or in a quiet moment once it passes FOLD_BYTES. The region's first
# TAIL_SECTORS sectors hold the tail, the rest the snapshots (snapshot.py).
#
# The tail, from the region's first byte:
#   "@N\n"           N: journal.txt's size when the tail began (as journal.py's tail file)
#   "$<line>\n" ...  one record an event line; a record whose first byte is not "$" is dead
#   0xFF ...         erased: the tail ends at its first erased byte after a newline
# NOR flash programs only clear bits, and a power cut may leave a program half done, bit by
# bit. So a record is written in two programs, its "$" and text, then its newline: a byte
# programmed part way holds a superset of the target's bits, never a newline unless it was
# meant to be one, so a record that ends in a newline was written whole. A record is taken
# back (UNDO, a line that does not replay) by programming its "$" (0x24) to 0: a half-done
# one is 0x04 or 0x20, dead as well, and never a newline. A torn record (no newline) is
# sealed at boot: its first byte zeroed, then a newline after its last programmed byte.
# A fold appends the live lines to journal.txt (one littlefs commit) and then erases the
# tail's sectors, the first one last, so a boot at any instant finds the tail either whole
# or stale (journal.txt already as long as base + its lines: erased again).
import os
import sys

from . import forget
from .journal_files import JournalFiles
from .snapshot import _ERASED, PAGE, SECTOR, TAIL_SECTORS  # noqa: F401 - the region's layout

FOLD_BYTES = 40 * 1024          # a tail this long is folded in a quiet moment (only a
                                # session of some 4,000 events gets there: else at its end)
_DOLLAR = 36
_NL = 10

if sys.implementation.name != "micropython":  # CPython: the viper function runs as Python
    from game.native_shim import micropython, ptr8  # noqa: F401


@micropython.viper
def _copy(buf: ptr8, o: int, lim: int, line: ptr8, a: int, n: int) -> int:
    """The line's bytes a..n into buf from o, as many as fit before lim: how many (machine
    code: it runs at every event)."""
    k = 0
    while a + k < n and o + k < lim:
        buf[o + k] = line[a + k]
        k += 1
    return k


class RawJournal(JournalFiles):
    def __init__(self, dev, root=""):
        JournalFiles.__init__(self, root, 0)
        self.dev = dev
        self.end = TAIL_SECTORS * SECTOR  # the tail's region: [0, end)
        self.hend = 0                   # where the first record begins (after "@N\n")
        self.wpos = 0                   # where the next record goes (0: the tail is empty)
        self.last = -1                  # the last live record's position (-1: none)
        self.page = bytearray(PAGE)     # every read and program goes through it (shared:
        #                                 the snapshots' reads)

    # ------------------------------------------------------------------ flash
    def _text(self, pos, line, nl):
        """Program "$" and the line (ASCII; and its newline with `nl`) from `pos`, a page at
        a time (0xFF where nothing is meant: programming only clears bits)."""
        buf = self.page
        buf[:] = _ERASED
        page = pos & ~(PAGE - 1)
        o = pos - page
        buf[o] = _DOLLAR
        o += 1
        n = len(line)
        a = 0
        while True:
            if o == PAGE:
                self.dev.writeblocks(page >> 12, buf, page & (SECTOR - 1))
                buf[:] = _ERASED
                page += PAGE
                o = 0
            if a >= n:
                break
            k = _copy(buf, o, PAGE, line, a, n)
            a += k
            o += k
        if nl:
            buf[o] = _NL
            o += 1
        if o:
            self.dev.writeblocks(page >> 12, buf, page & (SECTOR - 1))

    def _put(self, pos, value):
        """Program one byte."""
        buf = self.page
        buf[:] = _ERASED
        buf[pos & (PAGE - 1)] = value
        page = pos & ~(PAGE - 1)
        self.dev.writeblocks(page >> 12, buf, page & (SECTOR - 1))

    def _read(self, pos):
        """The page holding `pos` into self.page; the page's position."""
        page = pos & ~(PAGE - 1)
        self.dev.readblocks(page >> 12, self.page, page & (SECTOR - 1))
        return page

    # ------------------------------------------------------------------ records
    def records(self, pos=-1, upto=-1):
        """(position, raw record with its newline) of every record from `pos` (default: the
        first) to `upto` (default: the write position)."""
        if pos < 0:
            pos = self.hend
        if upto < 0:
            upto = self.wpos
        carry = b""
        buf = self.page
        while pos < upto:
            page = self._read(pos)
            hi = upto - page if upto - page < PAGE else PAGE
            i = pos - page
            while i < hi:
                j = buf.find(b"\n", i, hi)
                if j < 0:
                    carry += bytes(buf[i:hi])
                    break
                rec = carry + bytes(buf[i:j + 1])
                carry = b""
                yield page + j + 1 - len(rec), rec
                i = j + 1
            pos = page + PAGE

    def scan(self):
        """The live lines' total length (self.nbody) and the last one's position."""
        n = 0
        last = -1
        for pos, rec in self.records():
            if rec[0] == _DOLLAR:
                n += len(rec) - 1
                last = pos
        self.nbody = n
        self.last = last

    # ------------------------------------------------------------------ boot
    def recover(self):
        """Boot: the tail found, a torn last record sealed, a stale or foreign tail erased
        (raw_recover.py, let go after: a boot's code)."""
        from . import raw_recover
        try:
            return raw_recover.recover(self)
        finally:
            forget(raw_recover.__name__)

    # ------------------------------------------------------------------ reading
    def lines(self, start=0):
        if start < self.base:
            yield from self.main_lines(start)
        off = self.base
        for _, rec in self.records():
            if rec[0] == _DOLLAR:
                if off >= start:
                    yield rec[1:]
                off += len(rec) - 1

    def mark(self):
        """(its size, the write position, the CRC-32 of journal.txt then of the tail's flash
        up to there): the flash's own bytes, read a page at a time, not its lines."""
        return self.size, self.wpos, self._flash_crc(self.wpos)

    def matches(self, offset, where, check):
        return (offset <= self.size and where <= self.wpos and offset >= self.base
                and self._flash_crc(where) == check)

    def _flash_crc(self, upto):
        from binascii import crc32
        c = JournalFiles.crc(self, self.base)
        pos = 0
        buf = self.page
        while pos < upto:
            self._read(pos)
            n = upto - pos
            c = crc32(buf if n >= PAGE else memoryview(buf)[:n], c)
            pos += PAGE
        return c

    def last_line_start(self):
        if self.nbody:
            for _, rec in self.records(self.last):
                return self.size - len(rec) + 1
        return JournalFiles.last_line_start(self)

    # ------------------------------------------------------------------ writing
    def start(self, header_lines):
        """A new journal: an empty journal.txt (made ahead by make_ready() when the last
        session ended) and the header lines as the tail's first records, all programmed
        before the tail's own "@0" line, which commits them: a power cut before it leaves
        no tail, and the boot starts the session again."""
        if self.wpos:
            self.stale = True
        self.drop_stale_all()
        self.make_ready()
        self.base = 0
        self.nbody = 0
        self.last = -1
        pos = self.hend = 3              # after "@0\n"
        for line in header_lines:
            self._text(pos, line, True)
            self.last = pos
            self.nbody += len(line) + 1
            pos += len(line) + 2
        buf = self.page
        buf[:] = _ERASED
        buf[0] = 64
        buf[1] = 48
        self.dev.writeblocks(0, buf, 0)
        self._put(2, _NL)
        self.wpos = pos
        self.size = self.nbody

    def make_ready(self):
        """journal.txt made empty ahead of the next start() (a littlefs commit or two,
        while the table takes no cards); True when it was not so already."""
        if self.exists() and os.stat(self.path)[6] == 0:
            return False
        with open(self.tmp, "w"):
            pass
        os.rename(self.tmp, self.path)
        return True

    def append(self, line):
        """Write one event line to the tail: its "$" and text, then its newline."""
        n = len(line)
        if self.stale:
            self.drop_stale_all()
        pos = self.wpos
        if pos == 0:
            pos = self._begin()
        if pos + n + 2 > self.end:
            self.fold()
            pos = self._begin()
        self._text(pos, line, False)
        self._put(pos + n + 1, _NL)
        self.wpos = pos + n + 2
        self.last = pos
        self.nbody += n + 1
        self.size += n + 1

    def _begin(self):
        """Program the header: "@N", then its newline. Where the first record goes."""
        buf = self.page
        buf[:] = _ERASED
        buf[0] = 64
        k = 1
        b = self.base
        div = 1
        while div * 10 <= b:
            div *= 10
        while div:
            buf[k] = 48 + (b // div) % 10
            k += 1
            div //= 10
        self.dev.writeblocks(0, buf, 0)
        self._put(k, _NL)
        self.stale = False
        self.nbody = 0
        self.last = -1
        self.hend = k + 1
        return k + 1

    # ------------------------------------------------------------------ folding
    def fold_lines(self):
        if self.nbody == 0:
            if self.wpos:
                self.stale = True        # dead records only: nothing to move, still to erase
            return
        with open(self.path, "ab") as f:
            for _, rec in self.records():
                if rec[0] == _DOLLAR:
                    f.write(memoryview(rec)[1:])
        self.base += self.nbody
        self.nbody = 0
        self.last = -1
        self.stale = True

    def drop_stale(self):
        """One sector of a stale tail erased (the last first): a loop pass each."""
        if not self.stale:
            return
        s = (self.wpos - 1) // SECTOR if self.wpos else 0
        self.dev.ioctl(6, s)
        if s == 0:
            self.wpos = 0
            self.stale = False
        else:
            self.wpos = s * SECTOR

    def drop_stale_all(self):
        while self.stale:
            self.drop_stale()

    def fold(self):
        self.fold_lines()
        self.drop_stale_all()

    def fold_pending(self):
        """Lines to fold in a quiet moment: a tail past FOLD_BYTES."""
        return self.nbody > 0 and self.wpos >= FOLD_BYTES

    def snapshot_ok(self):
        """A snapshot may follow the tail (its records never move until a fold)."""
        return True

    # ------------------------------------------------------------------ cutting
    def cut(self, keep):
        if keep >= self.base:
            off = self.base
            kill = []
            for pos, rec in self.records():
                if rec[0] == _DOLLAR:
                    if off >= keep:
                        kill.append(pos)
                    off += len(rec) - 1
            for pos in reversed(kill):   # the newest first: a cut stopped half way leaves a
                self._put(pos, 0)        # prefix of the journal
            self.scan()
        else:                            # journal.txt first: the tail then names a
            self._cut_main(keep)         # longer one, and a boot drops it
            self.base = keep
            self.nbody = 0
            if self.wpos:
                self.stale = True
                self.drop_stale_all()
        self.size = keep
