# The I2C bus clear (NXP UM10204, 3.1.16 "Bus clear"): a target cut off in the middle of a
# byte (a glitch, a cable pulled and pushed back) can hold SDA low for ever, and then every
# transfer on the bus fails, the reader's and every display's. The controller clocks SCL
# nine times, the target lets SDA go within them, and a STOP ends its broken transfer.
# On the rp2 the two pins are taken from the I2C block as open-drain GPIOs for the clear,
# then given back (the board's reopen()); the pins' numbers come from the board module.


class BusClear:
    def __init__(self, pin, sda, scl, sda_level, reopen):
        """pin(n): the GPIO n as an open-drain output let go (machine.Pin-like);
        sda_level(): SDA's level read without taking the pin from the I2C block;
        reopen(): the I2C block gets its pins back."""
        self.pin = pin
        self.sda = sda
        self.scl = scl
        self.sda_level = sda_level
        self.reopen = reopen
        self.clears = 0

    def stuck(self):
        """SDA low between two transfers: a target holds it (the bus idles high)."""
        return not self.sda_level()

    def clear(self):
        """Nine SCL clocks, then a STOP; the I2C block gets its pins back. True when SDA
        is free again."""
        self.clears += 1
        sda = self.pin(self.sda)
        scl = self.pin(self.scl)
        for _ in range(9):
            scl.value(0)
            scl.value(1)
        sda.value(0)                     # STOP: SDA rises while SCL is high
        scl.value(1)
        sda.value(1)
        free = sda.value() == 1
        self.reopen()
        return free
