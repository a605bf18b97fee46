# The journal on flash: every accepted event, one transcript line each (docs/TRANSCRIPT.md),
# header lines first. A line is written and flushed before its effects are shown, so after
# a power cut the controller replays the journal and continues where it was.
#
# Two files make one journal, because appending to a littlefs file is expensive: every
# flushed append copies the file's last block into a freshly erased one (45 ms of stalled
# CPU on the Pico's flash). So the newest lines go to a small tail file, jtail/lines.txt,
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
# controller also drops a last line that does not parse or replay. MicroPython files have
# no truncate(): cutting journal.txt copies the kept part to journal.tmp and renames it over
# the journal (rename is atomic on littlefs and POSIX); a journal.tmp left by a power cut
# during the copy is removed at the next boot. A line in the tail is cut by rewriting the
# tail. A finished session is kept as history/NNNN.txt (archive()); when the flash runs
# low the oldest history files make room (make_room()).
import os

_CHUNK = 256
TAIL_MAX = 480             # tail file bytes: under littlefs' inline limit (512 on the Pico)
RESERVE = 64 * 1024        # free flash kept for the running session (a few 4 KB blocks)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


class Journal:
    def __init__(self, root="", tail_max=TAIL_MAX):
        self.root = root
        self.path = root + "journal.txt"
        self.tmp = root + "journal.tmp"
        self.tail_dir = root + "jtail"
        self.tail_path = root + "jtail/lines.txt"
        self.history = root + "history"
        self.f = None              # the tail file, open for appending
        self.base = 0              # journal.txt's size (where the tail's lines begin)
        self.body = bytearray(tail_max)   # the tail's lines, also kept here (no re-read)
        self.nbody = 0
        self.size = 0              # the whole journal: base + nbody
        self.dropped = 0           # bytes of torn tail cut off by recover()
        self.stale = False         # the tail file's lines are all in journal.txt already

    def exists(self):
        return _exists(self.path)

    # ------------------------------------------------------------------ boot
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
            f = open(self.path, "rb")
            try:
                if start:
                    f.seek(start)
                for raw in f:
                    yield raw
            finally:
                f.close()
        body = self.body
        n = self.nbody
        i = start - self.base if start > self.base else 0
        while i < n:
            j = _find_nl(body, i, n)
            j = n if j < 0 else j + 1
            yield bytes(body[i:j])
            i = j

    # ------------------------------------------------------------------ writing
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

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None

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

    # ------------------------------------------------------------------ cutting
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

    def _cut_main(self, keep):
        """journal.txt's first `keep` bytes (copy + atomic rename)."""
        buf = bytearray(_CHUNK)
        left = keep
        with open(self.path, "rb") as src:
            with open(self.tmp, "wb") as dst:
                while left > 0:
                    n = src.readinto(buf)
                    if not n:
                        break
                    if n > left:
                        n = left
                    dst.write(memoryview(buf)[:n])
                    left -= n
        os.rename(self.tmp, self.path)

    def _newlines(self):
        """(journal size, offset of the last newline, of the one before it); -1 for none.
        Looked for from the end (the tail in memory, then journal.txt a chunk at a time
        backwards): a boot does not read the whole journal byte by byte for two newlines."""
        size = os.stat(self.path)[6]
        found = [-1, -1]                 # last, the one before
        body = self.body
        i = self.nbody - 1
        while i >= 0 and found[1] < 0:
            if body[i] == 10:
                found[0 if found[0] < 0 else 1] = size + i
            i -= 1
        if found[1] < 0 and size:
            buf = bytearray(_CHUNK)
            mv = memoryview(buf)
            pos = size
            with open(self.path, "rb") as f:
                while pos > 0 and found[1] < 0:
                    start = pos - _CHUNK if pos > _CHUNK else 0
                    n = pos - start
                    f.seek(start)
                    f.readinto(mv[:n])
                    i = n - 1
                    while i >= 0:
                        if buf[i] == 10:
                            if found[0] < 0:
                                found[0] = start + i
                            else:
                                found[1] = start + i
                                break
                        i -= 1
                    pos = start
        return size + self.nbody, found[0], found[1]

    def crc(self, upto):
        """CRC-32 of the journal's first `upto` bytes (journal.txt, then the tail)."""
        from binascii import crc32
        c = 0
        left = min(upto, self.base)
        if left > 0:
            buf = bytearray(_CHUNK)
            mv = memoryview(buf)
            with open(self.path, "rb") as f:
                while left > 0:
                    n = f.readinto(buf)
                    if not n:
                        break
                    n = min(n, left)
                    c = crc32(mv[:n], c)
                    left -= n
        if upto > self.base:
            c = crc32(memoryview(self.body)[:min(self.nbody, upto - self.base)], c)
        return c

    def mark(self):
        """(its size, 0, its CRC-32): what a snapshot taken now checks the journal by."""
        return self.size, 0, self.crc(self.size)

    def matches(self, offset, where, check):
        """The journal still begins with the bytes a snapshot's mark() was taken of."""
        return offset <= self.size and self.crc(offset) == check

    def last_line_start(self):
        """Offset where the last line begins (the journal ends with a newline)."""
        size, last_nl, prev_nl = self._newlines()
        return prev_nl + 1 if last_nl == size - 1 else last_nl + 1

    def drop_last(self):
        """Remove the last line (UNDO, or a last line that does not replay)."""
        self.cut(self.last_line_start())

    # ------------------------------------------------------------------ history
    def archive(self):
        """Move the journal to history/NNNN.txt; returns that path."""
        dest = self.next_history()
        self.fold()
        self.archive_as(dest)
        return dest

    def next_history(self):
        """The path the journal would be kept as now: history/NNNN.txt, the next number."""
        names = self._history_names()
        n = int(names[-1][:4]) if names else 0
        return "%s/%04d.txt" % (self.history, n + 1)

    def archive_as(self, dest):
        """journal.txt (its tail folded) renamed to `dest`, a path next_history() gave."""
        if not _exists(self.history):
            os.mkdir(self.history)
        os.rename(self.path, dest)
        self.size = self.base = 0

    def make_ready(self):
        """Work a new session's start() can be spared, done ahead (nothing for files)."""
        return False

    def _history_names(self):
        """history/NNNN.txt names, oldest first."""
        out = []
        try:
            names = os.listdir(self.history)
        except OSError:
            return out
        for name in names:
            if len(name) == 8 and name.endswith(".txt"):
                try:
                    int(name[:4])
                except ValueError:
                    continue
                out.append(name)
        out.sort()
        return out

    def free_bytes(self):
        """Free flash where the journal lives (-1: unknown)."""
        try:
            st = os.statvfs(self.root or "/")
        except (OSError, AttributeError):
            return -1
        return st[0] * st[3]

    def make_room(self, reserve=RESERVE):
        """Remove the oldest history files until `reserve` bytes are free (never the
        newest one, never the journal). Returns the removed paths."""
        removed = []
        while True:
            free = self.free_bytes()
            if free < 0 or free >= reserve:
                break
            path = self.prune_oldest()
            if path is None:
                break
            removed.append(path)
        return removed

    def prune_oldest(self):
        """Remove the oldest history file unless it is the only one; its path or None."""
        names = self._history_names()
        if len(names) < 2:
            return None
        path = "%s/%s" % (self.history, names[0])
        os.remove(path)
        return path


def _find_nl(buf, i, n):
    while i < n:
        if buf[i] == 10:
            return i
        i += 1
    return -1
