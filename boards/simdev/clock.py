# Virtual clock: integer nanoseconds, advanced by bus traffic, device work and sleeps.


class Clock:
    # ticks_ms() at ns 0: a shoe powered for days is a clock started near the wrap of
    # MicroPython's ticks (2**30 ms); the firmware masks it (firmware/hardware/drvtime.py)
    ticks_from_ms = 0

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
        return self.ns // 1000000 + self.ticks_from_ms

    def ticks_us(self):
        return self.ns // 1000

    def ms(self):
        return self.ns / 1000000
