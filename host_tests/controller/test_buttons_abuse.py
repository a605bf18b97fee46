"""Buttons under abuse on the simulated board (docs/CONTROLLER.md, "Buttons under abuse"):
two buttons at once, a button held through a card read, contacts that chatter for less
and for more than the debounce time (25 ms, debounce_ms)."""
import pytest
from app_support import Bench

import simtable as S

TABLE4 = "preset = table\nseats = 4\nbanker = 1\n"


@pytest.fixture
def bench(tmp_path):
    return Bench(str(tmp_path / "flash"), settings=TABLE4)


def to_stake(b):
    for c in ("QH", "TS", "4C", "9D"):
        assert any(x.startswith("* #") for x in b.card(c))
    assert b.screen(1)[7].startswith("Stake 1-5")          # seat 2's stake entry, at 1


def pin(b, name):
    return b.world.buttons[S.B[name]]


def levels(b, name, pattern):
    """Drive a button through (level, ms) steps: level 0 = pressed, 1 = released."""
    p = pin(b, name)
    for level, ms in pattern:
        (p.press if level == 0 else p.release)()
        b.settle(ms)


def test_two_buttons_at_once_take_neither(bench):
    to_stake(bench)
    plus, ok = pin(bench, "PLUS"), pin(bench, "OK")
    plus.press()
    bench.settle(60)
    ok.press()                                              # both down
    bench.settle(60)
    plus.release()
    ok.release()
    bench.settle(100)
    assert "! two buttons at once: none taken, press one at a time" in bench.out
    assert "- 1 +" in bench.screen(1)[7] and bench.t.nev == 4      # neither PLUS nor OK
    bench.press("PLUS")                                     # one at a time works again
    assert "- 2 +" in bench.screen(1)[7]


def test_buttons_unit_debounce_and_chord():
    # (unit, no board) a press shorter than the debounce is nothing; two buttons down
    # together are one CHORD and neither release counts
    from hardware.buttons import Buttons

    class Pin:
        v = 1

        def value(self):
            return self.v
    pins = [Pin() for _ in range(8)]
    b = Buttons(pins, debounce_ms=50)
    pins[4].v = 0
    assert b.poll(0) == -1 and b.poll(60) == -1             # MINUS down (debounced)
    pins[4].v = 1
    assert b.poll(61) == -1                                 # MINUS up, bouncing window
    pins[5].v = 0
    assert b.poll(62) == -1                                 # PLUS down (not yet stable)
    pins[5].v = 1
    assert b.poll(70) == -1                                 # PLUS never counted down
    evs = [b.poll(t) for t in (120, 121, 122)]
    assert evs == [4, -1, -1]                               # MINUS once, PLUS never
    pins[5].v = 0
    pins[6].v = 0
    b.poll(200)
    assert b.poll(260) == 32                                # both down: CHORD
    pins[5].v = pins[6].v = 1
    assert [b.poll(t) for t in (300, 360, 361)] == [-1, -1, -1]   # releases ignored


def test_a_button_held_through_a_card_read(bench):
    for c in ("QH", "TS", "4C"):
        bench.card(c)
    plus = pin(bench, "PLUS")
    plus.press()                                            # held ...
    bench.settle(60)
    out = bench.card("9D")                                  # ... while the banker's card
    assert "* #4 card to the banker (face down)" in out     # is read at once
    assert bench.t.nev == 4
    plus.release()                                          # the press counts on release,
    bench.settle(80)                                        # in the state after the card
    assert "- 2 +" in bench.screen(1)[7]


def test_chatter_shorter_than_the_debounce_is_one_press(bench):
    to_stake(bench)
    bounce = [(0, 3), (1, 4), (0, 2), (1, 6), (0, 5), (1, 3)]      # 23 ms of bounces
    levels(bench, "PLUS", bounce + [(0, 90)] + bounce + [(1, 120)])
    assert "- 2 +" in bench.screen(1)[7]                    # exactly one press
    # bounces alone (never 25 ms stable) are no press at all
    levels(bench, "PLUS", bounce * 3 + [(1, 120)])
    assert "- 2 +" in bench.screen(1)[7]


def test_a_contact_open_longer_than_the_debounce_is_two_presses(bench):
    to_stake(bench)
    levels(bench, "PLUS", [(0, 80), (1, 70), (0, 80), (1, 120)])   # open 70 ms mid-press
    assert "- 3 +" in bench.screen(1)[7]
