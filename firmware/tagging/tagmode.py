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
#          every card (uid_map.UidMap format). Refused: a UID enrolled as another card,
#          a tag whose NDEF Text says another card or is not a card (the reader would reject it).
# check  - read a finished deck: each tag's card (NDEF Text, else the UID map), duplicates
#          (another tag with the same card), the same tag again, unknown tags; at the end the
#          missing cards. Ends when all 52 are present, after `count` tags, or on stop.
# Packs: a deck of P packs (C1, C4: two from 8 participants) is P x 52 places, pack after
# pack in deck order; a card's stickers say the same in every pack (the engine counts
# copies; the reader tells them apart by UID). write/enroll refuse a tag already done in
# this run (a first pack's card put back among the second's); check wants every card on P
# different tags (a card on more is a duplicate). P is the table's (its engine's packs) or
# the command's "packs P".
# After each tag the mode waits until that tag has left the field before taking the next.
# A failed exchange (tag pulled away, CRC...) is retried when the tag comes back, up to
# max_tries times; a tag whose write was interrupted may then be overwritten.
#
# poll() never blocks for long: at most one PN532 command round trip per call (send a
# command and read its ACK, or read a ready response; pn532_link.py). Do not poll the
# ShoeReader while a TagMode is active; afterwards it recovers by itself (a command it had
# in flight times out and is resent).
#
# Serial protocol (host -> device lines; the controller routes lines starting "tags "):
#   tags write [CARD [COUNT]] [packs P]  write from CARD (deck order, default AS), COUNT
#                              cards (default: to the end of the deck's last pack)
#   tags enroll [CARD [COUNT]] [packs P] the same for the UID map
#   tags check [COUNT] [packs P]  check; ends by itself after COUNT tags or every card
#                              present (P times)
#   tags stop                  end the mode now (its summary is printed first)
# Device -> host: lines "tags: KIND FIELDS", fields separated by one space; UID is 14 hex
# digits (or "-"), I/N the card's place in the deck (1..N, N = 52 x packs), CARD as
# written ("TS", "QH"):
#   tags: start MODE CARD COUNT         a mode started (check: "tags: start check - COUNT")
#   tags: place I/N CARD                write/enroll: waiting for the tag for CARD
#   tags: place K                       check: waiting for the K-th tag
#   tags: ok I/N CARD UID               written and read back / enrolled and saved
#   tags: same I/N CARD UID             already held / already enrolled as CARD: counted
#   tags: refused UID REASON...         left unchanged; the same card is still wanted
#   tags: failed UID REASON...          an exchange failed part-way; place the tag again
#   tags: card K CARD UID [copy J/P]    check: K-th tag, CARD seen for the first time (for
#                                       the J-th time of P, in a deck of P packs)
#   tags: duplicate K CARD UID FIRSTUID check: CARD was already seen on tag FIRSTUID (on as
#                                       many tags as the deck has packs)
#   tags: again K CARD UID              check: the same tag read again (not counted)
#   tags: unknown K UID REASON...       check: not a card (blank, other data, conflict)
#   tags: missing CARD CARD ...         check summary: cards not seen (only if any; "ASx2":
#                                       missing from two packs)
#   tags: summary MODE k=v k=v ...      write/enroll: ok same refused failed;
#                                       check: present duplicate again unknown missing
#   tags: done MODE | tags: stopped MODE  the last line of a run (by itself | after stop)
#   tags: error TEXT                    a bad command, busy, the reader does not answer
#   tags: idle                          answer to "tags stop" when no mode runs
from hardware import drvtime
from game.cards import card_name, parse_card
from hardware.pn532_link import INDATA, INLIST, INRELEASE, RELEASE_ALL, RFCONFIG, TARGET, Link, \
    list_params, list_targets, retries_params, uid_hex
from hardware.uid_map import UidMap
from .tag_deck import SUITS, DeckCheck, DoneTags, deck_card, deck_place, place_name  # noqa
from .tag_image import TagImage, text_record  # noqa: F401  (public here too)

from micropython import const


# phases
_OFF = const(0)
_CONFIG = const(1)      # set finite passive-activation retries
_WANT = const(2)        # waiting for a tag
_WORK = const(3)        # reading / writing the tag
_GONE = const(4)        # waiting for the tag to leave the field

_NEED_NOTHING = const(0)
NEED_TAG = const(1)     # the operator should place a tag
_NEED_WAIT = const(2)    # busy with the tag in the field
NEED_REMOVE = const(3)  # the operator should take the tag away

MODES = ("write", "enroll", "check")


def parse_command(line):
    """A serial line "tags ..." as (mode, first deck place, count or -1), ("stop", 0, 0),
    or the text of a "tags: error" line."""
    w = line.split()
    if not w or w[0] != "tags":
        return "error not a tags command: " + line.strip()
    if len(w) == 2 and w[1] == "stop":
        return "stop", 0, 0, 0
    if len(w) < 2 or w[1] not in MODES:
        return "error unknown tags command: " + line.strip()
    first = 0
    count = -1
    packs = 0                            # 0: the table's
    args = w[2:]
    if len(args) >= 2 and args[-2] == "packs":
        if args[-1] not in ("1", "2", "3", "4", "5", "6", "7", "8"):
            return "error packs must be 1 to 8, not " + args[-1]
        packs = int(args[-1])
        args = args[:-2]
    if w[1] != "check" and args:
        c = parse_card(args[0])
        if c < 0:
            return "error not a card: " + args[0]
        first = deck_place(c)
        args = args[1:]
    if len(args) > 1:
        return "error too many arguments: " + line.strip()
    if args:
        try:
            count = int(args[0])
        except ValueError:
            count = 0
        if count < 1:
            return "error not a count: " + args[0]
    return w[1], first, count, packs


class TagMode:
    def __init__(self, pn532, displays=None, irq=None, i2c=None, address=0x24,
                 uidmap_path="uidmap.txt", uid_map=None, screen=-1, gone_polls=3,
                 timeout_ms=200, max_tries=3, silent_after=20):
        self.pn = pn532
        self.displays = displays
        self.irq = irq
        if irq is None and i2c is None:
            raise ValueError("TagMode needs the PN532 IRQ pin (irq=) or its bus (i2c=)")
        # readiness from the IRQ pin, else from the status byte on the bus
        self.link = Link(pn532, irq, i2c if irq is None else None, address,
                         silent_after=silent_after)
        self.path = uidmap_path
        self.map = uid_map
        self.reader = None                 # for_reader(): gets the map if it had none
        if displays is not None and screen < 0:
            screen = displays.n - 1        # the banker's display by default
        self.screen = screen
        self.gone_polls = gone_polls
        self.timeout_ms = timeout_ms
        self.max_tries = max_tries
        self._p_cfg = retries_params(1)
        self._p_list = list_params(2)
        self.img = TagImage(self)
        self._uid = bytearray(10)
        self._targets = bytearray(2 * TARGET)            # listed (pn532_link.list_targets)
        self._q = []
        self._lines = ["", "", "", ""]
        self.mode = None
        self.phase = _OFF
        self.active = False
        self.done = False
        self.check = None                                # check: the tally (tag_deck.py)
        self.size = 52                                   # deck places: 52 x packs
        self.done_tags = None                            # several packs: DoneTags

    # --- public API
    def command(self, line, packs=1):
        """One serial line "tags ..." (`packs`: the deck's, unless it says); answers: poll()."""
        c = parse_command(line)
        if isinstance(c, str):
            self._out(c)
        elif c[0] == "stop":
            self.stop()
        else:
            self.start(c[0], c[1], c[2], c[3] or packs)

    def start(self, mode, first=0, count=-1, packs=1):
        """Start "write", "enroll" or "check" from deck place `first` (0 = AS) for `count`
        cards (-1: to the end of the last pack; check: until every card of each pack is in)."""
        if self.active:
            self._out("error busy: %s is running (send tags stop first)" % self.mode)
            return False
        if mode not in MODES:
            self._out("error unknown mode " + mode)
            return False
        if not self._load_map():
            return False
        self.mode = mode
        self.first = first
        self.place = first
        self.size = size = 52 * packs
        self.done_tags = DoneTags(size if packs > 1 and mode != "check" else 0)
        if mode == "check":
            self.check = DeckCheck(count, packs)
            self.stats = self.check.stats
        else:
            self.end = size if count < 0 else min(size, first + count)
            self.stats = {"ok": 0, "same": 0, "refused": 0, "failed": 0}
        self.active = True
        self.done = False
        self.img.reset()
        self._tries = 0
        self.link.reset()
        self._ulen = 0
        self._rel = False
        self._two = False
        self._last = ""
        self.phase = _CONFIG
        if mode == "check":
            self._out("start check - %d" % (self.size if count < 0 else count))
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
        """What the operator should do now: NEED_TAG, _NEED_WAIT, NEED_REMOVE, _NEED_NOTHING."""
        # by phase: _OFF, _CONFIG, _WANT, _WORK, _GONE
        return (_NEED_NOTHING, NEED_TAG, NEED_TAG, _NEED_WAIT, NEED_REMOVE)[self.phase]

    def poll(self):
        """One step; returns None or one "tags: ..." line."""
        if self._q:
            return self._q.pop(0)
        if self.active:
            drvtime.rebase()
            lk = self.link
            if lk.command == 0:
                self._next()
            else:
                waited = lk.waiting()
                if waited > self.timeout_ms:
                    self._failed_cmd()
                elif waited < 0:
                    r = lk.response()
                    if r is None:
                        self._failed_cmd()
                    else:
                        cmd = lk.command
                        lk.command = 0
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
            ln[0] = "Check %d/%d" % (self.stats["present"], self.size)
        elif self.place < self.end:
            ln[0] = "%s %d/%d: %s" % ("Write" if self.mode == "write" else "Enroll",
                                      self.place + 1, self.size, place_name(self.place))
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
            self._out("place %d" % (self.check.k + 1))
            self._show("place the next card")
        else:
            self._out("place %d/%d %s" % (self.place + 1, self.size, place_name(self.place)))
            self._show("place a blank card" if self.mode == "write" else "place the card")

    def _gone(self):
        self.phase = _GONE
        self._miss = 0
        self._show("remove the card")

    def _finish(self, how):
        st = self.stats
        if self.check is not None:
            miss = self.check.missing()
            if miss:
                self._out("missing " + " ".join(miss))
            st["missing"] = self.check.missing_count()
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
        self.check = None
        # a command still in flight is simply abandoned: the reader's next command aborts it
        self.link.command = 0

    # --- UID map
    def _load_map(self):
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

    # --- bus steps
    def _send(self, cmd, params, rlen):
        if not self.link.send(cmd, params, rlen):
            self._failed_cmd()

    def _next(self):
        p = self.phase
        if p == _CONFIG:
            self._send(RFCONFIG, self._p_cfg, 0)
        elif self._rel:
            self._send(INRELEASE, RELEASE_ALL, 1)
        elif p == _WANT or p == _GONE:
            self._send(INLIST, self._p_list, 31)
        # _WORK always has an exchange in flight

    def _failed_cmd(self):
        cmd = self.link.command
        self.link.command = 0
        if self.link.failed():
            self._out("error the PN532 does not answer")
        if cmd == INDATA and self.phase == _WORK:
            self._tag_failed("no answer from the PN532")
        # list, release, config: simply sent again by _next()

    def _response(self, cmd, r):
        if cmd == RFCONFIG:
            self.phase = _WANT
        elif cmd == INRELEASE:
            self._rel = False
        elif cmd == INLIST:
            self._listed(r)
        elif cmd == INDATA:
            if len(r) < 1 or r[0] & 0x3F:
                st = r[0] & 0x3F if len(r) else 0xFF
                self._tag_failed("status %02X%s" % (st, " (tag left the field?)"
                                                    if st == 1 else ""))
            else:
                self.img.exchanged(r)

    # --- detection
    def _listed(self, r):
        nb = r[0] if len(r) else 0
        if nb:
            self._rel = True                 # release before the next list (7-byte UIDs)
        tg = self._targets
        n = list_targets(r, 0, len(r), tg, 2, 0)
        if self.phase == _GONE:
            here = False
            for i in range(n):
                if tg[i * TARGET + 1] == self._ulen and self._same_uid(tg, i * TARGET + 2):
                    here = True
            if here:
                self._miss = 0
            else:
                self._miss += 1
                if self._miss >= self.gone_polls:
                    if self.check.complete() if self.check is not None \
                            else self.place >= self.end:
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
        if n == 0:                           # cut short, or a UID too long for any tag
            return
        ln = tg[1]
        if ln != self._ulen or not self._same_uid(tg, 2):
            self._tries = 0                  # another tag than the one that failed
        self._ulen = ln
        for i in range(ln):
            self._uid[i] = tg[2 + i]
        if ln != 7:
            self._refuse("is not an NTAG (UID of %d bytes)" % ln)
            return
        self.phase = _WORK
        self._rel = False                    # keep the target selected while working
        self._show("hold still...")
        self.img.read_tag(tg[0])

    def _same_uid(self, r, o):
        for i in range(self._ulen):
            if r[o + i] != self._uid[i]:
                return False
        return True

    def _uidhex(self):
        return uid_hex(self._uid, self._ulen)

    # --- decisions (the tag's pages are read and written by self.img, tag_image.py)
    def _decide(self, res):
        kind, val = self.img.content(res)
        if self.check is not None:
            self._checked(kind, val)
            return
        want = deck_card(self.place % 52)
        name = card_name(want)
        k = self.done_tags.place_of(self._uid, self.first, self.place)
        if k >= 0:
            return self._refuse("is %s of pack %d, done in this run" % (place_name(k), k // 52 + 1))
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
                self.map.replace(self.path)
            except OSError as e:
                self._out("error saving %s: %s" % (self.path, e))
            if self.reader is not None and self.reader.map is None:
                self.reader.map = self.map
            self._counted("ok", name)
            return
        # write
        if kind == "card":                   # the wanted card, complete
            self._counted("ok" if self.img.is_torn(self._uid) else "same", name)
            return
        if kind != "blank" and not self.img.is_torn(self._uid):
            self._refuse("holds %s; erase it first" % (("text %r" % val) if kind == "text"
                                                         else val))
            return
        m = self.img.mem
        if m[4] != 0xE1:
            self._refuse("is not NDEF-formatted (CC %02X%02X%02X%02X)"
                         % (m[4], m[5], m[6], m[7]))
            return
        if m[7] & 0x0F:
            self._refuse("is read-only (CC access %02X): use tags enroll" % m[7])
            return
        self.img.plan_write(card_name(want), self._uid)

    def _wrote_ok(self):
        self._counted("ok", place_name(self.place))

    def _counted(self, how, name):
        self.stats[how] += 1
        self._tries = 0
        self.done_tags.mark(self.place, self._uid)
        self._out("%s %d/%d %s %s" % (how, self.place + 1, self.size, name, self._uidhex()))
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
        what = self.img.what
        stage = ("read", "write", "verify")[what - 1] if what else "read"
        self._rel = True
        self.img.wn = 0
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
        self.img.wn = 0
        self._gone()

    def _checked(self, kind, val):
        mapped = self.map.lookup(self._uid) if self.map is not None else -1
        line, self._last = self.check.tag(self._uid, self._uidhex(), kind, val, mapped)
        self._out(line)
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
