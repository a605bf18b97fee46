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
# must not both stick and twist). No allocation per poll. Times are ticks (drvtime:
# wrapping at TICKS_MAX): a time since is (now - then) & TICKS_MAX, never a plain difference.
from .drvtime import TICKS_MAX

LONG = 16
CHORD = 32


class Buttons:
    def __init__(self, pins, debounce_ms=50, long_ms=800, release_ms=None, levels=None):
        self.pins = pins
        # the board's (levels(), all_up): every pin in one read, for the usual case
        self.levels, self.all_up = levels if levels is not None else (None, 0)
        self.quiet = False                     # all up and settled at the last poll
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
        if self.quiet and self.levels is not None and self.levels() == self.all_up:
            return -1                    # nothing pressed, nothing pending
        ev = -1
        quiet = True
        pins = self.pins                 # (locals: this runs at every sample)
        raw = self.raw
        state = self.state
        mask = TICKS_MAX
        for i in range(self.n):
            v = 1 if pins[i].value() else 0
            if v == state[i] and v == raw[i] and v:
                continue                 # up and still: the usual case
            quiet = False
            if v != raw[i]:
                raw[i] = v
                self.since[i] = now
                continue
            if v != state[i] and (now - self.since[i]) & mask >= (
                    self.release if v else self.debounce):
                if v and not self.long_done[i] and ev >= 0:
                    continue             # a second release in this poll: the next poll
                if v == 0:
                    if self._pressed(i, self.since[i]):
                        ev = CHORD
                else:
                    self.state[i] = 1
                    if not self.long_done[i]:
                        ev = i
                continue
            if v == 0 and self.state[i] == 0 and not self.long_done[i] and ev < 0 \
                    and (now - self.down_at[i]) & mask >= self.long_ms:
                self.long_done[i] = 1
                ev = i + LONG
        self.quiet = quiet
        return ev

    def _pressed(self, i, at):
        """Button i's press counts from `at`. True when another button is down too: two
        at once take neither (CHORD, reported once)."""
        self.state[i] = 0
        self.down_at[i] = at
        self.long_done[i] = 0
        chord = False
        for j in range(self.n):
            if j != i and self.state[j] == 0:
                if not (self.long_done[i] and self.long_done[j]):
                    chord = True
                self.long_done[i] = 1
                self.long_done[j] = 1
        return chord

    def unseen(self, edges, prev, now):
        """Edges the pins' hardware latched since the last poll at `prev` (bit i: button i
        fell, bit 8 + i: it rose), which the last poll did not see when they came between
        two polls. A press that began and ended in that time (a sampler held off by the
        flash for longer than the debounce) becomes a press whose release the next poll
        sees; a press that began in it counts from `prev`, the earliest it can have. Returns
        CHORD when such a press met another button down, else -1."""
        ev = -1
        self.quiet = False
        for i in range(self.n):
            if not (edges >> i) & 0x101:
                continue
            up = self.pins[i].value()
            if up and self.state[i] and (edges >> i) & 0x100 and \
                    ((edges >> i) & 1 or not self.raw[i]):
                start = prev if self.raw[i] else self.since[i]
                if (now - start) & TICKS_MAX < self.debounce:
                    continue             # too short to have been a press
                self.raw[i] = 0
                self.since[i] = start
                if self._pressed(i, start):
                    ev = CHORD
            elif not up and self.raw[i] and (edges >> i) & 1:
                self.raw[i] = 0
                self.since[i] = prev
        return ev

    def pending(self):
        """True: the loop's passes are these buttons' samples, so it goes round between two
        display pages (a press must not pass unseen while a display is drawn)."""
        return True

    def any_down(self):
        for i in range(self.n):
            if self.state[i] == 0:
                return True
        return False


class SampledButtons:
    """Buttons sampled by a timer (the board's make_button_timer) rather
    than by the main loop, whose passes can be longer than a quick press: a press is never
    lost however long a display redraw takes. The timer's callback runs Buttons.poll on the
    tick (ticks_ms) and queues the events; poll() takes one. On the Pico the callback
    is a hard interrupt (it must run while littlefs works in C): it may not allocate, and
    the main loop's poll() and the callback share only the queue's head and tail, each
    written by one side. Edges the board latched (`edges`) cover spells in which no
    interrupt runs at all (a flash erase)."""

    def __init__(self, buttons, make_timer, period_ms=5, ticks=None, edges=None):
        if ticks is None:
            import time
            ticks = time.ticks_ms
        self.b = buttons
        self.ticks = ticks
        self.ms = ticks() & TICKS_MAX        # the last sample's tick
        self.q = bytearray(16)
        self.head = 0                        # written by poll() only
        self.tail = 0                        # written by the timer only: no lost update
        self.interrupted = False
        self.failed = False                  # the callback met an error (poll says it)
        self.edges = edges                   # the board's latched edges (Buttons.unseen)
        if edges is not None:
            edges()                          # latched while the pins were set up: none ours
        self._cb = self._sample              # one bound method, made once
        self.timer = make_timer(period_ms, self._cb)

    def _sample(self, _timer):
        # the tick, not the sample count: while the flash erases (the CPU stalled) samples
        # are dropped, and a press must still last what it lasted. The tick wraps (no sum
        # grows past a small int: this is a hard interrupt, it may not allocate)
        try:
            prev = self.ms
            self.ms = now = self.ticks() & TICKS_MAX
            if self.edges is not None:
                e = self.edges()
                if e and self.b.unseen(e, prev, now) >= 0:
                    self._put(CHORD)
            ev = self.b.poll(now)
            if ev >= 0:
                self._put(ev)
        except KeyboardInterrupt:
            # ctrl-C on the serial line landed in this callback: hand it to the main loop
            self.interrupted = True
        except Exception:                    # noqa: BLE001 - (nothing may escape an IRQ)
            # a fault in a hard interrupt would stop the timer: every button dead, silently.
            # Kept for the main loop to say (poll raises it there)
            self.failed = True

    def stop(self):
        """The table stopped (halt, ctrl-C, an error): no more samples at the REPL."""
        if hasattr(self.timer, "deinit"):
            self.timer.deinit()

    def _put(self, ev):
        if (self.tail - self.head) & 31 < 16:
            self.q[self.tail & 15] = ev
            self.tail = (self.tail + 1) & 31

    def poll(self, now=0):
        if self.interrupted:
            self.interrupted = False
            raise KeyboardInterrupt
        if self.failed:                      # the table stops and says so (main.py)
            raise RuntimeError("the buttons' sampling interrupt failed")
        if self.head == self.tail:
            return -1
        ev = self.q[self.head & 15]
        self.head = (self.head + 1) & 31
        return ev

    def pending(self):
        """A press waits in the queue (the timer samples the pins meanwhile)."""
        return self.head != self.tail

    def any_down(self):
        return self.b.any_down()
