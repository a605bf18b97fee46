#!/usr/bin/env python3
"""Bus bytes, simulated time and heap for the hardware layer, on the simulated board.

    .venv/bin/python tools/bench_hw.py [--freq 100000] [--no-heap]

Bytes are wire bytes (payload + one address byte per transaction); time is the simulated
clock (I2C at the given rate, 9 clocks a byte, docs/DEVICES.md device timings).
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if p not in sys.path:
        sys.path.insert(0, p)

import cli  # noqa: E402
from boards import sim  # noqa: E402
from boards.simdev import ntag213  # noqa: E402


def card_reads(freq, n=13, lock_tlv=False, poll_us=1000, known=False):
    """A card's way from its tag entering the field to its event, averaged: read (the
    stickers known forgotten after each), or `known` by its sticker's UID (read once)."""
    w = sim.build(freq=freq, n_displays=1)
    r = sim.make_reader()
    per = []
    for i in range(n):
        # two cards, each with its one sticker
        tag = ntag213.text_tag("QH" if i % 2 else "10S", n=i % 2, lock_tlv=lock_tlv)
        for _ in range(30):                   # settle: empty field
            r.poll()
            w.clock.advance_us(poll_us)
        b0, t0, p0 = w.pn532.stats.wire_bytes(), w.clock.ns, r.polls
        w.pn532.put(tag)
        while True:
            e = r.poll()
            if e is not None:
                break
            w.clock.advance_us(poll_us)
        if i >= 2 or not known:               # (known: each sticker read once first)
            per.append((w.pn532.stats.wire_bytes() - b0, (w.clock.ns - t0) / 1e6,
                        r.polls - p0))
        for _ in range(30):
            r.poll()
            w.clock.advance_us(poll_us)
        w.pn532.remove(tag)
        if not known:                         # the stickers forgotten (as ignore_field
            r._known[:] = bytes(len(r._known))    # does), the reader's state kept: read
    assert r.cards == n and r.anomalies == 0
    # an empty-field detection cycle
    b0, t0, p0 = w.pn532.stats.wire_bytes(), w.clock.ns, w.pn532.commands.get(0x4A, 0)
    for _ in range(100):
        r.poll()
        w.clock.advance_us(poll_us)
    cycles = w.pn532.commands.get(0x4A, 0) - p0
    empty = ((w.pn532.stats.wire_bytes() - b0) / cycles, (w.clock.ns - t0) / 1e6 / cycles)
    avg = [sum(x[k] for x in per) / len(per) for k in range(3)]
    return avg, empty


def stock_driver_read(freq):
    """The driver's own blocking calls: read_passive_target + 4 ntag2xx_read_block."""
    w = sim.build(freq=freq, n_displays=1)
    pn = sim.make_pn532()
    tag = ntag213.text_tag("QH", n=1)
    w.pn532.put(tag)
    b0, t0 = w.pn532.stats.wire_bytes(), w.clock.ns
    uid = pn.read_passive_target(timeout=0.5)
    for p in range(4, 8):
        pn.ntag2xx_read_block(p)
    assert bytes(uid) == tag.uid
    return w.pn532.stats.wire_bytes() - b0, (w.clock.ns - t0) / 1e6


def driver_inits(freq):
    """The driver's own constructor on each of 9 panels (a write a command, then a clear of
    the whole panel): what seat_displays' recorded commands spare the boot."""
    w = sim.build(freq=freq, n_displays=9)
    d = sim.make_displays(9)
    from adafruit_ssd1306 import SSD1306_I2C
    b0, t0 = w.bus.stats.wire_bytes(), w.clock.ns
    for dev in d._devs:
        SSD1306_I2C(128, 64, dev.i2c, addr=dev.device_address)
    return w.bus.stats.wire_bytes() - b0, (w.clock.ns - t0) / 1e6


def displays(freq):
    w = sim.build(freq=freq, n_displays=9)
    b0, t0 = w.bus.stats.wire_bytes(), w.clock.ns
    d = sim.make_displays(9)
    init = (w.bus.stats.wire_bytes() - b0, (w.clock.ns - t0) / 1e6)
    lines = ["Seat 3  Stake 20", "QH 10S 4D", "Total 24 BUST", "Pay 40", "Banker 17",
             "Twist or stick?", "Cards 3", "Round 12"]
    out = {}
    b0, t0 = w.bus.stats.wire_bytes(), w.clock.ns
    d.show(2, lines, highlight=5)
    out["full redraw (8 pages, after a mux channel change)"] = (
        d.last_pages, w.bus.stats.wire_bytes() - b0, (w.clock.ns - t0) / 1e6)
    lines[2] = "Total 21"
    b0, t0 = w.bus.stats.wire_bytes(), w.clock.ns
    d.show(2, lines, highlight=5)
    out["one-line update"] = (d.last_pages, w.bus.stats.wire_bytes() - b0,
                              (w.clock.ns - t0) / 1e6)
    b0, t0 = w.bus.stats.wire_bytes(), w.clock.ns
    d.show(2, lines, highlight=5)
    out["unchanged"] = (d.last_pages, w.bus.stats.wire_bytes() - b0, (w.clock.ns - t0) / 1e6)
    from adafruit_ssd1306 import SSD1306_I2C
    dev = d._devs[2]                     # the driver on its own, the same picture
    drv = SSD1306_I2C(128, 64, dev.i2c, addr=dev.device_address)
    drv.buffer[:] = d._buf
    b0, t0 = w.bus.stats.wire_bytes(), w.clock.ns
    drv.show()
    out["driver's own show()"] = (8, w.bus.stats.wire_bytes() - b0, (w.clock.ns - t0) / 1e6)
    assert w.violations() == []
    return init, out


def heap():
    import hwbridge
    deck = os.path.join(ROOT, "host_tests", "mp", "hw_remote_deck.py")
    result = None
    for k in range(56, 136, 8):
        rc, out, w = hwbridge.serve(deck, heap="%dk" % k)
        if rc == 0:
            result = (k, out)
            break
    import mpy_build
    env = dict(os.environ, MICROPYPATH=mpy_build.micropypath())
    mp = os.path.join(os.path.dirname(sys.executable), "micropython")
    p = subprocess.run([mp, "-X", "heapsize=1m",
                        os.path.join(ROOT, "host_tests", "mp", "hw_alloc.py")],
                       capture_output=True, text=True, env=env)
    return result, p.stdout.strip().splitlines()


# What the VM-side scripts print ("key value" lines), in words.
DECK_LINES = {
    "cards": "cards the shoe reader reported (of 52 dealt)",
    "deck_ok": "every card read as the card its tag holds (1 = yes)",
    "shown": "seat-display redraws that reached the panel",
    "heap_client": "heap for the bridge client (boards.simdev.remote), bytes",
    "heap_driver_modules": "heap for the three Adafruit driver modules, bytes",
    "heap_displays": "heap for 8 seat displays (shared frame buffer), bytes",
    "heap_reader": "heap for the shoe reader (its buffers, UID map), bytes",
    "heap_in_use_end": "heap in use after the 52 cards, bytes",
    "heap_lowest_free": "lowest free heap seen during the deal, bytes",
}
ALLOC_LINES = {
    "lookup": "UID-map lookup, enrolled UID / unknown UID, under heap_lock "
              "(card index or -1; 'allocated' would be a failure)",
    "walk": "NDEF TLV walk (message offset) / Text-record search (found) / the text, "
            "under heap_lock",
    "waiting_poll": "a poll while the PN532 works (IRQ check only), twice, under heap_lock "
                    "(None = no event, nothing allocated)",
    "alloc_per_empty_poll": "bytes allocated per empty-field poll in all (the driver, busio "
                            "and the chip models inside the VM; the reader's own code: 0)",
}


def _args():
    ap = cli.ArgumentParser(prog="bench_hw.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--freq", type=cli.count, default=400000, help="I2C clock in Hz "
                    "(default 400000)")
    ap.add_argument("--no-heap", action="store_true",
                    help="skip the heap figures (they run the MicroPython VM)")
    return ap.parse_args()


def explained(line, words):
    """'key v1 v2' -> '  <what key means>: v1 v2' (unknown keys as they are)."""
    key, _, value = line.partition(" ")
    return "  %s: %s" % (words[key], value) if key in words else "  " + line


def main():
    a = _args()
    freq = a.freq
    print("I2C at %d Hz (simulated clock), poll loop every 1 ms" % freq)
    for lock in (False, True):
        (b, ms, polls), (eb, ems) = card_reads(freq, lock_tlv=lock)
        print("card read%s: %.0f bytes, %.1f ms from entering the field to the event, "
              "%.0f polls" % (" (lock TLV first, 2 READs)" if lock else "", b, ms, polls))
    (b, ms, polls), _ = card_reads(freq, known=True)
    print("card known by its sticker's UID (read before): %.0f bytes, %.1f ms from entering "
          "the field to the event, %.0f polls" % (b, ms, polls))
    print("empty-field detection cycle: %.0f bytes, %.1f ms" % (eb, ems))
    b, ms = stock_driver_read(freq)
    print("stock driver read_passive_target + 4 x ntag2xx_read_block: %d bytes, %.1f ms "
          "(blocking; its 10 ms sleeps)" % (b, ms))
    init, out = displays(freq)
    print("init of 9 displays (the driver's init commands, one write each, no clear): "
          "%d bytes, %.1f ms" % init)
    print("  against the driver's own constructor on each (a write a command, a clear): "
          "%d bytes, %.1f ms" % driver_inits(freq))
    for k, (pages, b, ms) in out.items():
        print("seat display %s: %d pages, %d bytes, %.2f ms" % (k, pages, b, ms))
    if "--no-heap" not in sys.argv:
        result, alloc = heap()
        if result:
            print("smallest -X heapsize for 52 cards + 8 displays (unix port, 64-bit objects): "
                  "%dk; at that size (host_tests/mp/hw_remote_deck.py):" % result[0])
            for line in result[1]:
                print(explained(line, DECK_LINES))
        print("allocation on the VM (host_tests/mp/hw_alloc.py):")
        for line in alloc:
            print(explained(line, ALLOC_LINES))


if __name__ == "__main__":
    main()
