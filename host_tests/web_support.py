"""The simulated Pico W for the web tests: the firmware (.mpy) with its web server on the
MicroPython VM (tools/runner.py's VM backend with tools/vm/web_main.py, served from a thread
of its own), the chip models and the scripted players here (tools/simtable.py), the server
on 127.0.0.1 at a free port chosen at run time.

    with WebTable(tmp, seats=4) as wt:       # boots, waits for the server
        wt.hold(10)                          # the players wait once 10 events are in
        wt.wait_acked(10)
        wt.get("/api/table")                 # (status, headers, body bytes)
        wt.release()
"""
import http.client
import json
import os
import socket
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))

import runner as R  # noqa: E402
import simtable as S  # noqa: E402

VM_MAIN = os.path.join(ROOT, "tools", "vm", "web_main.py")
TIMEOUT_S = 300          # no test waits longer than this for the VM


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class _Players:
    """The scripted players as the VM backend drives them from its thread: under the
    harness's lock (the tests read the driver meanwhile), waiting once `held` events are
    in (the table goes on), and typing 'halt' once done when the harness asks to finish."""

    def __init__(self, wt):
        self.wt = wt
        self.d = wt.driver
        self.push_line = None
        self.halted = False

    @property
    def done(self):
        return self.d.done

    def attach(self, world, push_line):
        self.push_line = push_line
        with self.wt.lock:
            self.d.attach(world, push_line)

    def poll(self, now):
        wt, d = self.wt, self.d
        with wt.lock:
            if wt.held is not None and d.acked >= wt.held:
                return
            d.poll(now)
            if d.done and wt.finish and not self.halted:
                self.halted = True
                self.push_line("halt")

    def on_output(self, line):
        with self.wt.lock:
            self.d.on_output(line)


class WebTable:
    def __init__(self, tmp, preset="table", seats=4, seed=1, heap="512k", settings="",
                 timeout_s=3, serial_share=0.25):
        self.head, self.events = S.script_session(preset, seats, seed)
        self.flash = os.path.join(str(tmp), "flash")
        self.port = free_port()
        S.fresh_flash(self.flash, S.settings_text(preset, seats) + settings
                      + "web_port = %d\nweb_timeout = %d\n" % (self.port, timeout_s))
        self.driver = S.Driver(self.head, self.events, seed=seed, serial_share=serial_share)
        self.held = None
        self.lock = threading.Lock()
        self.finish = False           # halt the firmware once the script is done
        self.vm = R.VM(self.flash, _Players(self), heap=heap, script=VM_MAIN,
                       record_writes=True)

    # ------------------------------------------------------------ running
    def start(self):
        self.vm.boot()
        self.vm.serve_in_thread()
        self.wait_line("# web:")
        return self

    @property
    def world(self):
        return self.vm.world

    @property
    def proc(self):                   # (tools/bench_web.py: stop() once the VM was started)
        return self.vm.proc

    @property
    def rc(self):
        return self.vm.rc

    @property
    def writes(self):
        """Display index -> [sim ms of each data write] (a copy: take it once)."""
        return {i: [ns / 1000000 for ns in ts] for i, ts in self.vm.writes.items()}

    def send(self, line):
        """A line typed on the serial port (from the test's thread)."""
        self.vm.send(line)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        self.held = None
        self.vm.stop(30)

    def run_to_end(self):
        """Let the players finish the script; the firmware halts; returns the exit status."""
        self.held = None
        self.finish = True
        assert self.vm.join(TIMEOUT_S), "the session did not end: %s" % self.tail()
        return self.rc

    # ------------------------------------------------------------ waiting
    def tail(self, n=15):
        return "\n".join(self.driver.output[-n:])

    def wait(self, cond, what, limit_s=TIMEOUT_S):
        end = time.monotonic() + limit_s
        while not cond():
            assert self.vm.running, "the VM stopped (%s) waiting for %s:\n%s" % (
                self.vm.rc, what, self.tail())
            assert time.monotonic() < end, "no %s in %d s:\n%s" % (what, limit_s, self.tail())
            time.sleep(0.02)

    def wait_line(self, prefix):
        self.wait(lambda: any(x.startswith(prefix) for x in self.driver.output), prefix)
        return [x for x in self.driver.output if x.startswith(prefix)][-1]

    def hold(self, k):
        """The players stop once k events are acknowledged (the table keeps running)."""
        self.held = k

    def release(self):
        self.held = None

    def wait_acked(self, k):
        self.wait(lambda: self.driver.acked >= k, "event %d" % k)

    def engine_at(self, k):
        with self.lock:
            return self.driver.engine_at(k)

    # ------------------------------------------------------------ HTTP
    def get(self, path, headers=None, method="GET", body=None, timeout=20):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            c.close()

    def json(self, path, headers=None):
        status, _, body = self.get(path, headers)
        assert status == 200, (path, status, body[:200])
        return json.loads(body)

    def login(self, seat, code):
        """POST the seat's code; returns (status, cookie header or None, body)."""
        status, headers, body = self.get("/seat/%d" % seat, {
            "Content-Type": "application/x-www-form-urlencoded"}, "POST", "code=" + code)
        cookie = headers.get("Set-Cookie")
        return status, (cookie.split(";")[0] if cookie else None), body

    def screen(self, i):
        return S.display_text(self.world.displays[i])
