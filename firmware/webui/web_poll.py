# The phones' streams and long polls, read and answered without microdot (web.py's Front
# hands them here). The pages open a stream (GET /api/table/stream, GET /api/seat/N/stream
# with the seat's cookie: server-sent events) and keep it: at each table version it gets
# one message holding only the answer's keys that changed since its last (Streams), so a
# phone follows the table with no request of its own, and a message is a few hundred bytes
# instead of the whole table. The long polls (GET /api/table?after=V, /api/seat/N?after=V)
# answer the whole table once it moves on, for other clients. Microdot's Request (a
# headers dict, the query's and cookies' dicts) and its Response (a write per header)
# would cost each more than its answer does. Only these exact forms are taken, and a kept
# session's standings (GET /api/history/NNNN, a phone at last night's page asks every few
# seconds); anything else (the pages, the login, another query) goes to microdot
# unchanged, its request line given back first (web.Front, which loads microdot only for
# those).
import asyncio
import sys
from io import BytesIO
from micropython import const
from json import dump, dumps

from hardware import drvtime

try:
    from time import ticks_add, ticks_diff, ticks_ms
except ImportError:                       # CPython: asyncio's own clock, in ms
    from time import monotonic

    def ticks_ms():
        return int(monotonic() * 1000)

    def ticks_add(t, ms):
        return t + ms

    def ticks_diff(a, b):
        return a - b

_HEAD_OK = (b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
            b"Cache-Control: no-store\r\nContent-Length: ")
_NO_CODE = b'{"error": "open /seat/N with the seat\'s code first"}'
_REFUSED = (b"HTTP/1.0 403 N/A\r\nContent-Type: application/json\r\nContent-Length: %d"
            b"\r\n\r\n%s" % (len(_NO_CODE), _NO_CODE))
_BAD = b"HTTP/1.0 400 N/A\r\nContent-Length: 11\r\n\r\nBad request"
_HEAD_STREAMED = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n"
_NO_SESSION = b'{"error": "no such session"}'
_NOT_KEPT = (b"HTTP/1.0 404 N/A\r\nContent-Type: application/json\r\nCache-Control: no-store"
             b"\r\nContent-Length: %d\r\n\r\n%s" % (len(_NO_SESSION), _NO_SESSION))
# a stream's head, and how soon the page's EventSource opens the next after one ends
_HEAD_EVENTS = (b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Cache-Control: no-store\r\n\r\nretry: 500\n\n")
_BUSY = b"HTTP/1.0 503 N/A\r\nContent-Length: 4\r\n\r\nBusy"
_STREAM = b"/stream"
STREAM_MS = 300000                    # a stream's life (a phone that left stops being served)
# the answer's keys (web.Web.public's, then a seat's own): a message holds those changed
PUBLIC = ("v", "events", "stopped", "preset", "phase", "deal", "banker", "prompt", "kitty",
          "seats", "hands", "cut", "results", "winners", "history", "seal")
PRIVATE = ("seat", "display", "mine")
# each key as a message writes it (constants: in flash, not the heap)
_PUBLIC_Q = (b'"v": ', b'"events": ', b'"stopped": ', b'"preset": ', b'"phase": ', b'"deal": ',
             b'"banker": ', b'"prompt": ', b'"kitty": ', b'"seats": ', b'"hands": ', b'"cut": ',
             b'"results": ', b'"winners": ', b'"history": ', b'"seal": ')
_PRIVATE_Q = (b', "seat": ', b', "display": ', b', "mine": ')
_HISTORY = b"GET /api/history/"
_TABLE = b"/api/table"
_SEAT = b"/api/seat/"
_AFTER = b"after="
_DIGITS_MAX = 9                       # a version is below 2**30 (drvtime.count_up)
_COOKIES = tuple(b"seat%d=" % s for s in range(9))
_TOKEN_LEN = 16
_WATCH_MS = 250                       # how often the connections' ends are looked at
if sys.implementation.name == "micropython":
    _dump = dump                          # into a bytes buffer: its text made no str
else:
    def _dump(v, buf):                    # CPython's json writes str
        buf.write(dumps(v).encode())
# asyncio.sleep_ms on MicroPython, the second-based sleep on CPython
_sleep_ms = getattr(asyncio, "sleep_ms", None) or (lambda ms: asyncio.sleep(ms / 1000))


def poll_of(line, web):
    """(seat, after) when the request line is one of the long polls or streams taken here
    (seat 0: the public table; after -1: a stream), else None (microdot answers it)."""
    if not line.startswith(b"GET /api/"):
        return None
    words = line.split()
    if len(words) != 3 or not words[2].startswith(b"HTTP/"):
        return None
    url = words[1]
    q = url.find(b"?")
    path = url if q < 0 else url[:q]
    after = 0
    if q < 0 and path.endswith(_STREAM):
        path = path[:-len(_STREAM)]
        after = -1
    elif q >= 0:
        digits = url[q + 1 + len(_AFTER):]
        if url[q + 1:q + 1 + len(_AFTER)] != _AFTER or not 0 < len(digits) <= _DIGITS_MAX:
            return None
        for ch in digits:
            if not 48 <= ch <= 57:
                return None
        after = int(digits)
    if path == _TABLE:
        return 0, after
    if len(path) != len(_SEAT) + 1 or not path.startswith(_SEAT):
        return None
    seat = path[-1] - 48
    e = web.t.e
    if e is None or not 1 <= seat <= e.seats:
        return None                       # microdot's own refusal
    return seat, after


def standings_of(line):
    """The session's number (a str, NNNN) when the request line asks for a kept session's
    standings, else None."""
    if not line.startswith(_HISTORY):
        return None
    words = line.split()
    if len(words) != 3 or not words[2].startswith(b"HTTP/") or len(words[1]) != 17:
        return None
    name = words[1][13:]
    for ch in name:
        if not 48 <= ch <= 57:
            return None
    return name.decode()


async def standings(web, r, w, name):
    """Read the rest of the head, then stream the standings (web_history.py), a piece a
    slice; the module is let go after (it serves this phone alone, every few seconds)."""
    from ledger import forget

    from . import web_history as H
    try:
        while len(await r.readline()) > 2:
            pass
        try:
            pieces = H.standings(web.t.root + "history/" + name + ".txt")
        except OSError:
            await w.awrite(_NOT_KEPT)
            return
        try:
            await w.awrite(_HEAD_STREAMED)
            for piece in pieces:
                await w.awrite(piece)
        finally:
            pieces.close()                 # its file, at once (a connection cut short)
    except ValueError:                     # a head over its limit
        web.errors = drvtime.count_up(web.errors)
        await w.awrite(_BAD)
    finally:
        forget(H.__name__)


def _token(line, seat):
    """The seat's token in a Cookie header line, or ''."""
    name = _COOKIES[seat]
    i = line.find(name)
    while i > 0 and line[i - 1] not in b" ;:":
        i = line.find(name, i + 1)         # (another cookie's name ending the same)
    if i < 0:
        return ""
    i += len(name)
    return line[i:i + _TOKEN_LEN].decode()


async def _allowed(web, r, w, seat):
    """Read the rest of the head (only a seat's cookie matters): True when it may be
    answered, else it has been refused."""
    token = ""
    try:
        while True:
            line = await r.readline()
            if len(line) <= 2:             # the blank line (or the peer gone)
                break
            # (a cheap look at the first letter before a copy of every header's name)
            if seat and line[0] in b"Cc" and line[:7].lower() == b"cookie:":
                token = _token(line, seat) or token
    except ValueError:                     # a head over its limit
        web.errors = drvtime.count_up(web.errors)
        await w.awrite(_BAD)
        return False
    if seat and not web.token_ok(seat, token):
        await w.awrite(_REFUSED)
        return False
    return True


async def serve(web, r, w, seat, after, ends=None, slot=-1):
    """Hold the poll until the table moves on, answer; a stream handed on (True: the
    connection is kept open)."""
    if not await _allowed(web, r, w, seat):
        return False
    if after < 0:
        return await _stream(web, w, seat)
    if slot >= 0:
        await _held(web, ends, slot, after)
    else:
        await web.changed(after)
    await web.turn()
    if web.version == after:
        body = web.same(after)
        await w.awrite(b"%s%d\r\n\r\n%s" % (_HEAD_OK, len(body), body))
        return False
    first, rest = web.parts(seat)
    await w.awrite(b"%s%d\r\n\r\n%s" % (_HEAD_OK, len(first) + len(rest), first))
    await w.awrite(rest)
    return False


async def _stream(web, w, seat):
    """A phone's stream begins: its head written, the connection handed to the streams'
    one task (Streams.run); True when it was (its connection is kept open)."""
    from . import web as _web
    st = web.sections
    if st is None:
        st = web.sections = Streams()
    if len(st.phones) >= _web.HOLD_MAX:
        await w.awrite(_BUSY)              # (the page tries again: EventSource's retry)
        return False
    await w.awrite(_HEAD_EVENTS)
    # what the phone was last sent: the version, the sections' stamp (-1: nothing yet),
    # the seat's display's mark (Screens.marks), its own keys (their texts' hashes); the
    # stream's end; the deal its own keys are of
    st.phones.append([w.w, seat, -1, -1, -1, 0, 0, 0, ticks_add(ticks_ms(), STREAM_MS), -1, 0])
    st.due.set()
    if st.task is None:
        st.task = asyncio.create_task(st.run(web))
    return True


async def _send(web, w, data):
    """A stream's message on its connection's writer (the _Connection is not kept: a
    hundred bytes a phone), counted as web._Connection.send does."""
    web.slices = drvtime.count_up(web.slices)
    web.sent = drvtime.count_up(web.sent, len(data))
    if hasattr(w, "awrite"):
        await w.awrite(data)
    else:                                  # CPython's socket streams
        w.write(data)
        await w.drain()


# a stream's record (Streams.phones): its connection's writer, seat, then what it was
# last sent
_R_CONN = const(0)
_R_SEAT = const(1)
_R_VERSION = const(2)
_R_SINCE = const(3)
_R_MARK = const(4)
_R_HASHES = const(5)                    # 5, 6, 7: PRIVATE's
_R_ENDS = const(8)
_R_DEAL = const(9)                      # the deal its own keys were made in (Web.deals)
_R_WAITS = const(10)                    # 1: its own keys wait for its display to be drawn


class Streams:
    """Every phone's stream, served by one task (no task, no chain of coroutines a phone):
    the phones behind the table are sent one message each, a slice each, in turn, each
    picking up where the last left off (a phone waits at most one turn of the others, not
    the rest of a round and then another). The public answer's keys are made once per table
    version, when the next phone is sent one, each '"key": JSON' stamped with the count of
    remakes (n) at which it last changed: a message holds the keys changed since the stamp
    its phone last sent (null for one gone), made once for all the phones that last sent
    the same stamp. While the reader only waits for its chip (no long slice for a remake),
    a phone behind the last version made is sent that one. Then the seat's own keys whose
    text changed, kept as hashes, looked at only when its display may have changed
    (Screens.marks: a seat's phone shows what its display would) and is drawn: until then
    the table may change it unmarked, so they wait for it and go once it is (Web.wake),
    with the next version or alone; without seat displays, at every message. All of it
    bytes, written by json.dump into one buffer: a str made on MicroPython is first looked
    for among the interned strings (a search of every pool)."""

    def __init__(self):
        self.phones = []                   # records (_R_CONN ...)
        self.task = None
        # set by a new version (Web.wake) or a new phone: one that opens its stream while
        # the table rests is sent the table at once, not at the next event
        self.due = asyncio.Event()
        self.first = 0                     # the phone looked at first for the next message
        self.version = -1                  # the table version the texts are of
        self.text = [None] * len(PUBLIC)   # each key's '"key": JSON'
        self.at = [0] * len(PUBLIC)
        self.n = 0
        self.since = -2                    # the stamp `part` was made for
        self.part = b""
        self.undrawn = 0                   # seats whose phones wait for their displays

    async def run(self, web):
        phones = self.phones
        try:
            while phones:
                i = self._next(web.version, web.t.screens.dirty)
                if i < 0:
                    if web.t.stop:
                        break                  # the last version is out
                    self._waiting()
                    self.due.clear()
                    await self._expire(web)
                    await self.due.wait()
                    web.slices = drvtime.count_up(web.slices)
                    continue
                await web.turn(True)
                if web.version != self.version:
                    # the table moved: its version is made in a long slice. While only a
                    # short one may go, a phone behind the last made is sent that (its own
                    # keys wait: they could name a card those keys do not hold yet), unless
                    # its own keys are of an earlier deal (its last deal's hand is not
                    # shown while the next is dealt, its cards perhaps in other hands)
                    j = self._next(self.version, -1) if web.stepping and web.table_first() else -1
                    if j >= 0 and not self._stale(web, phones[j]):
                        i = j
                    else:
                        await web.turn()
                        self.update(web)
                        i = self._next(self.version, web.t.screens.dirty)
                        if i < 0:
                            continue
                rec = phones[i]
                self.first = i + 1
                mine = self.own(web, rec) if web.version == self.version else b""
                await self._out(web, rec, mine)
                if self.first >= len(phones):
                    self.first = 0
                    await self._expire(web)
        finally:
            self.task = None
            while phones:
                await self._drop(web, phones[-1])

    def _next(self, v, dirty):
        """The index of the next phone behind version v, or whose own keys waited for its
        display and it is drawn now (dirty: the displays' bits; -1: not those), in turn
        from the one after the last served; -1 when none is."""
        phones = self.phones
        n = len(phones)
        for k in range(n):
            i = (self.first + k) % n
            rec = phones[i]
            if rec[_R_VERSION] != v or rec[_R_WAITS] and not dirty >> (rec[_R_SEAT] - 1) & 1:
                return i
        return -1

    def _waiting(self):
        """The seats whose phones wait for their displays (Web.wake looks for them drawn)."""
        m = 0
        for rec in self.phones:
            if rec[_R_WAITS]:
                m |= 1 << (rec[_R_SEAT] - 1)
        self.undrawn = m

    async def _expire(self, web):
        now = ticks_ms()
        for rec in self.phones:
            if ticks_diff(now, rec[_R_ENDS]) >= 0:
                await self._drop(web, rec)   # its life is over: the page opens another
                return                     # (one a pass: the list changed)

    async def _out(self, web, rec, mine):
        """The phone's message, with `mine` (own())."""
        if rec[_R_VERSION] == self.version and not mine:
            return                         # (its display drawn as its keys were sent)
        rec[_R_VERSION] = self.version
        try:
            await _send(web, rec[_R_CONN], self.message(rec, mine))
        except Exception:  # noqa: BLE001 - the phone is gone
            web.errors = drvtime.count_up(web.errors)
            await self._drop(web, rec)

    async def _drop(self, web, rec):
        self.phones.remove(rec)
        web.open -= 1
        from .web import _close
        await _close(rec[_R_CONN])

    def update(self, web):
        if self.version == web.version:
            return
        self.part = b""
        self.since = -2
        d = web.public()
        self.n = drvtime.count_up(self.n)
        buf = BytesIO()
        ends = []
        for i in range(len(PUBLIC)):
            v = d.get(PUBLIC[i], d)        # (d itself: the key is not in the answer)
            buf.write(_PUBLIC_Q[i])
            if v is d:
                buf.write(b"null")
            else:
                _dump(v, buf)
            ends.append(buf.tell())
        d = None
        whole = buf.getvalue()
        buf = None
        text = self.text
        a = 0
        for i in range(len(PUBLIC)):
            j = whole[a:ends[i]]
            a = ends[i]
            if j != text[i]:
                text[i] = j
                self.at[i] = self.n
        self.version = web.version

    def _stale(self, web, rec):
        """Are the seat's own keys due and its phone's of an earlier deal or session (or
        none yet)?"""
        return _due(web, rec) and (rec[_R_SINCE] < 0 or rec[_R_DEAL] != web.deals)

    def own(self, web, rec):
        """b', "key": JSON' of the seat's own keys that changed since its record's last
        message (b"" on the public page, or when its display was not marked since)."""
        if not _due(web, rec):
            rec[_R_WAITS] = 0              # (picked again for nothing otherwise)
            return b""
        seat = rec[_R_SEAT]
        sc = web.t.screens
        mark = sc.marks[seat - 1]
        first = rec[_R_SINCE] < 0
        # its display not drawn yet: its keys wait for it (made now they would be made
        # again once it is drawn), unless they are the first or of an earlier deal
        rec[_R_WAITS] = sc.seat_displays and sc.dirty >> (seat - 1) & 1 and not first \
            and rec[_R_DEAL] == web.deals
        if rec[_R_WAITS]:
            return b""
        # settled once its display is drawn: until then (or with no seat displays to
        # follow) what it shows may still change unmarked, so it is looked at again
        settled = sc.seat_displays and not sc.dirty >> (seat - 1) & 1
        rec[_R_MARK] = mark if settled else -1
        rec[_R_DEAL] = web.deals
        return _own(web.private(seat), rec, first)

    def message(self, rec, mine):
        """The event-stream message for a phone's record (updated: what it was sent),
        with `mine` (own())."""
        since = rec[_R_SINCE]
        if since == self.n:                # its own keys alone (its display drawn since)
            return b"".join((b"data: {", mine[2:], b"}\n\n"))
        if since < 0:
            part = b", ".join(self.text)   # (a new phone's: all of it, not kept)
        elif since != self.since:
            out = []
            for i in range(len(PUBLIC)):
                if _newer(self.at[i], since):
                    out.append(self.text[i])
            part = self.part = b", ".join(out)
            self.since = since
        else:
            part = self.part
        rec[_R_SINCE] = self.n
        return b"".join((b"data: {", part, mine, b"}\n\n"))


def _due(web, rec):
    """May a seat phone's own keys have changed: its first message, or its display marked
    since its last (never on the public page)?"""
    seat = rec[_R_SEAT]
    return seat and (rec[_R_SINCE] < 0 or web.t.screens.marks[seat - 1] != rec[_R_MARK])


def _own(keys, rec, every):
    """b', "key": JSON' of each of the seat's own keys whose text differs from the hash in
    its record (every one when `every`)."""
    buf = BytesIO()
    for i in range(len(PRIVATE)):
        a = buf.tell()
        buf.write(_PRIVATE_Q[i])
        _dump(keys.get(PRIVATE[i]), buf)
        h = hash(buf.getvalue()[a:buf.tell()])
        if every or h != rec[_R_HASHES + i]:
            rec[_R_HASHES + i] = h
        else:
            buf.seek(a)                    # (unchanged: the next key writes over it)
    out = buf.getvalue()[:buf.tell()]
    return out


def _newer(stamp, since):
    """Was `stamp` counted after `since` (counts wrap: drvtime.count_up)?"""
    d = (stamp - since) & drvtime.TICKS_MAX
    return 0 < d <= drvtime.TICKS_MAX >> 1


async def _held(web, ends, slot, after):
    """web.changed() without a wait_for (a task and a timer each time): the poll's end is
    kept by the connections' watcher, which cancels the wait when it comes."""
    from . import web as _web
    if web.version != after or web.held >= _web.HOLD_MAX:
        return
    ends.hold(slot, min(_web.POLL_WAIT_MS, web.timeout_ms - 1000))   # before the cut-off
    web.held += 1
    try:
        while web.version == after and not web.t.stop:
            await web.news.wait()
            web.slices = drvtime.count_up(web.slices)
    except asyncio.CancelledError:
        if not ends.held_out(slot):
            raise                          # (the connection's own end, or a stop)
    finally:
        ends.hold(slot, -1)
        web.held -= 1


class Deadlines:
    """Each open connection's end, web_timeout after it opened, kept by one watcher task
    (running while a connection is open) rather than by a wait_for around each request
    (a task and a timer of its own for every one)."""

    def __init__(self, web, n):
        self.web = web
        self.tasks = [None] * n
        self.ends = [0] * n
        self.out = bytearray(n)            # 1: cancelled for running out of time
        self.polls = [0] * n               # a held poll's end
        self.holding = bytearray(n)        # 1: polls[i] is set; 2: it came (cancelled)
        self.watching = False

    def add(self, task):
        """Watch `task` (the connection's); its slot, -1 when none is free."""
        for i in range(len(self.tasks)):
            if self.tasks[i] is None:
                self.tasks[i] = task
                self.out[i] = 0
                self.holding[i] = 0
                self.ends[i] = ticks_add(ticks_ms(), self.web.timeout_ms)
                if not self.watching:
                    self.watching = True
                    asyncio.create_task(self._watch())
                return i
        return -1

    def drop(self, i):
        if i >= 0:
            self.tasks[i] = None

    def hold(self, i, ms):
        """A poll held from now for `ms` (-1: not any more)."""
        if ms < 0:
            self.holding[i] = 0
            return
        self.polls[i] = ticks_add(ticks_ms(), ms)
        self.holding[i] = 1

    def held_out(self, i):
        return self.holding[i] == 2

    def ran_out(self, i):
        return i >= 0 and self.out[i]

    async def _watch(self):
        tasks = self.tasks
        try:
            while True:
                await _sleep_ms(_WATCH_MS)
                now = ticks_ms()
                left = False
                for i in range(len(tasks)):
                    task = tasks[i]
                    if task is None or self.out[i]:
                        continue                   # (a slot is free once its task drops it)
                    if ticks_diff(now, self.ends[i]) >= 0:
                        self.out[i] = 1
                        self.web.timeouts = drvtime.count_up(self.web.timeouts)
                        task.cancel()
                    elif self.holding[i] == 1 and ticks_diff(now, self.polls[i]) >= 0:
                        self.holding[i] = 2        # answered unchanged (_held)
                        task.cancel()
                        left = True
                    else:
                        left = True
                if not left:
                    return
        finally:
            self.watching = False
