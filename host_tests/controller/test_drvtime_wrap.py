"""firmware/hardware/drvtime.py on a Pico (time.ticks_ms, no simulated clock): the shoe reader
rebases monotonic() at every poll, and ticks_ms() must go on regardless — the buttons'
debounce and the controller's timers compare its values across rebases (on the virtual
Pico a rebase that restarted ticks_ms at 0 made every button press vanish)."""
import importlib


class PicoTime:
    """time.ticks_ms / ticks_diff of a Pico, wrapping at 2**30 like MicroPython's."""

    def __init__(self, start):
        self.ms = start

    def ticks_ms(self):
        return self.ms & 0x3FFFFFFF

    def ticks_diff(self, a, b):
        d = (a - b) & 0x3FFFFFFF
        return d - 0x40000000 if d >= 0x20000000 else d


def test_ticks_ms_goes_on_across_rebases_and_the_wrap():
    from hardware import drvtime
    d = importlib.reload(drvtime)
    fake = PicoTime(0x3FFFFFFF - 500)          # 0.5 s before ticks_ms wraps
    d.time = fake
    d._clock = None
    d._last = fake.ticks_ms()
    d._acc = 0
    d.rebase()
    t0 = d.ticks_ms()
    for _ in range(100):
        fake.ms += 20
        d.rebase()                             # as the shoe reader does at each poll
        assert abs(d.monotonic()) < 1e-9        # monotonic() counts from the rebase
    assert d.ticks_ms() - t0 == 2000
    fake.ms += 1500
    assert d.monotonic() == 1.5
    importlib.reload(drvtime)                  # back to the host's own clock for others
