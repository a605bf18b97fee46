#!/usr/bin/env python3
"""One dealt card on the virtual Pico, from its tag entering the field to the last byte of
its seat's display (and, on a Pico W, to each phone): where the milliseconds go, as numbers
and as a timeline picture.

    .venv/bin/python3 tools/card_timeline.py [--board pico|pico_w] [--seats N] [--seed S]
        [--events N] [--percentile P] [--out PNG]

Plays the scripted `table` session on the shoe's own UF2 (virtual Pico, XIP cache model)
for its first --events events, takes the player card whose time to its display is the
median of those (or --percentile P), and draws every I2C transaction (the PN532's, the switch's, each
display's), every flash operation and the moments that matter around it. The CPU's own
time is what no lane covers: Python (and the C under it) between transfers.

--board pico_w: the same on the shoe's Pico W UF2 with the bench's nine phones
(boards/vpico_w.py, as tools/bench_pico.py --only pico_w): the card is the one at that
percentile of the time from its tag to the last phone's first answer that shows it, and
the picture adds a lane per phone with its answers as marks (at the instant each answer's
line had come out, to the runner's 0.5 ms slice). The web's own slices cannot be seen: a
request touches neither the bus nor the flash, and only its answer comes out.
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


def draw_bars(d, run, lo, hi, seat, x, rows, y0, rh, top, bottom, erase_font=None):
    """Each I2C transaction and flash operation between lo and hi (ns) as a bar in its lane:
    rows are the PN532, the switch, the card's display, the other displays and the flash,
    each rh pixels from y0, a bar from top to rh - bottom in it; erases named with
    erase_font when given."""
    for end, addr, kind, n, disp in run.txns:
        start = end - bus_ns(n)
        if end < lo or start > hi:
            continue
        row = (0 if addr == PN532_ADDR else 1 if addr == MUX_ADDR else
               2 if disp == seat - 1 else 3 if disp >= 0 else -1)
        if row < 0:
            continue
        y = y0 + row * rh
        d.rectangle((x(start), y + top, max(x(start) + 1, x(end)), y + rh - bottom),
                    fill=rows[row][1])
    for kind, offs, count, cost, start in run.p_flash_ops:
        if start + cost < lo or start > hi:
            continue
        y = y0 + 4 * rh
        d.rectangle((x(start), y + top, max(x(start) + 1, x(start + cost)), y + rh - bottom),
                    fill=rows[4][1])
        if erase_font is not None:
            d.text((x(start) + 2, y - 4), "erase" if kind == "e" else "", fill=rows[4][1],
                   font=erase_font)


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
    draw_bars(d, run, lo, hi, seat, x, rows, y0, rh, 8, 10, erase_font=small)
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


# ------------------------------------------------------------------ the Pico W and its phones
BOARDS = ("pico", "pico_w")
PHONES_SETTLE_S = 10.0           # emulated: the phones' last answers after the last event


def _phones_caught_up(nevents):
    """True once every phone that has had an answer has had one of all `nevents` events."""
    import json
    seen = {}

    def caught_up(run):
        for seat, status, body in run.web[caught_up.k:]:
            if status == 200:
                got = json.loads(body).get("events", -1)
                seen[seat] = max(seen.get(seat, -1), got)
        caught_up.k = len(run.web)
        return bool(seen) and min(seen.values()) >= nevents
    caught_up.k = 0
    return caught_up


def _phones_watching(seats):
    """True once every phone (the public page's and each seat's) has had an answer."""
    def watching(run):
        return {seat for seat, status, _ in run.web if status == 200} >= set(range(seats + 1))
    return watching


def record_w(seats, seed, nevents, log=print):
    """The first `nevents` events on the shoe's Pico W UF2 with the bench's phones
    (boards/vpico_w.py, as tools/bench_pico.py measure_w), then until every phone has had an
    answer of them all; returns (run, driver, events). The dealer starts once every phone
    watches (a boot that first makes last night's standings serves the phones later)."""
    from vpico import pico
    tmp = tempfile.mkdtemp(prefix="card-timeline-w-")
    flash = os.path.join(tmp, "flash_w.bin")
    pico.uf2_for(pico.FROZEN, "RPI_PICO_W")
    run = R.Pico(flash, board="RPI_PICO_W")
    run.boot()
    B.set_files(run, {"settings.txt": S.settings_text("table", seats),
                      "board.mpy": B.phones_board(),
                      "history/0001.txt": B.kept_session(seats, seed)})
    run.close()
    head, events = S.script_session("table", seats, seed)
    events = events[:nevents]
    run = _Recorded(flash, slice_s=0.0005, board="RPI_PICO_W")
    run.boot()
    d = S.Driver(head, events, seed=seed)
    run.play(None)
    run.run(_phones_watching(seats), max_s=run.p.emulated_now() + PHONES_SETTLE_S)
    run.play(d)
    for line in run.lines:           # what the table said meanwhile: its new session
        d.on_output(line)
    run.run(lambda r: d.done)
    run.driver = None                # the players are done: the phones catch up alone
    run.run(_phones_caught_up(len(events)), max_s=run.p.emulated_now() + PHONES_SETTLE_S)
    run.p_flash_ops = list(run.p.flash_ops)
    run.close()
    return run, d, events


def phone_answers(run):
    """{phone: [(ns its answer had come out by, events it shows)]} of every 200 answer
    (phone 0: the public page; an answer "the table as it was" shows -1)."""
    import json
    out = {}
    for (seat, status, body), ns in zip(run.web, run.web_ns):
        if status == 200:
            out.setdefault(seat, []).append((ns, json.loads(body).get("events", -1)))
    return out


def first_shown(answers, n, t_acc):
    """{phone: ns of its first answer showing event n (n events or more) at or after t_acc}
    for every phone already watching then (it had had an answer), as bench_pico's
    phone_latencies counts them; None for a watching phone that never showed it."""
    out = {}
    for phone, seen in sorted(answers.items()):
        if not seen or seen[0][0] > t_acc:
            continue
        out[phone] = next((ns for ns, got in seen if ns >= t_acc and got >= n), None)
    return out


def w_cards(run, driver, events):
    """(ns to the last phone, put ns, event index, seat, last OLED byte ns, accepted ns,
    {phone: first answer ns}) of every player card every watching phone showed."""
    answers = phone_answers(run)
    out = []
    for t0, ev, seat, t_end in B.player_cards(run, driver, events):
        t_acc = run.accepted_ns.get(ev + 1)
        if t_acc is None:
            continue
        firsts = first_shown(answers, ev + 1, t_acc)
        if not firsts or None in firsts.values():
            continue
        out.append((max(firsts.values()) - t0, t0, ev, seat, t_end, t_acc, firsts))
    return sorted(out, key=lambda c: c[:3])


def pick_card_w(cards, percentile=50):
    """The card at that percentile of the time from its tag to the last phone showing it."""
    if not cards:
        raise B.BenchError("no player card reached every phone in the events played")
    return cards[min(len(cards) - 1, len(cards) * percentile // 100)]


def nice_step_ms(span_ms, ticks=12):
    """An axis step of 1, 2 or 5 times a power of ten giving about `ticks` ticks."""
    step = 1
    while span_ms / step > ticks:
        for f in (2, 2.5, 2):
            step *= f
            if span_ms / step <= ticks:
                break
    return int(step)


PHONE_COLOUR = (0, 140, 90)
OLED_COLOUR = (0, 110, 200)


def phone_name(phone):
    return "public page /" if phone == 0 else "seat %d's phone" % phone


def draw_w(run, card, b, path, caption, answers):
    """Bus lanes as the Pico's picture, then one lane per phone: its answers as marks."""
    from PIL import Image, ImageDraw, ImageFont
    last, t0, ev, seat, t_end, t_acc, firsts = card
    t_last = t0 + last
    span = t_last - t0
    lo = t0 - span // 25
    hi = t_last + span // 12
    phones = sorted(firsts)
    bus_rows = [("PN532 (0x24)", (200, 90, 0)), ("switch (0x70)", (120, 120, 120)),
                ("seat %d's OLED" % seat, OLED_COLOUR), ("other OLEDs", (150, 190, 230)),
                ("flash", (200, 0, 0))]
    W, left, right = 1400, 190, 30
    y0, rh, ph = 92, 34, 30
    yp = y0 + len(bus_rows) * rh + 34          # the phones' lanes start here
    ym = yp + len(phones) * ph                 # the moments' labels start here
    marks = [(t0, "tag in the field"), (b["read"], "its record read"),
             (t_acc, "event accepted (its line on the serial port)"),
             (b["first"], "first byte to seat %d's OLED" % seat),
             (t_end, "last byte to seat %d's OLED" % seat),
             (t_last, "the last phone shows it")]
    H = ym + 18 * len(marks) + 56
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(14)
    small = ImageFont.load_default(12)

    def x(ns):
        return left + int((ns - lo) * (W - left - right) / (hi - lo))
    d.text((20, 12), caption, fill="black", font=font)
    # the legend (the default font has no circles: drawn)
    legend = [("Bars: the I2C bus and the flash, as they are busy.   Phones:", None),
              ("the first answer that shows the card (ms from the tag, the grey line from "
               "the event accepted),", True),
              ("its other answers (the table as it was, or before the card)", False)]
    lx = 20
    for text, filled in legend:
        if filled is not None:
            lx += 8
            box = (lx - 5, 38 - 5 + 6, lx + 5, 38 + 5 + 6)
            if filled:
                d.ellipse(box, fill=PHONE_COLOUR)
            else:
                d.ellipse(box, outline=PHONE_COLOUR)
            lx += 10
        d.text((lx, 38), text, fill=(60, 60, 60), font=small)
        lx += int(d.textlength(text, font=small)) + 6
    # the ms axis, from the tag
    step = nice_step_ms(span / 1e6)
    k = 0
    while t0 + k * step * 1_000_000 <= hi:
        t = t0 + k * step * 1_000_000
        d.line([(x(t), y0 - 14), (x(t), y0 - 8)], fill="black")
        d.line([(x(t), y0 - 6), (x(t), ym - 4)], fill=(242, 242, 242))
        d.text((x(t), y0 - 30), "%d" % (k * step), fill=(90, 90, 90), font=small, anchor="ma")
        k += 1
    d.text((20, y0 - 30), "ms from the tag", fill=(90, 90, 90), font=small)
    for i, (name, col) in enumerate(bus_rows):
        y = y0 + i * rh
        d.text((20, y + 9), name, fill=col, font=font)
        d.line([(left, y + rh - 4), (W - right, y + rh - 4)], fill=(225, 225, 225))
    draw_bars(d, run, lo, hi, seat, x, bus_rows, y0, rh, 6, 8)
    d.text((20, yp - 24), "phones (streaming)", fill=PHONE_COLOUR, font=font)
    for i, phone in enumerate(phones):
        y = yp + i * ph
        mid = y + ph // 2
        col = OLED_COLOUR if phone == seat else PHONE_COLOUR
        d.text((20, mid - 8), phone_name(phone), fill=col, font=font)
        d.line([(left, y + ph - 2), (W - right, y + ph - 2)], fill=(225, 225, 225))
        for ns, got in answers.get(phone, ()):
            if lo <= ns <= hi and ns != firsts[phone]:
                d.ellipse((x(ns) - 4, mid - 4, x(ns) + 4, mid + 4), outline=col, width=1)
        t = firsts[phone]
        d.line([(x(t_acc), mid), (x(t), mid)], fill=(200, 200, 200), width=2)
        d.ellipse((x(t) - 6, mid - 6, x(t) + 6, mid + 6), fill=col)
        label = "%.0f ms" % ((t - t0) / 1e6)
        if x(t) > W - right - 70:
            d.text((x(t) - 10, mid - 7), label, fill=col, font=small, anchor="ra")
        else:
            d.text((x(t) + 10, mid - 7), label, fill=col, font=small)
    # the earliest moment's label lowest: no mark's line crosses a later one's label
    marks = [m for m in marks if m[0] is not None]
    for k, (t, name) in enumerate(marks):
        yl = ym + 18 * (len(marks) - 1 - k)
        d.line([(x(t), y0 - 6), (x(t), yl + 14)], fill=(70, 70, 70), width=1)
        label = "%s  %.1f ms" % (name, (t - t0) / 1e6)
        near_end = x(t) > W - 420
        d.text((x(t) - 4 if near_end else x(t) + 4, yl), label,
               fill="black", font=small, anchor="ra" if near_end else "la")
    busy = sum(b["lanes_all"].values())
    d.text((20, H - 26), "Blank in every lane: the CPU's own time (the table's Python and the "
           "web's: each answer is made and written by the Pico W), %.0f of the %.0f ms to the "
           "last phone." % ((span - busy) / 1e6, span / 1e6), fill=(60, 60, 60), font=small)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    img.save(path, optimize=True)


def lanes_between(run, t0, t1):
    """ns each bus lane and the flash are busy between t0 and t1 (whatever they serve)."""
    lanes = {"bus": 0, "flash": 0}
    for end, addr, kind, n, disp in run.txns:
        if end >= t0 and end - bus_ns(n) <= t1:
            lanes["bus"] += min(end, t1) - max(end - bus_ns(n), t0)
    for kind, offs, count, cost, start in run.p_flash_ops:
        if start + cost >= t0 and start <= t1:
            lanes["flash"] += min(start + cost, t1) - max(start, t0)
    return lanes


def print_steps(b, t0, t_end):
    """The card's moments and where its time went, from its tag to its display's last byte."""
    total = (t_end - t0) / 1e6
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


def main_w(a):
    try:
        run, driver, events = record_w(a.seats, a.seed, a.events, log=lambda *x: None)
        cards = w_cards(run, driver, events)
        card = pick_card_w(cards, a.percentile)
    except B.BenchError as e:
        cli.fail("card_timeline.py", e)
    last, t0, ev, seat, t_end, t_acc, firsts = card
    b = breakdown(run, t0, ev, seat, t_end)
    b["lanes_all"] = lanes_between(run, t0, t0 + last)
    total = (t_end - t0) / 1e6
    print("card timeline (virtual Pico W, the shoe's Pico W UF2, %d phones streaming): "
          "event %d, seat %d, %s of %d player cards: %.1f ms from the tag to its display's "
          "last byte, %.1f ms to the last phone's answer showing it"
          % (len(firsts), ev + 1, seat, "the median" if a.percentile == 50 else
             "percentile %d" % a.percentile, len(cards), total, last / 1e6))
    print_steps(b, t0, t_end)
    for phone, t in sorted(firsts.items(), key=lambda kv: (kv[1], kv[0])):
        print("  %-34s at %6.1f ms (%5.1f ms after the event was accepted)"
              % (phone_name(phone) + "'s first answer showing it", (t - t0) / 1e6,
                 (t - t_acc) / 1e6))
    lanes = b["lanes_all"]
    n_ans = sum(1 for ns in run.web_ns if t0 <= ns <= t0 + last)
    print("  tag -> last phone, %.1f ms: bus %.1f, flash %.1f, the CPU's own (table and web) "
          "%.1f ms; %d answers written meanwhile"
          % (last / 1e6, lanes["bus"] / 1e6, lanes["flash"] / 1e6,
             (last - lanes["bus"] - lanes["flash"]) / 1e6, n_ans))
    draw_w(run, card, b, a.out,
           "A card to seat %d (event %d) on the Pico W: its OLED's last byte at %.1f ms, "
           "every phone shows it by %.0f ms (virtual Pico W, the shoe's Pico W UF2)"
           % (seat, ev + 1, total, last / 1e6), phone_answers(run))
    print("  picture: %s" % os.path.relpath(a.out, ROOT))
    return 0


def main(argv=None):
    ap = cli.ArgumentParser(prog="card_timeline.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", choices=BOARDS, default="pico",
                    help="pico (default): the shoe's UF2 on the virtual Pico; pico_w: the "
                    "shoe's Pico W UF2 on the virtual Pico W with its nine phones, the card "
                    "followed to each phone's first answer that shows it")
    ap.add_argument("--seats", type=int, default=8, help="seats at the table (default 8)")
    ap.add_argument("--seed", type=cli.whole, default=1, help="the scripted session (default 1)")
    ap.add_argument("--events", type=cli.count, default=80,
                    help="events of the session to play (default 80)")
    ap.add_argument("--percentile", type=int, default=50, choices=range(0, 101),
                    metavar="P", help="the card at this percentile of the times (default 50: "
                    "the median; 95: one of the slow ones)")
    ap.add_argument("--out", default=None,
                    help="the picture (default out/bench/card_timeline.png; "
                    "out/bench/card_timeline_w.png with --board pico_w)")
    a = ap.parse_args(argv)
    cli.check_seats("card_timeline.py", "table", a.seats)
    if a.out is None:
        a.out = os.path.join(ROOT, "out", "bench", "card_timeline%s.png" % (
            "_w" if a.board == "pico_w" else ""))
    elif not a.out.lower().endswith(".png"):     # (said now, not after minutes of emulation)
        ap.error("--out: the picture is a PNG file, its name ends .png: %s" % a.out)
    if a.board == "pico_w":
        return main_w(a)
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
    print_steps(b, t0, t_end)
    draw(run, t0, ev, seat, t_end, b, a.out,
         "A card to seat %d (event %d): %.1f ms from its tag to its display's last byte "
         "(virtual Pico, the shoe's UF2)" % (seat, ev + 1, total))
    print("  picture: %s" % os.path.relpath(a.out, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
