# Tag mode: write, enroll or check the deck's NFC tags with the shoe's PN532.
#
#   tm = tagmode.for_reader(reader, displays, uidmap_path="uidmap.txt")   # or TagMode(...)
#   tm.command("tags write")          # or tm.start("write" | "enroll" | "check")
#   while tm.active: line = tm.poll() # None or a "tags: ..." line for the serial port
#
# write  - blank stickered cards are placed one by one; each gets the NDEF Text record of
#          the next card in DECK ORDER: AS 2S .. TS JS QS KS, AH .. KH, AD .. KD, AC .. KC
#          (spades, hearts, diamonds, clubs; ace to king; a ten is "TS", the name the
#          displays and transcripts give it; a tag a phone app wrote "10S" reads the same). The bytes
#          are docs/DEVICES.md's `03 LEN D1 01 PL 54 02 65 6E <text> FE`, after any lock/memory
#          control TLV already on the tag. The page holding the TLV header is written last,
#          so a tag pulled away half-way still reads as blank; then every page is read back.
#          Refused (nothing written, the same card is still wanted): a tag that holds a card
#          already (which one is said), other NDEF data, a read-only or locked tag, a UID the
#          UID map gives another card. A tag holding the wanted card counts ("same").
# enroll - for read-only tags: UID -> card into the UID map, saved to `uidmap_path` after
#          every card (shoe_reader.UidMap format). Refused: a UID enrolled as another card,
#          a tag whose NDEF Text says another card or is not a card (the reader would reject it).
# check  - read a finished deck: each tag's card (NDEF Text, else the UID map), duplicates
#          (another tag with the same card), the same tag again, unknown tags; at the end the
#          missing cards. Ends when all 52 are present, after `count` tags, or on stop.
# After each tag the mode waits until that tag has left the field before taking the next.
# A failed exchange (tag pulled away, CRC...) is retried when the tag comes back, up to
# max_tries times; a tag whose write was interrupted may then be overwritten.
#
# poll() never blocks for long: at most one PN532 command round trip per call (send a
# command and read its ACK, or read a ready response), like shoe_reader. Do not poll the
# ShoeReader while a TagMode is active; afterwards it recovers by itself (a command it had
# in flight times out and is resent).
#
# Serial protocol (host -> device lines; the controller routes lines starting "tags "):
#   tags write [CARD [COUNT]]  write from CARD (deck order, default AS), COUNT cards (default:
#                              to the end of the deck)
#   tags enroll [CARD [COUNT]] the same for the UID map
#   tags check [COUNT]         check; ends by itself after COUNT tags or all 52 cards present
#   tags stop                  end the mode now (its summary is printed first)
# Device -> host: lines "tags: KIND FIELDS", fields separated by one space; UID is 14 hex
# digits (or "-"), I/N the card's place in the deck (1..52), CARD as written ("TS", "QH"):
#   tags: start MODE CARD COUNT         a mode started (check: "tags: start check - COUNT")
#   tags: place I/N CARD                write/enroll: waiting for the tag for CARD
#   tags: place K                       check: waiting for the K-th tag
#   tags: ok I/N CARD UID               written and read back / enrolled and saved
#   tags: same I/N CARD UID             already held / already enrolled as CARD: counted
#   tags: refused UID REASON...         left unchanged; the same card is still wanted
#   tags: failed UID REASON...          an exchange failed part-way; place the tag again
#   tags: card K CARD UID               check: K-th tag, CARD seen for the first time
#   tags: duplicate K CARD UID FIRSTUID check: CARD was already seen on tag FIRSTUID
#   tags: again K CARD UID              check: the same tag read again (not counted)
#   tags: unknown K UID REASON...       check: not a card (blank, other data, conflict)
#   tags: missing CARD CARD ...         check summary: cards not seen (only if any)
#   tags: summary MODE k=v k=v ...      write/enroll: ok same refused failed;
#                                       check: present duplicate again unknown missing
#   tags: done MODE | tags: stopped MODE  the last line of a run (by itself | after stop)
#   tags: error TEXT                    a bad command, busy, the reader does not answer
#   tags: idle                          answer to "tags stop" when no mode runs
from array import array

import drvtime
import ndef
from cards import card_name, parse_card
from shoe_reader import UidMap, uid_hex

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_INLIST = const(0x4A)
_INDATA = const(0x40)
_INRELEASE = const(0x52)
_RFCONFIG = const(0x32)

# phases
_OFF = const(0)
_CONFIG = const(1)      # set finite passive-activation retries
_WANT = const(2)        # waiting for a tag
_WORK = const(3)        # reading / writing the tag
_GONE = const(4)        # waiting for the tag to leave the field

# what the in-flight InDataExchange is for
_RD = const(1)
_WR = const(2)
_VF = const(3)

_MEM = const(80)        # page 2 (lock bytes), page 3 (CC), then 72 user bytes
_USER_CAP = const(64)   # NDEF bytes we are willing to read
_TORN = const(4)        # UIDs whose write was interrupted (may be overwritten)

NEED_NOTHING = const(0)
NEED_TAG = const(1)     # the operator should place a tag
NEED_WAIT = const(2)    # busy with the tag in the field
NEED_REMOVE = const(3)  # the operator should take the tag away

MODES = ("write", "enroll", "check")
SUITS = "SHDC"          # deck order of the suits; ranks ace .. king within each


def deck_card(i):
    """Card code (cards.py) of deck place i (0..51)."""
    return (i % 13) * 4 + "CDHS".find(SUITS[i // 13])


def deck_place(code):
    return SUITS.find("CDHS"[code & 3]) * 13 + (code >> 2)


def text_record(text):
    """The NDEF TLV for a card: 03 LEN D1 01 PL 54 02 65 6E <text> FE."""
    t = text.encode()
    n = len(t)
    return bytes((0x03, 7 + n, 0xD1, 0x01, 3 + n, 0x54, 0x02, 0x65, 0x6E)) + t + b"\xfe"


class TagMode:
    def __init__(self, pn532, displays=None, irq=None, i2c=None, address=0x24,
                 uidmap_path="uidmap.txt", uid_map=None, screen=-1, gone_polls=3,
                 timeout_ms=200, max_tries=3, silent_after=20):
        self.pn = pn532
        self.displays = displays
        self.irq = irq
        self._dev = None
        if irq is None:
            if i2c is None:
                raise ValueError("TagMode needs the PN532 IRQ pin (irq=) or its bus (i2c=)")
            from adafruit_bus_device.i2c_device import I2CDevice
            self._dev = I2CDevice(i2c, address, probe=False)
        self.path = uidmap_path
        self.map = uid_map
        self.reader = None                 # for_reader(): gets the map if it had none
        if displays is not None and screen < 0:
            screen = displays.n - 1        # the banker's display by default
        self.screen = screen
        self.gone_polls = gone_polls
        self.timeout_ms = timeout_ms
        self.max_tries = max_tries
        self.silent_after = silent_after
        self._st = bytearray(1)
        self._p_cfg = bytes((0x05, 0xFF, 0x01, 0x01))   # MxRtyPassiveActivation 1
        self._p_list = bytes((2, 0x00))                  # MaxTg 2, 106 kbps type A
        self._p_rel = bytes((0,))
        self._p_read = bytearray(3)                      # Tg, READ, page
        self._p_write = bytearray(7)                     # Tg, WRITE, page, 4 bytes
        self._mem = bytearray(_MEM)
        self._msg = array("i", (0, 0, 0))                # NDEF message bounds (ndef.py)
        self._txt = array("i", (0, 0))                   # text bounds
        self._data = bytearray(24)                       # pages to write, from page _p0
        self._uid = bytearray(10)
        self._torn = bytearray(7 * _TORN)
        self._q = []
        self._lines = ["", "", "", ""]
        self.mode = None
        self.phase = _OFF
        self.active = False
        self.done = False
        self._seen = None                                # check: counts per card code
        self._first = None                               # check: first UID per card code
        self._cmd = 0

    # --- public API
    def command(self, line):
        """Handle one serial line "tags ..."; the answers come out of poll()."""
        w = line.split()
        if not w or w[0] != "tags":
            self._out("error not a tags command: " + line.strip())
            return
        if len(w) == 2 and w[1] == "stop":
            self.stop()
            return
        if len(w) < 2 or w[1] not in MODES:
            self._out("error unknown tags command: " + line.strip())
            return
        first = 0
        count = -1
        args = w[2:]
        if w[1] != "check" and args:
            c = parse_card(args[0])
            if c < 0:
                self._out("error not a card: " + args[0])
                return
            first = deck_place(c)
            args = args[1:]
        if len(args) > 1:
            self._out("error too many arguments: " + line.strip())
            return
        if args:
            try:
                count = int(args[0])
            except ValueError:
                count = 0
            if count < 1:
                self._out("error not a count: " + args[0])
                return
        self.start(w[1], first, count)

    def start(self, mode, first=0, count=-1):
        """Start "write", "enroll" or "check" from deck place `first` (0 = AS) for `count`
        cards (-1: to the end of the deck; check: until all 52 are present)."""
        if self.active:
            self._out("error busy: %s is running (send tags stop first)" % self.mode)
            return False
        if mode not in MODES:
            self._out("error unknown mode " + mode)
            return False
        if not self._load_map(mode == "enroll"):
            return False
        self.mode = mode
        self.first = first
        self.place = first
        if mode == "check":
            self.end = count
            self._seen = bytearray(52)
            self._first = bytearray(7 * 52)
            self.k = 0
            self.stats = {"present": 0, "duplicate": 0, "again": 0, "unknown": 0}
        else:
            self.end = 52 if count < 0 else min(52, first + count)
            self.stats = {"ok": 0, "same": 0, "refused": 0, "failed": 0}
        self.active = True
        self.done = False
        self._torn[:] = bytes(7 * _TORN)
        self._tn = 0
        self._tries = 0
        self._fails = 0
        self._silent = False
        self._cmd = 0
        self._what = 0
        self._wn = 0
        self._ulen = 0
        self._rel = False
        self._two = False
        self._last = ""
        self.phase = _CONFIG
        if mode == "check":
            self._out("start check - %s" % ("52" if count < 0 else count))
        else:
            self._out("start %s %s %d" % (mode, card_name(deck_card(first)), self.end - first))
        self._want()
        return True

    def stop(self):
        if not self.active:
            self._out("idle")
            return
        self._finish("stopped")

    @property
    def need(self):
        """What the operator should do now: NEED_TAG, NEED_WAIT, NEED_REMOVE, NEED_NOTHING."""
        p = self.phase
        if p == _WANT or p == _CONFIG:
            return NEED_TAG
        if p == _WORK:
            return NEED_WAIT
        if p == _GONE:
            return NEED_REMOVE
        return NEED_NOTHING

    def poll(self):
        """One step; returns None or one "tags: ..." line."""
        if self._q:
            return self._q.pop(0)
        if self.active:
            drvtime.rebase()
            if self._cmd == 0:
                self._next()
            elif not self._ready():
                if drvtime.ticks_diff(drvtime.ticks_ms(), self._t0) > self.timeout_ms:
                    self._failed_cmd()
            else:
                try:
                    r = self.pn.process_response(self._cmd, response_length=self._rlen,
                                                 timeout=0.01)
                except (OSError, RuntimeError):
                    r = None
                if r is None:
                    self._failed_cmd()
                else:
                    self._fails = 0
                    self._silent = False
                    cmd = self._cmd
                    self._cmd = 0
                    self._response(cmd, r)
        if self._q:
            return self._q.pop(0)
        return None

    # --- output
    def _out(self, text):
        self._q.append("tags: " + text)

    def _show(self, prompt):
        d = self.displays
        if d is None or self.mode is None:
            return
        ln = self._lines
        if self.mode == "check":
            ln[0] = "Check %d/52" % self.stats["present"]
        elif self.place < self.end:
            ln[0] = "%s %d/52: %s" % ("Write" if self.mode == "write" else "Enroll",
                                      self.place + 1, card_name(deck_card(self.place)))
        else:
            ln[0] = "%s: all done" % ("Write" if self.mode == "write" else "Enroll")
        ln[1] = prompt
        ln[2] = self._last[:21]
        ln[3] = self._last[21:42]
        try:
            d.show(self.screen, ln, 0)
        except OSError:                      # a display fault must not stop the tags
            pass

    def _want(self):
        self._two = False
        if self.mode == "check":
            self._out("place %d" % (self.k + 1))
            self._show("place the next card")
        else:
            self._out("place %d/52 %s" % (self.place + 1, card_name(deck_card(self.place))))
            self._show("place a blank card" if self.mode == "write" else "place the card")

    def _gone(self):
        self.phase = _GONE
        self._miss = 0
        self._show("remove the card")

    def _finish(self, how):
        st = self.stats
        if self.mode == "check":
            miss = []
            for i in range(52):
                if not self._seen[deck_card(i)]:
                    miss.append(card_name(deck_card(i)))
            if miss:
                self._out("missing " + " ".join(miss))
            st["missing"] = len(miss)
            keys = ("present", "duplicate", "again", "unknown", "missing")
        else:
            keys = ("ok", "same", "refused", "failed")
        self._out("summary %s %s" % (self.mode, " ".join("%s=%d" % (k, st[k]) for k in keys)))
        self._out("%s %s" % (how, self.mode))
        self._last = "%s: %s" % (how, " ".join("%s %d" % (k, st[k]) for k in keys[:2]))
        self._show("done" if how == "done" else "stopped")
        self.active = False
        self.done = True
        self.phase = _OFF
        self._seen = self._first = None
        # a command still in flight is simply abandoned: the reader's next command aborts it
        self._cmd = 0

    def _complete(self):
        if self.mode == "check":
            return self.stats["present"] == 52 or 0 < self.end <= self.k
        return self.place >= self.end

    # --- UID map
    def _load_map(self, need_file):
        if self.map is not None:
            return True
        m = UidMap()
        try:
            m.load(self.path)
        except OSError:
            pass                             # no file yet: an empty map
        except ValueError as e:
            self._out("error %s: %s" % (self.path, e))
            return False
        self.map = m
        return True

    def _save_map(self):
        tmp = self.path + ".new"
        self.map.save(tmp)
        import os
        try:
            os.rename(tmp, self.path)
        except OSError:                      # a filesystem that will not rename over a file
            try:
                os.remove(self.path)
            except OSError:
                pass
            os.rename(tmp, self.path)

    # --- bus steps
    def _ready(self):
        if self.irq is not None:
            return self.irq.value() == 0
        try:
            with self._dev as d:
                d.readinto(self._st)
        except OSError:
            return False
        return self._st[0] == 0x01

    def _send(self, cmd, params, rlen):
        self._cmd = cmd
        self._rlen = rlen
        self._t0 = drvtime.ticks_ms()
        try:
            ok = self.pn.send_command(cmd, params, timeout=0.01)
        except (OSError, RuntimeError):
            ok = False
        if not ok:
            self._failed_cmd()

    def _next(self):
        p = self.phase
        if p == _CONFIG:
            self._send(_RFCONFIG, self._p_cfg, 0)
        elif self._rel:
            self._send(_INRELEASE, self._p_rel, 1)
        elif p == _WANT or p == _GONE:
            self._send(_INLIST, self._p_list, 31)
        # _WORK always has an exchange in flight

    def _failed_cmd(self):
        cmd = self._cmd
        self._cmd = 0
        self._fails += 1
        if self._fails >= self.silent_after and not self._silent:
            self._silent = True
            self._out("error the PN532 does not answer")
        if cmd == _INDATA and self.phase == _WORK:
            self._tag_failed("no answer from the PN532")
        # list, release, config: simply sent again by _next()

    def _response(self, cmd, r):
        if cmd == _RFCONFIG:
            self.phase = _WANT
        elif cmd == _INRELEASE:
            self._rel = False
        elif cmd == _INLIST:
            self._listed(r)
        elif cmd == _INDATA:
            if len(r) < 1 or r[0] & 0x3F:
                st = r[0] & 0x3F if len(r) else 0xFF
                self._tag_failed("status %02X%s" % (st, " (tag left the field?)"
                                                    if st == 1 else ""))
            else:
                self._exchanged(r)

    # --- detection
    def _listed(self, r):
        nb = r[0] if len(r) else 0
        if nb:
            self._rel = True                 # release before the next list (7-byte UIDs)
        if self.phase == _GONE:
            o = 1
            here = False
            for _ in range(nb):
                if o + 5 > len(r):
                    break
                ln = r[o + 4]
                if ln == self._ulen and self._same_uid(r, o + 5):
                    here = True
                o += 5 + ln
            if here:
                self._miss = 0
            else:
                self._miss += 1
                if self._miss >= self.gone_polls:
                    if self._complete():
                        self._finish("done")
                    else:
                        self.phase = _WANT
                        self._want()
            return
        if nb == 0:
            self._two = False
            return
        if nb > 1:
            if not self._two:
                self._two = True
                self._out("refused - two tags in the field: one card at a time")
                self._last = "two tags: one at a time"
                self._show("one card at a time")
            return
        self._two = False
        ln = r[5] if len(r) > 5 else 0
        if len(r) < 6 + ln or ln > 10:
            return
        if ln != self._ulen or not self._same_uid(r, 6):
            self._tries = 0                  # another tag than the one that failed
        self._ulen = ln
        for i in range(ln):
            self._uid[i] = r[6 + i]
        self._tg = r[1]
        if ln != 7:
            self._refuse("is not an NTAG (UID of %d bytes)" % ln)
            return
        self.phase = _WORK
        self._rel = False                    # keep the target selected while working
        self._have = 0
        self._wn = 0
        self._wi = 0
        self._vi = 0
        self._show("hold still...")
        self._read(2)

    def _same_uid(self, r, o):
        for i in range(self._ulen):
            if r[o + i] != self._uid[i]:
                return False
        return True

    def _uidhex(self):
        return "".join("%02X" % self._uid[i] for i in range(self._ulen))

    # --- exchanges with the tag
    def _read(self, page):
        p = self._p_read
        p[0] = self._tg
        p[1] = 0x30
        p[2] = page
        self._what = _RD if self._wn == 0 else _VF
        self._send(_INDATA, p, 17)

    def _write(self, page, k):
        p = self._p_write
        p[0] = self._tg
        p[1] = 0xA2
        p[2] = page
        d = self._data
        for i in range(4):
            p[3 + i] = d[k * 4 + i]
        self._what = _WR
        self._send(_INDATA, p, 1)

    def _exchanged(self, r):
        what = self._what
        if what == _RD:
            m = self._mem
            h = self._have
            for i in range(16):
                if h + i < _MEM:
                    m[h + i] = r[1 + i]
            self._have = h + 16
            res = ndef.find_message(m, 8, self._have - 8, _USER_CAP, self._msg)
            if res == ndef.NEED_MORE and self._have < _MEM:
                self._read(2 + self._have // 4)
                return
            self._decide(res)
        elif what == _WR:
            self._wi += 1
            if self._wi < self._wn:
                self._write(self._p0 + (self._wi + 1) % self._wn, (self._wi + 1) % self._wn)
            else:
                self._read(self._p0)         # verify
        else:
            d = self._data
            n = self._wn * 4
            o = self._vi
            for i in range(16):
                if o + i < n and r[1 + i] != d[o + i]:
                    self._tag_failed("read back differs at page %d" % (self._p0 + (o + i) // 4))
                    return
            self._vi = o + 16
            if self._vi < n:
                self._read(self._p0 + self._vi // 4)
                return
            self._wrote_ok()

    def _content(self, res):
        """(kind, value): ("blank", None), ("card", code), ("text", str), ("other", text)."""
        if res == ndef.NO_NDEF or res == ndef.EMPTY:
            return "blank", None
        if res != ndef.FOUND:
            return "other", "an NDEF message too big for a card"
        m = self._msg
        t = self._txt
        if not ndef.find_text(self._mem, 8 + m[0], 8 + m[1], t):
            return "other", "an NDEF message that is not a card"
        try:
            text = bytes(self._mem[t[0]:t[1]]).decode().strip()
        except (UnicodeError, ValueError):
            return "other", "undecodable text"
        code = parse_card(text)
        if code >= 0:
            return "card", code
        return "text", text

    def _is_torn(self):
        t = self._torn
        for k in range(_TORN):
            for i in range(7):
                if t[k * 7 + i] != self._uid[i]:
                    break
            else:
                return True
        return False

    def _mark_torn(self):
        if self._is_torn():
            return
        k = self._tn % _TORN
        self._tn += 1
        self._torn[k * 7:k * 7 + 7] = self._uid[:7]

    # --- decisions
    def _decide(self, res):
        kind, val = self._content(res)
        if self.mode == "check":
            self._check(kind, val)
            return
        want = deck_card(self.place)
        name = card_name(want)
        mapped = self.map.lookup(self._uid) if self.map is not None else -1
        if kind == "card" and val != want:
            self._refuse("holds %s (card %d of the deck)" % (card_name(val), deck_place(val) + 1))
            return
        if mapped >= 0 and mapped != want:
            self._refuse("is enrolled as %s in the UID map" % card_name(mapped))
            return
        if self.mode == "enroll":
            if kind == "text":
                self._refuse("says %r, not a card: the reader would reject it" % val)
                return
            if mapped == want:
                self._counted("same", name)
                return
            self.map.add(bytes(self._uid[:7]), want)
            try:
                self._save_map()
            except OSError as e:
                self._out("error saving %s: %s" % (self.path, e))
            if self.reader is not None and self.reader.map is None:
                self.reader.map = self.map
            self._counted("ok", name)
            return
        # write
        if kind == "card":                   # the wanted card, complete
            self._counted("ok" if self._is_torn() else "same", name)
            return
        if kind != "blank" and not self._is_torn():
            self._refuse("holds %s; erase it first" % (("text %r" % val) if kind == "text"
                                                         else val))
            return
        m = self._mem
        if m[4] != 0xE1:
            self._refuse("is not NDEF-formatted (CC %02X%02X%02X%02X)"
                         % (m[4], m[5], m[6], m[7]))
            return
        if m[7] & 0x0F:
            self._refuse("is read-only (CC access %02X): use tags enroll" % m[7])
            return
        self._plan_write(card_name(want))

    def _plan_write(self, text):
        rec = text_record(text)
        pos = self._msg[2]                   # where the card's NDEF TLV goes
        a = pos & ~3                         # first page written starts here
        n = pos - a + len(rec)
        n = (n + 3) & ~3
        d = self._data
        for i in range(len(d)):
            d[i] = 0
        for i in range(pos - a):
            d[i] = self._mem[8 + a + i]      # keep the control TLV bytes in that page
        for i in range(len(rec)):
            d[pos - a + i] = rec[i]
        self._p0 = 4 + a // 4
        self._wn = n // 4
        # static lock bits: page 2 byte 2 bits 4..7 lock pages 4..7, byte 3 pages 8..15
        lock = (self._mem[2] >> 4) | (self._mem[3] << 4)
        for k in range(self._wn):
            pg = self._p0 + k
            if pg <= 15 and lock & (1 << (pg - 4)):
                self._wn = 0
                self._refuse("has page %d locked: use tags enroll" % pg)
                return
        self._wi = 0
        self._vi = 0
        self._mark_torn()                    # from now on a failure leaves it half-written
        # pages after the first, then the first (it holds the TLV header)
        if self._wn > 1:
            self._write(self._p0 + 1, 1)
        else:
            self._write(self._p0, 0)

    def _wrote_ok(self):
        self._counted("ok", card_name(deck_card(self.place)))

    def _counted(self, how, name):
        self.stats[how] += 1
        self._tries = 0
        self._out("%s %d/52 %s %s" % (how, self.place + 1, name, self._uidhex()))
        self._last = "%d %s %s" % (self.place + 1, name, "ok" if how == "ok" else "was done")
        self.place += 1
        self._release_and_wait()

    def _refuse(self, why):
        if self.mode != "check":
            self.stats["refused"] += 1
        self._tries = 0
        self._out("refused %s %s" % (self._uidhex(), why))
        self._last = "refused: " + why
        self._release_and_wait()

    def _tag_failed(self, why):
        self._tries += 1
        stage = ("read", "write", "verify")[self._what - 1] if self._what else "read"
        self._rel = True
        self._wn = 0
        if self._tries >= self.max_tries:
            self._tries = 0
            if self.mode != "check":
                self.stats["failed"] += 1
            self._out("failed %s %s: %s; giving up on this tag" % (self._uidhex(), stage, why))
            self._last = "failed: " + why
            self._gone()
            return
        self._out("failed %s %s: %s; place it again" % (self._uidhex(), stage, why))
        self._last = "%s failed: place again" % stage
        self.phase = _WANT
        self._want()

    def _release_and_wait(self):
        self._rel = True
        self._wn = 0
        self._gone()

    # --- check
    def _check(self, kind, val):
        self.k += 1
        k = self.k
        uid = self._uidhex()
        mapped = self.map.lookup(self._uid) if self.map is not None else -1
        st = self.stats
        if kind == "card" and mapped >= 0 and mapped != val:
            st["unknown"] += 1
            self._out("unknown %d %s says %s but the UID map says %s"
                      % (k, uid, card_name(val), card_name(mapped)))
            self._last = "%d conflict %s/%s" % (k, card_name(val), card_name(mapped))
        elif kind != "card" and (kind == "text" or mapped < 0):
            st["unknown"] += 1
            if kind == "text":
                why = "says %r, not a card" % val
            elif kind == "blank":
                why = "has no card record and is not in the UID map"
            else:
                why = "holds %s and is not in the UID map" % val
            self._out("unknown %d %s %s" % (k, uid, why))
            self._last = "%d unknown tag" % k
        else:
            code = val if kind == "card" else mapped
            name = card_name(code)
            f = self._first
            if self._seen[code]:
                same = True
                for i in range(7):
                    if f[code * 7 + i] != self._uid[i]:
                        same = False
                        break
                if same:
                    st["again"] += 1
                    self._out("again %d %s %s" % (k, name, uid))
                    self._last = "%d %s again" % (k, name)
                else:
                    st["duplicate"] += 1
                    self._out("duplicate %d %s %s %s"
                              % (k, name, uid, uid_hex(f[code * 7:code * 7 + 7])))
                    self._last = "%d %s DUPLICATE" % (k, name)
            else:
                self._seen[code] = 1
                f[code * 7:code * 7 + 7] = self._uid[:7]
                st["present"] += 1
                self._out("card %d %s %s" % (k, name, uid))
                self._last = "%d %s ok" % (k, name)
        self._tries = 0
        self._release_and_wait()


def for_reader(reader, displays=None, **kw):
    """A TagMode on the shoe reader's PN532 and IRQ pin, sharing its UID map (cards enrolled
    are known to the reader at once). Do not poll the reader while the TagMode is active."""
    if "irq" not in kw:
        kw["irq"] = reader.irq
    if "uid_map" not in kw:
        kw["uid_map"] = reader.map
    tm = TagMode(reader.pn, displays, **kw)
    tm.reader = reader
    return tm
