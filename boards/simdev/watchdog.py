# The RP2040's watchdog for the simulated board: fed by the firmware, it keeps the longest
# time between two feeds (emulated) and, when the simulated clock passes the deadline
# while the firmware sleeps (a hung loop), raises WatchdogReset out of the firmware, as
# the chip resets: the harness then boots a new table with reset_cause "watchdog".


class WatchdogReset(BaseException):
    """The watchdog bit: not an Exception, so no `except Exception` in the firmware
    catches it."""


class Watchdog:
    def __init__(self, clock, timeout_ms):
        self.clock = clock
        self.timeout_ns = int(timeout_ms * 1000000)
        self.fed = clock.ns
        self.feeds = 0
        self.max_gap_ns = 0
        self.stopped = False
        clock.watchdog = self

    def feed(self):
        now = self.clock.ns
        gap = now - self.fed
        if gap > self.max_gap_ns:
            self.max_gap_ns = gap
        self.fed = now
        self.feeds += 1

    def stop(self):
        self.stopped = True
        if getattr(self.clock, "watchdog", None) is self:
            self.clock.watchdog = None

    def check(self):
        """Called by the clock as it moves: the chip resets once the deadline passed."""
        if not self.stopped and self.clock.ns - self.fed > self.timeout_ns:
            self.stop()
            raise WatchdogReset("watchdog timeout after %d ms unfed"
                                % ((self.clock.ns - self.fed) // 1000000))
