# A boot's work on the journal's raw tail (raw_journal.py), in a module of its own that the
# journal lets go once the boot is done (its functions would otherwise stay on the heap):
# the tail found, a torn last record sealed (its first byte zeroed, then a newline after its
# last programmed byte: both programs redone if the power goes again), a tail a completed
# fold left (stale) or foreign bytes (a Pico that ran other firmware) erased. Also erase(),
# for the host's tools.
import os
import sys

from . import forget
from .journal_files import _exists, _remove
from .raw_journal import _ERASED, _NL, PAGE, SECTOR

_JOURNAL = __name__.rpartition(".")[0] + ".journal"


def recover(j):
    """True if a journal exists (RawJournal.recover)."""
    j.close()
    j.stale = False
    j.nbody = 0
    j.dropped = 0
    if _exists(j.tail_path):             # a tail file left by the stock UF2's journal
        had = _JOURNAL in sys.modules
        from .journal import Journal
        old = Journal(j.root)
        old.recover()
        old.fold()
        if not had:                      # (a boot's code: let go again)
            forget(_JOURNAL)
    _remove(j.tmp)
    used = _used(j)
    if not j.exists():
        _wipe(j, used)
        return False
    j.base = os.stat(j.path)[6]
    base = _header_base(j) if used else -1
    if base < 0 or j.base < base:
        _wipe(j, used)                   # torn header, foreign bytes, another journal's tail
    else:
        j.wpos = _seal(j, used)
        j.scan()
        if j.base >= base + j.nbody and (j.nbody or j.base > base):
            _wipe(j, used)               # a fold that completed: the tail is stale
            j.base = os.stat(j.path)[6]
        else:
            if j.base > base:            # a torn fold (host file systems): undo it
                j._cut_main(base)
                j.base = base
            if _dirty_from(j, (j.wpos + PAGE - 1) & ~(PAGE - 1)) >= 0:
                j.fold_lines()           # foreign bytes beyond the tail: out of their way
                _wipe(j, j.end)
    j.size = j.base + j.nbody
    return True


def _used(j):
    """Bytes from the region's start to the end of its last page that is not erased (pages
    are written in order, so the first erased page ends what was written)."""
    pos = 0
    while pos < j.end:
        j._read(pos)
        if j.page == _ERASED:
            break
        pos += PAGE
    return pos


def _dirty_from(j, pos):
    """The first page at or after `pos` (a page start) that is not erased; -1: none."""
    while pos < j.end:
        j._read(pos)
        if j.page != _ERASED:
            return pos
        pos += PAGE
    return -1


def _wipe(j, used):
    """An empty tail: every sector below `used` erased, the first one last, and any foreign
    bytes above."""
    s = (used - 1) // SECTOR
    while s >= 0:
        j.dev.ioctl(6, s)
        s -= 1
    dirty = _dirty_from(j, 0)
    while dirty >= 0:
        j.dev.ioctl(6, dirty // SECTOR)
        dirty = _dirty_from(j, dirty)
    j.wpos = 0
    j.hend = 0
    j.nbody = 0
    j.last = -1
    j.stale = False


def _header_base(j):
    """N of the tail's "@N\n" (-1: no such line), and j.hend after it."""
    j._read(0)
    buf = j.page
    k = buf.find(b"\n", 0, 16)
    if buf[0] != 64 or k < 2:
        return -1
    for i in range(1, k):
        if not 48 <= buf[i] <= 57:
            return -1
    j.hend = k + 1
    return int(bytes(buf[1:k]))


def _seal(j, used):
    """The write position; a torn last record (no newline) is made dead first."""
    page = j._read(used - PAGE)
    buf = j.page
    e = PAGE - 1
    while e >= 0 and buf[e] == 0xFF:
        e -= 1
    end = page + e + 1                   # after the last programmed byte
    if buf[e] == _NL:
        return end
    start = j.hend                       # the torn record begins after the last newline
    for pos, rec in j.records(j.hend, end):
        start = pos + len(rec)
    j.dropped = end - start
    if end >= j.end:                     # no room for its newline (a full tail is folded
        return end                       # before it gets there)
    j._put(start, 0)
    j._put(end, _NL)
    return end + 1


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

