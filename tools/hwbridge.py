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


class Bridge:
    """Serves the VM's requests from a boards.sim.World (one request -> one reply line).

    Besides the bus, clock and IRQ: "B" answers the button levels (bit i = button i),
    "Y" up to 64 bytes typed on the serial line (push_line, push_bytes), "Z hz duty" the
    buzzer's PWM (world.buzzer hears it), "X tick"/"X deal" as described above.
    """

    def __init__(self, world, dwell=40):
        self.w = world
        self.dwell = dwell
        self.due = {}
        self.tick = 0
        self.serial = bytearray()     # bytes typed on the serial line, not yet read

    def push_line(self, line):
        self.push_bytes(line.encode() + b"\n")

    def push_bytes(self, data):
        self.serial.extend(data)

    def handle(self, req):
        w = self.w
        op = req[0]
        if op == "W":
            try:
                w.bus.writeto(int(req[1], 16), bytes.fromhex(req[2] if len(req) > 2 else ""))
                return "K"
            except OSError:
                return "N"
        if op == "R":
            buf = bytearray(int(req[2]))
            try:
                w.bus.readfrom_into(int(req[1], 16), buf)
                return "K " + buf.hex()
            except OSError:
                return "N"
        if op == "T":
            return str(w.clock.ns)
        if op == "S":
            w.clock.ns += int(req[1])
            return "K"
        if op == "I":
            return str(w.pn532.irq.value())
        if op == "Q":
            w.pn532.irq.wait_low(int(req[1]))
            return "K"
        if op == "B":
            levels = 0
            for i, pin in enumerate(w.buttons):
                levels |= (1 if pin.value() else 0) << i
            return str(levels)
        if op == "Y":
            chunk = self.serial[:64]
            del self.serial[:64]
            return ("K " + chunk.hex()) if chunk else "K"
        if op == "Z":                 # the buzzer's PWM: the piezo model hears it
            w.buzzer.set(int(req[1]), int(req[2]))
            return "K"
        if op == "L":                 # a whole line (older clients)
            i = self.serial.find(b"\n")
            if i < 0:
                return "K"
            line = self.serial[:i].decode("latin-1")
            del self.serial[:i + 1]
            return "K " + line
        if op == "X" and req[1] == "tick":
            self.tick += 1
            w.clock.advance_us(1000)
            for act in self.due.pop(self.tick, ()):
                act()
            return "K"
        if op == "X" and req[1] == "deal":
            code = int(req[2])
            tag = ntag213.text_tag(RANKS[code >> 2] + "CDHS"[code & 3], n=code,
                                   lock_tlv=(code % 4 == 0))
            w.pn532.put(tag)
            self.due.setdefault(self.tick + self.dwell, []).append(
                lambda tag=tag: w.pn532.remove(tag))
            return "K"
        return "?"


def start(script, heap="64k", cwd=None, args=()):
    """The VM running `script` with the .mpy firmware on its path (a Popen)."""
    env = dict(os.environ)
    env["MICROPYPATH"] = mpy_build.micropypath(app=True)
    mp = os.path.join(os.path.dirname(sys.executable), "micropython")
    # its own session: Ctrl-C reaches the host tool, which ends the VM and reports
    return subprocess.Popen([mp, "-X", "heapsize=" + heap, script] + list(args),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True,
                            bufsize=1, cwd=cwd or ROOT, start_new_session=True)


def pump(proc, bridge, on_output=None, on_request=None):
    """Serve `proc` until it exits; other output goes to on_output(line) (or is collected).
    on_request() runs before each request is served (host-side schedulers).
    Returns (exit status, collected output lines)."""
    out = []
    for line in proc.stdout:
        if not line.startswith("\x01"):
            line = line.rstrip("\n")
            if on_output is None:
                out.append(line)
            elif on_output(line) is False:
                break
            continue
        if on_request is not None:
            on_request()
        rep = bridge.handle(line[1:].split())
        try:
            proc.stdin.write(rep + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            break
    rc = proc.wait()
    return rc, out


def serve(script, heap="64k", n_displays=8, dwell=40):
    w = sim.build(n_displays=n_displays)
    proc = start(script, heap)
    rc, out = pump(proc, Bridge(w, dwell))
    return rc, out, w


def _heap_size(text):
    t = text.lower()
    if not (t[:-1].isdigit() and t[-1:] in ("k", "m")) and not t.isdigit():
        import argparse
        raise argparse.ArgumentTypeError("must be a size such as 64k or 1m, not %r" % text)
    return t


if __name__ == "__main__":
    import cli
    ap = cli.ArgumentParser(prog="hwbridge.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--heap", default="64k", type=_heap_size,
                    help="the VM's -X heapsize (default 64k)")
    ap.add_argument("script", help="a MicroPython script using boards.simdev.remote")
    a = ap.parse_args()
    if not os.path.isfile(a.script):
        cli.fail("hwbridge.py", "no such script: %s" % a.script)
    rc, out, w = serve(a.script, a.heap)
    print("\n".join(out))
    print("models: violations %d, display bytes %d, pn532 bytes %d, sim ms %.1f"
          % (len(w.violations()), sum(d.stats.wire_bytes() for d in w.displays),
             w.pn532.stats.wire_bytes(), w.clock.ms()))
    sys.exit(rc)
