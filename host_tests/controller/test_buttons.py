"""firmware/hardware/buttons.py: a press counts after debounce_ms of low level and is reported once
the release has been stable debounce_ms too (so a contact bounce is never a second press,
docs/CONTROLLER.md "Buttons under abuse"); bounces never make a press."""
from hardware.buttons import LONG, Buttons


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


def test_short_press_is_reported_at_the_debounced_release():
    pins = [Pin(), Pin()]
    b = Buttons(pins, debounce_ms=50, long_ms=800)
    levels = [1] * 5 + [0] * 70 + [1] * 60
    assert run(b, pins[1], levels) == [(125, 1)]           # the release, debounced


def test_bounces_never_make_a_press():
    pin = Pin()
    b = Buttons([pin], debounce_ms=50)
    levels = ([0] * 20 + [1] * 20) * 5 + [1] * 60          # 20 ms glitches
    assert run(b, pin, levels) == []
    # a real press followed by release bounces: exactly one press
    levels = [0] * 60 + [1, 0, 0, 1, 0, 1] + [1] * 100
    assert run(b, pin, levels, start=1000) == [(1115, 0)]


def test_long_press_is_reported_while_held_and_its_release_ignored():
    pin = Pin()
    b = Buttons([pin], debounce_ms=50, long_ms=800)
    levels = [0] * 900 + [1] * 60
    assert run(b, pin, levels) == [(800, LONG)]


def test_timer_sampled_buttons_keep_a_quick_press_the_loop_would_miss():
    # The main loop may look only every 40 ms (a long redraw); a 70 ms press then falls
    # between its samples. Sampled by a 5 ms timer, it is seen and queued.
    from hardware.buttons import SampledButtons
    pins = [Pin() for _ in range(8)]
    timers = []

    def make_timer(period, cb):
        timers.append((period, cb))
        return "timer"
    clock = [0]
    sb = SampledButtons(Buttons(pins, debounce_ms=50), make_timer,
                        ticks=lambda: clock[0])
    (period, sample), = timers

    def tick(t):
        clock[0] += 5
        sample(t)
    assert period == 5 and sb.timer == "timer"
    loop = Buttons([Pin() for _ in range(8)], debounce_ms=50)
    got, missed = [], []
    for ms in range(0, 400, 5):
        level = 0 if 20 <= ms < 90 else 1           # a 70 ms press of button 3
        pins[3].level = level
        loop.pins[3].level = level
        tick(None)
        if ms % 40 == 0:                            # the loop's own passes
            ev = sb.poll()
            if ev >= 0:
                got.append(ev)
            ev = loop.poll(ms)
            if ev >= 0:
                missed.append(ev)
    assert got == [3] and missed == []
    # the queue holds up to 16 events between two loop passes, oldest first
    for k in range(20):
        pins[k % 8].level = 0
        for _ in range(11):
            tick(None)
        pins[k % 8].level = 1
        tick(None)
    assert events(sb) == [k % 8 for k in range(16)]


def test_a_press_across_a_stalled_flash_erase_still_counts():
    # While the flash erases (45 ms, CPU stalled) the 5 ms samples stop; the next one sees
    # the time that passed, so a 70 ms press is still a press.
    from hardware.buttons import SampledButtons
    pins = [Pin() for _ in range(8)]
    clock = [0]
    cbs = []
    sb = SampledButtons(Buttons(pins, debounce_ms=50), lambda p, cb: cbs.append(cb),
                        ticks=lambda: clock[0])
    sample = cbs[0]

    def at(ms, level):
        clock[0] = ms
        pins[2].level = level
        sample(None)
    at(5, 1)
    at(10, 0)           # pressed
    at(15, 0)           # then the erase: no sample until 60
    at(60, 0)
    at(65, 0)
    at(80, 1)           # released after 70 ms
    for ms in range(85, 140, 5):
        at(ms, 1)       # the release counts once it has been stable debounce_ms
    assert sb.poll() == 2 and sb.poll() == -1


def test_ctrl_c_landing_in_the_sampler_reaches_the_main_loop():
    import pytest
    from hardware.buttons import SampledButtons
    cbs = []

    def ticks():
        raise KeyboardInterrupt
    sb = SampledButtons(Buttons([Pin()]), lambda p, cb: cbs.append(cb),
                        ticks=lambda: 0)
    sb.ticks = ticks
    cbs[0](None)                       # swallowed by the callback...
    with pytest.raises(KeyboardInterrupt):
        sb.poll()                      # ...and raised where main.py can stop the table
    assert sb.poll() == -1


def test_a_release_counts_after_release_ms_and_its_bounces_are_no_second_press():
    # the press is debounced 50 ms, the release only release_ms (20): a short press acts
    # 20 ms after the finger lets go, and a release bounce (a few ms) is still no press
    pin = Pin()
    b = Buttons([pin], debounce_ms=50, long_ms=800, release_ms=20)
    levels = [0] * 70 + [1, 0, 0, 1, 0, 1] + [1] * 60
    assert run(b, pin, levels) == [(95, 0)]                # 75 + 20, once
    # a contact open for less than release_ms mid-press: still one press
    levels = [0] * 70 + [1] * 15 + [0] * 70 + [1] * 40
    assert run(b, pin, levels, start=1000) == [(1175, 0)]
    # open for longer, closed again for debounce_ms: two presses
    levels = [0] * 70 + [1] * 25 + [0] * 70 + [1] * 40
    assert run(b, pin, levels, start=2000) == [(2090, 0), (2185, 0)]


def test_settings_take_release_ms():
    from ledger.settings import parse
    st = parse(["release_ms = 30"])
    assert st.error is None and st.release_ms == 30
    assert parse([]).release_ms == 10                      # the default
    assert "release_ms" in parse(["release_ms = 1"]).error


class LatchedPins:
    """Pins whose level changes latch edges as the RP2040's IO_BANK0 does (bit i: pin i
    fell, bit 8 + i: it rose); edges() returns and clears them (boards/pico.py)."""

    def __init__(self, n):
        self.pins = [Pin() for _ in range(n)]
        self.latched = 0

    def set(self, i, level):
        if level != self.pins[i].level:
            self.latched |= (0x100 if level else 1) << i
        self.pins[i].level = level

    def edges(self):
        e, self.latched = self.latched, 0
        return e


def sampled(n=8, edges=True, before=None):
    """(pins, sampler, sample(ms)); before(pins) runs before the sampler starts."""
    from hardware.buttons import SampledButtons
    lp = LatchedPins(n)
    if before is not None:
        before(lp)
    cbs = []
    clock = [0]
    sb = SampledButtons(Buttons(lp.pins, debounce_ms=50, release_ms=20),
                        lambda p, cb: cbs.append(cb), ticks=lambda: clock[0],
                        edges=lp.edges if edges else None)

    def sample(ms):
        clock[0] = ms
        cbs[0](None)
    return lp, sb, sample


def events(sb):
    out = []
    while True:
        ev = sb.poll()
        if ev < 0:
            return out
        out.append(ev)


def test_a_press_inside_a_long_flash_write_is_kept_by_the_latched_edges():
    # littlefs folding the journal holds the sampler off for up to 170 ms: a 70 ms press
    # that begins and ends in it leaves the level as it was. Without the latched edges it
    # is lost (the soak's "stake 1 3" for a player who pressed PLUS four times).
    for with_edges, want in ((False, []), (True, [4])):
        lp, sb, sample = sampled(edges=with_edges)
        for ms in range(0, 100, 5):
            sample(ms)
        lp.set(4, 0)            # at 120 ms, while no sample runs (95 .. 265)
        lp.set(4, 1)            # released at 190 ms
        for ms in range(265, 400, 5):
            sample(ms)
        assert events(sb) == want, with_edges


def test_latched_edges_make_no_press_of_a_glitch_or_a_release_bounce():
    lp, sb, sample = sampled()
    for ms in range(0, 100, 5):
        sample(ms)
    lp.set(1, 0)                # a glitch inside a 30 ms gap: shorter than the debounce
    lp.set(1, 1)
    for ms in range(125, 300, 5):
        sample(ms)
    assert events(sb) == []
    # a press seen by the sampler, then release bounces just before a long gap: one press
    lp.set(1, 0)
    for ms in range(300, 400, 5):
        sample(ms)
    lp.set(1, 1)
    sample(400)
    lp.set(1, 0)
    lp.set(1, 1)                # bounce, then the sampler is held off for 150 ms
    for ms in range(550, 700, 5):
        sample(ms)
    assert events(sb) == [1]


def test_a_press_the_sampler_saw_begin_and_not_end_still_counts():
    # down at 100 (seen, not yet debounced), up inside a 120 ms gap: it lasted at least
    # the 50 ms debounce by the clock, so it is a press
    # (the old, unlatched sampler: lost)
    for with_edges, want in ((True, [6]), (False, [])):
        lp, sb, sample = sampled(edges=with_edges)
        for ms in range(0, 100, 5):
            sample(ms)
        lp.set(6, 0)
        sample(100)
        sample(105)
        lp.set(6, 1)            # somewhere in 105 .. 225
        for ms in range(225, 300, 5):
            sample(ms)
        assert events(sb) == want, with_edges


def test_a_press_that_began_unseen_counts_from_the_last_sample():
    # pressed inside a 100 ms gap, released 20 ms after it: down for at least 20 ms and
    # at most 120; counted from the last sample before the gap, it is a press
    for with_edges, want in ((False, []), (True, [2])):
        lp, sb, sample = sampled(edges=with_edges)
        for ms in range(0, 100, 5):
            sample(ms)
        lp.set(2, 0)
        for ms in range(195, 215, 5):
            sample(ms)
        lp.set(2, 1)
        for ms in range(215, 300, 5):
            sample(ms)
        assert events(sb) == want, with_edges


def test_two_buttons_pressed_unseen_are_a_chord_and_neither_acts():
    from hardware.buttons import CHORD
    lp, sb, sample = sampled()
    for ms in range(0, 100, 5):
        sample(ms)
    lp.set(0, 0)
    lp.set(1, 0)
    lp.set(0, 1)
    lp.set(1, 1)
    for ms in range(250, 400, 5):
        sample(ms)
    assert events(sb) == [CHORD]


def test_edges_latched_before_the_sampler_starts_are_no_press():
    # configuring the pins (pull-ups) latches edges on every button; the first sample may
    # come late (the table still booting): those edges are dropped when the sampler starts
    def pull_ups(lp):
        for i in range(8):
            lp.set(i, 0)
            lp.set(i, 1)
    lp, sb, sample = sampled(before=pull_ups)
    for ms in (120, 125, 130, 200):
        sample(ms)
    assert events(sb) == []


def test_a_stopped_table_stops_its_button_timer(tmp_path, monkeypatch):
    # at `halt` (or ctrl-C, or an error) the Pico's 5 ms sampler must not go on running
    # at the REPL (it kept sampling, and its time landed in whatever ran there)
    import time
    import types

    from table import app
    from boards import sim
    from boards.simdev.serial import QueueLines

    class Timer:
        running = True

        def deinit(self):
            self.running = False
    timers = []

    def make_button_timer(period, cb):
        timers.append(Timer())
        return timers[-1]
    board = types.ModuleType("board")
    board.__dict__.update({k: getattr(sim, k) for k in dir(sim) if not k.startswith("__")})
    board.make_button_timer = make_button_timer
    monkeypatch.setattr(time, "ticks_ms", lambda: 0, raising=False)      # MicroPython's
    monkeypatch.setattr(time, "ticks_diff", lambda a, b: a - b, raising=False)
    w = sim.build(n_displays=9)
    w.serial = QueueLines()
    w.serial.push("halt")
    app.main(board, str(tmp_path) + "/")
    assert len(timers) == 1 and not timers[0].running
