# An NTAG213's memory as the tag mode reads and writes it, one page exchange per command
# through the tag mode's PN532 link: what a tag holds, and the pages that give it a card's
# NDEF Text record (docs/DEVICES.md's `03 LEN D1 01 PL 54 02 65 6E <text> FE`, after any
# lock/memory control TLV already on the tag), written TLV header page last and read back.
from array import array

from hardware import ndef
from game.cards import parse_card
from hardware.pn532_link import INDATA, read_params, write_params

from micropython import const


# what the InDataExchange in flight is for
_RD = const(1)
_WR = const(2)
_VF = const(3)

_MEM = const(80)        # page 2 (lock bytes), page 3 (CC), then 72 user bytes
_USER_CAP = const(64)   # NDEF bytes we are willing to read
_TORN = const(4)        # UIDs whose write was interrupted (may be overwritten)


def text_record(text):
    """The NDEF TLV for a card: 03 LEN D1 01 PL 54 02 65 6E <text> FE."""
    t = text.encode()
    n = len(t)
    return bytes((0x03, 7 + n, 0xD1, 0x01, 3 + n, 0x54, 0x02, 0x65, 0x6E)) + t + b"\xfe"


class TagImage:
    def __init__(self, owner):
        # the TagMode: _send(), and told _decide(res), _wrote_ok(), _tag_failed(why),
        # _refuse(why)
        self.owner = owner
        self.p_read = read_params()
        self.p_write = write_params()
        self.mem = bytearray(_MEM)
        self.msg = array("i", (0, 0, 0))                 # NDEF message bounds (ndef.py)
        self.txt = array("i", (0, 0))                    # text bounds
        self.data = bytearray(24)                        # pages to write, from page p0
        self.torn = bytearray(7 * _TORN)
        self.tn = 0
        self.tg = 0
        self.what = 0
        self.have = 0
        self.wn = 0                                      # pages to write (0: reading)
        self.wi = 0
        self.vi = 0
        self.p0 = 0

    def reset(self):
        self.torn[:] = bytes(7 * _TORN)
        self.tn = 0
        self.what = 0
        self.wn = 0

    def read_tag(self, tg):
        """Read the tag listed as target tg from page 2; its content goes to _decide()."""
        self.tg = tg
        self.have = 0
        self.wn = 0
        self.wi = 0
        self.vi = 0
        self.read(2)

    def read(self, page):
        p = self.p_read
        p[0] = self.tg
        p[2] = page
        self.what = _RD if self.wn == 0 else _VF
        self.owner._send(INDATA, p, 17)

    def write(self, page, k):
        p = self.p_write
        p[0] = self.tg
        p[2] = page
        d = self.data
        for i in range(4):
            p[3 + i] = d[k * 4 + i]
        self.what = _WR
        self.owner._send(INDATA, p, 1)

    def exchanged(self, r):
        """An InDataExchange answer with status OK: r = status, data."""
        what = self.what
        if what == _RD:
            m = self.mem
            h = self.have
            for i in range(16):
                if h + i < _MEM:
                    m[h + i] = r[1 + i]
            self.have = h + 16
            res = ndef.find_message(m, 8, self.have - 8, _USER_CAP, self.msg)
            if res == ndef.NEED_MORE and self.have < _MEM:
                self.read(2 + self.have // 4)
                return
            self.owner._decide(res)
        elif what == _WR:
            self.wi += 1
            if self.wi < self.wn:
                self.write(self.p0 + (self.wi + 1) % self.wn, (self.wi + 1) % self.wn)
            else:
                self.read(self.p0)           # verify
        else:
            d = self.data
            n = self.wn * 4
            o = self.vi
            for i in range(16):
                if o + i < n and r[1 + i] != d[o + i]:
                    self.owner._tag_failed("read back differs at page %d"
                                           % (self.p0 + (o + i) // 4))
                    return
            self.vi = o + 16
            if self.vi < n:
                self.read(self.p0 + self.vi // 4)
                return
            self.owner._wrote_ok()

    def content(self, res):
        """What the tag holds, from find_message's answer `res`: ("blank", None),
        ("card", code), ("text", str) or ("other", what)."""
        if res == ndef.NO_NDEF or res == ndef.EMPTY:
            return "blank", None
        if res != ndef.FOUND:
            return "other", "an NDEF message too big for a card"
        m = self.msg
        t = self.txt
        text = ndef.text_of(self.mem, 8 + m[0], 8 + m[1], t)
        if text is None:
            return "other", "an NDEF message that is not a card"
        if text == ndef.NOT_UTF8:
            return "other", "undecodable text"
        code = parse_card(text)
        if code >= 0:
            return "card", code
        return "text", text

    def is_torn(self, uid):
        t = self.torn
        for k in range(_TORN):
            for i in range(7):
                if t[k * 7 + i] != uid[i]:
                    break
            else:
                return True
        return False

    def plan_write(self, text, uid):
        """Write `text`'s record where the NDEF TLV goes, keeping the control TLV bytes
        before it in that page; refused if a page to write is locked."""
        rec = text_record(text)
        pos = self.msg[2]
        a = pos & ~3                         # first page written starts here
        n = pos - a + len(rec)
        n = (n + 3) & ~3
        d = self.data
        for i in range(len(d)):
            d[i] = 0
        for i in range(pos - a):
            d[i] = self.mem[8 + a + i]
        for i in range(len(rec)):
            d[pos - a + i] = rec[i]
        self.p0 = 4 + a // 4
        self.wn = n // 4
        # static lock bits: page 2 byte 2 bits 4..7 lock pages 4..7, byte 3 pages 8..15
        lock = (self.mem[2] >> 4) | (self.mem[3] << 4)
        for k in range(self.wn):
            pg = self.p0 + k
            if pg <= 15 and lock & (1 << (pg - 4)):
                self.wn = 0
                self.owner._refuse("has page %d locked: use tags enroll" % pg)
                return
        self.wi = 0
        self.vi = 0
        if not self.is_torn(uid):            # from now on a failure leaves it half-written
            k = self.tn % _TORN
            self.tn += 1
            self.torn[k * 7:k * 7 + 7] = uid[:7]
        # pages after the first, then the first (it holds the TLV header)
        if self.wn > 1:
            self.write(self.p0 + 1, 1)
        else:
            self.write(self.p0, 0)
