#!/usr/bin/env python3
"""Budgets of the whole firmware playing a full `table` session on the simulated board
(prints numbers, asserts nothing):

  - the smallest `-X heapsize` in which the .mpy firmware (engine, drivers, 8 seat
    displays + the banker's, reader, journal, views) plays the session to its end on the
    MicroPython unix port (64-bit: objects are about twice a Pico's);
  - I2C bytes on the bus per dealt card (displays + multiplexer; the PN532 read apart);
  - simulated ms from a card's tag entering the field to its seat's display showing it
    (the simulated clock charges bus and device time, not the CPU time of the firmware).

    .venv/bin/python tools/bench_app.py [--seats 8] [--seed 1] [--no-heap]
"""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import cli  # noqa: E402
import runner as R  # noqa: E402
import simtable as S  # noqa: E402


def session(tmp, seats, seed, heap="512k"):
    head, events = S.script_session("table", seats, seed)
    flash = os.path.join(tmp, "flash")
    S.fresh_flash(flash, S.settings_text("table", seats))
    d = S.Driver(head, events, seed=seed)
    r = R.VM(flash, d, heap=heap)
    return head, events, d, r


def measure(seats, seed):
    with tempfile.TemporaryDirectory() as tmp:
        head, events, d, r = session(tmp, seats, seed)
        marks = {}            # event index -> (ms, display bytes, pn532 bytes)
        writes = {}           # display index -> [ms of each data write]
        state = {}

        def on_action(k):
            w = r.world
            if "hooked" not in state:
                state["hooked"] = True
                for i, disp in enumerate(w.displays):
                    writes[i] = []

                    def wrap(bus, data, orig=disp.write, i=i, carries=disp.carries_data):
                        orig(bus, data)
                        if carries(data):
                            writes[i].append(w.clock.ms())
                    disp.write = wrap
            pn = w.pn532.stats.wire_bytes()
            marks[k] = (w.clock.ms(), w.bus.stats.wire_bytes() - pn, pn)
        d.on_action = on_action
        r.session()
        rc = r.rc
        if rc != 0 or not d.done:
            raise SystemExit("the session did not finish: " + "\n".join(d.output[-10:]))
        w = r.world
        pn = w.pn532.stats.wire_bytes()
        marks[len(events)] = (w.clock.ms(), w.bus.stats.wire_bytes() - pn, pn)
        cards = []
        for k, line in enumerate(events):
            if not line.startswith("card") or k + 1 not in marks or k not in marks:
                continue
            e = d.engine_at(k)
            deals0, ended0 = e.deals, e.deals_ended
            t0, b0, p0 = marks[k]
            t1, b1, p1 = marks[k + 1]
            seat = S.card_seat(e)
            lat = None
            if seat > 0:
                ack = d.ack_at.get(k, t1)
                after = [t for t in writes[seat - 1] if t >= ack]
                if after:
                    lat = after[0] - t0
            after_e = d.engine_at(k + 1)
            boundary = after_e.deals != deals0 or after_e.deals_ended != ended0
            cards.append((b1 - b0, p1 - p0, lat, boundary))
        other = [line for line in events if not line.startswith("card")]
        total_disp = marks[len(events)][1] - marks[0][1]
        card_disp = sum(c[0] for c in cards)
        lats = sorted(c[2] for c in cards if c[2] is not None)
        print("session: table, %d seats, seed %d: %d events (%d cards), simulated %.1f s"
              % (seats, seed, len(events), len(cards), w.clock.ms() / 1000))
        print("display bus bytes per dealt card (displays + mux, until the next action): "
              "avg %.0f, max %d" % (card_disp / len(cards), max(c[0] for c in cards)))
        mid = sorted(c[0] for c in cards)
        inner = [c[0] for c in cards if not c[3]]
        print("  median %d; cards that neither start nor end a deal: avg %.0f (%d cards); "
              "a deal's first and last card redraw every seat" % (
                  mid[len(mid) // 2], sum(inner) / len(inner), len(inner)))
        print("display bus bytes per other event (stakes, buttons, prompts): avg %.0f"
              % ((total_disp - card_disp) / max(1, len(other))))
        print("PN532 bytes per card (polling from the tag's arrival to the next action): "
              "avg %.0f" % (sum(c[1] for c in cards) / len(cards)))
        print("tag in the field -> its seat's display written: avg %.1f ms, median %.1f, "
              "max %.1f (simulated; %d player cards)" % (
                  sum(lats) / len(lats), lats[len(lats) // 2], lats[-1], len(lats)))
        heap = [x for x in d.output if x.startswith("# heap")]
        print("VM (-X heapsize=512k): %s" % (heap[0][2:] if heap else "?"))


def smallest_heap(seats, seed, lo=64, hi=320, step=8):
    def ok(k):
        with tempfile.TemporaryDirectory() as tmp:
            _, _, d, r = session(tmp, seats, seed, heap="%dk" % k)
            try:
                r.session()
            except (RuntimeError, ValueError):   # (ValueError: a VM out of memory mid-
                r.power_cut()                     # request sent the bridge a torn line)
                return False
            return r.rc == 0 and d.done
    if not ok(hi):
        return None
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        if ok(mid):
            hi = mid
        else:
            lo = mid
        print("  heapsize %dk: %s" % (mid, "plays the session" if hi == mid else "fails"),
              flush=True)
    return hi


def main(argv):
    ap = cli.ArgumentParser(prog="bench_app.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seats", type=int, default=8)
    ap.add_argument("--seed", type=cli.whole, default=1)
    ap.add_argument("--no-heap", action="store_true")
    a = ap.parse_args(argv)
    cli.check_seats("bench_app.py", "table", a.seats)
    import mpy_build
    mpy_build.micropypath(app=True)
    measure(a.seats, a.seed)
    if not a.no_heap:
        print("smallest -X heapsize for the whole session (%d seats + banker display, .mpy, "
              "unix port 64-bit):" % a.seats, flush=True)
        k = smallest_heap(a.seats, a.seed)
        print("smallest heap: %sk" % k if k else "smallest heap: more than 320k")


if __name__ == "__main__":
    main(sys.argv[1:])
