# The seal: SHA-256 over the session's journal, its lines fed in order from the header's
# first line, each with its newline -- exactly the bytes of the history file it is kept
# as, so the seal of history/NNNN.txt is also the first 8 hex digits of `sha256sum`. SHA-256
# chains its 64-byte blocks itself: the digest of the whole is the last link, and a change
# to any byte of any line changes it.
#
# One running hash object a session: update() allocates nothing (a card's path stays
# allocation-free), but its state cannot be saved or taken back. So whatever rebuilds the
# engine from the journal (a boot, UNDO, a refused write) drops it, and the whole journal is
# fed again: after a boot a few lines at a time in the loop's quiet moments (catch_up_some:
# not between power-on and the displays drawn, and never a long blind moment for the
# reader), else whole when the seal is taken. Each slice reads from where the last one
# stopped, in the journal's bytes (a fold between two moves no line's place in them); a
# line journaled meanwhile is in the journal, so the slices read it too.
# digest() finalises the object: the seal is taken once, when the session ends.
import hashlib
from binascii import hexlify

DIGITS = 8                      # hex digits shown: "seal 3F9A 21C7"

try:
    hashlib.sha256().update("")
    _TEXT = True                # MicroPython hashes a str's bytes as they are
except TypeError:
    _TEXT = False               # CPython wants bytes


class Seal:
    def __init__(self):
        self.h = None           # the running hash (None: to be fed from the journal)
        self.text = ""          # the seal, once taken ("3F9A 21C7")
        self._feed = None       # the hash catch_up_some() feeds (self.h once all are in)
        self._at = 0            # the journal's bytes it has been fed

    def start(self, header_lines):
        """A new session: its header lines (as the journal writes them)."""
        self.abandon()
        self.text = ""
        self.h = hashlib.sha256()
        for line in header_lines:
            self.add(line)

    def add(self, line):
        """One line journaled (a str, without its newline)."""
        h = self.h
        if h is not None:
            h.update(line if _TEXT else line.encode())
            h.update(b"\n")

    def drop(self):
        """The engine was rebuilt from the journal: the hash follows it at catch_up()."""
        self.abandon()
        self.h = None
        self.text = ""

    def behind(self):
        """The running hash is still to be fed from the journal."""
        return self.h is None and not self.text

    def catch_up_some(self, journal, n):
        """Up to n more of the journal's lines fed to the hash (a quiet moment's slice):
        True once they are all in and the running hash follows the journal again."""
        if self._feed is None:
            self._feed = hashlib.sha256()
            self._at = 0
        f = journal.lines(self._at)
        try:
            for raw in f:
                self._feed.update(raw)
                self._at += len(raw)
                n -= 1
                if not n:
                    return False
        finally:
            f.close()
        self.h, self._feed = self._feed, None
        return True

    def abandon(self):
        """The slices start again from the first line (the engine rebuilt, a new session)."""
        self._feed = None

    def catch_up(self, journal):
        """The running hash fed again from the journal's lines (bytes with newlines)."""
        self.abandon()
        if self.h is None and not self.text:
            self.h = hashlib.sha256()
            f = journal.lines()
            try:
                for raw in f:
                    self.h.update(raw)
            finally:
                f.close()

    def take(self, journal):
        """The session's seal ("3F9A 21C7"), taken once: the running hash is final."""
        if not self.text:
            self.catch_up(journal)
            self.text = short(self.h.digest())
            self.h = None
        return self.text


def short(digest):
    """The first DIGITS hex digits of a digest, upper case, in two groups of four."""
    x = hexlify(digest[:DIGITS // 2]).decode().upper()
    return x[:4] + " " + x[4:]


def of_lines(lines):
    """The seal of a file's lines (bytes, newlines kept), as the shoe takes it."""
    h = hashlib.sha256()
    for raw in lines:
        h.update(raw)
    return short(h.digest())
