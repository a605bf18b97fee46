"""The phones' streams (firmware/webui/web_poll.py): GET /api/table/stream and
/api/seat/N/stream, server-sent events, one message a table version holding only the keys
that changed (null: gone). Put together as the page does (web_pages.JS), the messages
make exactly the whole answer a long poll gives; a seat's own keys go out only when its
display may have changed (Screens.marks); streams are bounded, refused without the seat's
cookie, and end at a stop once the last version is out."""
import asyncio
import json

from table import views as V


class _Screens:
    def __init__(self):
        self.marks = [0] * 9
        self.dirty = 0
        self.seat_displays = True


class _Engine:
    seats = 2


class _Table:
    def __init__(self):
        self.e = _Engine()
        self.nev = 0
        self.ui = V.UI()
        self.stop = False
        self.screens = _Screens()


class _Conn:
    """Both ends of an in-memory connection: the request to read, every write kept."""

    def __init__(self, data):
        self.data = data
        self.writes = []
        self.closed = False

    async def readline(self):
        i = self.data.find(b"\n") + 1 or len(self.data)
        line, self.data = self.data[:i], self.data[i:]
        return line

    async def awrite(self, data):
        self.writes.append(bytes(data))

    def close(self):
        self.closed = True

    async def wait_closed(self):
        pass

    def get_extra_info(self, name):
        return ("10.0.0.1", 40000)


class _Web:
    """A Web whose answers the test sets: public() and private() return copies of
    `pub` and `own[seat]`."""

    def __init__(self):
        from webui import web
        self.w = web.Web(_Table())
        self.pub = {"v": 0, "events": 0, "phase": "bets", "prompt": "Bets", "kitty": 5,
                    "seats": [{"seat": 1, "balance": 0}], "hands": []}
        self.own = {s: {"seat": s, "display": ["seat %d" % s], "mine": []} for s in (1, 2)}
        self.w.public = lambda: dict(self.pub, v=self.w.version)
        self.w.private = lambda s: dict(self.own[s])

    def answer(self, seat):
        out = dict(self.pub, v=self.w.version)
        if seat:
            out.update(self.own[seat])
        return out

    def step(self, **changes):
        """The table moves on (a new version, the held streams woken), as the loop does."""
        self.pub.update(changes)
        self.w.version += 1
        self.woken()

    def woken(self):
        """What Web.wake does once the table has no work that goes first."""
        self.w.news.set()
        if self.w.sections is not None:
            self.w.sections.due.set()


def _request(path, cookie=b""):
    return b"GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (path, cookie)


def _messages(c):
    """The event-stream messages written on connection c, as dicts (the head, the retry
    line left out)."""
    out = []
    for data in c.writes:
        if data.startswith(b"data: "):
            assert data.endswith(b"\n\n") and data.count(b"\n") == 2, data
            out.append(json.loads(data[6:-2]))
    return out


def _merged(messages):
    view = {}
    for m in messages:
        for k, v in m.items():
            if v is None:
                view.pop(k, None)
            else:
                view[k] = v
    return view


async def _closed(w):
    """Until every connection is closed (the streams' task closes theirs)."""
    while w.open:
        await asyncio.sleep(0.001)


async def _stopped(tw):
    """The table stops (the streams woken, as the loop does): until every stream has sent
    what it owes and closed."""
    tw.w.t.stop = True
    tw.woken()
    await asyncio.wait_for(_closed(tw.w), 5)


async def _settle(tw):
    """Let every stream send what it owes, then clear the news (the loop's next step)."""
    for _ in range(20):
        await asyncio.sleep(0)
    tw.w.news.clear()
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_seat_stream_sends_what_changed_and_adds_up_to_the_whole_answer():
    from webui import web
    tw = _Web()
    w = tw.w
    front = web.Front(w)
    cookie = b"Cookie: other=1; seat2=%s\r\n" % w.tokens[2].encode()
    seat = _Conn(_request(b"/api/seat/2/stream", cookie))
    public = _Conn(_request(b"/api/table/stream"))

    async def main():
        tasks = [asyncio.ensure_future(front.handle_request(c, c)) for c in (seat, public)]
        await _settle(tw)
        assert w.streams == 2
        head = seat.writes[0]
        assert head.startswith(b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n")
        first = _messages(seat)
        assert len(first) == 1 and first[0]["seat"] == 2 and first[0]["stopped"] is None
        assert _merged(first) == tw.answer(2)
        # the table moves on: only what changed goes (the seat's display not marked)
        tw.own[2]["display"] = ["changed, not marked"]
        tw.step(events=1, prompt="Deal")
        await _settle(tw)
        assert _messages(seat)[-1] == {"v": w.version, "events": 1, "prompt": "Deal"}
        assert _messages(public)[-1] == {"v": w.version, "events": 1, "prompt": "Deal"}
        # its display marked: its own keys that changed go too; a key gone is null
        w.t.screens.marks[1] += 1
        tw.own[2]["mine"] = [{"cards": ["AS"], "total": "11", "stake": 5}]
        del tw.pub["kitty"]
        tw.step(events=2)
        await _settle(tw)
        last = _messages(seat)[-1]
        assert last == {"v": w.version, "events": 2, "kitty": None,
                        "display": ["changed, not marked"], "mine": tw.own[2]["mine"]}
        assert _merged(_messages(seat)) == tw.answer(2)
        assert _merged(_messages(public)) == tw.answer(0)
        # another seat's mark sends nothing of this seat's own
        w.t.screens.marks[0] += 1
        tw.step(events=3)
        await _settle(tw)
        assert _messages(seat)[-1] == {"v": w.version, "events": 3}
        # a stop: the last version goes out, then the streams end
        w.t.stop = True
        tw.step(events=4, phase="over")
        await asyncio.wait_for(_closed(w), 5)
        return tasks
    asyncio.run(main())
    assert _messages(seat)[-1] == {"v": w.version, "events": 4, "phase": "over"}
    assert _merged(_messages(seat)) == tw.answer(2)
    assert w.streams == 0 and w.open == 0 and w.errors == 0
    assert seat.closed and public.closed


def test_a_stream_is_refused_without_the_seats_cookie_and_beyond_its_bound():
    from webui import web
    tw = _Web()
    w = tw.w
    front = web.Front(w)
    wrong = _Conn(_request(b"/api/seat/1/stream", b"Cookie: seat1=%s\r\n" % (b"0" * 16)))
    streams = [_Conn(_request(b"/api/table/stream")) for _ in range(web.HOLD_MAX + 1)]

    async def main():
        await front.handle_request(wrong, wrong)
        tasks = [asyncio.ensure_future(front.handle_request(c, c)) for c in streams]
        await _settle(tw)
        busy = w.streams
        await _stopped(tw)
        await asyncio.gather(*tasks)
        return busy
    assert asyncio.run(main()) == web.HOLD_MAX
    assert wrong.writes[0].startswith(b"HTTP/1.0 403 ")
    refused = [c for c in streams if c.writes[0].startswith(b"HTTP/1.0 503 ")]
    assert len(refused) == 1 and _messages(refused[0]) == []
    assert all(len(_messages(c)) == 1 for c in streams if c not in refused)
    assert w.streams == 0


def test_a_stream_opened_while_the_table_rests_is_sent_the_table_at_once():
    """A phone that opens its stream between two events (the table waiting for a player)
    gets the table then, not at the next event (the streams' task was waiting for one:
    test_vpico_health's bare Pico W found it)."""
    from webui import web
    tw = _Web()
    w = tw.w
    front = web.Front(w)
    public = _Conn(_request(b"/api/table/stream"))
    seat = _Conn(_request(b"/api/seat/1/stream", b"Cookie: seat1=%s\r\n" % w.tokens[1].encode()))

    async def main():
        tasks = [asyncio.ensure_future(front.handle_request(public, public))]
        await _settle(tw)
        assert len(_messages(public)) == 1 and w.sections.task is not None
        tasks.append(asyncio.ensure_future(front.handle_request(seat, seat)))
        await _settle(tw)                  # no step: the table rests
        assert _merged(_messages(seat)) == tw.answer(1)
        assert len(_messages(public)) == 1  # (nothing new for the one already served)
        await _stopped(tw)
        return tasks
    asyncio.run(main())


def test_the_stream_and_poll_forms_are_told_apart():
    from webui import web, web_poll as P
    w = web.Web(_Table())
    w.t.e.seats = 4
    assert P.poll_of(b"GET /api/table/stream HTTP/1.1\r\n", w) == (0, -1)
    assert P.poll_of(b"GET /api/seat/3/stream HTTP/1.1\r\n", w) == (3, -1)
    assert P.poll_of(b"GET /api/seat/3?after=7 HTTP/1.1\r\n", w) == (3, 7)
    assert P.poll_of(b"GET /api/seat/5/stream HTTP/1.1\r\n", w) is None     # no such seat
    assert P.poll_of(b"GET /api/table/stream?after=1 HTTP/1.1\r\n", w) is None
    assert P.poll_of(b"GET /api/table/streams HTTP/1.1\r\n", w) is None


def test_a_seat_phones_own_keys_wait_for_its_display_to_be_drawn():
    """A mark says a seat's display may have changed; until the display is drawn the table
    may change it further without another mark (the display reads the state when it is
    drawn). So while it is dirty the seat's own keys wait (made then, they would be made
    again once it is drawn), and go as soon as it is drawn, with no new table version;
    without seat displays to follow they are made at each message."""
    from webui import web
    for seat_displays in (True, False):
        tw = _Web()
        w = tw.w
        sc = w.t.screens
        sc.seat_displays = seat_displays
        front = web.Front(w)
        cookie = b"Cookie: seat1=%s\r\n" % w.tokens[1].encode()
        conn = _Conn(_request(b"/api/seat/1/stream", cookie))

        async def main():
            await front.handle_request(conn, conn)
            await _settle(tw)
            sc.marks[0] += 1
            sc.dirty = 1                 # marked, not drawn yet
            tw.own[1]["display"] = ["first"]
            tw.step(events=1)
            await _settle(tw)
            tw.own[1]["display"] = ["then, unmarked"]
            sc.dirty = 0                 # drawn: the table wakes the streams (Web.wake)
            tw.woken()
            await _settle(tw)
            tw.own[1]["display"] = ["later, unmarked and drawn"]
            tw.step(events=3)
            await _settle(tw)
            await _stopped(tw)
        asyncio.run(main())
        shown = [(m.get("events"), m.get("display")) for m in _messages(conn)[1:]]
        if seat_displays:
            want = [(1, None), (None, ["then, unmarked"]), (3, None)]
        else:
            want = [(1, ["first"]), (3, ["later, unmarked and drawn"])]
        assert shown == want, (seat_displays, shown)


def test_a_phone_not_yet_served_when_the_table_moves_is_sent_the_newest_version():
    """The phones are served in turn, each from where the last left off, and each is sent
    the table as it is when its turn comes: a phone that had not been sent version 1 when
    the table moved to 2 gets 2 at once (not 1, then 2 after every other phone), and the
    one served first gets 2 after the others (one turn of them, not a round and another)."""
    from webui import web
    tw = _Web()
    w = tw.w
    front = web.Front(w)

    class Moving(_Conn):
        async def awrite(self, data):
            await super().awrite(data)
            if b'"events": 1' in data:
                tw.step(events=2)            # the table moves while the others wait

    conns = [Moving(_request(b"/api/table/stream"))] + [
        _Conn(_request(b"/api/seat/%d/stream" % s,
                       b"Cookie: seat%d=%s\r\n" % (s, w.tokens[s].encode()))) for s in (1, 2)]
    sent = []
    for c in conns:
        keep = c.awrite

        async def awrite(data, c=c, keep=keep):
            await keep(data)
            if data.startswith(b"data: "):
                sent.append((conns.index(c), json.loads(data[6:-2]).get("events")))
        c.awrite = awrite

    async def main():
        for c in conns:
            await front.handle_request(c, c)
            await _settle(tw)
        tw.step(events=1)
        await _settle(tw)
        await _stopped(tw)
    asyncio.run(main())
    assert sent[3:] == [(0, 1), (1, 2), (2, 2), (0, 2)], sent
    for s, c in zip((0, 1, 2), conns):
        assert _merged(_messages(c)) == tw.answer(s)


def test_the_phones_streams_go_before_the_requests_in_line():
    """While the table has work that goes first, the connections wait in line (Web.turn);
    the phones' streams go on before the requests that came earlier (a page is loaded
    once, the streams follow the table for every phone: nine phones joining at once kept
    the streams' task waiting behind their pages)."""
    from webui import web, web_poll
    busy = [True]

    class Turn:
        reader = None
        btn = None
        lent = False

        def service(self):
            pass

        def owed(self, dirty):
            return busy[0]

    t = _Table()
    t.turn = Turn()
    w = web.Web(t)
    w.stepping = True
    w.sections = web_poll.Streams()
    order = []

    async def slice_of(name):
        await w.turn()
        order.append(name)

    async def main():
        requests = [asyncio.ensure_future(slice_of(n)) for n in ("page", "login")]
        await asyncio.sleep(0)
        w.sections.task = asyncio.ensure_future(slice_of("streams"))
        await asyncio.sleep(0)
        assert order == [] and len(w.line) == 3      # all parked: the table goes first
        busy[0] = False
        for _ in range(3):
            w.give()
            for _ in range(3):
                await asyncio.sleep(0)
        await asyncio.gather(w.sections.task, *requests)
    asyncio.run(main())
    assert order == ["streams", "page", "login"]
