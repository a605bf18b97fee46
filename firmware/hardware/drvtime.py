# The drivers' notion of time: monotonic() and sleep() as adafruit_pn532 / bus_device /
# ssd1306 use them, plus ticks_ms()/ticks_diff()/ticks_add() for our own timeouts.
#
# MicroPython has no time.monotonic, so drivers.install() rebinds the `time` global of the
# driver modules to this module (the driver files stay unchanged). On a Pico the source is
# time.ticks_ms; on the host, use(clock) switches everything to the simulated clock so
# driver timeouts run in simulated time. monotonic() is a float of seconds since rebase():
# single-precision floats on the rp2 lose millisecond resolution within hours, so the shoe
# reader rebases at each poll.
#
# ticks_ms() wraps at 2**30 on every runtime, as MicroPython's does: on the rp2 a small int
# ends there, and an addition past it allocates (a MemoryError in a hard interrupt, a heap
# allocation on every pass in the loop). So ticks are only ever compared with ticks_diff()
# or moved with ticks_add(), and every counter kept for the shoe's uptime (loop passes,
# polls, events, bytes) goes up with count_up(), wrapping at the same bound.
import time

from micropython import const

TICKS_MAX = const(0x3FFFFFFF)       # the largest tick, the largest count: a small int
_TICKS_HALF = const(0x20000000)

_clock = None
_base = 0


def use(clock):
    """Drive time from `clock` (monotonic(), sleep(s), ticks_ms()); None = real time."""
    global _clock
    _clock = clock
    rebase()


def rebase():
    # Only monotonic()'s origin moves: ticks_ms() keeps counting (the buttons' debounce and
    # the controller's timers compare its values across the reader's rebases).
    global _base
    _base = ticks_ms()


def monotonic():
    if _clock is not None:
        return _clock.monotonic()
    if not hasattr(time, "ticks_ms"):           # CPython without a clock installed
        return time.monotonic()
    return ticks_diff(ticks_ms(), _base) / 1000


def sleep(seconds):
    if _clock is not None:
        _clock.sleep(seconds)
    elif seconds > 0:
        time.sleep(seconds)


try:
    from machine import idle as _wfe      # the rp2: WFE until an interrupt, a ms at most
except ImportError:
    _wfe = None


def idle():
    """Sleep until the next interrupt (the button timer's, USB's), a millisecond at most: on
    the Pico the CPU stops instead of polling (a simulated clock moves a tenth of a ms)."""
    if _clock is None and _wfe is not None:
        _wfe()
    else:
        sleep(0.0001)


def ticks_ms():
    if _clock is not None:
        return _clock.ticks_ms() & TICKS_MAX
    if not hasattr(time, "ticks_ms"):
        return int(time.monotonic() * 1000) & TICKS_MAX
    return time.ticks_ms() & TICKS_MAX


if hasattr(time, "ticks_add") and time.ticks_add(TICKS_MAX, 1) == 0:
    # MicroPython's own, in C, nothing allocated, where its period is ours (the rp2; the
    # 64-bit unix port's ticks wrap much later: its ints are small up to 2**62)
    ticks_diff = time.ticks_diff
    ticks_add = time.ticks_add
else:

    def ticks_diff(a, b):
        """a - b for ticks: negative when a is before b (within half the period)."""
        return ((a - b + _TICKS_HALF) & TICKS_MAX) - _TICKS_HALF

    def ticks_add(a, ms):
        """The tick ms after a (ms below half the period, either sign)."""
        return (a + ms) & TICKS_MAX


def count_up(n, by=1):
    """n + by for a counter kept for the shoe's uptime (0 <= by < 2**29): wraps at
    TICKS_MAX without ever making an int past it (no allocation on the rp2)."""
    room = TICKS_MAX - by
    return n + by if n <= room else n - room - 1


rebase()
