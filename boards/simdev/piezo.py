# A passive piezo buzzer on a PWM pin, as the table hears it: each tone with the time it
# started, its pitch and how long it sounded. The PWM side is machine.PWM's (freq(hz),
# duty_u16(d)): a tone sounds while the duty is neither 0 nor full (a pin held at one level
# moves the disc once and is silent). On the virtual Pico the same model is driven from the
# emulated RP2040's PWM registers (tools/vpico/pico.py).
#
# What tests and the dealer model read:
#   tones      [(ms, "tick" | "buzz")], in order: when each tone started (the clock's ms)
#              and which of the firmware's two it is (firmware/hardware/buzzer.py, by pitch)
#   played     [(start_ms, hz, end_ms or None while it sounds)]
#   since(ms)  the tones that started at or after ms


def kind_of(hz):
    """'tick' or 'buzz': the firmware's tone nearest in pitch."""
    from hardware.buzzer import BUZZ_HZ, TICK_HZ
    return "tick" if abs(hz - TICK_HZ) < abs(hz - BUZZ_HZ) else "buzz"


class Piezo:
    def __init__(self, clock):
        self.clock = clock
        self.hz = 0
        self.duty = 0
        self.played = []
        self.tones = []

    def sounding(self):
        return bool(self.played) and self.played[-1][2] is None

    def freq(self, hz=None):
        if hz is None:
            return self.hz
        self.set(int(hz), self.duty)

    def duty_u16(self, d=None):
        if d is None:
            return self.duty
        self.set(self.hz, int(d))

    def set(self, hz, duty):
        """The output now: `hz` with a duty of `duty`/65535."""
        now = self.clock.ms()
        loud = 0 < duty < 65535 and hz > 0
        if self.sounding() and (not loud or hz != self.hz):
            start, was, _ = self.played[-1]
            self.played[-1] = (start, was, now)
        if loud and not self.sounding():
            self.played.append((now, hz, None))
            self.tones.append((int(now), kind_of(hz)))
        self.hz = hz
        self.duty = duty

    def since(self, ms):
        return [t for t in self.tones if t[0] >= ms]
