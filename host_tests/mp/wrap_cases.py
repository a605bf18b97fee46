# A shoe powered for days: the buttons' sampler (firmware/hardware/buttons.py SampledButtons, the
# Pico's hard timer callback) and the uptime counters (drvtime.count_up) across the wrap
# of MicroPython's ticks_ms (2**30 ms, 12.4 days), under heap_lock() on MicroPython (a hard
# interrupt may not allocate). Runs on CPython (imported by the test) and on the unix VM
# (`micropython host_tests/mp/wrap_cases.py` prints the result as one line).
from hardware import drvtime
from hardware.buttons import Buttons, SampledButtons

try:
    from micropython import heap_lock, heap_unlock
except ImportError:  # CPython: nothing to lock

    def heap_lock():
        pass

    def heap_unlock():
        pass


class Pin:
    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


class PicoTicks:
    """time.ticks_ms of an rp2: a 64-bit microsecond timer, ms masked to 2**30."""

    def __init__(self, start_ms):
        self.ms = start_ms

    def __call__(self):
        return self.ms & drvtime.TICKS_MAX


BEFORE_WRAP_MS = 3000


def sampler_across_the_wrap():
    """A 70 ms press of button (k % 8) every 250 ms, for 6 s of 5 ms samples, the wrap of
    ticks_ms 3 s in; the loop takes the queue every 40 ms. Returns (events in order, the
    presses made, ms before the wrap of the first and after it of the last)."""
    pins = [Pin() for _ in range(8)]
    cbs = []
    ticks = PicoTicks(drvtime.TICKS_MAX + 1 - BEFORE_WRAP_MS)
    sb = SampledButtons(Buttons(pins, debounce_ms=50, release_ms=10),
                        lambda period, cb: cbs.append(cb), ticks=ticks)
    sample = cbs[0]
    got = []
    pressed = []
    t = 0
    while t < 2 * BEFORE_WRAP_MS:
        k = t // 250
        pins[k % 8].level = 0 if t % 250 < 70 else 1
        if t % 250 == 0:
            pressed.append(k % 8)
        heap_lock()                      # the sample as the hard interrupt runs it
        try:
            sample(None)
        finally:
            heap_unlock()
        if t % 40 == 0:
            ev = sb.poll()
            while ev >= 0:
                got.append(ev)
                ev = sb.poll()
        ticks.ms += 5
        t += 5
    for _ in range(20):                  # the last release settles
        sample(None)
        ticks.ms += 5
    ev = sb.poll()
    while ev >= 0:
        got.append(ev)
        ev = sb.poll()
    return got, pressed


def counters_across_the_wrap():
    """count_up and ticks_add/ticks_diff across the bound, under heap_lock()."""
    top = drvtime.TICKS_MAX
    n = top - 2
    t = top - 2
    heap_lock()
    try:
        for _ in range(5):
            n = drvtime.count_up(n)
        b = drvtime.count_up(top - 1, 100)
        t2 = drvtime.ticks_add(t, 5)
        d = drvtime.ticks_diff(t2, t)
    finally:
        heap_unlock()
    return n, b, t2, d


if __name__ == "__main__":
    got, pressed = sampler_across_the_wrap()
    print("sampler", got == pressed, len(got), len(pressed))
    print("counters", counters_across_the_wrap())
