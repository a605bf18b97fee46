# The dealer's ear (docs/CONTROLLER.md, "The buzzer"): a short high tick when the shoe takes
# a card, a longer low buzz when it refuses one, cannot read it or sees two at once, so a
# dealer whose eyes are on the cards knows without looking up. The board gives the PWM
# output (its make_buzzer(): freq(hz), duty_u16(d); machine.PWM on the Pico); a tone is
# started here and stopped by the controller's loop (stop_due) once its time is up: nothing
# waits for it, and the PWM runs in hardware meanwhile.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


import drvtime

TICK_HZ = const(4000)      # near a 12 mm piezo disc's resonance: loud for its length
TICK_MS = const(15)
BUZZ_HZ = const(1000)
BUZZ_MS = const(300)
_HALF = const(32768)       # a square wave: the loudest a piezo gets from a pin


class Buzzer:
    def __init__(self, pwm):
        self.pwm = pwm
        self.on = False
        self.until = 0
        self.hz = 0                          # the PWM's frequency now (set again only to change)
        pwm.duty_u16(0)

    def tick(self):
        self._start(TICK_HZ, TICK_MS)

    def buzz(self):
        self._start(BUZZ_HZ, BUZZ_MS)

    def _start(self, hz, ms):
        pwm = self.pwm
        if hz != self.hz:                    # (a tick after a tick: only the duty)
            pwm.freq(hz)
            self.hz = hz
        pwm.duty_u16(_HALF)
        self.on = True
        self.until = drvtime.ticks_ms() + ms

    def stop_due(self, now):
        """Silence a tone whose time is up (called from the loop while self.on)."""
        if drvtime.ticks_diff(now, self.until) >= 0:
            self.pwm.duty_u16(0)
            self.on = False
