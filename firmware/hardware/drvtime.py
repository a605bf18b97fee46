# The drivers' notion of time: monotonic() and sleep() as adafruit_pn532 / bus_device /
# ssd1306 use them, plus ticks_ms()/ticks_diff() for our own timeouts.
#
# MicroPython has no time.monotonic, so drivers.install() rebinds the `time` global of the
# driver modules to this module (the driver files stay unchanged). On a Pico the source is
# time.ticks_ms (unwrapped, so monotonic() never jumps back); on the host, use(clock)
# switches everything to the simulated clock so driver timeouts run in simulated time.
# monotonic() is a float of seconds since rebase(): single-precision floats on the rp2 lose
# millisecond resolution after a few hours, so the shoe reader rebases at each poll.
import time

_clock = None
_base = 0
_last = time.ticks_ms() if hasattr(time, "ticks_ms") else 0
_acc = 0


def use(clock):
    """Drive time from `clock` (monotonic(), sleep(s), ticks_ms()); None = real time."""
    global _clock
    _clock = clock
    rebase()


def _now_ms():
    global _last, _acc
    t = time.ticks_ms()
    _acc += time.ticks_diff(t, _last)
    _last = t
    return _acc


def rebase():
    # Only monotonic()'s origin moves: ticks_ms() keeps counting (the buttons' debounce and
    # the controller's timers compare its values across the reader's rebases).
    global _base
    if _clock is None:
        _base = _now_ms() if hasattr(time, "ticks_ms") else 0
    else:
        _base = _clock.ticks_ms()


def monotonic():
    if _clock is not None:
        return _clock.monotonic()
    if not hasattr(time, "ticks_ms"):           # CPython without a clock installed
        return time.monotonic()
    return (_now_ms() - _base) / 1000


def sleep(seconds):
    if _clock is not None:
        _clock.sleep(seconds)
    elif seconds > 0:
        time.sleep(seconds)


def ticks_ms():
    if _clock is not None:
        return _clock.ticks_ms()
    if not hasattr(time, "ticks_ms"):
        return int(time.monotonic() * 1000)
    return _now_ms()


def ticks_diff(a, b):
    return a - b


rebase()
