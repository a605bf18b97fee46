# The journal on flash: every accepted event, one transcript line each (docs/TRANSCRIPT.md),
# header lines first. A line is written and flushed before its effects are shown, so after
# a power cut the controller replays the file and continues where it was.
#
# A torn tail (a last line without its newline, e.g. the power went mid-write) is cut off
# by recover(); the controller also drops a last line that does not parse or replay.
# MicroPython files have no truncate(): cutting copies the kept part to journal.tmp and
# renames it over the journal (rename is atomic on littlefs and POSIX); a journal.tmp left
# by a power cut during the copy is simply removed at the next boot.
# A finished session is kept as history/NNNN.txt (archive()).
import os

_CHUNK = 256


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


class Journal:
    def __init__(self, root=""):
        self.root = root
        self.path = root + "journal.txt"
        self.tmp = root + "journal.tmp"
        self.history = root + "history"
        self.f = None
        self.size = 0
        self.dropped = 0          # bytes of torn tail cut off by recover()

    def exists(self):
        return _exists(self.path)

    def recover(self):
        """Boot: remove a leftover tmp file, cut a torn last line. True if a journal exists."""
        if _exists(self.tmp):
            os.remove(self.tmp)
        if not self.exists():
            return False
        size, last_nl, _ = self._newlines()
        self.size = size
        keep = last_nl + 1
        if keep < size:
            self.dropped = size - keep
            self.cut(keep)
        return True

    def lines(self):
        """The journal's lines, one at a time (opened for reading)."""
        return open(self.path, "rb")

    def start(self, header_lines):
        """A new journal with these header lines."""
        self.close()
        with open(self.tmp, "w") as f:
            for line in header_lines:
                f.write(line + "\n")
        os.rename(self.tmp, self.path)
        self.size = os.stat(self.path)[6]

    def append(self, line):
        """Write one event line and flush it to flash."""
        if self.f is None:
            self.f = open(self.path, "a")
        self.f.write(line + "\n")
        self.f.flush()
        self.size += len(line) + 1

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None

    def cut(self, keep):
        """Keep only the first `keep` bytes (copy + atomic rename)."""
        self.close()
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
        self.size = keep

    def _newlines(self):
        """(file size, offset of the last newline, of the one before it); -1 for none."""
        size = 0
        last_nl = prev_nl = -1
        buf = bytearray(_CHUNK)
        with open(self.path, "rb") as f:
            while True:
                n = f.readinto(buf)
                if not n:
                    break
                for i in range(n):
                    if buf[i] == 10:
                        prev_nl = last_nl
                        last_nl = size + i
                size += n
        return size, last_nl, prev_nl

    def last_line_start(self):
        """Offset where the last line begins (the file ends with a newline)."""
        size, last_nl, prev_nl = self._newlines()
        return prev_nl + 1 if last_nl == size - 1 else last_nl + 1

    def drop_last(self):
        """Remove the last line (UNDO, or a last line that does not replay)."""
        self.cut(self.last_line_start())

    def archive(self):
        """Move the journal to history/NNNN.txt; returns that path."""
        self.close()
        if not _exists(self.history):
            os.mkdir(self.history)
        n = 0
        for name in os.listdir(self.history):
            if len(name) == 8 and name.endswith(".txt"):
                try:
                    k = int(name[:4])
                except ValueError:
                    continue
                if k > n:
                    n = k
        dest = "%s/%04d.txt" % (self.history, n + 1)
        os.rename(self.path, dest)
        self.size = 0
        return dest
