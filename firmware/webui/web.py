# The table on the players' phones (a board with a network: boards/pico_w.py, the simulated
# board with a loopback network): served next to the table loop and never blocking it,
# the public table (/ and /api/table), each seat's private view (/seat/N, /api/seat/N,
# opened with the seat's code) and the finished sessions' hand histories. Every connection
# comes in through Front: the long polls and a kept session's standings are answered
# without microdot (web_poll.py), which is loaded only while a page is being served.
# Imported only on such a board: the plain Pico never pays for this code or microdot's.
#
# The loop: asyncio runs the table's step() as one task and the server's connections as
# others; a step runs to its end, then every connection that is ready gets one slice (up
# to its next wait). The table goes first: a connection's next slice (a request begun, an
# answer made, each write) waits, parked, while the table has work that cannot wait (read
# off the bus turn: a card, a press, the own display). A held long poll wakes at
# the table's next version, not at a poll of its own. Connections are bounded (_MAX_OPEN), each lives at most
# `web_timeout` seconds, a request head is at most _HEAD_MAX bytes, a body _BODY_MAX.
#
# Hidden information: the public answers show a player's cards only once face up (dealt
# after a twist, P5) or at the deal's end, the banker's only in his turn (K1) or after it;
# a seat's answers add that seat's own view (what its display shows). Seat codes: six
# digits from os.urandom per seat and session; after FREE_WRONG wrong codes every further
# one locks all code entry for 2^n seconds (at most LOCK_MAX_S), counted on the table's
# clock; the lock does not reset on a right code (a player who knows his own code must not
# be able to buy guesses at the others').
from micropython import const


import asyncio

from hardware import drvtime
from game import engine as E
from table import views as V
from game.cards import card_name
from ledger import forget

_MAX_OPEN = const(12)          # connections at once, more are closed at once
# the connections' share of the CPU after each table step: a slice begun within it runs to
# its next wait, one begun after it waits for the next step
_SHARE_US = const(20000)
_SLOW_TURN_US = const(2000)    # a turn over 2000 us is counted as slow
# long polls held at once: every phone at a full table, the public page and a spare;
# more answer "unchanged" at once and their pages ask again a second later (the shoe's
# Pico W UF2 gives lwIP a TCP connection for each open one: boards/uf2/RPI_PICO_W)
HOLD_MAX = 10
_HEAD_MAX = const(2048)        # request line + headers, bytes
_BODY_MAX = const(64)          # a code form's body
_LINE_MAX = const(512)
_POLL_MS = const(250)          # at a stop, the requests under way are looked at this often / 5
POLL_WAIT_MS = 8000    # and answers unchanged after this long
_DRAIN_MS = const(3000)        # at a stop, the longest the requests under way are waited for
FREE_WRONG = 3
LOCK_MAX_S = 300
PHASES = ("", "cut", "idle", "bets", "deal", "stakes", "deal", "play", "banker", "over")
PRESETS = ("table", "classic", "casino")
# MicroPython's asyncio has sleep_ms and wait_for_ms; CPython's only the second-based ones
try:
    from time import ticks_diff as _us_diff, ticks_us as _ticks_us
except ImportError:                        # CPython: no share, the table's step is enough
    _ticks_us = None
_sleep_ms = getattr(asyncio, "sleep_ms", None) or (lambda ms: asyncio.sleep(ms / 1000))
_wait_for_ms = getattr(asyncio, "wait_for_ms", None) or (
    lambda aw, ms: asyncio.wait_for(aw, ms / 1000))


def lock_s(wrong):
    """Seconds code entry stays locked after the `wrong`-th wrong code."""
    if wrong <= FREE_WRONG:
        return 0
    return min(LOCK_MAX_S, 1 << min(16, wrong - FREE_WRONG - 1))


def _random_digits(n):
    try:
        from os import urandom
    except ImportError:                    # a port without os.urandom
        from random import getrandbits

        def urandom(k):
            return bytes(getrandbits(8) for _ in range(k))
    out = ""
    while len(out) < n:
        b = urandom(1)[0]
        if b < 250:                        # no modulo bias
            out += str(b % 10)
    return out


def _random_hex(nbytes):
    from binascii import hexlify
    try:
        from os import urandom
        return hexlify(urandom(nbytes)).decode()
    except ImportError:
        return _random_digits(nbytes * 2)


class Web:
    """The web side's state: who may see what, the codes, the counters."""

    def __init__(self, table, port=80, timeout_s=10, net=None):
        self.t = table
        self.port = port
        self.timeout_ms = timeout_s * 1000
        self.net = net
        self.version = 1
        self.seen = [None, None, -1, -1, None, None]
        self.cache = [0, None]             # version, the public answer's bytes
        self.codes = []
        self.tokens = []
        self.session_e = None
        self.up_from = bytearray(32)       # per hand slot: first face-up card, 255 none
        self.up_deal = -1
        self.deals = 0                     # deals and sessions begun, a stamp each
        self.cut = []                      # [(seat, card name)] of the cut for the bank
        self.wrong = 0
        self.locked_until = 0              # a tick, when `locked`
        self.locked = False
        self.checked = 0                   # codes compared (right or wrong)
        self.open = 0
        self.held = 0                      # long polls waiting
        self.sections = None               # the phones' streams (web_poll.Streams)
        self.most_open = 0
        self.requests = 0
        self.refused = 0                   # connections over _MAX_OPEN, closed at once
        self.timeouts = 0
        self.errors = 0
        self.steps = 0
        self.slices = 0                    # connection task slices run (reads, writes, waits)
        self.sent = 0
        self.most_slices = 0               # most slices between two table steps
        self.most_away_us = 0              # longest the table task waited for its turn
        self.slow_turns = 0                # turns that took over _SLOW_TURN_US
        self.away_us = 0                   # all the turns together
        self.step_us = 0                   # the table's steps together
        self.most_step_us = 0
        self.held_back = 0                 # steps after which the table's work went first
        self.parked = 0                    # slices that waited for the table's next step
        self.given = 0                     # ticks_us when the last step let them go on
        self.looked = 0                    # ticks_us of the reader's last look (a step's,
        self.most_gap_us = 0               # a slice's) and the longest between two
        self.server = None
        self.stepping = False              # the table's loop runs (_table_loop)
        self.line = []                     # the parked connections' events, in line (each
                                           # .short: a short slice's, turn(True))
        self.owner = None                  # the task of the request under way: it goes on
                                           # before the others begin
        self.news = asyncio.Event()        # set at each new version: the held polls wake
        self.told = 1                      # the version the held polls were woken for
        self._new_codes()
        self._reset_up()

    @property
    def streams(self):
        """The phones' streams open."""
        return len(self.sections.phones) if self.sections is not None else 0

    # ---------------------------------------------------------------- table side
    def _new_codes(self):
        self.codes = [""] + [_random_digits(6) for _ in range(8)]
        self.tokens = [""] + [_random_hex(8) for _ in range(8)]
        self.session_e = self.t.e
        self.t.ui.codes = self.codes
        self.deals = drvtime.count_up(self.deals)

    def tell_codes(self):
        """No display answers (a bare Pico W): the codes go on the serial line, for the
        dealer, who types every card there, to read out."""
        d = self.t.screens.disp
        if d is None or not any(d.ok):
            self.t.say("# web: seat codes " + ", ".join(
                "%d %s" % (s, self.codes[s]) for s in range(1, self.t.settings.seats + 1)))

    def _reset_up(self):
        for i in range(len(self.up_from)):
            self.up_from[i] = 255

    def code(self, seat):
        return self.codes[seat]

    def after_step(self):
        """After each table step: note a change for the long polls; new codes per session."""
        t = self.t
        ui = t.ui
        m = ui.mode
        # what the pages show beyond the events: prompt, amount entry, refusals, the end
        if (t.narrator.last_prompt is not self.seen[0] or ui.msg is not self.seen[1]
                or m.value != self.seen[2] or m.kind != self.seen[3]
                or self._over() != self.seen[4] or ui.fatal is not self.seen[5]):
            self.seen[0] = t.narrator.last_prompt
            self.seen[1] = ui.msg
            self.seen[2] = m.value
            self.seen[3] = m.kind
            self.seen[4] = self._over()
            self.seen[5] = ui.fatal
            self.version = drvtime.count_up(self.version)
        e = t.e
        if e is not self.session_e and t.nev == 0 and e is not None:
            self._new_codes()              # a new session: the old codes die
            self.tell_codes()
            self.version = drvtime.count_up(self.version)
        elif e is not self.session_e:
            self.session_e = e             # UNDO rebuilt the same session's engine

    def _over(self):
        """0 in a session, 1 over, 2 over and kept as its history file, its standings
        made."""
        t = self.t
        if not t.ui.over:
            return 0
        s = getattr(t, "session", None)
        return 2 if s is None or s.kept and s.making is None else 1

    def on_event(self, ev, slot, up, card):
        """An accepted event (app.Table.event): track which cards lie face up."""
        e = self.t.e
        if e.deals != self.up_deal:
            self.up_deal = e.deals
            self.deals = drvtime.count_up(self.deals)
            self._reset_up()
            if e.deals:
                self.cut = []
        if ev == E.EV_CARD:
            if slot <= -2:
                self.cut.append((-2 - slot, card_name(card)))
            elif up and 0 < slot < len(self.up_from) and self.up_from[slot] == 255:
                self.up_from[slot] = e.ncards(slot) - 1
        elif ev == E.EV_BURN:
            s = e.current_slot()
            if 0 < s < len(self.up_from):
                self.up_from[s] = 255
        self.version = drvtime.count_up(self.version)

    # ---------------------------------------------------------------- answers
    def answer(self, seat):
        """The JSON bytes of the public table (seat 0) or of a seat's view (parts())."""
        first, rest = self.parts(seat)
        return first + rest

    def parts(self, seat):
        """The answer in two parts, sent one after the other (neither copied into the
        other): its opening brace or, for a seat, the seat's own fields (not kept: they
        have one reader); then the public table after its opening brace, made once per
        table version and shared by every client asking (a burst of long polls waking at
        once costs one encoding, not one each)."""
        from json import dumps
        c = self.cache
        if c[0] != self.version or c[1] is None:
            c[1] = None                    # (the old one is garbage before the new is made)
            c[1] = dumps(self.public()).encode()[1:]
            c[0] = self.version
        mine = self.private(seat) if seat else None
        if not mine:
            return b"{", c[1]
        return (dumps(mine)[:-1] + ", ").encode(), c[1]

    def public(self):
        """The public table as a dict (JSON): what anyone at the table may see."""
        t = self.t
        e = t.e
        out = {"v": self.version, "events": t.nev}
        if e is None:
            out["stopped"] = t.ui.fatal
            return out
        ph = e.phase
        ended = ph == E.PH_IDLE and e.deals_ended > 0 or ph == E.PH_OVER
        out["preset"] = PRESETS[e.rules.preset]
        out["phase"] = PHASES[ph]
        out["deal"] = e.deals if ph == E.PH_OVER else V.deal_number(e)
        # in a deal its banker; between deals the next one (N2 may have moved the bank)
        out["banker"] = 0 if e.casino or ph == E.PH_CUT else (
            V.deal_banker(e) if e.in_deal() else e.banker)
        out["prompt"] = V.prompt(e, t.ui)
        if e.rules.shoot:
            out["kitty"] = e.kitty
        seats = []
        for s in range(1, e.seats + 1):
            seats.append({"seat": s, "balance": e.balance(s)})
        out["seats"] = seats
        hands = []
        if e.deals and ph != E.PH_CUT:
            if e.ncards(0):
                hands.append(self._hand(0, 0, V.banker_visible(e)))
            for i in range(e.norder):
                slot = e.slot_at(i)
                hands.append(self._hand(slot, e.hand_seat(slot), ended))
        out["hands"] = hands
        if ph == E.PH_CUT or (self.cut and not e.deals):
            out["cut"] = [{"seat": s, "card": c} for s, c in self.cut]
        if ended and e.deals:
            if e.last_void:
                out["results"] = {"void": True}
            else:
                first = 0 if e.casino else 1
                out["results"] = {"deal": e.deals, "net": [
                    {"seat": s, "net": e.deal_net(s)} for s in range(first, e.seats + 1)]}
        if ph == E.PH_OVER:
            best = max(e.balance(s) for s in range(1, e.seats + 1))
            out["winners"] = [s for s in range(1, e.seats + 1) if e.balance(s) == best]
            # its file's name once it is there (the keeping takes a few passes after)
            out["history"] = t.ui.history if self._over() == 2 else ""
            out["seal"] = t.ui.seal
        return out

    def _hand(self, slot, seat, shown):
        """One hand: face-up cards by name, the count of face-down ones, stake, state."""
        e = self.t.e
        n = e.ncards(slot)
        first_up = n if slot == 0 else self.up_from[slot] if slot < len(self.up_from) else n
        if shown:
            first_up = 0
        cards = []
        for i in range(n):
            if i >= first_up:
                cards.append(card_name(e.card(slot, i)))
        h = {"seat": seat, "up": cards, "down": min(first_up, n)}
        flags = e.hand_flags(slot)
        if slot:
            h["stake"] = e.hand_stake(slot)
            if e.hand_shoot(slot):
                h["shoot"] = e.hand_shoot(slot)
            h["bust"] = bool(flags & E.F_BUST)
            h["done"] = bool(flags & E.F_DONE)
            h["acting"] = slot == e.current_slot() and e.phase == E.PH_PLAY
        if shown:
            h["total"] = V.total_text(e, slot, False)
        return h

    def private(self, seat):
        """What seat `seat` sees beyond the public table: its display's lines and its own
        hands, cards and totals (a dict for JSON; empty before a session)."""
        t = self.t
        e = t.e
        if e is None:
            return {}
        buf = [""] * 8
        V.seat_view(e, t.ui, seat, buf)
        mine = []
        banker = not e.casino and seat == V.deal_banker(e)
        if e.deals and e.phase != E.PH_CUT and not banker:
            for i in range(e.norder):
                slot = e.slot_at(i)
                if e.hand_seat(slot) == seat:
                    cards = [card_name(e.card(slot, k)) for k in range(e.ncards(slot))]
                    mine.append({"cards": cards, "total": V.total_text(e, slot, False),
                                 "stake": e.hand_stake(slot)})
        return {"seat": seat, "display": buf, "mine": mine}

    # ---------------------------------------------------------------- codes
    def try_code(self, seat, code):
        """'ok' with the seat's token, or ('wait', seconds) / ('wrong', 0)."""
        now = drvtime.ticks_ms()
        if self.locked:
            wait = drvtime.ticks_diff(self.locked_until, now)
            # (a wait longer than any lock: the lock ran out half a tick period ago)
            if 0 < wait <= 1000 * LOCK_MAX_S:
                return "wait", (wait + 999) // 1000
            self.locked = False
        self.checked = drvtime.count_up(self.checked)
        if 1 <= seat <= 8 and code == self.codes[seat]:
            return "ok", self.tokens[seat]
        self.wrong = drvtime.count_up(self.wrong)
        if self.wrong > FREE_WRONG:
            self.locked = True
            self.locked_until = drvtime.ticks_add(now, 1000 * lock_s(self.wrong))
        return "wrong", 0

    def same(self, after):
        """The answer to a long poll that ends with the table as it was: its version only
        (the page keeps what it shows and asks again)."""
        return ('{"v": %d}' % after).encode()

    def token_ok(self, seat, token):
        return 1 <= seat <= 8 and len(token) == 16 and token == self.tokens[seat]

    async def changed(self, after):
        """Wait (long poll) until the table differs from version `after`, or a while."""
        if self.version != after or self.held >= HOLD_MAX:
            return
        limit = min(POLL_WAIT_MS, self.timeout_ms - 1000)   # answer before the cut-off
        self.held += 1
        try:
            while self.version == after and not self.t.stop:
                await _wait_for_ms(self.news.wait(), limit)
                self.slices = drvtime.count_up(self.slices)
        except asyncio.TimeoutError:
            pass
        finally:
            self.held -= 1

    def wake(self):
        """After a table step: the held polls wake when the version moved (or the table
        stops), once the table has no work that goes first (their wakes would come
        between a card and its display). The news stays set until the table's next step
        begins (a poll whose wait has not started yet still sees it)."""
        if self.t.stop or self.version != self.told and not self.table_first():
            self.told = self.version
            self.news.set()
            if self.sections is not None:
                self.sections.due.set()
        elif self.sections is not None and self.sections.undrawn & ~self.t.screens.dirty:
            self.sections.due.set()        # a phone's display drawn: its own keys go

    def table_first(self, short=False):
        """Has the table work that goes before the connections'? Read off its bus turn
        (hardware/bus_turn.py): a card being read or waiting (the reader's IRQ says so at
        once), a press the buttons' timer has taken, the display of the event just taken
        still owed. A `short` slice (a phone's message) may go while the reader only waits
        for its chip's answer."""
        t = self.t
        bus = t.turn
        r = bus.reader
        if r is not None and not bus.lent and r.urgent(short):
            return True
        b = bus.btn
        # (a queue only where a timer samples the buttons: elsewhere the loop's own pass
        # does, and pending() is always true)
        if b is not None and hasattr(b, "head") and b.pending():
            return True
        return bus.owed(t.screens.dirty)

    async def turn(self, short=False):
        """A connection's next slice. The reader gets a look first (a card entering is
        found between two slices, not after a whole turn of them). The slice goes at once
        while the connections' share since the table's last step lasts (_SHARE_US) and no
        other waits; else it waits in line, parked: the table's next step lets the first in
        line go (Web.give), and each that reaches its next wait within the share hands on
        to the next. Nothing goes while the table has work that goes first (a card, a
        press, the own display: the bus turn says). However many requests are under way,
        the table goes round after about one slice, and every request has its turn (the
        phones' streams first in line). A
        `short` slice (a phone's message) goes, ahead of the line, while the reader only
        waits for its chip's answer."""
        t = self.t
        if not self.stepping:
            return                         # (no table loop: the history pages' tests)
        bus = t.turn
        line = self.line
        me = asyncio.current_task()
        woken = False
        while not t.stop:
            now = _ticks_us() if _ticks_us is not None else 0
            if now:
                gap = _us_diff(now, self.looked)
                if gap > self.most_gap_us:
                    self.most_gap_us = gap
                self.looked = now
            bus.service()
            mine = self.owner is me
            first = self.table_first()
            if not first or short and not self.table_first(True):
                fresh = not now or _us_diff(now, self.given) < _SHARE_US
                # (while the reader waits for its chip a short slice passes the others in
                # line: they wait for the table anyway)
                if woken or fresh and (mine or not line or first):
                    self.owner = me
                    return
                if fresh:
                    line.pop(0).set()      # the first in line goes; this one queues
            ev = asyncio.Event()
            ev.short = short
            st = self.sections
            # a request under way goes on first, and the phones' streams before the
            # requests (a page loads once; the streams follow the table for every phone)
            if woken or mine or st is not None and st.task is me:
                line.insert(0, ev)
            else:
                line.append(ev)
            self.parked = drvtime.count_up(self.parked)
            try:
                await ev.wait()
            finally:
                if ev in line:             # (cancelled in line: its request timed out)
                    line.remove(ev)
            woken = True

    def give(self):
        """After a table step: the first connection in line goes on, unless the table has
        work that goes first (then they stay parked, costing the table nothing). At a stop
        every one goes (a request under way gets its answer)."""
        t = self.t
        line = self.line
        if t.stop:
            while line:
                line.pop(0).set()
        elif self.table_first():
            if line and not self.table_first(True):
                for ev in line:            # the reader waits for its chip: a short slice
                    if ev.short:
                        line.remove(ev)
                        ev.set()
                        return
            if line:
                self.held_back = drvtime.count_up(self.held_back)
        elif line:
            line.pop(0).set()


class _Connection:
    """A connection as the server's code sees it, both its ends in one object: reads that
    refuse more than _HEAD_MAX bytes of head, _BODY_MAX of body, writes counted. Every read
    and write is one slice of the connection's task (counted: web.slices)."""

    def __init__(self, r, w, web):
        self.r = r
        self.w = w
        self.web = web
        self.left = _HEAD_MAX + _BODY_MAX
        self.again = None                  # the request line, read already, given back
        self.slot = -1                     # its connection's in web_poll.Deadlines

    def _take(self, data):
        self.web.slices = drvtime.count_up(self.web.slices)
        self.left -= len(data)
        if self.left < 0:
            raise ValueError("request too large")
        return data

    async def readline(self):
        line = self.again
        if line is not None:
            self.again = None
            return line
        # a request starts when the table lets it, and each line of its head is a slice
        # of its own (a whole head's parsing was the phones' longest hold on the reader)
        await self.web.turn()
        line = self._take(await self.r.readline())
        if len(line) > _LINE_MAX:
            raise ValueError("line too long")
        return line

    async def readexactly(self, n):
        return self._take(await self.r.readexactly(n))

    async def read(self, n=-1):
        return self._take(await self.r.read(min(n, self.left + 1) if n > 0 else self.left + 1))

    async def awrite(self, data):
        await self.web.turn()
        await self.send(data)

    async def send(self, data):
        """Write in the slice under way (the caller has had its turn)."""
        self.web.slices = drvtime.count_up(self.web.slices)
        self.web.sent = drvtime.count_up(self.web.sent, len(data))
        w = self.w
        if hasattr(w, "awrite"):
            await w.awrite(data)
        else:                              # CPython's socket streams
            w.write(data)
            await w.drain()

    async def aclose(self):
        await _close(self.w)

    def get_extra_info(self, name):
        return self.w.get_extra_info(name)


class Front:
    """Where every connection comes in (the socket server's, or a board's own clients'):
    the phones' long polls (web_poll.py) and a kept session's standings are answered here;
    anything else (the pages, the login, the history's pages) by microdot's app, made when
    such a request comes and let go with microdot's modules once none is under way, so that
    the long polls, nearly every request, never keep microdot in the heap. `app`: an app
    kept for good instead (make_app's, for the tests' clients)."""

    def __init__(self, web, app=None):
        from . import web_poll as W
        self.web = web
        self.polls = W
        self.ends = W.Deadlines(web, _MAX_OPEN)
        self.app = app
        self.kept = app is not None
        self.paging = 0                    # requests in the app's hands
        self.listener = None               # asyncio's socket server

    async def start(self, host, port):
        self.listener = await asyncio.start_server(self.handle_request, host, port)

    def shutdown(self):
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    async def handle_request(self, reader, writer):
        web = self.web
        ends = self.ends
        if web.open >= _MAX_OPEN:
            web.refused = drvtime.count_up(web.refused)
            await _close(writer)
            return
        web.open += 1
        web.requests = drvtime.count_up(web.requests)
        if web.open > web.most_open:
            web.most_open = web.open
        # each connection ends web_timeout after it opened (ends: one watcher for all)
        slot = ends.add(asyncio.current_task())
        c = _Connection(reader, writer, web)
        c.slot = slot
        kept = False
        try:
            kept = await self.serve(c, c)
        except asyncio.CancelledError:
            if not ends.ran_out(slot):
                raise                      # (not its time: the server stops)
        except Exception:  # noqa: BLE001 - a broken connection must not stop the table
            web.errors = drvtime.count_up(web.errors)
        finally:
            ends.drop(slot)
            if not kept:                   # (a stream's goes on: web_poll.Streams)
                web.open -= 1
                await _close(writer)

    async def serve(self, r, w):
        """A phone's stream or long poll, a kept session's standings, or anything else
        through microdot; True when the connection is kept open (a stream)."""
        web = self.web
        W = self.polls
        try:
            line = await r.readline()
        except ValueError:                 # (microdot answers a line too long: 400)
            line = b"-"
        poll = W.poll_of(line, web)
        if poll is not None:
            return await W.serve(web, r, w, poll[0], poll[1], self.ends, r.slot)
        name = W.standings_of(line)
        if name is not None:
            await W.standings(web, r, w, name)
            return False
        r.again = line
        self.paging += 1
        try:
            if self.app is None:
                await self._make_app()
            await self.app.answer(r, w)
        finally:
            self.paging -= 1
            if not self.paging and not self.kept:
                self.app = None            # its routes, microdot's classes: garbage now
                for name in _PAGES_MODULES:
                    forget(name)
        return False

    async def _make_app(self):
        """microdot's modules, the pages' and the app's routes, each in a slice of its own
        (made in one, the reader waited for all of it); another request may make it
        meanwhile."""
        web = self.web
        import microdot.microdot  # noqa: F401
        await web.turn()
        from . import web_pages  # noqa: F401
        await web.turn()
        if self.app is None:
            self.app = make_app(web, self)
            await web.turn()


# what only the pages need, let go when no page is being served (Front)
_PAGES_MODULES = ("microdot.microdot", "microdot", "webui.web_pages")


def make_app(web, front=None):
    """microdot's app with every route; its connections go through `front` (a Front of
    its own, keeping this app, when none is given)."""
    import microdot.microdot as M
    from microdot import Microdot, Request, Response

    from . import web_pages as P

    def quiet(exc):
        web.errors = drvtime.count_up(web.errors)   # a malformed request: 400, nothing on serial
    M.print_exception = quiet
    Request.max_readline = _LINE_MAX
    Request.max_content_length = _BODY_MAX
    Request.max_body_length = _BODY_MAX

    class TableServer(Microdot):
        async def handle_request(self, reader, writer):
            await front.handle_request(reader, writer)

        async def answer(self, r, w):
            await Microdot.handle_request(self, r, w)

        def shutdown(self):
            front.shutdown()
            Microdot.shutdown(self)

    app = TableServer()
    if front is None:
        front = Front(web, app)

    def _seat(n):
        try:
            s = int(n)
        except ValueError:
            return 0
        t = web.t
        if t.e is None or not 1 <= s <= t.e.seats:
            return 0
        return s

    def _after(req):
        try:
            return int(req.args.get("after", "0"))
        except ValueError:
            return 0

    def page(body_len, status=200, more=None):
        body, n = body_len
        h = {"Content-Type": "text/html; charset=UTF-8", "Cache-Control": "no-store",
             "Content-Length": str(n)}
        if more:
            h.update(more)
        return body, status, h

    @app.get("/")
    async def index(req):
        return page(P.table())

    @app.get("/api/table")
    async def api_table(req):
        after = _after(req)
        await web.changed(after)
        await web.turn()
        if web.version == after:
            return web.same(after), 200, JSON
        return web.answer(0), 200, JSON

    @app.get("/seat/<n>")
    async def seat_page(req, n):
        s = _seat(n)
        if not s:
            return "no such seat", 404
        if web.token_ok(s, req.cookies.get("seat%d" % s, "")):
            return page(P.seat())
        return page(P.login(s))

    @app.post("/seat/<n>")
    async def seat_login(req, n):
        s = _seat(n)
        if not s:
            return "no such seat", 404
        form = req.form or {}
        code = form.get("code", "")
        what, value = web.try_code(s, code.strip() if isinstance(code, str) else "")
        if what == "ok":
            r = Response.redirect("/seat/%d" % s, 303)
            r.set_cookie("seat%d" % s, value, path="/", http_only=True)
            return r
        if what == "wait":
            msg = "Too many wrong codes: wait %d s and try again." % value
            return page(P.login(s, msg), 429, {"Retry-After": str(value)})
        return page(P.login(s, "Wrong code."), 403)

    @app.get("/api/seat/<n>")
    async def api_seat(req, n):
        s = _seat(n)
        if not s or not web.token_ok(s, req.cookies.get("seat%d" % s, "")):
            return {"error": "open /seat/N with the seat's code first"}, 403
        after = _after(req)
        await web.changed(after)
        await web.turn()
        if web.version == after:
            return web.same(after), 200, JSON
        return web.answer(s), 200, JSON

    @app.get("/health")
    async def health_page(req):
        from table import health_report             # the shoe's check, one part a line (console.py's
        text = health_report.page(web.t)     # `health`); let go again after
        forget(health_report.__name__)
        return text, 200, {"Content-Type": "text/plain; charset=UTF-8",
                           "Cache-Control": "no-store"}

    @app.get("/history")
    async def history_index(req):
        from . import web_history as H
        return page(P.history_index(H.names(web.t.root + "history")))

    app.route("/history/")(history_index)

    @app.get("/history/<name>")
    async def history_file(req, name):
        if len(name) == 4:
            import os

            from . import web_history as H
            if not H.is_number(name):
                return "no such session", 404
            try:
                os.stat(web.t.root + "history/" + name + ".txt")
            except OSError:
                return "no such session", 404
            return page(P.history(name))
        if not _history_name(name):
            return "no such file", 404
        try:
            f = open(web.t.root + "history/" + name, "rb")
        except OSError:
            return "no such file", 404
        return Response(f, 200, {"Content-Type": "text/plain; charset=UTF-8"})

    @app.get("/api/history/<name>")
    async def api_history(req, name):
        from . import web_history as H
        if not H.is_number(name):
            return {"error": "no such session"}, 404
        try:
            return H.standings(web.t.root + "history/" + name + ".txt"), 200, JSON
        except OSError:
            return {"error": "no such session"}, 404

    return app


JSON = {"Content-Type": "application/json", "Cache-Control": "no-store"}
def _history_name(name):
    """history/NNNN.txt only: no other file on the flash is ever served."""
    if len(name) != 8 or not name.endswith(".txt"):
        return False
    for ch in name[:4]:
        if ch < "0" or ch > "9":
            return False
    return True


async def _close(writer):
    try:
        writer.close()
        await writer.wait_closed()
    except Exception:  # noqa: BLE001 - the peer may be gone already
        pass


def _made_at_boot(table):
    """The standings of the kept sessions kept without them (web_history.make_missing),
    made before the table takes a card."""
    from . import web_history as H
    t0 = drvtime.ticks_ms()
    try:
        made = H.make_missing(table.root + "history")
    except OSError as x:
        table.say("! web: could not make the kept sessions' standings: %s" % x)
        made = ()
    forget(H.__name__)
    if made:
        table.say("# web: standings made for the kept sessions %s (%d ms)" % (
            " ".join(made), drvtime.ticks_diff(drvtime.ticks_ms(), t0)))
    table.reader_unwatched()               # (no card is taken before the table's loop)


def _standings_made(path):
    """A session just kept: its standings made, a step at a time (Session.keep_step)."""
    from . import web_history as H
    try:
        yield from H.make(path)
    finally:
        forget(H.__name__)


async def _table_loop(web):
    t = web.t
    simulated = drvtime._clock is not None
    ticks_us = _ticks_us
    ticks_diff = _us_diff if ticks_us is not None else None
    web.stepping = True
    while not t.stop:
        web.news.clear()                   # (set again after the step if it moved)
        if ticks_us is not None:
            t0 = ticks_us()
        busy = t.step()
        web.after_step()
        if ticks_us is not None:
            took = ticks_diff(ticks_us(), t0)
            web.step_us = drvtime.count_up(web.step_us, took)
            if took > web.most_step_us:
                web.most_step_us = took
        web.give()
        web.wake()
        if ticks_us is not None:
            web.given = web.looked = ticks_us()   # the connections' share starts now
        web.steps = drvtime.count_up(web.steps)
        if not busy and simulated:
            drvtime.sleep(0.001)           # the simulated clock moves while idle
        s0 = web.slices
        t0 = ticks_us() if ticks_us is not None else 0
        # the connections' turn: their share, a slice at least (Web.turn; idle on a real
        # board: asyncio waits on the sockets for the shortest sleep)
        await _sleep_ms(0 if busy or simulated else 1)
        if ticks_us is not None:
            t1 = ticks_us()
            away = ticks_diff(t1, t0)
            gap = ticks_diff(t1, web.looked)       # the last slice's, before this step
            if gap > web.most_gap_us and not t.stop:
                web.most_gap_us = gap
            web.away_us = drvtime.count_up(web.away_us, away)
            if away > web.most_away_us:
                web.most_away_us = away
            if away > _SLOW_TURN_US:
                web.slow_turns = drvtime.count_up(web.slow_turns)
        n = (web.slices - s0) & drvtime.TICKS_MAX
        if n > web.most_slices:
            web.most_slices = n
    web.stepping = False


async def _main(web, host):
    front = Front(web)
    web.server = front
    serve = getattr(web.net, "serve", None)
    if serve is not None:                  # a board with its own clients (the virtual Pico W)
        asyncio.create_task(serve(front, web))
    else:
        asyncio.create_task(front.start(host, web.port))
    await _table_loop(web)
    web.t.house.heap_figures()             # while it serves: every connection still open
    try:
        front.shutdown()
    except Exception:  # noqa: BLE001 - the server may not have started
        pass
    # the requests under way get their answers (a long poll ends at once on a stop) and
    # the board's own clients end, so that nothing of the session outlives it in the heap
    clients = getattr(web.net, "running", None)
    waited = 0
    while (web.open or (clients is not None and clients())) and waited < _DRAIN_MS:
        await _sleep_ms(_POLL_MS // 5)
        waited += _POLL_MS // 5
    await _sleep_ms(0)


def run(table, net):
    """Run the table loop and the web server until the table stops. `net`: the board's
    network (host to bind, port, the address players type)."""
    st = table.settings
    web = Web(table, net.port, st.web_timeout, net)
    table.web = table.screens.web = web
    table.house.serving()
    table.ui.phones = not st.seat_displays
    table.screens.all_dirty()              # the seat displays get their codes
    _made_at_boot(table)
    table.session.standings = _standings_made
    table.say("# web: %s (seat codes on the seat displays%s)" % (
        net.where(), "" if st.seat_displays else ", or the banker's menu"))
    web.tell_codes()
    asyncio.run(_main(web, net.host))
    # the app, its routes, the last answer and the cut serve no one now: their heap is
    # free for what the table does next (left where the session put them, they split it)
    web.server = None
    web.owner = None
    web.cache[1] = None
    web.sections = None
    web.cut = ()
    table.say("# web: %d requests, %d refused over %d open, %d timed out, %d bad; most open "
              "%d; codes checked %d, wrong %d; steps %d, most slices between two steps %d, "
              "turns %d us on average, longest %d us, over 2 ms %d; bytes sent %d; table steps "
              "%d us on average, longest %d us, %d held the connections back; slices parked "
              "%d, longest slice %d us" % (
                  web.requests, web.refused, _MAX_OPEN, web.timeouts, web.errors,
                  web.most_open, web.checked, web.wrong, web.steps, web.most_slices,
                  web.away_us // max(1, web.steps), web.most_away_us, web.slow_turns,
                  web.sent, web.step_us // max(1, web.steps), web.most_step_us,
                  web.held_back, web.parked, web.most_gap_us))
