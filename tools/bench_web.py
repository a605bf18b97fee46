#!/usr/bin/env python3
"""The heap the web part (firmware/webui/web.py + microdot + asyncio) adds, on the MicroPython
unix port (64-bit: object headers and pointers twice a Pico's), and the table loop while
serving (prints numbers, asserts nothing):

  - bytes taken by importing asyncio, microdot and web.py (.mpy files);
  - the smallest `-X heapsize` in which a whole `table` session plays to its end on the
    simulated board without the web part (boards/sim.py) and with it (boards/sim_w.py),
    while one phone per seat and one public page long-poll all session long and every
    answer is a 200;
  - from the served run: requests, most slices between two table steps, tag -> display
    latency (simulated).

    .venv/bin/python tools/bench_web.py [--seats 4] [--seed 5] [--no-heap]
"""
import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import threading

import cli  # noqa: F401  (first: the project's Python; quiet when piped to head)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "tools"), os.path.join(ROOT, "firmware"), ROOT,
          os.path.join(ROOT, "host_tests"), os.path.join(ROOT, "host_tests", "sim")):
    if p not in sys.path:
        sys.path.insert(0, p)

IMPORTS = r"""
import gc
import json   # the table has these already:
from game import engine, cards, transcript
from table import views
from hardware import drvtime
gc.collect()
a = gc.mem_alloc()
import asyncio
gc.collect()
b = gc.mem_alloc()
import microdot
gc.collect()
c = gc.mem_alloc()
from webui import web, web_pages
gc.collect()
d = gc.mem_alloc()
print(b - a, c - b, d - c)
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, "bench_web.py: error: %s\n" % " ".join(message.split()))


def import_costs():
    import mpy_build
    env = dict(os.environ, MICROPYPATH=mpy_build.micropypath(app=True))
    mp = os.path.join(os.path.dirname(sys.executable), "micropython")
    p = subprocess.run([mp, "-X", "heapsize=1m", "-c", IMPORTS], capture_output=True,
                       text=True, env=env, timeout=120)
    if p.returncode:
        raise SystemExit("bench_web.py: error: the imports failed: " + p.stderr.strip())
    return [int(x) for x in p.stdout.split()]


def served_session(seats, seed, heap):
    """A whole session with every seat's page and the public page polling. Returns
    (finished with every answer a 200, driver output, WebTable) or (False, reason, None)."""
    import web_support as W
    import test_web as T
    with tempfile.TemporaryDirectory() as tmp:
        wt = W.WebTable(tmp, seats=seats, seed=seed, heap=heap)
        bad = []
        try:
            wt.start()
            wt.hold(0)
            cookies = T.login_all(wt, T.seat_codes(wt, seats))
            stop = threading.Event()

            def poll():
                i = 0
                while not stop.is_set():
                    i += 1
                    s = i % (seats + 1)
                    try:
                        if s:
                            st = wt.get("/api/seat/%d" % s, {"Cookie": cookies[s]})[0]
                        else:
                            st = wt.get("/api/table")[0]
                    except (OSError, http.client.HTTPException) as x:
                        st = repr(x)            # a broken answer (MemoryError on the VM)
                    if st != 200 and not wt.driver.done:     # (done: the table halts)
                        bad.append(st)
            th = threading.Thread(target=poll, daemon=True)
            th.start()
            rc = wt.run_to_end()
            stop.set()
            th.join(30)
        except (AssertionError, RuntimeError) as x:
            return False, str(x).splitlines()[0], None
        finally:
            if getattr(wt, "proc", None) is not None:
                wt.stop()
        ok = rc == 0 and wt.driver.done and not bad
        return ok, (wt.driver.output if ok else "exit %s, answers %s" % (rc, bad[:3])), wt


def plain_session(seats, seed, heap):
    import simtable as S
    head, events = S.script_session("table", seats, seed)
    with tempfile.TemporaryDirectory() as tmp:
        flash = os.path.join(tmp, "flash")
        S.fresh_flash(flash, S.settings_text("table", seats))
        d = S.Driver(head, events, seed=seed)
        import runner
        r = runner.VM(flash, d, heap=heap)
        try:
            r.session()
        except RuntimeError:
            r.power_cut()
            return False
        return r.rc == 0 and d.done


def smallest(ok, lo, hi, step=8, label=""):
    if not ok(hi):
        return None
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        good = ok(mid)
        print("  %s heapsize %dk: %s" % (label, mid, "plays the session" if good else "fails"),
              flush=True)
        if good:
            hi = mid
        else:
            lo = mid
    return hi


def main(argv):
    ap = _Parser(prog="bench_web.py", description=__doc__.splitlines()[0])
    ap.add_argument("--seats", type=int, default=4, choices=range(2, 9), metavar="2..8")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--no-heap", action="store_true", help="skip the heapsize searches")
    ap.add_argument("--web-only", action="store_true", help="search only the served heap")
    a = ap.parse_args(argv)
    import mpy_build
    import test_web as T
    mpy_build.micropypath(app=True)
    aio, md, web = import_costs()
    print("heap taken by importing (.mpy, 64-bit unix port): asyncio %d, microdot %d, "
          "web.py + web_pages.py %d; together %d bytes" % (aio, md, web, aio + md + web))
    ok, out, wt = served_session(a.seats, a.seed, "512k")
    if not ok:
        raise SystemExit("bench_web.py: error: the served session failed: %s" % out)
    stats = [x for x in out if x.startswith("# web:") and "requests" in x][0]
    low = [x for x in out if x.startswith("# loops")][0]
    lat = T._card_latencies(wt, 0)
    print("served session (%d seats, seed %d, %d pages polling, -X heapsize=512k):"
          % (a.seats, a.seed, a.seats + 1))
    print("  " + stats[2:])
    print("  " + low[2:])
    print("  tag in the field -> its seat's display written: %d player cards, avg %.1f ms, "
          "max %.1f ms (simulated)" % (len(lat), sum(lat) / len(lat), max(lat)))
    if a.no_heap:
        return 0
    print("smallest -X heapsize for the whole session (64-bit unix port, .mpy):", flush=True)
    plain = smallest(lambda k: plain_session(a.seats, a.seed, "%dk" % k), 96, 320,
                     label="plain board") if not a.web_only else None
    served = smallest(lambda k: served_session(a.seats, a.seed, "%dk" % k)[0], 128, 512,
                      label="with the web part")
    print("smallest heap: plain board %sk, with the web part serving %sk" % (plain, served))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
