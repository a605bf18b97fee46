"""firmware/buttons.py: a press counts after debounce_ms of low level and is reported at
the first high reading after it (no second debounce before the answer); bounces never
make a press."""
from buttons import LONG, Buttons


class Pin:
    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


def run(b, pin, levels, start=0):
    """levels: one level per ms; returns [(ms, event)] for every event reported."""
    out = []
    for k, level in enumerate(levels):
        pin.level = level
        ev = b.poll(start + k)
        if ev >= 0:
            out.append((start + k, ev))
    return out


def test_short_press_is_reported_at_the_release():
    pins = [Pin(), Pin()]
    b = Buttons(pins, debounce_ms=50, long_ms=800)
    levels = [1] * 5 + [0] * 70 + [1] * 60
    assert run(b, pins[1], levels) == [(75, 1)]            # the first high reading


def test_bounces_never_make_a_press():
    pin = Pin()
    b = Buttons([pin], debounce_ms=50)
    levels = ([0] * 20 + [1] * 20) * 5 + [1] * 60          # 20 ms glitches
    assert run(b, pin, levels) == []
    # a real press followed by release bounces: exactly one press
    levels = [0] * 60 + [1, 0, 0, 1, 0, 1] + [1] * 100
    assert run(b, pin, levels, start=1000) == [(1060, 0)]


def test_long_press_is_reported_while_held_and_its_release_ignored():
    pin = Pin()
    b = Buttons([pin], debounce_ms=50, long_ms=800)
    levels = [0] * 900 + [1] * 60
    assert run(b, pin, levels) == [(800, LONG)]
