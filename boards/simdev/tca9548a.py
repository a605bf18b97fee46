# TCA9548A 1-to-8 I2C switch (0x70..0x77): one control byte, bit n connects channel n.
from boards.simdev.bus import Stats


class TCA9548A:
    def __init__(self):
        self.mask = 0              # power-up: no channel selected
        self.channels = [{} for _ in range(8)]
        self.stats = Stats()
        self.selects = 0           # control-register writes that changed the mask
        self.browned_ns = -1       # brown_out(): when (-1: none since the last set again)
        self.set_again_ns = 0

    def brown_out(self, now_ns=0):
        """Fault injector: the switch's supply dipped; it comes back with every channel
        off (its power-on state), the displays behind it cut off the bus."""
        self.mask = 0
        self.browned_ns = now_ns

    def add_device(self, channel, address, model):
        if not 0 <= channel < 8:
            raise ValueError("channel 0..7")
        self.channels[channel][address] = model
        return model

    def resolve(self, address):
        out = []
        m = self.mask
        for ch in range(8):
            if m & (1 << ch):
                d = self.channels[ch].get(address)
                if d is not None:
                    out.append(d)
        return out

    def ack(self, bus):
        return True

    def write(self, bus, data):
        # every byte written lands in the control register; the last one counts
        for b in data:
            if b != self.mask:
                self.selects += 1
            self.mask = b
        if self.browned_ns >= 0 and self.mask:
            self.browned_ns = -1
            self.set_again_ns = bus.clock.ns

    def read(self, bus, buf, n):
        for i in range(n):
            buf[i] = self.mask
