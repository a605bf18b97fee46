# Simulated push buttons wired to ground with pull-ups: value() is 1 released, 0 pressed.


class SimPin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, name, level=1):
        self.name = name
        self.level = level
        self.mode = None
        self.pull = None

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.level = 1 if value else 0

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0

    def press(self):
        self.level = 0

    def release(self):
        self.level = 1


class Finger:
    """A person's presses, seeded: each hold drawn from `holds` ms (uniform), and the
    contact bounces 1-10 ms when it closes and again when it opens (tact switches'
    datasheets give bounce under 5-10 ms). edges(hold) is the pin's level over one press:
    [(ms from the first touch, level)], 0 = closed (pressed), 1 = open."""

    BOUNCE_MS = (1.0, 10.0)
    HOLDS_MS = (30.0, 200.0)           # a quick tap to a deliberate press

    def __init__(self, seed=1, holds=HOLDS_MS):
        import random
        self.rng = random.Random(seed)
        self.holds = holds

    def hold(self):
        lo, hi = self.holds
        return self.rng.uniform(lo, hi)

    def _bounce(self, at, settle):
        """Edges of one contact change at `at` that settles at level `settle` after a
        bounce of 1-10 ms: the contact flips a few times, each flip within the bounce."""
        rng = self.rng
        length = rng.uniform(*self.BOUNCE_MS)
        flips = 2 * rng.randint(0, 3)            # back and forth, an even number
        times = sorted(rng.uniform(0, length) for _ in range(flips))
        out = [(at, settle)]
        level = settle
        for t in times:
            level = 1 - level
            out.append((at + t, level))
        out.append((at + length, settle))
        return out

    def edges(self, hold=None):
        """One press held `hold` ms (drawn when None), from its first touch to the last
        release bounce; the hold counts from the first touch to the first opening."""
        hold = self.hold() if hold is None else hold
        down = self._bounce(0.0, 0)
        return down + self._bounce(max(hold, down[-1][0] + 0.5), 1)
