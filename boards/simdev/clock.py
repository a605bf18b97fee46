# Virtual clock: integer nanoseconds, advanced by bus traffic, device work and sleeps.


class Clock:
    def __init__(self):
        self.ns = 0
        self.watchdog = None      # boards/simdev/watchdog.Watchdog, once the firmware starts it

    def advance_us(self, us):
        self.ns += int(us * 1000)

    def sleep(self, seconds):
        if seconds > 0:
            self.ns += int(seconds * 1000000000)
        if self.watchdog is not None:     # a firmware that sleeps unfed is reset
            self.watchdog.check()

    def monotonic(self):
        return self.ns / 1000000000

    def ticks_ms(self):
        return self.ns // 1000000

    def ticks_us(self):
        return self.ns // 1000

    def ms(self):
        return self.ns / 1000000
