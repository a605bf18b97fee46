# Run under the MicroPython VM: every accepted event of whole sessions is applied inside
# micropython.heap_lock(), where any allocation raises MemoryError; valuing hands too.
import gc
import sys

import micropython

from game import bank_options  # noqa: F401 - the engine imports it at a table's first banker option
from game import hands
from autoplay import Autoplayer
from game.engine import EV_CARD, Engine
from game.rules import parse_rules

PRESETS = (
    ("table",), ("casino",),
    ("classic", "shoot=on", "burn=14", "banker_doubling=on", "royal_pontoon=on",
     "pontoon_order=picture_beats_ten", "stick_min=16"),
)


def session(words, seats, seed):
    rules = parse_rules(list(words))
    e = Engine(rules, seats, 0 if words[0] == "casino" else 1)
    bot = Autoplayer(e, seed)
    locked_events = 0
    locked_cards = 0
    for _ in range(4000):
        if e.finished() or (words[0] != "table" and e.deals_ended >= 8 and not e.in_deal()):
            break
        ev = bot.next_event()
        gc.collect()
        micropython.heap_lock()
        try:
            why = e.apply(ev[0], ev[1], ev[2], ev[3])
            for slot in range(e.nslots):
                hands.value(e.hb, slot * 8, e.ncards(slot))
                e.hand_strength(slot)
                e.hand_kind(slot)
        finally:
            micropython.heap_unlock()
        if why is not None:
            raise SystemExit("autoplay event rejected: %s" % why)
        locked_events += 1
        if ev[0] == EV_CARD:
            locked_cards += 1
    return locked_events, locked_cards


total_events = 0
total_cards = 0
for words in PRESETS:
    for seed in (1, 2, 3):
        n, c = session(words, 8 if words[0] != "casino" else 6, seed)
        total_events += n
        total_cards += c
print("OK %d events, %d cards applied under heap_lock" % (total_events, total_cards))
sys.exit(0)
