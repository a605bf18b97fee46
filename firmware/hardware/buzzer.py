# The dealer's ear (docs/CONTROLLER.md, "The buzzer"): a short high tick when the shoe takes
# a card, a longer low buzz when it refuses one, cannot read it or sees two at once, so a
# dealer whose eyes are on the cards knows without looking up. The board gives the PWM
# output (its make_buzzer(): freq(hz), duty_u16(d); machine.PWM on the Pico); a tone is
# started here and stopped by the controller's loop (step) once its time is up: nothing
# waits for it, and the PWM runs in hardware meanwhile.
from micropython import const


from . import drvtime

TICK_HZ = const(4000)      # near a 12 mm piezo disc's resonance: loud for its length
TICK_MS = const(15)
BUZZ_HZ = const(1000)
BUZZ_MS = const(300)
_HALF = const(32768)       # a square wave: the loudest a piezo gets from a pin


class Buzzer:
    # The loop looks at `on` and `due` itself, without a call, on every pass: a method
    # call a pass while a tone sounds cost the card's display its time.

    def __init__(self, pwm):
        self.pwm = pwm
        self.on = False                      # a tone waits or sounds: step() is due at `due`
        self.due = 0                         # ticks_ms when step() has work (0: at once)
        self.pending = False                 # the tick waits for the loop's step()
        self.hz = 0                          # the PWM's frequency now (set again only to change)
        pwm.duty_u16(0)

    def tick(self):
        """A card taken: the tick starts at the loop's next step(), after the card's own
        display went out (a dealer hears no difference; the display is not held back)."""
        self.pending = True
        self.on = True
        self.due = 0

    def buzz(self):
        self.pending = False
        self._start(BUZZ_HZ, BUZZ_MS)

    def _start(self, hz, ms):
        pwm = self.pwm
        if hz != self.hz:                    # (a tick after a tick: only the duty)
            pwm.freq(hz)
            self.hz = hz
        pwm.duty_u16(_HALF)
        self.on = True
        self.due = drvtime.ticks_add(drvtime.ticks_ms(), ms)

    def step(self):
        """Start a waiting tick, or silence a tone whose time is up (called from the loop
        once `due` has come while self.on)."""
        if self.pending:
            self.pending = False
            self._start(TICK_HZ, TICK_MS)
        else:
            self.pwm.duty_u16(0)
            self.on = False
