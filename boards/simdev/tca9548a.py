# TCA9548A 1-to-8 I2C switch (0x70..0x77): one control byte, bit n connects channel n.
from boards.simdev.bus import Stats


class TCA9548A:
    def __init__(self):
        self.mask = 0              # power-up: no channel selected
        self.channels = [{} for _ in range(8)]
        self.stats = Stats()
        self.selects = 0           # control-register writes that changed the mask

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

    def read(self, bus, buf, n):
        for i in range(n):
            buf[i] = self.mask
