# The virtual Pico W (tools/vpico, host_tests/pico/test_vpico_w.py): the Pico W's wiring (the
# frozen `pico` module of its UF2) and, in place of the Wi-Fi the emulator lacks (no CYW43
# model), a table full of phones inside the Pico. Copied to the emulated Pico W's flash as
# board.mpy, where it shadows the frozen board module; never deployed to a real one.
#
# Each phone does what the real pages do (firmware/webui/web_pages.py): the public page and each
# seat's page (logged in with the code its display shows) keep their stream open
# (/api/table/stream, /api/seat/N/stream), open it again RETRY_MS after it ends, and load
# the page again two seconds after a refusal (a 403: the code is asked again). Requests go
# through in-memory connections into the server's own request handling (web.py's,
# unchanged), each in a task of its own as asyncio's socket server runs a connection,
# holding no more than a socket would. Every message goes out on the serial line as it is
# written, "#webp SEAT BYTES" then "#web SEAT 200 d" (seat 0: the public page; d: the keys
# that changed, put together with the phone's earlier ones by the host, tools/runner.py,
# which checks each for hidden information); a long poll's answer (bench_pico's probe) a
# "#webp" line a part, ended by "#web SEAT STATUS".
#
# One more phone looks at last night (web_history.py): it opens /history, then asks for
# the standings of HISTORY_NAME every HISTORY_PAUSE_MS all through the session; each answer
# is streamed over many slices, so it goes on the serial line as one line at its end,
# "#hist PATH STATUS BYTES SHA256" (what that answer costs the heap is measured on its own:
# tools/bench_pico.py history_alone()).
import sys

from pico import *  # noqa: F401,F403 - the same pins, displays, reader and buttons

RETRY_MS = 500                  # the stream's own "retry:" (web_poll._HEAD_EVENTS)
PAUSE_ERROR_MS = 2000
TICK_MS = 10                    # how often the phones look at what is due, at most
IDLE_MS = 100                   # and at least
HISTORY_NAME = b"0001"          # the kept session the morning-after phone asks for
HISTORY_PAUSE_MS = 5000


class _Socket:
    """One request's connection, both its ends as the server sees them (reader and writer),
    holding what a socket would: the request's bytes (a real one's sit in the Wi-Fi stack's
    buffers) and, of the answer, only the head until its blank line (its status, a login's
    cookie); the request's bytes are made when the server first reads them. Each part of
    an API answer's body goes on the serial line as it is written,
    "#webp PHONE BYTES" (a JSON body has no raw newline), and the close ends it with
    "#web PHONE STATUS": the host puts the parts together (tools/runner.py). Every line is
    written in one go, with no wait inside it: no other task's line comes in between. At
    the close the phone notes what the answer said (Network.done)."""

    def __init__(self, net, phone, kind, data=None):
        self.net = net
        self.phone = phone
        self.kind = kind                 # _PAGE, _LOGIN, _POLL
        self.data = data                 # None: Network.request makes it when it is read
        self.at = 0                      # -1 once closed
        self.head = b""                  # None once its blank line has passed
        self.status = 0

    async def readline(self):
        data = self._data()
        i = data.find(b"\n", self.at)
        return self._take(len(data) if i < 0 else i + 1)

    async def read(self, n=-1):
        data = self._data()
        return self._take(len(data) if n < 0 else min(len(data), self.at + n))

    def _data(self):
        if self.data is None:
            self.data = self.net.request(self.phone, self.kind)
        return self.data

    async def readexactly(self, n):
        return await self.read(n)

    def _take(self, end):
        out = self.data[self.at:end]
        self.at = end
        if end >= len(self.data):
            self.data = b""              # (all read: a stream's connection lives on)
        return out

    async def awrite(self, data):
        self.write(data)

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        if self.head is not None:
            data = self._head(data)
            if data is None:
                return
            if self.kind == _LOGIN:
                self.net.cookie[self.phone] = _cookie(self.head)
            self.head = None
        if self.kind == _STREAM:
            # one message a write (web_poll._stream); the "retry:" line after the head too
            if data.startswith(b"data: "):
                # (no copy of the message on the heap: a socket's bytes go to the Wi-Fi
                # stack's buffers, not to the Pico's heap)
                sys.stdout.write("#webp %d " % self.phone)
                sys.stdout.buffer.write(memoryview(data)[6:-2])
                sys.stdout.write("\n#web %d 200 d\n" % self.phone)
        elif self.kind == _POLL and data:
            sys.stdout.write("#webp %d " % self.phone)
            sys.stdout.buffer.write(data)
            sys.stdout.write("\n")

    def _head(self, data):
        """The body's first bytes once the head's blank line has come (the head kept up to
        it, its status read), else None."""
        head = self.head + data
        i = head.find(b"\r\n\r\n")
        if i < 0:
            self.head = head
            return None
        self.head = head[:i]
        if head.startswith(b"HTTP/"):
            self.status = int(head[9:12])
        return head[i + 4:]

    async def drain(self):
        pass

    async def aclose(self):
        self.close()

    def close(self):
        if self.at >= 0:                 # (once: the server closes it, and so may a test)
            self.at = -1
            self.data = None
            if self.kind == _POLL and self.head is None:
                sys.stdout.write("#web %d %d\n" % (self.phone, self.status))
            if self.net is not None:
                self.net.done(self.phone, self.kind, self.status)

    async def wait_closed(self):
        pass

    def get_extra_info(self, name):
        return ("10.0.0.%d" % (10 + self.phone), 40000 + self.phone)


class _HistorySocket(_Socket):
    """The morning-after phone's end: the answer's bytes counted and hashed as they come,
    put on the serial line as one "#hist PATH STATUS BYTES SHA256" at the close."""

    def __init__(self, net, path):
        _Socket.__init__(self, net, -1, _PAGE, _request(b"GET", path))
        from hashlib import sha256
        self.path = path
        self.hash = sha256()
        self.n = 0

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        if self.head is not None:
            data = self._head(data)
            if data is None:
                return
            self.head = None
        self.n += len(data)
        self.hash.update(data)

    def close(self):
        if self.at >= 0:
            self.at = -1
            self.data = None
            from binascii import hexlify
            sys.stdout.write("#hist %s %d %d %s\n" % (
                self.path.decode(), self.status, self.n,
                hexlify(self.hash.digest()).decode()))
            self.net.history_done()


_PAGE = 0
_LOGIN = 1
_POLL = 2
_STREAM = 3


def _request(method, path, headers=b"", body=b""):
    head = b"%s %s HTTP/1.1\r\nHost: pontoon\r\n%s" % (method, path, headers)
    if body:
        head += b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n" % (
            len(body))
    return head + b"\r\n" + body


async def request(app, phone, method, path, headers=b"", show=False):
    """One request through the server's handling, on its own (tools/bench_pico.py's probe);
    `show`: its answer goes on the serial line as a phone's does."""
    s = _Socket(None, phone, _POLL if show else _PAGE, _request(method, path, headers))
    await app.handle_request(s, s)
    s.close()                            # (a server that broke off mid-answer)


def _cookie(head):
    i = head.find(b"Set-Cookie: ")
    if i < 0:
        return b""
    j = head.find(b";", i)
    return head[i + 12:j if j > 0 else len(head)]


class Network:
    """Where a real Pico W would bind, and, instead of a socket server, the phones: one
    task that starts each phone's next request when it is due, each request in a task of
    its own (as asyncio's socket server runs a connection), a phone's state in a few
    slots between its requests (a phone's memory is not the Pico's)."""

    def __init__(self, seats):
        self.host = "0.0.0.0"
        self.port = 80
        self.seats = seats
        n = seats + 1                    # phone 0: the public page
        self.loaded = bytearray(n)       # the page itself was fetched
        self.busy = bytearray(n)         # a request is under way
        self.cookie = [b""] * n
        self.due = [0] * n               # ticks_ms of the next request
        self.alive = False
        self.web = None
        self.hist_busy = False           # the morning-after phone's
        self.hist_due = 0
        self.hist_loaded = False

    def where(self):
        return "phones inside the virtual Pico W (no Wi-Fi chip emulated)"

    async def serve(self, app, web):
        import asyncio
        asyncio.create_task(self._phones(app, web))

    async def _phones(self, app, web):
        import asyncio
        from time import ticks_diff, ticks_ms
        self.web = web
        self.alive = True
        try:
            while not web.t.stop:
                now = ticks_ms()
                for i in range(self.seats + 1):
                    if not self.busy[i] and ticks_diff(now, self.due[i]) >= 0:
                        self.busy[i] = 1
                        # the connection's task runs the server's handling itself, as
                        # asyncio's socket server runs one: the phone is back at its close
                        s = _Socket(self, i, self._kind(i))
                        asyncio.create_task(app.handle_request(s, s))
                if not self.hist_busy and ticks_diff(now, self.hist_due) >= 0:
                    self.hist_busy = True
                    path = b"/api/history/" + HISTORY_NAME if self.hist_loaded else b"/history"
                    s = _HistorySocket(self, path)
                    asyncio.create_task(app.handle_request(s, s))
                await asyncio.sleep_ms(self._pause(now))
        finally:
            self.alive = False

    def _pause(self, now):
        """How long until a phone may be due (between TICK_MS and IDLE_MS): a phone with its
        stream open asks nothing, and a real server costs nothing while none connects."""
        from time import ticks_diff
        wait = IDLE_MS
        for i in range(self.seats + 1):
            if not self.busy[i]:
                wait = min(wait, ticks_diff(self.due[i], now))
        if not self.hist_busy:
            wait = min(wait, ticks_diff(self.hist_due, now))
        return max(TICK_MS, wait)

    def _kind(self, i):
        """Phone i's next request: its page, the seat's code, or the stream."""
        if not self.loaded[i]:
            return _PAGE
        return _LOGIN if i and not self.cookie[i] else _STREAM

    def request(self, i, kind):
        """The bytes of phone i's request of that kind."""
        page = b"/" if i == 0 else b"/seat/%d" % i
        if kind == _PAGE:
            return _request(b"GET", page)
        if kind == _LOGIN:
            return _request(b"POST", page, body=b"code=" + self.web.code(i).encode())
        api = b"/api/table" if i == 0 else b"/api/seat/%d" % i
        c = self.cookie[i]
        return _request(b"GET", api + b"/stream", b"Cookie: %s\r\n" % c if c else b"")

    def done(self, i, kind, status):
        """Phone i's request has ended (its connection closed): when it asks next."""
        from time import ticks_add, ticks_ms
        wait = 0
        if kind == _PAGE:
            self.loaded[i] = 1
        elif kind == _LOGIN:
            if not self.cookie[i]:
                wait = PAUSE_ERROR_MS
        elif status == 200:
            wait = RETRY_MS                  # the stream ended: EventSource opens the next
        else:
            wait = PAUSE_ERROR_MS            # refused: the page loads again
            self.loaded[i] = 0
            if status == 403:
                self.cookie[i] = b""         # the code is asked again
        self.due[i] = ticks_add(ticks_ms(), wait)
        self.busy[i] = 0

    def history_done(self):
        from time import ticks_add, ticks_ms
        self.hist_loaded = True
        self.hist_due = ticks_add(ticks_ms(), HISTORY_PAUSE_MS)
        self.hist_busy = False

    def running(self):
        """Phones still at the table (web.py waits for them when the table stops); once
        the last has left, they forget the table (its cookies, the Web)."""
        if self.alive or any(self.busy) or self.hist_busy:
            return True
        self.web = None
        for i in range(len(self.cookie)):
            self.cookie[i] = b""
        return False


def make_network(settings):
    return Network(settings.seats)
