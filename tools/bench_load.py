#!/usr/bin/env python3
"""The firmware under load on the simulated board:

  - the longest gap between two polls of the shoe reader during a whole `table` session
    (8 seats, a dealer sliding a card through the field every 333 ms for 40 ms), with the
    displays as the events change them and with every display redrawn whole every 300 ms;
  - the serial line's throughput on the MicroPython VM: lines per second (wall clock, this
    machine) for a pasted flood of `status` lines, each answered.

    .venv/bin/python3 tools/bench_load.py [--seed 1] [--lines 2000]
"""
import argparse
import os
import sys
import tempfile
import time

import cli  # noqa: F401  (first: the project's Python; quiet when piped to head)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import runner as R  # noqa: E402
import simtable as S  # noqa: E402


def poll_gaps(seed, storm_ms):
    head, events = S.script_session("table", 8, seed)
    with tempfile.TemporaryDirectory() as tmp:
        flash = os.path.join(tmp, "flash")
        S.fresh_flash(flash, S.settings_text("table", 8))
        d = S.Driver(head, events, seed=seed, deal_ms=333, dwell_ms=40, retry=True)
        r = R.CPython(flash, d)
        t = r.boot().table
        w = r.world
        st = {"last": None, "max": 0, "polls": 0, "next": 0}
        poll = t.reader.poll

        def timed(hold=False):
            now = w.clock.ns
            if st["last"] is not None:
                st["max"] = max(st["max"], now - st["last"])
            st["last"] = now
            st["polls"] += 1
            return poll(hold)
        t.reader.poll = timed

        def storm(now):
            table = r.table
            if storm_ms and w.clock.ms() >= st["next"]:
                st["next"] = w.clock.ms() + storm_ms
                for i in range(9):
                    table.screens.disp.redraw(i)
                    table.screens.hashes[i] = 0
                table.screens.all_dirty()
        r.on_tick = storm
        r.run()
        cards = [k for k, line in enumerate(events) if line.startswith("card")]
        lat = [d.ack_at[k] - d.put_at[k] for k in cards]
        return {"gap_ms": st["max"] / 1e6, "polls": st["polls"], "cards": len(cards),
                "read_max_ms": max(lat), "read_mean_ms": sum(lat) / len(lat),
                "missed": d.retries, "sim_s": w.clock.ms() / 1000}


def serial_throughput(lines):
    with tempfile.TemporaryDirectory() as tmp:
        S.fresh_flash(tmp, S.settings_text("table", 4))
        r = R.VM(tmp).boot()
        bridge = r.bridge
        st = {"n": 0, "t0": None, "t1": None, "sent": False}

        def on_output(line):
            # the table's first prompt: the console reads lines from then on, whether the
            # flash held a session ('# resume') or not ('# new session')
            if line.startswith("> ") and not st["sent"]:
                st["sent"] = True
                bridge.push_bytes(b"status\n" * lines)
                st["t0"] = time.monotonic()
            elif line.startswith("ok status"):
                st["n"] += 1
                if st["n"] == lines:
                    st["t1"] = time.monotonic()
                    bridge.push_line("halt")
        r.on_line = on_output
        r.run()                          # until the VM stops ('halt')
        rc = r.rc
        if rc != 0 or st["t1"] is None:
            raise SystemExit("error: the VM did not answer every line (exit %s)" % rc)
        return lines / (st["t1"] - st["t0"])


def main(argv):
    ap = argparse.ArgumentParser(description="the firmware under load (simulated board)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lines", type=int, default=2000)
    try:
        a = ap.parse_args(argv)
    except SystemExit as x:
        return x.code
    if a.lines < 1:
        print("error: --lines must be at least 1", file=sys.stderr)
        return 2
    import mpy_build
    mpy_build.micropypath(app=True)
    for label, storm in (("displays as the events change them", 0),
                         ("every display redrawn whole every 300 ms", 300)):
        m = poll_gaps(a.seed, storm)
        print("session (table, 8 seats, seed %d, a card every 333 ms for 40 ms), %s: "
              "%d cards, none missed: %s; read in %.1f ms mean, %.1f ms worst; longest gap "
              "between two reader polls %.2f ms (%d polls, %.0f s simulated)"
              % (a.seed, label, m["cards"], "yes" if m["missed"] == 0 else "NO",
                 m["read_mean_ms"], m["read_max_ms"], m["gap_ms"], m["polls"], m["sim_s"]))
    rate = serial_throughput(a.lines)
    print("serial line on the MicroPython VM: %d pasted 'status' lines answered at %.0f "
          "lines/s (wall clock, this machine)" % (a.lines, rate))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
