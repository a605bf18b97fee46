# The shoe reader: the PN532 (unchanged adafruit_pn532 driver) as a stream of card events.
#
# poll() never blocks for long: each call does at most one command round trip (send a
# command and read its ACK, or read a ready response and send the next command); while the
# chip is busy it returns None after one IRQ-pin read (or one 1-byte status read).
# It returns None, a card code (int, cards.py) or ANOMALY, whose kind and "kind: text" line
# are the reader's `anomaly_kind` and `anomaly` until the next anomaly.
# Speed (tools/bench_reader.py, README "The reader at dealing speed"): the PN532 retries
# activation by itself until a tag answers, answers are read exactly as long as they are
# (pn532_link.py), a card is reported before its target is
# released, and wait() lets the idle controller wake on the IRQ pin (tools/bench_reader.py
# measures how soon a card is known). urgent() tells the controller
# to hold its display pages back while a card is being read.
#
# Card identity: the tag's NDEF Text record ("QH", "TS", "10S"; TLVs are walked, so a lock
# control TLV first is fine), else the UID map (blank tags). Anything else is an anomaly.
# Reporting: a card is reported once, as soon as it has been read (low latency while
# dealing). Two new tags at once is an anomaly (no guess); a new tag next to one already
# reported (the next card creeping in) is read normally. A read that fails half-way is
# retried; a card that leaves before it could be read gives an "unread" anomaly.
# Reader state that outlives a card, and its life (host_tests/controller/test_app_deck.py
# plays each against a deck whose stickers never change):
#   a slot (the card in the field)   until `gone_polls` listings miss it, or _EMPTY_MS of an
#                                    empty field: while it lies there it is one card
#   the last UID reported            until another card is reported, or rearm(): the
#                                    table calls it whenever it takes anything but a card
#                                    (a shuffle, a stake, a press, an UNDO, a new session).
#                                    Till then that card back in the field is the card
#                                    just dealt, waved again: one card, not reported
#   the hold (settling)              _HOLD_MS at most after a card is reported
#   the release (_RELEASING)         the next poll's round trip; then listening again
#   ignore_field()                   until the field has been empty once
#
#   the stickers known               from the card's first read till ignore_field() (after
#                                    a tag-mode run or the shoe's check) or power-off: a
#                                    card read once is named by its UID, no READ again
#
# UID map file ("uidmap.txt"): one "<14 hex digits UID> <card>" per line, '#' comments,
# e.g. "04A1B2C3D4E5F6 QH". Loaded into a sorted bytearray of 8-byte records.
import sys
from array import array

from . import drvtime
from . import ndef
from game.cards import CODES, card_name, parse_card
from .pn532_link import INDATA, INLIST, INRELEASE, RELEASE_ALL, TARGET, Link, list_params, \
    list_targets, read_params, retries_params, uid_hex

from micropython import const


_IDLE = const(0)
_LISTING = const(1)
_READING = const(2)
_RELEASING = const(3)
_RELEASE_PUT_OFF = const(4)   # a card was reported: its release waits for the next poll
_RESEND = const(16)           # step + _RESEND: that step failed, send it again

# slot states
_FREE = const(0)
_PENDING = const(1)      # in the field, not read yet
_DONE = const(2)         # reported
_SUPPRESSED = const(3)   # anomaly raised; ignored until it leaves

_LIST_ONE = const(13)    # InListPassiveTarget answer: NbTg, Tg ATQA(2) SAK UIDlen UID(7)
_NDEF_CAP = const(64)    # bytes of user memory we are willing to read for a card record
# MxRtyPassiveActivation FF: the PN532 keeps trying to activate a tag until one answers, so
# a tag entering the field is found by the chip's next attempt, never waiting for the host.
# An empty field then gives no answer at all: _EMPTY_MS of silence counts as an empty
# listing in which every card that was in the field has gone, and every
# list_timeout_ms a status read (which aborts nothing) proves the chip is still there.
_PASSIVE_RETRIES = const(0xFF)
# poll(hold=True) keeps the release after a reported card waiting this long at most (the
# card's own display goes first; a next card is then found by a listing that starts later)
_HOLD_MS = const(20)
_EMPTY_MS = const(15)     # longer than a listing of two tags (docs/DEVICES.md)
_SAID = const(12)         # a tag's text quoted in a not-a-card anomaly: so much fits a display

ANOMALY = const(-1)       # poll()'s answer when the reader has something to say, not a card

TWO_TAGS = "two-tags"
UNKNOWN_TAG = "unknown-tag"
NOT_A_CARD = "not-a-card"
UNREAD = "unread"
READ_FAILED = "read-failed"
CONFLICT = "conflict"
READER_SILENT = "reader-silent"


if sys.implementation.name != "micropython":  # CPython: the viper functions run as Python
    from game.native_shim import micropython, ptr8  # noqa: F401


# Byte loops on a card's way in, as machine code (each a Python loop otherwise, on every
# card: a UID compared or copied, a READ's data copied)
@micropython.viper
def _same(a: ptr8, ao: int, b: ptr8, bo: int, n: int) -> bool:
    for i in range(n):
        if a[ao + i] != b[bo + i]:
            return False
    return True


# The stickers known: one 6-byte place a card code, holding UID bytes 1..6 of the
# first sticker read as that card since power-on (byte 0 is NXP's 0x04, an NTAG213's
# maker; another maker's sticker is not remembered); an empty place is zeros. A second
# pack's copy of a card is read each time.
_NXP = const(0x04)
_PLACE = const(6)


@micropython.viper
def _known_card(known: ptr8, codes: int, uid: ptr8, o: int) -> int:
    # the card code whose place holds uid[o:o + 7], or -1
    if uid[o] != _NXP:
        return -1
    for code in range(codes):
        r = code * _PLACE
        i = 0
        while i < _PLACE and known[r + i] == uid[o + 1 + i]:
            i += 1
        if i == _PLACE:
            return code
    return -1


@micropython.viper
def _learn(known: ptr8, codes: int, code: int, uid: ptr8, o: int):
    # uid[o:o + 7] into the place of `code` if it is free (and there are places)
    if code >= codes:
        return
    r = code * _PLACE
    taken = 0
    blank = 0
    for i in range(_PLACE):
        taken |= known[r + i]
        blank |= uid[o + 1 + i]
    if taken == 0 and blank != 0 and uid[o] == _NXP:
        for i in range(_PLACE):
            known[r + i] = uid[o + 1 + i]


@micropython.viper
def _zero(buf: ptr8, n: int):
    for i in range(n):
        buf[i] = 0


@micropython.viper
def _copy(dst: ptr8, do: int, src: ptr8, so: int, n: int):
    for i in range(n):
        dst[do + i] = src[so + i]


class ShoeReader:
    def __init__(self, pn532, i2c=None, irq=None, uid_map=None, address=0x24, gone_polls=3,
                 max_retries=3, timeout_ms=150, passive_retries=_PASSIVE_RETRIES,
                 silent_after=20, max_targets=2, list_timeout_ms=100, known=CODES):
        self.pn = pn532
        self.irq = irq                        # PN532 IRQ pin (active low), machine.Pin-like
        self.map = uid_map
        self.gone_polls = gone_polls
        self.max_retries = max_retries
        self.timeout_ms = timeout_ms
        self.link = Link(pn532, irq, i2c or pn532._i2c.i2c, address,
                         rx=10 + max(17, 1 + 12 * max_targets),    # the longest answer
                         silent_after=silent_after)
        self._p_list = list_params(max_targets)
        self.list_timeout_ms = list_timeout_ms
        self._p_read = read_params()
        self._ndef = bytearray(_NDEF_CAP)
        self._have = 0
        # two slots: UID, state, misses, retries
        self._uid = bytearray(14)
        self._state = bytearray(2)
        self._miss = bytearray(2)
        self._tries = bytearray(2)
        self._last = bytearray(7)
        self._known = bytearray(_PLACE * known)  # the stickers known of `known` codes
        self._has_last = self._ignore = False    # _ignore: ignore_field(), till it is empty
        self._resp = bytearray(2 * TARGET)       # listed targets (pn532_link.list_targets)
        self._q = array("b", (0, 0, 0, 0))       # event ring: card codes, or ANOMALY whose
        self._said = [None, None, None, None]    # (kind, line) is here
        self.anomaly = ""                        # the last anomaly popped: "kind: text"
        self.anomaly_kind = ""                   # and its kind (TWO_TAGS, UNREAD, ...)
        self._qh = self._qn = 0                  # the ring's head and length
        self._step = _IDLE
        self._quiet = 0                          # ms of a listing already counted as empty
        self._alive = 0                          # ms of a listing when it was last checked
        self._silence = False
        self._none = bytes(1)                    # an empty InListPassiveTarget answer
        self._slot = self._tg = 0                # the slot being read, its target number
        self._msg = array("i", (0, 0, 0))           # NDEF message bounds in _ndef (ndef.py)
        self._txt = array("i", (0, 0))              # text bounds
        self.polls = 0
        self.max_gap_ms = 0                      # longest time between two polls
        self._polled = -1                        # ticks_ms of the last poll (-1: none yet)
        self._reported = -1                      # ticks_ms of a reported card (-1: none)
        self.retries = self.timeouts = self.cards = self.anomalies = 0     # counters
        self._cfg = retries_params(passive_retries)
        self.doctor = None                       # faults.Faults: resets a silent chip
        if not self.link.configure(self._cfg):
            raise RuntimeError("PN532 did not accept RFConfiguration")

    # --- events
    def _emit(self, code):
        if self._qn < 4:                         # (a full ring drops the newest)
            self._q[(self._qh + self._qn) & 3] = code
            self._qn += 1
        self.cards = drvtime.count_up(self.cards)

    def _anomaly(self, kind, text):
        if self._qn < 4:
            i = (self._qh + self._qn) & 3
            self._q[i] = ANOMALY
            self._said[i] = (kind, kind + ": " + text)
            self._qn += 1
        self.anomalies = drvtime.count_up(self.anomalies)

    def _pop(self):
        h = self._qh
        code = self._q[h]
        if code == ANOMALY:
            self.anomaly_kind, self.anomaly = self._said[h]
            self._said[h] = None
        self._qh = (h + 1) & 3
        self._qn -= 1
        return code

    def rearm(self):
        """Forget the last reported UID: it is reported again (a shuffle, a press: app.py)."""
        self._has_last = False

    def unwatched(self):
        """Not watched till the next poll (the table takes no cards): no gap (max_gap_ms)."""
        self._polled = -1

    def ignore_field(self):
        """The tags in the field now are ignored until it has been empty (the last card of a
        tag-mode run, still on it); the stickers known are forgotten (records may be new)."""
        _zero(self._known, len(self._known))
        self._ignore = True
        self._polled = -1                # the tag mode had the reader: not a gap
        self._step = _IDLE               # whatever was in flight was aborted meanwhile
        self.link.configure(self._cfg)   # the tag mode set its own retry count
        for s in range(2):
            if self._state[s] != _FREE:
                self._state[s] = _SUPPRESSED

    def wait(self, seconds):
        """Sleep up to `seconds`, waking as soon as the PN532 has a frame ready."""
        self.link.wait(seconds, self._step == _LISTING)

    def urgent(self, short=False):
        """True while a card is being read, a response waits or the chip is not listening
        yet (after a card: its release, the next listing): display redraws wait, so that the
        next card is found while the last is shown; never for a reader that does not answer.
        A `short` piece of other work goes while the chip works on a READ or a release."""
        step = self._step
        if short and (step == _READING or step == _RELEASING) and self.irq is not None and \
                not (self._qn or self.link.full or self.link.ready()):
            return False
        if self._qn or step == _READING or self.link.full:     # (full: a frame asked again)
            return True
        if step != _LISTING:
            return not self.link.silent
        if self.irq is not None and self.irq.value() == 0:
            return True
        return self._state[0] == _PENDING or self._state[1] == _PENDING

    def settling(self):
        """True while the reader is on its way back to listening after a card it reported,
        its release held back (poll(hold), _HOLD_MS at most): the card's own display may go
        first, as a card entering now is found by the listing that follows."""
        step = self._step
        return not self._qn and not self.link.full and self._reported >= 0 and (
            step == _RELEASING or step == _RELEASE_PUT_OFF or step == _RELEASING + _RESEND) and \
            drvtime.ticks_diff(drvtime.ticks_ms(), self._reported) < _HOLD_MS

    # --- bus steps
    def _send(self, cmd, params, step):
        self._reported = self._reported if step == _RELEASING else -1   # (its listing next)
        self._step = step
        self._quiet = 0
        self._alive = 0
        n = _LIST_ONE if cmd == INLIST else (17 if cmd == INDATA else 1)
        if not self.link.send(cmd, params, n):
            self._failed()

    def _failed(self):
        # a command got no ACK, a response was garbled or never came: redo the step
        self.retries = drvtime.count_up(self.retries)
        doc = self.doctor
        if doc is not None:
            doc.reader_failed()
        if self.link.failed():
            if doc is None:
                self._anomaly(READER_SILENT, "the PN532 does not answer")
            else:
                doc.reader_silent(self)
                return
        self._step = _IDLE if self._step == _LISTING else self._step + _RESEND

    def _looked(self):
        t = drvtime.ticks_ms()
        gap = drvtime.ticks_diff(t, self._polled)
        if self._polled >= 0 and gap > self.max_gap_ms:
            self.max_gap_ms = gap
        self._polled = t

    def service(self):
        """poll()'s bus work for an answer that is waiting, without taking an event, inside
        the controller's longer passes (between a display's lines and its pages, after a
        journal write): a card's READ goes out while it is in the field; poll() takes it."""
        step = self._step
        # a release's answer waits for poll(): the pass may be drawing the card's display
        if self.irq is None or self._qn or step >= _RESEND or step == _IDLE or \
                step == _RELEASING or step == _RELEASE_PUT_OFF:
            return
        self._looked()
        if self.link.ready():
            self._work()

    def poll(self, hold=False):
        """The next event or None; `hold`: a card's release waits (its display goes first)."""
        self.polls = drvtime.count_up(self.polls)
        self._looked()
        if self._qn:
            return self._pop()
        if hold and self.settling():
            return None
        self._work()
        if self._qn:
            return self._pop()
        return None

    def _work(self):
        drvtime.rebase()
        step = self._step
        if step >= _RESEND:                                # resend after a failure
            step -= _RESEND
            if step == _READING:
                self._send(INDATA, self._p_read, _READING)
            elif step == _RELEASING:
                self._send(INRELEASE, RELEASE_ALL, _RELEASING)
            else:
                self._send(INLIST, self._p_list, _LISTING)
            return
        if step == _IDLE:
            self._send(INLIST, self._p_list, _LISTING)
            return
        if step == _RELEASE_PUT_OFF:
            self._send(INRELEASE, RELEASE_ALL, _RELEASING)
            return
        lk = self.link
        waited = lk.waiting()
        if waited >= 0:
            if step == _LISTING:
                if waited >= self._quiet + _EMPTY_MS:
                    self._quiet += _EMPTY_MS
                    self._listed(self._none, 0, 1, False)    # silence: the field is empty
                if waited > self._alive + self.list_timeout_ms:
                    self._alive += self.list_timeout_ms
                    if not lk.answers():
                        self._failed()
            elif waited > self.timeout_ms:
                self.timeouts = drvtime.count_up(self.timeouts)
                self._failed()
            return
        n = lk.receive()
        if n >= 0:
            if step == _LISTING:
                self._listed(lk.rx, 8, 8 + n)
            elif step == _READING:
                self._read_done(lk.rx, 8, 8 + n)
            else:                                 # released: listen again at once
                self._send(INLIST, self._p_list, _LISTING)
        elif n == -1:
            self._failed()
        else:
            # asked again (two targets listed): waiting for that frame is not a silent
            # field, which would drop the card still in it and call it new with the next
            self._quiet = 0
            self._alive = 0

    # --- detection
    def _slot_of(self, uid, o):
        for s in range(2):
            if self._state[s] != _FREE and _same(self._uid, s * 7, uid, o, 7):
                return s
        return -1

    def _drop(self, s):
        if self._state[s] == _PENDING:
            self._anomaly(UNREAD, "tag %s left the field before it could be read"
                          % uid_hex(self._uid[s * 7:s * 7 + 7]))
        self._state[s] = _FREE

    def _listed(self, r, o, end, answered=True):
        """An InListPassiveTarget answer: r[o:end] after the response code."""
        self._silence = not answered
        nb = r[o] if end > o else 0
        rs = self._resp
        n = list_targets(r, o, end, rs, 2, 7)
        if n < nb:
            # a target that is not an NTAG (UID length other than 7): not a card
            self._anomaly(UNKNOWN_TAG, "a tag that is not an NTAG213 card is in the field")
        # which slots were seen
        seen0 = seen1 = False
        new = -1
        newcount = 0
        for i in range(n):
            s = self._slot_of(rs, i * TARGET + 2)
            if s == 0:
                seen0 = True
            elif s == 1:
                seen1 = True
            else:
                newcount += 1
                new = i
        self._age(0, seen0, newcount)
        self._age(1, seen1, newcount)
        if self._ignore:
            if n == 0:
                self._ignore = False
            elif newcount:
                for i in range(n):
                    if self._slot_of(rs, i * TARGET + 2) < 0:
                        self._take(i, _SUPPRESSED)
                newcount = 0
        if newcount == 2:
            self._anomaly(TWO_TAGS, "two new cards in the field at once (%s, %s)"
                          % (uid_hex(rs[2:9]), uid_hex(rs[TARGET + 2:TARGET + 9])))
            for i in range(2):
                self._take(i, _SUPPRESSED)
        elif newcount == 1:
            s = self._take(new, _PENDING)
            if self._has_last and self._slot_of_last(s):
                self._state[s] = _DONE       # the card reported last, back in the field
            else:
                code = _known_card(self._known, len(self._known) // _PLACE, self._uid, s * 7)
                if code >= 0:                # read before: no READ, its release put off
                    self._state[s] = _DONE
                    _copy(self._last, 0, self._uid, s * 7, 7)
                    self._has_last = True
                    self._emit(code)
                    self._step = _RELEASE_PUT_OFF
                    self._reported = drvtime.ticks_ms()
                    return
        if n == 0:
            if answered:                                    # (finite retries: "no tag")
                self._send(INLIST, self._p_list, _LISTING)     # listen again at once
            return
        # read a pending tag that is listed, else release and poll again
        for i in range(n):
            s = self._slot_of(rs, i * TARGET + 2)
            if s >= 0 and self._state[s] == _PENDING:
                self._start_read(s, rs[i * TARGET])
                return
        self._send(INRELEASE, RELEASE_ALL, _RELEASING)

    def _age(self, s, seen, newcount):
        if self._state[s] != _FREE:
            if seen:
                self._miss[s] = 0
            else:
                self._miss[s] += 1
                # _EMPTY_MS of silence: a reported card has surely gone; one still to be
                # read gets gone_polls such silences to come back
                if self._miss[s] >= self.gone_polls or newcount or \
                        (self._silence and self._state[s] != _PENDING):
                    self._drop(s)

    def _slot_of_last(self, s):
        return _same(self._uid, s * 7, self._last, 0, 7)

    def _take(self, i, state):
        s = 0 if self._state[0] == _FREE else 1
        if self._state[s] != _FREE:
            self._drop(s)
        _copy(self._uid, s * 7, self._resp, i * TARGET + 2, 7)
        self._state[s] = state
        self._miss[s] = 0
        self._tries[s] = 0
        return s

    # --- reading
    def _start_read(self, s, tg):
        self._slot = s
        self._tg = tg
        self._have = 0
        self._read_page(4)

    def _read_page(self, page):
        p = self._p_read
        p[0] = self._tg
        p[2] = page
        self._send(INDATA, p, _READING)

    def _read_done(self, r, o, end):
        """An InDataExchange READ answer: r[o:end] = status, then four pages."""
        s = self._slot
        if end - o < 17 or r[o] & 0x3F:
            # timeout (tag left), CRC, ... : never use the data; detect again and retry
            self._tries[s] += 1
            self.retries = drvtime.count_up(self.retries)
            if self._tries[s] > self.max_retries:
                self._state[s] = _SUPPRESSED
                self._anomaly(READ_FAILED, "tag %s could not be read (%d tries)"
                              % (uid_hex(self._uid[s * 7:s * 7 + 7]), self._tries[s]))
            self._send(INRELEASE, RELEASE_ALL, _RELEASING)
            return
        _copy(self._ndef, self._have, r, o + 1, 16)
        self._have += 16
        res = ndef.find_message(self._ndef, 0, self._have, _NDEF_CAP, self._msg)
        if res == ndef.NEED_MORE and self._have < _NDEF_CAP:
            self._read_page(4 + self._have // 4)
            return
        self._resolve(s, res)
        # the card goes out with this poll; the release's round trip waits for the next one
        self._step = _RELEASE_PUT_OFF
        self._reported = drvtime.ticks_ms()

    def _resolve(self, s, res):
        uid = self._uid[s * 7:s * 7 + 7]
        code = -1
        text = None
        if res == ndef.FOUND:
            text = ndef.text_of(self._ndef, self._msg[0], self._msg[1], self._txt)
        if text is not None:
            code = parse_card(text)
            if code < 0:
                self._state[s] = _SUPPRESSED
                self._anomaly(NOT_A_CARD, "tag %s says %r, not a card"
                              % (uid_hex(uid), text[:_SAID]))
                return
        mapped = self.map.lookup(uid) if self.map is not None else -1
        if code >= 0 and mapped >= 0 and mapped != code:
            self._state[s] = _SUPPRESSED
            self._anomaly(CONFLICT, "tag %s says %s but the UID map says %s"
                          % (uid_hex(uid), card_name(code), card_name(mapped)))
            return
        if code < 0:
            code = mapped
        if code < 0:
            self._state[s] = _SUPPRESSED
            self._anomaly(UNKNOWN_TAG, "tag %s has no card record and is not in the UID map"
                          % uid_hex(uid))
            return
        _learn(self._known, len(self._known) // _PLACE, code, self._uid, s * 7)
        self._state[s] = _DONE
        _copy(self._last, 0, self._uid, s * 7, 7)
        self._has_last = True
        self._emit(code)
