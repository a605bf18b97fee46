"""The simulated Pico W for the web tests: the firmware (.mpy) with its web server on the
MicroPython VM (tools/vm/web_main.py), the chip models and the scripted players here
(tools/simtable.py), the server on 127.0.0.1 at a free port chosen at run time.

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

import hwbridge  # noqa: E402
import simtable as S  # noqa: E402

from boards import sim  # noqa: E402

VM_MAIN = os.path.join(ROOT, "tools", "vm", "web_main.py")
TIMEOUT_S = 300          # no test waits longer than this for the VM


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class WebTable:
    def __init__(self, tmp, preset="table", seats=4, seed=1, heap="512k", settings="",
                 timeout_s=3, serial_share=0.25):
        self.head, self.events = S.script_session(preset, seats, seed)
        self.flash = os.path.join(str(tmp), "flash")
        self.port = free_port()
        S.fresh_flash(self.flash, S.settings_text(preset, seats) + settings
                      + "web_port = %d\nweb_timeout = %d\n" % (self.port, timeout_s))
        self.driver = S.Driver(self.head, self.events, seed=seed, serial_share=serial_share)
        self.heap = heap
        self.held = None
        self.lock = threading.Lock()
        self.writes = {}              # display index -> [sim ms of each data write]
        self.rc = None
        self.world = None
        self.thread = None
        self.finish = False           # halt the firmware once the script is done

    # ------------------------------------------------------------ running
    def start(self):
        self.world = w = sim.build(n_displays=9)
        for i, disp in enumerate(w.displays):
            self.writes[i] = []

            def wrap(bus, data, orig=disp.write, i=i):
                orig(bus, data)
                if data and data[0] == 0x40:
                    self.writes[i].append(w.clock.ms())
            disp.write = wrap
        self.bridge = bridge = hwbridge.Bridge(w)
        d = self.driver
        d.attach(w, bridge.push_line)
        self.proc = proc = hwbridge.start(VM_MAIN, self.heap, cwd=self.flash)
        halted = [False]

        def on_request():
            with self.lock:
                if self.held is not None and d.acked >= self.held:
                    return            # the players wait; the table loop goes on
                d.poll(w.clock.ms())
                if d.done and self.finish and not halted[0]:
                    halted[0] = True
                    bridge.push_line("halt")

        def serve():
            self.rc, _ = hwbridge.pump(proc, bridge, self._output, on_request)
        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        self.wait_line("# web:")
        return self

    def _output(self, line):
        with self.lock:
            self.driver.on_output(line)
        return True

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.proc.poll() is None:
            self.bridge.push_line("halt")
            self.held = None
            self.thread.join(30)
        if self.proc.poll() is None:
            self.proc.kill()
        self.thread.join(10)

    def run_to_end(self):
        """Let the players finish the script; the firmware halts; returns the exit status."""
        self.held = None
        self.finish = True
        self.thread.join(TIMEOUT_S)
        assert not self.thread.is_alive(), "the session did not end: %s" % self.tail()
        return self.rc

    # ------------------------------------------------------------ waiting
    def tail(self, n=15):
        return "\n".join(self.driver.output[-n:])

    def wait(self, cond, what, limit_s=TIMEOUT_S):
        end = time.monotonic() + limit_s
        while not cond():
            assert self.proc.poll() is None, "the VM stopped (%s) waiting for %s:\n%s" % (
                self.proc.returncode, what, self.tail())
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
