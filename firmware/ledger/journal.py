# The journal on flash: every accepted event, one transcript line each (docs/TRANSCRIPT.md),
# header lines first. A line is written and flushed before its effects are shown, so after
# a power cut the controller replays the journal and continues where it was.
#
# Two files make one journal, because appending to a littlefs file is expensive: every
# flushed append copies the file's last block into a freshly erased one (an erase stalls
# the CPU). So the newest lines go to a small tail file, jtail/lines.txt,
# that littlefs keeps inline in its directory's metadata log: a flush there programs a
# page or two and erases a block only when that log fills (about one flush in ten), and the
# directory holds nothing else, so its compaction is small. The tail's first line is
# "@N": journal.txt's size when the tail began. While the table waits for a player
# (fold()) the tail is appended to journal.txt in one write and then removed, each half on
# a loop pass of its own (fold_lines(), drop_stale()); littlefs commits a file's new size
# atomically, so at boot journal.txt is either N bytes (fold not done: the tail counts) or
# N + the tail's length (done: the tail is stale and removed). On a host a torn fold is
# cut back to N.
#
# A torn last line (no newline: the power went mid-write) is cut off by recover(); the
# controller also drops a last line that does not parse or replay. A line in the tail is
# cut by rewriting the tail. journal.txt and the history: journal_files.py.
import os

from .journal_files import JournalFiles, _exists, _remove

TAIL_MAX = 480             # tail file bytes: under littlefs' inline limit (512 on the Pico)


class Journal(JournalFiles):
    def __init__(self, root=""):
        JournalFiles.__init__(self, root, TAIL_MAX)

    def mark(self):
        """(its size, 0, its CRC-32): what a snapshot taken now checks the journal by."""
        return self.size, 0, self.crc(self.size)

    def matches(self, offset, where, check):
        """The journal still begins with the bytes a snapshot's mark() was taken of."""
        return offset <= self.size and self.crc(offset) == check

    def make_ready(self):
        """Work a new session's start() can be spared, done ahead (nothing for files)."""
        return False

    def recover(self):
        """Boot: settle an interrupted fold or cut, cut a torn last line. True if a
        journal exists."""
        self.close()
        _remove(self.tmp)
        self.nbody = 0
        self.stale = False
        if not self.exists():
            _remove(self.tail_path)
            return False
        self.base = os.stat(self.path)[6]
        self._load_tail()
        self.size = self.base + self.nbody
        size, last_nl, _ = self._newlines()
        keep = last_nl + 1
        if keep < size:
            self.dropped = size - keep
            self.cut(keep)
        return True

    def _load_tail(self):
        try:
            f = open(self.tail_path, "rb")
        except OSError:
            return
        with f:
            head = f.readline()
            n = f.readinto(self.body) or 0
        try:
            base = int(head[1:]) if head[:1] == b"@" and head[-1:] == b"\n" else -1
        except ValueError:
            base = -1
        size = self.base
        if base < 0 or size < base or size >= base + n:
            # unreadable head (torn creation), a tail of another journal, or a fold
            # that completed: the tail adds nothing
            _remove(self.tail_path)
            return
        if size > base:                  # a torn fold (a host file system): undo it
            self.nbody = 0
            self._cut_main(base)
            self.base = base
        self.nbody = n

    def lines(self, start=0):
        """The journal's lines from byte `start` (a line's beginning), one at a time (close()
        it when done)."""
        if start < self.base:
            yield from self.main_lines(start)
        body = self.body
        n = self.nbody
        i = start - self.base if start > self.base else 0
        while i < n:
            j = _find_nl(body, i, n)
            j = n if j < 0 else j + 1
            yield bytes(body[i:j])
            i = j

    def start(self, header_lines):
        """A new journal with these header lines (the old one was archived or is empty)."""
        self.close()
        _remove(self.tail_path)
        self.nbody = 0
        self.stale = False
        with open(self.tmp, "w") as f:
            for line in header_lines:
                f.write(line + "\n")
        os.rename(self.tmp, self.path)
        self.base = self.size = os.stat(self.path)[6]

    def append(self, line):
        """Write one event line to the tail and flush it to flash."""
        n = len(line) + 1
        if self.nbody + n + 12 > TAIL_MAX:
            self.fold()
        f = self.f
        if f is None:
            if self.nbody == 0:
                if not _exists(self.tail_dir):
                    os.mkdir(self.tail_dir)
                f = open(self.tail_path, "w")    # (replaces a stale tail in one commit)
                f.write("@%d\n" % self.base)
                self.stale = False
            else:
                f = open(self.tail_path, "a")
            self.f = f
        try:
            f.write(line)
            f.write("\n")
            f.flush()
        except OSError:
            self.close()
            self._write_tail(self.nbody)   # the tail as it was before this line
            raise
        body = self.body
        k = self.nbody
        for i in range(n - 1):
            body[k + i] = ord(line[i])
        body[k + n - 1] = 10
        self.nbody = k + n
        self.size += n

    def fold(self):
        """Move the tail's lines into journal.txt and remove the tail file."""
        self.fold_lines()
        self.drop_stale()

    def fold_lines(self):
        """The first half of a fold (an erase or two), for a loop that serves its reader
        between the halves: the tail's lines appended to journal.txt. The tail file stays,
        stale (a boot that finds it so removes it), until drop_stale() or the next line,
        which takes its place."""
        if self.nbody == 0:
            return
        self.close()
        with open(self.path, "ab") as f:
            f.write(memoryview(self.body)[:self.nbody])
        self.base += self.nbody
        self.nbody = 0
        self.stale = True

    def drop_stale(self):
        """The second half: the stale tail file removed."""
        if self.stale:
            self.close()
            _remove(self.tail_path)
            self.stale = False

    def fold_pending(self):
        """Lines in the tail to fold into journal.txt when the table allows."""
        return self.nbody > 0

    def snapshot_ok(self):
        """A snapshot is taken with the tail folded (it covers journal.txt alone)."""
        return self.nbody == 0

    def _write_tail(self, n):
        """The tail file holding the first n bytes of the body (none: no file)."""
        self.close()
        self.stale = False
        if n == 0:
            _remove(self.tail_path)
        else:
            with open(self.tail_path, "wb") as f:
                f.write(("@%d\n" % self.base).encode())
                f.write(memoryview(self.body)[:n])
        self.nbody = n

    def cut(self, keep):
        """Keep only the journal's first `keep` bytes."""
        self.close()
        if keep >= self.base:
            self._write_tail(keep - self.base)
        else:
            self._write_tail(0)
            self._cut_main(keep)
            self.base = keep
        self.size = keep

def _find_nl(buf, i, n):
    while i < n:
        if buf[i] == 10:
            return i
        i += 1
    return -1
