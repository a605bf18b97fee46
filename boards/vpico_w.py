# The virtual Pico W (tools/vpico, host_tests/pico/test_vpico_w.py): the Pico W's wiring (the
# frozen `pico` module of its UF2) and, in place of the Wi-Fi the emulator lacks (no CYW43
# model), a table full of phones inside the Pico. Copied to the emulated Pico W's flash as
# board.mpy, where it shadows the frozen board module; never deployed to a real one.
#
# Each phone does what the real pages do (firmware/webui/web_pages.py): the public page and each
# seat's page (logged in with the code its display shows) long-poll their JSON with
# ?after=VERSION, ask again at once after a change, a second later when nothing changed,
# two seconds after an error, and log in again on a 403. Requests go through in-memory
# streams into microdot's own request handling (web.py's server, unchanged), each in a
# task of its own as asyncio's socket server runs a connection. Every answer goes out on
# the serial line as "#web SEAT STATUS BODY" (seat 0: the public page) as it is written,
# for the host to check for hidden information.
#
# One more phone looks at last night (web_history.py): it opens /history, then asks for
# the standings of HISTORY_NAME every HISTORY_PAUSE_MS all through the session; each answer
# is streamed over many slices, so it goes on the serial line as one line at its end,
# "#hist PATH STATUS BYTES SHA256" (what that answer costs the heap is measured on its own:
# tools/bench_pico.py history_alone()).
import sys

from pico import *  # noqa: F401,F403 - the same pins, displays, reader and buttons

PAUSE_SAME_MS = 1000
PAUSE_ERROR_MS = 2000
TICK_MS = 10                    # how often the phones look at what is due
HISTORY_NAME = b"0001"          # the kept session the morning-after phone asks for
HISTORY_PAUSE_MS = 5000


class _Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    async def readline(self):
        i = self.data.find(b"\n", self.at)
        end = len(self.data) if i < 0 else i + 1
        out = self.data[self.at:end]
        self.at = end
        return out

    async def read(self, n=-1):
        end = len(self.data) if n < 0 else min(len(self.data), self.at + n)
        out = self.data[self.at:end]
        self.at = end
        return out

    async def readexactly(self, n):
        return await self.read(n)


class _Writer:
    """A phone's end of the connection. The answer is taken as it is written, as a socket
    takes it into the Wi-Fi stack's own buffers: its head kept (status, cookie), an API
    answer's body kept until the connection closes (the server's task waits for the
    table's step between two writes: a line put out in pieces would have the table's
    lines in between) and then put on the serial line whole, its version noted."""

    def __init__(self, phone, show):
        self.phone = phone
        self.show = show
        self.head = b""
        self.body = False                # the head's blank line has passed
        self.status = 0
        self.version = -1
        self.parts = []

    async def awrite(self, data):
        self.write(data)

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        if not self.body:
            self.head += data
            i = self.head.find(b"\r\n\r\n")
            if i < 0:
                return
            data = self.head[i + 4:]
            self.head = self.head[:i]
            self.body = True
            if self.head.startswith(b"HTTP/"):
                self.status = int(self.head[9:12])
        if self.show and data:
            if self.version < 0:         # an API answer's (a page has none)
                self.version = _version(data)
            self.parts.append(data)

    async def drain(self):
        pass

    async def aclose(self):
        self.close()

    def close(self):
        if self.show and self.body:
            self.show = False            # (once: a server that broke off closes it too)
            # one go, no wait between: no other task's line comes in between
            sys.stdout.write("#web %d %d " % (self.phone, self.status))
            for part in self.parts:
                sys.stdout.buffer.write(part)
            self.parts = None
            sys.stdout.write("\n")

    async def wait_closed(self):
        pass

    def get_extra_info(self, name):
        return ("10.0.0.%d" % (10 + self.phone), 40000 + self.phone)


class _HistoryWriter(_Writer):
    """The morning-after phone's end: the answer's bytes counted and hashed as they come."""

    def __init__(self, path):
        _Writer.__init__(self, -1, False)
        from hashlib import sha256
        self.path = path
        self.hash = sha256()
        self.n = 0

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        if not self.body:
            self.head += data
            i = self.head.find(b"\r\n\r\n")
            if i < 0:
                return
            data = self.head[i + 4:]
            self.status = int(self.head[9:12])
            self.head = b""
            self.body = True
        self.n += len(data)
        self.hash.update(data)

    def close(self):
        if self.hash is not None:
            from binascii import hexlify
            sys.stdout.write("#hist %s %d %d %s\n" % (self.path.decode(), self.status, self.n,
                                                      hexlify(self.hash.digest()).decode()))
            self.hash = None


async def request(app, phone, method, path, headers=b"", body=b"", show=False, w=None):
    """(status, head bytes, version) of one request through microdot's handling; `show`:
    its body goes on the serial line as "#web PHONE STATUS BODY" as it is written."""
    head = b"%s %s HTTP/1.1\r\nHost: pontoon\r\n%s" % (method, path, headers)
    if body:
        head += b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n" % (
            len(body))
    w = w or _Writer(phone, show)
    await app.handle_request(_Reader(head + b"\r\n" + body), w)
    w.close()                            # a server that broke off mid-answer: the line ends
    return w.status, w.head, w.version


def _version(body):
    i = body.find(b'"v": ')
    if i < 0:
        return -1
    j = i + 5
    while j < len(body) and 48 <= body[j] <= 57:
        j += 1
    return int(body[i + 5:j])


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
        self.v = [0] * n                 # the version of the last answer
        self.due = [0] * n               # ticks_ms of the next request
        self.alive = False
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
        self.alive = True
        try:
            while not web.t.stop:
                now = ticks_ms()
                for i in range(self.seats + 1):
                    if not self.busy[i] and ticks_diff(now, self.due[i]) >= 0:
                        self.busy[i] = 1
                        asyncio.create_task(self._ask(app, web, i))
                if not self.hist_busy and ticks_diff(now, self.hist_due) >= 0:
                    self.hist_busy = True
                    asyncio.create_task(self._history(app))
                await asyncio.sleep_ms(TICK_MS)
        finally:
            self.alive = False
            for i in range(len(self.cookie)):
                self.cookie[i] = b""         # the phones leave with the table

    async def _ask(self, app, web, i):
        """Phone i's next request: its page, the seat's code, or the long poll."""
        from time import ticks_add, ticks_ms
        wait = 0
        try:
            page = b"/" if i == 0 else b"/seat/%d" % i
            if not self.loaded[i]:
                await request(app, i, b"GET", page)
                self.loaded[i] = 1
            elif i and not self.cookie[i]:
                _, head, _ = await request(app, i, b"POST", page,
                                           body=b"code=" + web.code(i).encode())
                self.cookie[i] = _cookie(head)
                if not self.cookie[i]:
                    wait = PAUSE_ERROR_MS
            else:
                api = b"/api/table" if i == 0 else b"/api/seat/%d" % i
                c = self.cookie[i]
                status, _, nv = await request(
                    app, i, b"GET", b"%s?after=%d" % (api, self.v[i]),
                    b"Cookie: %s\r\n" % c if c else b"", show=True)
                if status == 403:
                    self.cookie[i] = b""     # the page reloads: the code is asked again
                elif status != 200:
                    wait = PAUSE_ERROR_MS
                else:
                    wait = PAUSE_SAME_MS if nv == self.v[i] else 0
                    self.v[i] = nv
        finally:
            self.due[i] = ticks_add(ticks_ms(), wait)
            self.busy[i] = 0

    async def _history(self, app):
        """The morning-after phone: the list of kept sessions once, then one's standings."""
        from time import ticks_add, ticks_ms
        try:
            path = b"/api/history/" + HISTORY_NAME if self.hist_loaded else b"/history"
            await request(app, -1, b"GET", path, w=_HistoryWriter(path))
            self.hist_loaded = True
        finally:
            self.hist_due = ticks_add(ticks_ms(), HISTORY_PAUSE_MS)
            self.hist_busy = False

    def running(self):
        """Phones still at the table (web.py waits for them when the table stops)."""
        return self.alive or any(self.busy) or self.hist_busy


def make_network(settings):
    return Network(settings.seats)
