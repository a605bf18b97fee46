# Acceptance on the MicroPython VM with a small heap: the unchanged Adafruit drivers read a
# 52-card deck through the PN532 model and draw on eight seat displays.
# Prints "key value" lines; run with MICROPYPATH=build/mpy/app:build/mpy/lib (tools/mpy_build.py --app).
import gc
import sys

gc.collect()
free0 = gc.mem_free()
from boards import sim                     # noqa: E402
from boards.simdev import ntag213          # noqa: E402

w = sim.build(n_displays=8)
gc.collect()
free_models = gc.mem_free()
disp = sim.make_displays(8)
gc.collect()
free_disp = gc.mem_free()
reader = sim.make_reader()
gc.collect()
free_reader = gc.mem_free()

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "CDHS"
seen = []
shown = 0
lines = ["", "", "", ""]
for code in range(52):
    # tags are created one at a time: the deck's models need not all sit in the heap
    text = RANKS[code >> 2] + SUITS[code & 3]
    tag = ntag213.text_tag(text, n=code, lock_tlv=(code % 4 == 0))
    w.pn532.put(tag)
    got = None
    for i in range(200):
        if i == 40:
            w.pn532.remove(tag)
        e = reader.poll()
        if e is not None:
            seen.append(e)
            got = e
        w.clock.advance_us(1000)
        if i > 40 and got is not None:
            break
    seat = code & 7
    lines[0] = "Seat %d" % (seat + 1)
    lines[1] = "Card %s" % text
    lines[2] = "Cards read %d" % len(seen)
    if disp.show(seat, lines, highlight=1) > 0:
        shown += 1
    del tag
gc.collect()
print("cards", len(seen))
print("deck_ok", 1 if seen == list(range(52)) else 0)
print("shown", shown)
print("violations", len(w.violations()))
print("heap_models", free0 - free_models)
print("heap_displays", free_models - free_disp)
print("heap_reader", free_disp - free_reader)
print("free_end", gc.mem_free())
print("impl", sys.implementation.name)
