#!/usr/bin/env python3
"""One dealt card on the virtual Pico, from its tag entering the field to the last byte of
its seat's display: where the milliseconds go, as numbers and as a timeline picture.

    .venv/bin/python3 tools/card_timeline.py [--seats N] [--seed S] [--events N]
        [--percentile P] [--out PNG]

Plays the scripted `table` session on the shoe's own UF2 (virtual Pico, XIP cache model)
for its first --events events, takes the player card whose time to its display is the
median of those (or --percentile P), and draws every I2C transaction (the PN532's, the switch's, each
display's), every flash operation and the moments that matter around it. The CPU's own
time is what no lane covers: Python (and the C under it) between transfers.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_pico as B  # noqa: E402
import cli  # noqa: E402
import runner as R  # noqa: E402

S = B.S
PN532_ADDR = 0x24
MUX_ADDR = 0x70
I2C_HZ = 400000
BANKER = 8


class _Recorded(R.Pico):
    """The Pico backend that keeps every I2C transaction and every serial line with its instant."""

    def boot(self):
        self.txns = []               # (end ns, addr, 'w'|'r', bytes, display index or -1)
        self.line_ns = []            # (ns, line)
        self._mux = 0
        return super().boot()

    def _i2c(self, addr, kind, data, ns):
        super()._i2c(addr, kind, data, ns)
        disp = -1
        if addr == MUX_ADDR and kind == "w" and data:
            self._mux = data[0]
        elif addr in (0x3C, 0x3D):
            ch = (self._mux & -self._mux).bit_length() - 1
            disp = BANKER if addr == 0x3D else ch
        self.txns.append((ns, addr, kind, len(data), disp))

    def take_output(self):
        n = len(self.lines)
        super().take_output()
        now = self.p.world.clock.ns
        self.line_ns.extend((now, x) for x in self.lines[n:])


def bus_ns(nbytes):
    """A transfer's time on the bus: address and data bytes, 9 clocks each."""
    return int((nbytes + 1) * 9 * 1e9 / I2C_HZ)


def record(seats, seed, nevents, log=print):
    """Play the first `nevents` events; returns (run, driver, events)."""
    from vpico import pico
    tmp = tempfile.mkdtemp(prefix="card-timeline-")
    flash = os.path.join(tmp, "flash.bin")
    B.deployed_flash(flash, log=log, firmware=pico.FROZEN)
    run = R.Pico(flash, firmware=pico.FROZEN)
    run.boot()
    B.set_files(run, {"settings.txt": S.settings_text("table", seats)})
    run.close()
    head, events = S.script_session("table", seats, seed)
    events = events[:nevents]
    run = _Recorded(flash, slice_s=0.0005, firmware=pico.FROZEN)
    run.boot()
    d = S.Driver(head, events, seed=seed)
    run.play(d)
    run.run(lambda r: d.done)
    run.p_flash_ops = list(run.p.flash_ops)
    run.close()
    return run, d, events


def pick_card(run, driver, events, percentile=50):
    """(put ns, event index, seat, last display byte ns) of the player card at that
    percentile of the time to its display (50: the median)."""
    cards = sorted((t_end - t0, t0, ev, seat, t_end)
                   for t0, ev, seat, t_end in B.player_cards(run, driver, events))
    if not cards:
        raise B.BenchError("no player card reached its display in %d events" % len(events))
    k = min(len(cards) - 1, len(cards) * percentile // 100)
    lat, t0, ev, seat, t_end = cards[k]
    return t0, ev, seat, t_end, len(cards)


def breakdown(run, t0, ev, seat, t_end):
    """The moments and the time in each lane between t0 and t_end (ns)."""
    read = min((t for t in run.card_reads if t >= t0), default=None)
    said = min((t for t, x in run.line_ns if t >= t0 and x.startswith("* #%d card" % (ev + 1))),
               default=None)
    # the display's first byte that can show the card: after the event was accepted (a
    # page of the seat's previous picture may still be going out when the tag enters)
    shown_after = said if said is not None else t0
    first = min((end - bus_ns(n) for end, addr, kind, n, disp in run.txns
                 if disp == seat - 1 and end - bus_ns(n) >= shown_after), default=None)
    lanes = {"PN532": 0, "its display": 0, "other displays": 0, "switch": 0, "flash": 0}
    for end, addr, kind, n, disp in run.txns:
        if end < t0 or end - bus_ns(n) > t_end:
            continue
        dur = bus_ns(n)
        if addr == PN532_ADDR:
            lanes["PN532"] += dur
        elif addr == MUX_ADDR:
            lanes["switch"] += dur
        elif disp == seat - 1:
            lanes["its display"] += dur
        elif disp >= 0:
            lanes["other displays"] += dur
    for kind, offs, count, cost, start in run.p_flash_ops:
        if start + cost >= t0 and start <= t_end:
            lanes["flash"] += min(start + cost, t_end) - max(start, t0)
    return {"read": read, "said": said, "first": first, "lanes": lanes}


def draw(run, t0, ev, seat, t_end, b, path, caption):
    from PIL import Image, ImageDraw, ImageFont
    span = t_end - t0
    lo = t0 - span // 20
    hi = t_end + span // 20
    W, H, left = 1400, 420, 170
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(14)
    small = ImageFont.load_default(12)

    def x(ns):
        return left + int((ns - lo) * (W - left - 20) / (hi - lo))
    d.text((20, 12), caption, fill="black", font=font)
    rows = [("PN532 (0x24)", (200, 90, 0)), ("switch (0x70)", (120, 120, 120)),
            ("seat %d's display" % seat, (0, 110, 200)), ("other displays", (150, 190, 230)),
            ("flash", (200, 0, 0))]
    y0, rh = 70, 46
    for i, (name, col) in enumerate(rows):
        y = y0 + i * rh
        d.text((20, y + 12), name, fill=col, font=font)
        d.line([(left, y + rh - 6), (W - 20, y + rh - 6)], fill=(230, 230, 230))
    for end, addr, kind, n, disp in run.txns:
        start = end - bus_ns(n)
        if end < lo or start > hi:
            continue
        row = (0 if addr == PN532_ADDR else 1 if addr == MUX_ADDR else
               2 if disp == seat - 1 else 3 if disp >= 0 else -1)
        if row < 0:
            continue
        y = y0 + row * rh
        d.rectangle((x(start), y + 8, max(x(start) + 1, x(end)), y + rh - 10), fill=rows[row][1])
    for kind, offs, count, cost, start in run.p_flash_ops:
        if start + cost < lo or start > hi:
            continue
        y = y0 + 4 * rh
        d.rectangle((x(start), y + 8, max(x(start) + 1, x(start + cost)), y + rh - 10),
                    fill=rows[4][1])
        d.text((x(start) + 2, y - 4), "erase" if kind == "e" else "", fill=rows[4][1],
               font=small)
    marks = [(t0, "tag in the field"), (b["read"], "its record read"),
             (b["said"], "event journaled, on the serial line"),
             (b["first"], "first byte to its display"), (t_end, "last byte")]
    yb = y0 + 5 * rh + 8
    for k, (t, name) in enumerate(marks):
        if t is None:
            continue
        d.line([(x(t), y0 - 6), (x(t), yb)], fill="black", width=1)
        label = "%s  %.1f ms" % (name, (t - t0) / 1e6)
        near_end = x(t) > W - 260
        d.text((x(t) - 3 if near_end else x(t) + 3, yb + 4 + 16 * (k % 3)), label,
               fill="black", font=small, anchor="ra" if near_end else "la")
    ms = max(1, int(span / 1e6 / 10))
    t = t0
    while t <= hi:
        d.line([(x(t), y0 - 14), (x(t), y0 - 8)], fill="black")
        d.text((x(t) - 8, y0 - 30), "%d" % round((t - t0) / 1e6), fill=(90, 90, 90), font=small)
        t += ms * 1_000_000
    d.text((20, y0 - 30), "ms from the tag", fill=(90, 90, 90), font=small)
    busy = sum(b["lanes"].values())
    d.text((20, H - 24), "Blank in every lane: the CPU's own time (the firmware's Python and "
           "the C under it), %.1f of the %.1f ms." % ((span - busy) / 1e6, span / 1e6),
           fill=(60, 60, 60), font=small)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    img.save(path, optimize=True)


def main(argv=None):
    ap = cli.ArgumentParser(prog="card_timeline.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seats", type=int, default=8, help="seats at the table (default 8)")
    ap.add_argument("--seed", type=cli.whole, default=1, help="the scripted session (default 1)")
    ap.add_argument("--events", type=cli.count, default=80,
                    help="events of the session to play (default 80)")
    ap.add_argument("--percentile", type=int, default=50, choices=range(0, 101),
                    metavar="P", help="the card at this percentile of the times (default 50: "
                    "the median; 95: one of the slow ones)")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "bench", "card_timeline.png"),
                    help="the picture (default out/bench/card_timeline.png)")
    a = ap.parse_args(argv)
    cli.check_seats("card_timeline.py", "table", a.seats)
    try:
        run, driver, events = record(a.seats, a.seed, a.events, log=lambda *x: None)
    except B.BenchError as e:
        cli.fail("card_timeline.py", e)
    t0, ev, seat, t_end, n = pick_card(run, driver, events, a.percentile)
    b = breakdown(run, t0, ev, seat, t_end)
    total = (t_end - t0) / 1e6
    print("card timeline (virtual Pico, the shoe's UF2, XIP cache model): event %d, seat %d, "
          "%s of %d player cards: %.1f ms from the tag to its display's last byte"
          % (ev + 1, seat, "the median" if a.percentile == 50 else
             "percentile %d" % a.percentile, n, total))
    for name, t in (("its record read", b["read"]), ("journaled, on the serial line", b["said"]),
                    ("first byte to its display", b["first"])):
        if t is not None:
            print("  %-34s at %6.1f ms" % (name, (t - t0) / 1e6))
    busy = 0
    for name, ns in b["lanes"].items():
        busy += ns
        print("  %-34s %6.1f ms (%2.0f%%)" % (name + " bus" if name != "flash" else
                                             "flash (CPU stalled)", ns / 1e6,
                                             100 * ns / (t_end - t0)))
    print("  %-34s %6.1f ms (%2.0f%%)" % ("the CPU's own (no lane)", total - busy / 1e6,
                                         100 * (1 - busy / (t_end - t0))))
    draw(run, t0, ev, seat, t_end, b, a.out,
         "A card to seat %d (event %d): %.1f ms from its tag to its display's last byte "
         "(virtual Pico, the shoe's UF2)" % (seat, ev + 1, total))
    print("  picture: %s" % os.path.relpath(a.out, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
