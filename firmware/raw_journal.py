# The journal's tail in raw flash: on the shoe's own UF2 the board keeps a flash region out of
# littlefs (boards/uf2/shoe_flash.py), and an event line costs two page programs (0.8 ms)
# instead of a littlefs commit, which erases a 4 KB sector (45 ms with the CPU stalled) about
# once in fifteen. journal.txt stays in littlefs as before; the tail is folded into it when a
# session ends, or in a quiet moment once it passes FOLD_BYTES. The region's first
# TAIL_SECTORS sectors hold the tail, the rest the snapshots (raw_snapshot.py).
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

from journal import Journal, _exists, _remove

SECTOR = 4096
PAGE = 256
TAIL_SECTORS = 12
FOLD_BYTES = 40 * 1024          # a tail this long is folded in a quiet moment (only a
                                # session of some 4,000 events gets there: else at its end)
_DOLLAR = 36
_NL = 10
_ERASED = b"\xff" * PAGE


class RawJournal(Journal):
    def __init__(self, dev, root=""):
        Journal.__init__(self, root, 0)
        self.dev = dev
        self.end = TAIL_SECTORS * SECTOR  # the tail's region: [0, end)
        self.wpos = 0                   # where the next record goes (0: the tail is empty)
        self.last = -1                  # the last live record's position (-1: none)
        self._prog = bytearray(2 * PAGE)
        self._mv = memoryview(self._prog)
        self._one = self._mv[:PAGE]
        self.page = self._page = bytearray(PAGE)     # what reads go to (shared: snapshots)

    # ------------------------------------------------------------------ flash
    def _program(self, pos, n):
        """Program self._prog (0xFF where nothing is meant) at the page of `pos`: one page, or
        two when the n bytes from pos cross into the next."""
        page = pos & ~(PAGE - 1)
        two = pos + n > page + PAGE
        self.dev.writeblocks(page >> 12, self._mv if two else self._one, page & (SECTOR - 1))

    def _clear_prog(self):
        p = self._prog
        p[0:PAGE] = _ERASED
        p[PAGE:] = _ERASED

    def _put(self, pos, value):
        """Program one byte."""
        self._clear_prog()
        self._prog[pos & (PAGE - 1)] = value
        self._program(pos, 1)

    def _read(self, pos):
        """The page holding `pos` into self._page."""
        page = pos & ~(PAGE - 1)
        self.dev.readblocks(page >> 12, self._page, page & (SECTOR - 1))
        return page

    def _erase_sectors(self, upto):
        """Erase the tail's sectors holding bytes below `upto`, the first one last."""
        s = (upto - 1) // SECTOR if upto > 0 else -1
        while s >= 0:
            self.dev.ioctl(6, s)
            s -= 1

    def _used(self):
        """Bytes from the region's start to the end of its last page that is not erased
        (pages are written in order, so the first erased page ends what was written)."""
        pos = 0
        while pos < self.end:
            self._read(pos)
            if self._page == _ERASED:
                break
            pos += PAGE
        return pos

    def _dirty_from(self, pos):
        """The first page at or after `pos` (a page start) that is not erased; -1: none."""
        while pos < self.end:
            self._read(pos)
            if self._page != _ERASED:
                return pos
            pos += PAGE
        return -1

    # ------------------------------------------------------------------ records
    def records(self, pos=-1, upto=-1):
        """(position, raw record with its newline) of every record from `pos` (default: the
        first after the header) to `upto` (default: the write position)."""
        if pos < 0:
            pos = self._header_end()
        if upto < 0:
            upto = self.wpos
        carry = b""
        buf = self._page
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

    def _header_end(self):
        """Where the first record begins: after the "@N\n" header (0: no valid header)."""
        self._read(0)
        buf = self._page
        j = buf.find(b"\n", 0, 16)
        if buf[0] != 64 or j < 2:
            return 0
        for i in range(1, j):
            if not 48 <= buf[i] <= 57:
                return 0
        return j + 1

    def _header_base(self):
        end = self._header_end()
        return int(bytes(self._page[1:end - 1])) if end else -1

    def _scan(self):
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
        self.close()
        self.stale = False
        self.nbody = 0
        self.dropped = 0
        if _exists(self.tail_path):      # a tail file left by the stock UF2's journal
            old = Journal(self.root)
            old.recover()
            old.fold()
        _remove(self.tmp)
        used = self._used()
        if not self.exists():
            self._wipe(used)
            return False
        self.base = os.stat(self.path)[6]
        base = self._header_base() if used else -1
        if base < 0 or self.base < base:
            self._wipe(used)             # torn header, foreign bytes, another journal's tail
        else:
            self.wpos = self._seal(used)
            self._scan()
            if self.base >= base + self.nbody and (self.nbody or self.base > base):
                self._wipe(used)         # a fold that completed: the tail is stale
                self.base = os.stat(self.path)[6]
            else:
                if self.base > base:     # a torn fold (host file systems): undo it
                    self._cut_main(base)
                    self.base = base
                dirty = self._dirty_from((self.wpos + PAGE - 1) & ~(PAGE - 1))
                if dirty >= 0:           # foreign bytes beyond the tail: move it out of the way
                    self.fold_lines()
                    self._wipe(self.end)
        self.size = self.base + self.nbody
        return True

    def _wipe(self, used):
        """An empty tail: every sector below `used`, and any foreign bytes above, erased."""
        if used > 0:
            self._erase_sectors(used)
        dirty = self._dirty_from(0)
        while dirty >= 0:
            self.dev.ioctl(6, dirty // SECTOR)
            dirty = self._dirty_from(dirty)
        self.wpos = 0
        self.nbody = 0
        self.last = -1
        self.stale = False

    def _seal(self, used):
        """The write position; a torn last record (no newline) is made dead first."""
        page = self._read(used - PAGE)
        buf = self._page
        e = PAGE - 1
        while e >= 0 and buf[e] == 0xFF:
            e -= 1
        end = page + e + 1               # after the last programmed byte
        if buf[e] == _NL:
            return end
        # the torn record begins after the last newline before it
        start = self._header_end()
        for pos, rec in self.records(self._header_end(), end):
            start = pos + len(rec)
        self.dropped = end - start
        if end >= self.end:              # no room for its newline: cannot happen (fold first)
            return end
        self._put(start, 0)
        self._put(end, _NL)
        return end + 1

    # ------------------------------------------------------------------ reading
    def lines(self, start=0):
        if start < self.base:
            f = open(self.path, "rb")
            try:
                if start:
                    f.seek(start)
                for raw in f:
                    yield raw
            finally:
                f.close()
        off = self.base
        for _, rec in self.records():
            if rec[0] == _DOLLAR:
                if off >= start:
                    yield rec[1:]
                off += len(rec) - 1

    def crc(self, upto):
        from binascii import crc32
        c = Journal.crc(self, min(upto, self.base))
        off = self.base
        for _, rec in self.records():
            if off >= upto:
                break
            if rec[0] == _DOLLAR:
                n = len(rec) - 1
                if off + n > upto:
                    n = upto - off
                c = crc32(memoryview(rec)[1:1 + n], c)
                off += len(rec) - 1
        return c

    def mark(self):
        """(its size, the write position, the CRC-32 of journal.txt then of the tail's flash
        up to there): the flash's own bytes, read a page at a time, not its lines."""
        return self.size, self.wpos, self._flash_crc(self.wpos)

    def matches(self, offset, where, check):
        return (offset <= self.size and where <= self.wpos and offset >= self.base
                and self._flash_crc(where) == check)

    def _flash_crc(self, upto):
        from binascii import crc32
        c = Journal.crc(self, self.base)
        pos = 0
        buf = self._page
        while pos < upto:
            self._read(pos)
            n = upto - pos
            c = crc32(buf if n >= PAGE else memoryview(buf)[:n], c)
            pos += PAGE
        return c

    def last_line_start(self):
        if self.nbody:
            return self.size - self._record_len(self.last)
        return Journal.last_line_start(self)

    def _record_len(self, pos):
        for _, rec in self.records(pos):
            return len(rec) - 1
        return 0

    # ------------------------------------------------------------------ writing
    def start(self, header_lines):
        """A new journal: an empty journal.txt (made ahead by make_ready() when the last
        session ended) and the header lines as the tail's first records, all programmed
        before the tail's own "@0" line, which commits them: a power cut before it leaves
        no tail, and the boot starts the session again."""
        self.drop_stale_all()
        if self.wpos:
            self._wipe(self.wpos)
        self.make_ready()
        self.base = 0
        self.nbody = 0
        self.last = -1
        pos = self._records_run(3, header_lines)      # after "@0\n"
        self._clear_prog()
        p = self._prog
        p[0] = 64
        p[1] = 48
        self._program(0, 2)
        self._put(2, _NL)
        self.wpos = pos
        self.size = self.nbody
        self.stale = False

    def _records_run(self, pos, lines):
        """Records of `lines` from `pos` in as few programs as fit (a header: committed
        together by the tail's first line, programmed after them). Where they end."""
        self._clear_prog()
        p = self._prog
        page = pos & ~(PAGE - 1)
        for line in lines:
            n = len(line)
            if pos + n + 2 > page + 2 * PAGE:
                self.dev.writeblocks(page >> 12, self._mv, page & (SECTOR - 1))
                page = pos & ~(PAGE - 1)
                self._clear_prog()
            o = pos - page
            p[o] = _DOLLAR
            for i in range(n):
                p[o + 1 + i] = ord(line[i])
            p[o + 1 + n] = _NL
            self.last = pos
            self.nbody += n + 1
            pos += n + 2
        if pos > page:
            self.dev.writeblocks(page >> 12, self._one if pos <= page + PAGE else self._mv,
                                 page & (SECTOR - 1))
        return pos

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
        self._clear_prog()
        p = self._prog
        o = pos & (PAGE - 1)
        p[o] = _DOLLAR
        for i in range(n):
            p[o + 1 + i] = ord(line[i])
        self._program(pos, n + 1)
        self._put(pos + n + 1, _NL)
        self.wpos = pos + n + 2
        self.last = pos
        self.nbody += n + 1
        self.size += n + 1

    def _begin(self):
        """Program the header: "@N", then its newline. Where the first record goes."""
        self._clear_prog()
        p = self._prog
        p[0] = 64
        k = 1
        b = self.base
        div = 1
        while div * 10 <= b:
            div *= 10
        while div:
            p[k] = 48 + (b // div) % 10
            k += 1
            div //= 10
        self._program(0, k)
        self._put(k, _NL)
        self.stale = False
        self.nbody = 0
        self.last = -1
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
        s = (self.wpos - 1) // SECTOR
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
            self._scan()
        else:                            # journal.txt first: the tail then names a
            self._cut_main(keep)         # longer one, and a boot drops it
            self.base = keep
            self.nbody = 0
            if self.wpos:
                self.stale = True
                self.drop_stale_all()
        self.size = keep


def erase(dev):
    """Every sector of the region that holds anything, erased: no tail, no snapshot (the
    host's tools, making a fresh Pico)."""
    page = bytearray(PAGE)
    for s in range(dev.ioctl(4, 0)):
        for p in range(0, SECTOR, PAGE):
            dev.readblocks(s, page, p)
            if page != _ERASED:
                dev.ioctl(6, s)
                break
