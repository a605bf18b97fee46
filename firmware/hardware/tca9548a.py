# TCA9548A I2C switch: one control byte selects channels. channel(n) returns a busio.I2C-like
# object that selects channel n when locked, so unchanged drivers can sit behind the switch.
# The last mask written is cached: a channel change costs one 1-byte write, staying costs none.
from micropython import const


_ADDRESS = const(0x70)


class TCA9548A:
    def __init__(self, i2c, address=_ADDRESS):
        self.i2c = i2c            # a firmware busio.I2C
        self.address = address
        self.mask = -1            # unknown until written
        self._buf = bytearray(1)
        self._chans = [None] * 8

    def select_mask(self, mask):
        if mask != self.mask:
            self._buf[0] = mask
            self.mask = -1
            self.i2c.writeto(self.address, self._buf)   # OSError propagates; mask unknown
            self.mask = mask

    def check(self):
        """Read the channel register back: True when it holds the mask last written (a
        switch that browned out comes back with every channel off). OSError propagates."""
        self.i2c.readfrom_into(self.address, self._buf)
        return self._buf[0] == self.mask

    def select(self, channel):
        self.select_mask(1 << channel)

    def channel(self, n):
        c = self._chans[n]
        if c is None:
            c = self._chans[n] = Channel(self, n)
        return c


class Channel:
    def __init__(self, mux, n):
        self.mux = mux
        self._bit = 1 << n               # (two attributes: the smallest instance dict)

    def try_lock(self):
        if not self.mux.i2c.try_lock():
            return False
        try:
            self.mux.select_mask(self._bit)
        except OSError:
            self.mux.i2c.unlock()
            raise
        return True

    def unlock(self):
        self.mux.i2c.unlock()

    def scan(self):
        self.mux.select_mask(self._bit)
        return [a for a in self.mux.i2c.scan() if a != self.mux.address]

    # the channel is selected in try_lock(), which I2CDevice calls before every transfer
    def writeto(self, address, buffer, *, start=0, end=None):
        self.mux.i2c.writeto(address, buffer, start=start, end=end)

    def writevto(self, address, vector):
        self.mux.i2c.writevto(address, vector)

    def readfrom_into(self, address, buffer, *, start=0, end=None):
        self.mux.i2c.readfrom_into(address, buffer, start=start, end=end)

    def writeto_then_readfrom(self, address, out, into, *, out_start=0, out_end=None,
                              in_start=0, in_end=None):
        self.mux.i2c.writeto_then_readfrom(address, out, into, out_start=out_start,
                                           out_end=out_end, in_start=in_start, in_end=in_end)
