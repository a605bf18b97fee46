#!/usr/bin/env python3
"""Run a MicroPython script against device models living in this CPython process.

    .venv/bin/python tools/hwbridge.py [--heap 64k] SCRIPT

The script uses boards.simdev.remote.RemoteWorld; its requests ("\\x01..." lines) are
served from a boards.sim.World here, its other output is passed through. Script events:
"X tick" advances the clock 1 ms and runs due actions; "X deal <code>" puts a tag for that
card (NDEF text) into the field and removes it 40 ticks later.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if p not in sys.path:
        sys.path.insert(0, p)

import mpy_build  # noqa: E402
from boards import sim  # noqa: E402
from boards.simdev import ntag213  # noqa: E402

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def serve(script, heap="64k", n_displays=8, dwell=40):
    w = sim.build(n_displays=n_displays)
    env = dict(os.environ)
    env["MICROPYPATH"] = mpy_build.micropypath(app=True)
    mp = os.path.join(os.path.dirname(sys.executable), "micropython")
    proc = subprocess.Popen([mp, "-X", "heapsize=" + heap, script], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, text=True, bufsize=1, cwd=ROOT)
    due = {}
    tick = 0
    out = []
    for line in proc.stdout:
        if not line.startswith("\x01"):
            out.append(line.rstrip("\n"))
            continue
        req = line[1:].split()
        op = req[0]
        if op == "W":
            try:
                w.bus.writeto(int(req[1], 16), bytes.fromhex(req[2] if len(req) > 2 else ""))
                rep = "K"
            except OSError:
                rep = "N"
        elif op == "R":
            buf = bytearray(int(req[2]))
            try:
                w.bus.readfrom_into(int(req[1], 16), buf)
                rep = "K " + buf.hex()
            except OSError:
                rep = "N"
        elif op == "T":
            rep = str(w.clock.ns)
        elif op == "S":
            w.clock.ns += int(req[1])
            rep = "K"
        elif op == "I":
            rep = str(w.pn532.irq.value())
        elif op == "X" and req[1] == "tick":
            tick += 1
            w.clock.advance_us(1000)
            for act in due.pop(tick, ()):
                act()
            rep = "K"
        elif op == "X" and req[1] == "deal":
            code = int(req[2])
            tag = ntag213.text_tag(RANKS[code >> 2] + "CDHS"[code & 3], n=code,
                                   lock_tlv=(code % 4 == 0))
            w.pn532.put(tag)
            due.setdefault(tick + dwell, []).append(lambda tag=tag: w.pn532.remove(tag))
            rep = "K"
        else:
            rep = "?"
        proc.stdin.write(rep + "\n")
        proc.stdin.flush()
    rc = proc.wait()
    return rc, out, w


if __name__ == "__main__":
    args = sys.argv[1:]
    heap = "64k"
    if args[:1] == ["--heap"]:
        heap = args[1]
        args = args[2:]
    rc, out, w = serve(args[0], heap)
    print("\n".join(out))
    print("models: violations %d, display bytes %d, pn532 bytes %d, sim ms %.1f"
          % (len(w.violations()), sum(d.stats.wire_bytes() for d in w.displays),
             w.pn532.stats.wire_bytes(), w.clock.ms()))
    sys.exit(rc)
