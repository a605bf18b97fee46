#!/usr/bin/env python3
"""`make play`: sit at the simulated table in a web browser.

    .venv/bin/python tools/play.py [--seats N] [--preset table|classic|casino] [--seed N]
                                   [--banker S] [--port P] [--speed X] [--heap 320k]
                                   [--flash DIR] [--new] [--no-browser]

The firmware runs on the MicroPython VM with the simulated board, as in `make sim`
(tools/livetable.py); a page on http://127.0.0.1:PORT/ shows the nine displays pixel for
pixel round a table, the eight buttons, the shoe (deal the next card, pick one, the
reader anomalies a dealer can cause), the serial line, the ledger and the deal's events,
and the plug. The page is updated over a WebSocket as the firmware draws. The port is
chosen at run time unless --port gives one; the address is printed, and opened in a
browser when there is a display. Ctrl-C stops it.

A table left in --flash by the last `make play` is resumed from its journal, as the shoe
itself does at power-on; --new starts a new table, and so do --seats, --preset or --banker
that differ from the kept table's. The table a new one replaces, finished or not, is kept
as a history file in the folder beside --flash (out/play/history/).
"""
import argparse
import asyncio
import json
import os
import signal
import socket
import sys
import webbrowser

import cli  # noqa: F401  (first: the project's Python; quiet when piped to head)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import livetable as L  # noqa: E402

PAGE = os.path.join(ROOT, "tools", "play_page")
COALESCE_S = 0.03            # changes within this long go out in one message


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write("play.py: error: %s (see --help)\n" % message)
        sys.exit(2)


def parse_args(argv):
    ap = _Parser(description=__doc__.split("\n\n")[0],
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--seats", type=int, default=None,
                    help="players (2-8; casino 1-7; default 4)")
    ap.add_argument("--preset", default=None, choices=("table", "classic", "casino"),
                    help="default table")
    ap.add_argument("--seed", type=int, default=None, help="the dealer's shuffle (random)")
    ap.add_argument("--banker", type=int, default=None, help="first banker (0: the cut)")
    ap.add_argument("--port", type=int, default=0, help="port (0: a free one)")
    ap.add_argument("--speed", type=float, default=1.0, help="simulated seconds per second")
    ap.add_argument("--heap", default=L.HEAP, help="the VM's -X heapsize (%s)" % L.HEAP)
    ap.add_argument("--flash", default=os.path.join(ROOT, "out", "play", "flash"),
                    help="the board's flash folder (journal, history, settings)")
    ap.add_argument("--new", action="store_true",
                    help="a new table (default: resume the table kept in --flash)")
    ap.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)   # the default now
    ap.add_argument("--no-browser", action="store_true", help="only print the address")
    a = ap.parse_args(argv)
    if a.keep and a.new:
        ap.error("--keep and --new: resume (the default) or a new table, not both")
    a.kept = None if a.new else kept_table(a.flash)
    asked = (a.preset, a.seats, a.banker)
    for k, (name, default) in enumerate((("preset", "table"), ("seats", 4), ("banker", 0))):
        if getattr(a, name) is None:
            setattr(a, name, a.kept[k] if a.kept else default)
    if a.kept and any(x is not None and x != y for x, y in zip(asked, a.kept)):
        a.kept = None                    # other settings asked for: a new table
    lo, hi = (1, 7) if a.preset == "casino" else (2, 8)
    if not lo <= a.seats <= hi:
        ap.error("--seats %d: %s takes %d to %d seats" % (a.seats, a.preset, lo, hi))
    if not 0 <= a.port <= 65535:
        ap.error("--port %d is not a port number (0-65535)" % a.port)
    if not a.speed > 0:
        ap.error("--speed must be more than 0")
    if not 0 <= a.banker <= a.seats:
        ap.error("--banker %d: a seat from 1 to %d, or 0 for the cut" % (a.banker, a.seats))
    if a.keep and not a.kept:
        ap.error("--keep: no table in %s to resume" % a.flash)
    return a


def kept_table(flash):
    """(preset, seats, banker) of the table a last `make play` left in `flash`, or None."""
    path = os.path.join(flash, "settings.txt")
    if not os.path.exists(path):
        return None
    from ledger import settings
    with open(path) as f:
        s = settings.parse(f)
    return None if s.error else (s.preset, s.seats, s.banker)


def keep_history(flash):
    """Before a new table replaces the one in `flash`: its finished sessions (the firmware's
    history files) and the session in progress, if any, go to the history folder beside
    `flash`, numbered on from the last one there. Returns the files written."""
    import shutil
    import simtable as S
    out = os.path.join(os.path.dirname(os.path.abspath(flash)), "history")
    done = []

    def next_path():
        os.makedirs(out, exist_ok=True)
        nums = [int(n[:4]) for n in os.listdir(out) if n[:4].isdigit()]
        return os.path.join(out, "%04d.txt" % (max(nums, default=0) + 1))
    for f in S.history_files(flash):
        dest = next_path()
        shutil.copyfile(f, dest)
        done.append(dest)
    text = S.journal_text(flash) if os.path.exists(os.path.join(flash, "journal.txt")) \
        else None
    if text and any(ln.split()[0] not in L.HEADER_WORDS
                    for ln in text.decode().splitlines() if ln.split()):
        dest = next_path()                 # abandoned: a session in progress
        with open(dest, "wb") as f:
            f.write(text)
        done.append(dest)
    return done


class Server:
    """The page and its WebSocket for one LiveTable (aiohttp)."""

    def __init__(self, table):
        self.table = table
        self.clients = set()
        self.loop = None
        self.changed = None
        self.sent_versions = {}
        self.sent_log = 0

    def notify(self, kind):
        """LiveTable.on_change: called from the VM's thread."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.changed.set)
            except RuntimeError:         # closed meanwhile: the page server has stopped
                pass

    def app(self):
        from aiohttp import web
        app = web.Application()
        app.router.add_get("/", self.index)
        app.router.add_get("/ws", self.websocket)
        app.router.add_get("/state", self.state)
        app.router.add_static("/static/", PAGE)
        return app

    async def index(self, request):
        from aiohttp import web
        return web.FileResponse(os.path.join(PAGE, "index.html"))

    async def state(self, request):
        from aiohttp import web
        return web.json_response(self._full())

    def _full(self):
        st = self.table.state()
        st["type"] = "full"
        st["keys"] = [[k, a, arg, what] for k, a, arg, what in L.KEYS]
        st["casino_keys"] = [list(k) for k in L.CASINO_KEYS]
        st["cards"] = [L.card_name(c) for c in range(52)]
        from hardware import buzzer
        st["tone_kinds"] = {"tick": [buzzer.TICK_HZ, buzzer.TICK_MS],
                            "buzz": [buzzer.BUZZ_HZ, buzzer.BUZZ_MS]}
        return st

    async def websocket(self, request):
        from aiohttp import WSMsgType, web
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        self.clients.add(ws)
        try:
            await ws.send_str(json.dumps(self._full()))
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    m = json.loads(msg.data)
                    why = self.table.command(str(m.get("do", "")), str(m.get("arg", "")))
                except (ValueError, AttributeError) as x:
                    why = "bad message: %s" % x
                if why:
                    await ws.send_str(json.dumps({"type": "refused", "why": why}))
        finally:
            self.clients.discard(ws)
        return ws

    def _delta(self):
        t = self.table
        panels = {}
        for i, p in list(t.panels.items()):
            if self.sent_versions.get(i) != p.version:
                self.sent_versions[i] = p.version
                panels[str(i)] = p.as_json()
        log, seq = t.log_since(self.sent_log)
        self.sent_log = seq
        st = t.state(full=False)
        st.update({"type": "delta", "panels": panels, "log": log, "log_seq": seq})
        return st

    async def broadcaster(self):
        while True:
            await self.changed.wait()
            await asyncio.sleep(COALESCE_S)
            self.changed.clear()
            msg = json.dumps(self._delta())
            for ws in list(self.clients):
                try:
                    await ws.send_str(msg)
                except (ConnectionError, RuntimeError):
                    self.clients.discard(ws)

    async def serve(self, port=0, ready=None):
        """Serve until cancelled; ready(url) once the socket listens."""
        from aiohttp import web
        self.loop = asyncio.get_running_loop()
        self.changed = asyncio.Event()
        self.sent_versions = {i: p.version for i, p in self.table.panels.items()}
        self.sent_log = self.table.log_seq
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        site = web.SockSite(runner, sock)
        await site.start()
        url = "http://127.0.0.1:%d/" % sock.getsockname()[1]
        task = asyncio.ensure_future(self.broadcaster())
        try:
            if ready:
                ready(url)
            await asyncio.Event().wait()
        finally:
            task.cancel()
            for ws in list(self.clients):
                await ws.close()
            await runner.cleanup()


def has_display():
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def main(argv):
    a = parse_args(argv)
    flash = os.path.relpath(a.flash, ROOT)
    if a.kept:
        print("play: resuming the table kept in %s (%s, %d seats; --new starts a new one)"
              % (flash, a.preset, a.seats), flush=True)
    else:
        for path in keep_history(a.flash):
            print("play: the last table's session is kept in %s" % os.path.relpath(path, ROOT))
    table = L.LiveTable(a.flash, seats=a.seats, preset=a.preset, heap=a.heap, speed=a.speed,
                        seed=a.seed, banker=a.banker, fresh=not a.kept)
    server = Server(table)
    table.on_change = server.notify

    def ready(url):
        print("play: the table is at %s (Ctrl-C stops it); flash in %s"
              % (url, os.path.relpath(a.flash, ROOT)), flush=True)
        if not a.no_browser and has_display():
            webbrowser.open(url)

    def stop(signum, frame):
        raise KeyboardInterrupt          # SIGTERM stops it as Ctrl-C does: the VM too
    signal.signal(signal.SIGTERM, stop)
    table.start()
    try:
        asyncio.run(server.serve(a.port, ready))
    except KeyboardInterrupt:
        pass
    except OSError as x:
        print("play.py: error: cannot listen on 127.0.0.1:%d: %s" % (a.port, x.strerror),
              file=sys.stderr)
        table.close()
        return 1
    table.on_change = lambda kind: None
    table.close()
    print("play: stopped; the journal is kept in %s: `make play` resumes this table, "
          "`make play PLAY_ARGS=--new` starts a new one" % flash)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
