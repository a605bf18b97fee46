"""When the garbage collector runs (firmware/table/housekeeping.py): never inside a card's
way from the reader to its display (the threshold is raised while the bus turn says the
reader has a card, and the table's own collection waits), and a table serving phones
collects by its threshold alone, every WEB_GC_EVERY bytes (issue 43: the collections fell
inside two cards in three on the Pico W)."""
import pytest

from app_support import Bench
from hardware.bus_turn import BusTurn
from table import housekeeping as H

TABLE4 = "preset = table\nseats = 4\nbanker = 1\n"


class FakeGc:
    """MicroPython's gc as the housekeeping uses it, recording what it is asked."""

    def __init__(self, turn=None):
        self.turn = turn
        self.set = []                    # thresholds, in order
        self.collected = []              # for each collection: was a card on its way?

    def threshold(self, n):
        self.set.append(n)

    def collect(self):
        self.collected.append(self.turn.card_near if self.turn is not None else None)

    def mem_alloc(self):
        return 1000

    def mem_free(self):
        return 100000


class Reader:
    def __init__(self):
        self.busy = False
        self.looks = 0

    def service(self):
        self.looks += 1

    def urgent(self, short=False):
        return self.busy


def test_the_bus_turn_tells_when_a_card_comes_and_goes():
    turn = BusTurn()
    told = []
    turn.card_window = told.append
    turn.service()                       # no reader yet (the boot): nothing to tell
    r = Reader()
    turn.reader = r
    turn.service()
    assert told == []
    r.busy = True
    turn.service()
    turn.service()                       # told once, when it changes
    r.busy = False
    turn.service()
    assert told == [True, False] and r.looks == 4
    r.busy = True
    turn.service()
    turn.lent = True                     # the tag mode has the reader: no card of the table
    turn.service()
    assert told == [True, False, True, False]


def test_the_threshold_is_raised_while_a_card_is_on_its_way(monkeypatch):
    gc = FakeGc()
    monkeypatch.setattr(H, "_gc", gc)
    h = H.Housekeeping(None)
    turn = BusTurn()
    h.start(turn)
    assert turn.card_window == h.card_window
    h.card_window(True)
    h.card_window(False)
    assert gc.set == [H._BOOT_GC_EVERY, H.GC_EVERY, H._CARD_GC_EVERY, H.GC_EVERY]
    h.serving()
    h.card_window(True)
    h.card_window(False)
    assert gc.set[4:] == [H.WEB_GC_EVERY, H._CARD_GC_EVERY, H.WEB_GC_EVERY]
    # the raised threshold lets no collection in: the web's garbage over a card's way
    # (a few KB) is far below it, and it stays below the Pico W's free heap (issue 33)
    assert H.WEB_GC_EVERY < H._CARD_GC_EVERY <= 128 * 1024


def test_no_collection_inside_a_cards_way_and_one_after_it(tmp_path, monkeypatch):
    b = Bench(str(tmp_path / "flash"), settings=TABLE4)
    t = b.t
    assert t.turn.card_window == t.house.card_window
    gc = FakeGc(t.turn)
    monkeypatch.setattr(H, "_gc", gc)
    seen = []
    window = t.turn.card_window

    def told(near):
        seen.append(near)
        window(near)
    t.turn.card_window = told
    for c in ("QH", "TS", "4C", "9D"):          # the cut
        assert any(x.startswith("* #") for x in b.card(c))
    b.settle(200)
    assert seen.count(True) >= 4 and seen[-1] is False      # each card opened a window
    assert gc.set.count(H._CARD_GC_EVERY) == seen.count(True)
    assert gc.collected, "the table collects after its bursts (no phones)"
    assert True not in gc.collected, "a collection inside a card's way"


def test_a_table_serving_phones_collects_by_its_threshold_only(tmp_path, monkeypatch):
    b = Bench(str(tmp_path / "flash"), settings=TABLE4)
    t = b.t
    gc = FakeGc(t.turn)
    monkeypatch.setattr(H, "_gc", gc)
    t.house.serving()                    # (webui/web.py run, on a board with a network)
    assert gc.set == [H.WEB_GC_EVERY]
    for c in ("QH", "TS", "4C", "9D"):
        assert any(x.startswith("* #") for x in b.card(c))
    b.settle(200)
    assert gc.collected == [] and t.house.collect is False
    # the heap's figures still walk the heap once a deal (they collect first)
    t.house.heap_due = True
    t.house.heap_figures()
    assert gc.collected == [False]


@pytest.mark.parametrize("near", [True, False])
def test_the_table_waits_to_collect_while_a_card_is_near(tmp_path, monkeypatch, near):
    b = Bench(str(tmp_path / "flash"), settings=TABLE4)
    h = b.t.house
    gc = FakeGc(b.t.turn)
    monkeypatch.setattr(H, "_gc", gc)
    h.busy(0)
    h.idle(card_near=near)
    assert gc.collected == ([] if near else [False])
    assert h.collect is near             # still owed while the card is near
