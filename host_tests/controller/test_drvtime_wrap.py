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
    d.rebase()
    t0 = d.ticks_ms()
    for _ in range(100):
        fake.ms += 20
        d.rebase()                             # as the shoe reader does at each poll
        assert abs(d.monotonic()) < 1e-9        # monotonic() counts from the rebase
    assert d.ticks_ms() < t0                   # wrapped, as MicroPython's own ticks_ms
    assert d.ticks_diff(d.ticks_ms(), t0) == 2000
    assert d.ticks_diff(t0, d.ticks_ms()) == -2000
    assert d.ticks_add(t0, 2000) == d.ticks_ms()
    fake.ms += 1500
    assert d.monotonic() == 1.5
    importlib.reload(drvtime)                  # back to the host's own clock for others


def test_counters_wrap_without_passing_a_small_int():
    from hardware import drvtime as d
    top = d.TICKS_MAX
    assert top == 2 ** 30 - 1                  # the rp2's largest small int
    assert d.count_up(5) == 6
    assert d.count_up(top) == 0
    assert d.count_up(top - 3, 10) == 6
    assert d.count_up(top - 10, 10) == top
    # no intermediate value past the bound (on the rp2 that int would be allocated)
    seen = []

    class Watch(int):
        def __add__(self, o):
            r = int(self) + o
            seen.append(r)
            return Watch(r)

        def __sub__(self, o):
            r = int(self) - o
            seen.append(r)
            return Watch(r)
    for n, by in ((top, 1), (top - 1, 7), (top - 100, 100), (0, 1 << 20)):
        assert d.count_up(Watch(n), by) == (n + by) % (top + 1)
    assert max(seen) <= top


def test_the_sampler_takes_every_press_across_the_wrap_on_cpython():
    import os
    import sys

    from conftest import HERE
    sys.path.insert(0, os.path.join(HERE, "mp"))
    try:
        import wrap_cases as W
    finally:
        sys.path.pop(0)
    got, pressed = W.sampler_across_the_wrap()
    assert len(pressed) == 24 and got == pressed


def test_the_sampler_takes_every_press_across_the_wrap_allocating_nothing(micropython):
    # on the unix VM, each sample under heap_lock() as the Pico's hard interrupt runs it
    from conftest import FIRMWARE, HERE, ROOT
    import os
    r = micropython([os.path.join(HERE, "mp", "wrap_cases.py")], heapsize="256k",
                    micropypath=FIRMWARE + ":" + ROOT)
    out = r.stdout.decode() + r.stderr.decode()
    assert r.returncode == 0, out
    assert out.splitlines() == ["sampler True 24 24", "counters (2, 98, 2, 5)"], out


def test_a_buttons_session_across_the_wrap_of_ticks_ms(tmp_path, monkeypatch):
    # the whole table on CPython, its clock's ticks_ms 3 s before the wrap at boot: the
    # classic session from the buttons alone, every press taken (none made again)
    from app_support import ButtonDriver, no_serial_runner

    import simtable as S
    from boards.simdev import clock
    start = 2 ** 30 - 3000
    monkeypatch.setattr(clock.Clock, "ticks_from_ms", start)
    seats, seed = 3, 2
    head, events = S.script_session("classic", seats, seed, deals=3)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("classic", seats))
    driver = ButtonDriver(head, events, seed=seed)
    presses = []
    base = driver._press

    def press(t, name, hold=None):
        presses.append(t)
        return base(t, name, hold)
    driver._press = press
    run = no_serial_runner(flash, driver, S.Screens(seats))
    run.boot()
    run.run()
    assert driver.done and driver.acked == len(events)
    assert driver.errors == [] and driver.retries == 0
    assert run.world.clock.ticks_ms() > 2 ** 30          # the wrap came in the session
    wrap_ms = 3000
    assert sum(1 for t in presses if t < wrap_ms) > 5
    assert sum(1 for t in presses if t > wrap_ms) > 5
