# journal.txt and the kept sessions (history/), under both journals: the file tail of
# journal.py (the stock UF2, the host) and the raw flash tail of raw_journal.py (the shoe's
# own UF2). nbody bytes of the newest lines follow journal.txt's `base` bytes (in self.body
# for the file tail; the raw tail overrides what reads them). MicroPython files have no
# truncate(): cutting journal.txt copies the kept part to journal.tmp and renames it over
# the journal (rename is atomic on littlefs and POSIX); a journal.tmp left by a power cut
# during the copy is removed at the next boot. A finished session is kept as
# history/NNNN.txt (archive(), or next_history() then archive_as() a step at a time); when
# the flash runs low the oldest history files make room (make_room()).
import os

_CHUNK = 256
RESERVE = 64 * 1024        # free flash kept for the running session (a few blocks)


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


class JournalFiles:
    def __init__(self, root, tail_max):
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
        self.newest = -1           # the newest history file's number (-1: not looked yet)

    def main_lines(self, start):
        """journal.txt's lines from byte `start` (a line's beginning)."""
        f = open(self.path, "rb")
        try:
            if start:
                f.seek(start)
            for raw in f:
                yield raw
        finally:
            f.close()

    def exists(self):
        return _exists(self.path)

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None

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

    def last_line_start(self):
        """Offset where the last line begins (the journal ends with a newline)."""
        size, last_nl, prev_nl = self._newlines()
        return prev_nl + 1 if last_nl == size - 1 else last_nl + 1

    def drop_last(self):
        """Remove the last line (UNDO, or a last line that does not replay)."""
        self.cut(self.last_line_start())

    def archive(self):
        """Move the journal to history/NNNN.txt; returns that path."""
        dest = self.next_history()
        self.fold()
        self.archive_as(dest)
        return dest

    def next_history(self):
        """The path the journal would be kept as now: history/NNNN.txt, the next number
        (the folder is listed once; pruning never removes the newest)."""
        if self.newest < 0:
            names = self._history_names()
            self.newest = int(names[-1][:4]) if names else 0
        return "%s/%04d.txt" % (self.history, self.newest + 1)

    def archive_as(self, dest):
        """journal.txt (its tail folded) renamed to `dest`, a path next_history() gave."""
        if not _exists(self.history):
            os.mkdir(self.history)
        os.rename(self.path, dest)
        self.size = self.base = 0
        self.newest = int(dest[dest.rfind("/") + 1:-4])

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
        """Remove the oldest history file (and its NNNN.* made of it) unless it is the
        only one; its path or None."""
        names = self._history_names()
        if len(names) < 2:
            return None
        path = "%s/%s" % (self.history, names[0])
        os.remove(path)
        for name in os.listdir(self.history):    # what was made of it (its standings)
            if name.startswith(names[0][:5]):
                _remove("%s/%s" % (self.history, name))
        return path
