# Polled, debounced push buttons (to ground, pull-ups: value() 0 = pressed).
#
# poll(now_ms) returns at most one event per call: the button index for a short press
# (reported on release), index + LONG when a press has lasted long_ms (reported while
# still held; its release is then ignored), CHORD, or -1. A level must be stable for
# debounce_ms before it counts: contact bounces shorter than that are no press; a contact
# that opens for longer makes two presses. Two buttons down at once (debounced) take
# neither: CHORD is reported once and both releases are ignored (a palm on the buttons
# must not both stick and twist). No allocation per poll.
LONG = 16
CHORD = 32


class Buttons:
    def __init__(self, pins, debounce_ms=50, long_ms=800):
        self.pins = pins
        n = len(pins)
        self.n = n
        self.debounce = debounce_ms
        self.long_ms = long_ms
        self.raw = bytearray(b"\x01" * n)      # last level read
        self.state = bytearray(b"\x01" * n)    # debounced level
        self.long_done = bytearray(n)
        self.since = [0] * n                   # when raw last changed
        self.down_at = [0] * n                 # when the debounced press began

    def poll(self, now):
        ev = -1
        for i in range(self.n):
            v = 1 if self.pins[i].value() else 0
            if v != self.raw[i]:
                self.raw[i] = v
                self.since[i] = now
                continue
            if v != self.state[i] and now - self.since[i] >= self.debounce:
                if v and not self.long_done[i] and ev >= 0:
                    continue             # a second release in this poll: the next poll
                self.state[i] = v
                if v == 0:
                    self.down_at[i] = self.since[i]
                    self.long_done[i] = 0
                    for j in range(self.n):
                        if j != i and self.state[j] == 0:      # two at once: neither
                            if not (self.long_done[i] and self.long_done[j]):
                                ev = CHORD
                            self.long_done[i] = 1
                            self.long_done[j] = 1
                elif not self.long_done[i]:
                    ev = i
                continue
            if v == 0 and self.state[i] == 0 and not self.long_done[i] and ev < 0 \
                    and now - self.down_at[i] >= self.long_ms:
                self.long_done[i] = 1
                ev = i + LONG
        return ev

    def any_down(self):
        for i in range(self.n):
            if self.state[i] == 0:
                return True
        return False
