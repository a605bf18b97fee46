# The UID map: for tags that carry no card record, UID -> card code, as sorted 8-byte
# records (7 UID bytes, code) in one bytearray (settings.txt: uid_map = uidmap.txt;
# docs/CONTROLLER.md). Imported only by a table that has a map and by the tag mode.
from game.cards import CODES, card_name, parse_card
from .pn532_link import uid_hex


class UidMap:
    """UID -> card code, as sorted 8-byte records (7 UID bytes, code) in one bytearray."""

    def __init__(self, capacity=64):
        self.buf = bytearray(8 * capacity)
        self.n = 0

    def _cmp(self, i, uid):
        b = self.buf
        o = i * 8
        for k in range(7):
            d = b[o + k] - uid[k]
            if d:
                return d
        return 0

    def _find(self, uid):
        lo, hi = 0, self.n
        while lo < hi:
            mid = (lo + hi) >> 1
            if self._cmp(mid, uid) < 0:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def lookup(self, uid):
        """Card code for a 7-byte UID, or -1. Allocates nothing."""
        i = self._find(uid)
        if i < self.n and self._cmp(i, uid) == 0:
            return self.buf[i * 8 + 7]
        return -1

    def add(self, uid, code):
        if len(uid) != 7 or not 0 <= code < CODES:
            raise ValueError("7-byte UID and a card code")
        i = self._find(uid)
        b = self.buf
        if i < self.n and self._cmp(i, uid) == 0:
            b[i * 8 + 7] = code
            return
        if 8 * (self.n + 1) > len(b):
            nb = bytearray(len(b) * 2 or 64)
            nb[:len(b)] = b
            self.buf = b = nb
        b[8 * (i + 1):8 * (self.n + 1)] = b[8 * i:8 * self.n]
        b[8 * i:8 * i + 7] = uid
        b[8 * i + 7] = code
        self.n += 1

    def load(self, path):
        with open(path) as f:
            for line in f:
                line = line.split("#")[0].strip()
                if not line:
                    continue
                parts = line.split()
                if len(parts) != 2 or len(parts[0]) != 14:
                    raise ValueError("bad uid map line: " + line)
                code = parse_card(parts[1])
                if code < 0:
                    raise ValueError("not a card: " + parts[1])
                uid = bytes(int(parts[0][i:i + 2], 16) for i in range(0, 14, 2))
                self.add(uid, code)
        return self

    def save(self, path):
        with open(path, "w") as f:
            f.write("# shoe UID map: <uid hex> <card>\n")
            for i in range(self.n):
                o = i * 8
                f.write("%s %s\n" % (uid_hex(self.buf[o:o + 7]), card_name(self.buf[o + 7])))

    def replace(self, path):
        """save(path) through a temporary file, so a reset never leaves half a map."""
        tmp = path + ".new"
        self.save(tmp)
        import os
        try:
            os.rename(tmp, path)
        except OSError:                      # a filesystem that will not rename over a file
            try:
                os.remove(path)
            except OSError:
                pass
            os.rename(tmp, path)
