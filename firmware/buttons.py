# Polled, debounced push buttons (to ground, pull-ups: value() 0 = pressed).
#
# poll(now_ms) returns at most one event per call: the button index for a short press
# (reported on release), index + LONG when a press has lasted long_ms (reported while
# still held; its release is then ignored), CHORD, or -1. A press must be stable for
# debounce_ms before it counts: contact bounces shorter than that are no press. A release
# counts once stable for release_ms (by default debounce_ms): a short press acts that
# long after the finger lets go, so the release wait is kept short (a contact's release
# bounce lasts a few ms); a contact that opens for longer than it makes two presses. Two
# buttons down at once (debounced) take neither: CHORD is reported once and both releases are ignored (a palm on the buttons
# must not both stick and twist). No allocation per poll.
LONG = 16
CHORD = 32


class Buttons:
    def __init__(self, pins, debounce_ms=50, long_ms=800, release_ms=None):
        self.pins = pins
        n = len(pins)
        self.n = n
        self.debounce = debounce_ms
        self.release = debounce_ms if release_ms is None else release_ms
        self.long_ms = long_ms
        self.raw = bytearray(b"\x01" * n)      # last level read
        self.state = bytearray(b"\x01" * n)    # debounced level
        self.long_done = bytearray(n)
        self.since = [0] * n                   # when raw last changed
        self.down_at = [0] * n                 # when the debounced press began

    def poll(self, now):
        ev = -1
        pins = self.pins                 # (locals: on a Pico this runs every 5 ms)
        raw = self.raw
        state = self.state
        for i in range(self.n):
            v = 1 if pins[i].value() else 0
            if v == state[i] and v == raw[i] and v:
                continue                 # up and still: the usual case
            if v != raw[i]:
                raw[i] = v
                self.since[i] = now
                continue
            if v != state[i] and now - self.since[i] >= (
                    self.release if v else self.debounce):
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


class SampledButtons:
    """Buttons sampled by a timer (the board's make_button_timer, e.g. every 5 ms) rather
    than by the main loop, whose passes can be longer than a quick press: a press is never
    lost however long a display redraw takes. The timer's callback runs Buttons.poll on the
    elapsed milliseconds and queues the events (no allocation); poll() takes one."""

    def __init__(self, buttons, make_timer, period_ms=5, ticks=None, diff=None):
        if ticks is None:
            import time
            ticks = time.ticks_ms
            diff = time.ticks_diff
        self.b = buttons
        self.ticks = ticks
        self.diff = diff
        self.last = ticks()
        self.ms = 0                          # real ms since start: samples can be late
        self.q = bytearray(16)
        self.head = 0                        # written by poll() only
        self.tail = 0                        # written by the timer only: no lost update
        self.interrupted = False
        self._cb = self._sample              # one bound method, made once
        self.timer = make_timer(period_ms, self._cb)

    def _sample(self, _timer):
        # the elapsed time, not the sample count: while the flash erases (45 ms, the CPU
        # stalled) ticks are dropped, and a press must still last what it lasted
        try:
            t = self.ticks()
            self.ms += self.diff(t, self.last)
            self.last = t
            ev = self.b.poll(self.ms)
            if ev >= 0 and (self.tail - self.head) & 31 < 16:
                self.q[self.tail & 15] = ev
                self.tail = (self.tail + 1) & 31
        except KeyboardInterrupt:
            # ctrl-C on the serial line landed in this callback: hand it to the main loop
            self.interrupted = True

    def poll(self, now=0):
        if self.interrupted:
            self.interrupted = False
            raise KeyboardInterrupt
        if self.head == self.tail:
            return -1
        ev = self.q[self.head & 15]
        self.head = (self.head + 1) & 31
        return ev

    def any_down(self):
        return self.b.any_down()
