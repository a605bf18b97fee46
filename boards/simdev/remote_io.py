# Buttons and the serial line of the simulated board over the bridge pipe (remote.py):
# "B" -> button levels (bit i = button i, 1 released), "Y" -> "K" or "K <hex bytes>";
# the buzzer's PWM as "Z <hz> <duty>" -> "K" (the host's piezo model hears it).
from binascii import unhexlify


class RemotePWM:
    """The buzzer's PWM (machine.PWM's freq and duty_u16): each change goes to the host."""

    def __init__(self, ask):
        self.ask = ask
        self.hz = 0
        self.duty = 0

    def freq(self, hz):
        self.hz = hz
        self.ask("Z %d %d" % (hz, self.duty))

    def duty_u16(self, d):
        self.duty = d
        self.ask("Z %d %d" % (self.hz, d))


class RemotePin:
    """A button (value() 0 = pressed). Button 0 fetches every level in one request, so a
    poll of all the buttons in order costs one round trip."""

    def __init__(self, ask, levels, i):
        self.ask = ask
        self.levels = levels
        self.i = i

    def value(self, v=None):
        if self.i == 0:
            self.levels[0] = int(self.ask("B"))
        return (self.levels[0] >> self.i) & 1


class RemoteLines:
    """The serial line: bytes the host has queued for the VM ("Y" -> "K" or "K <hex>", at
    most 64 bytes a request), through the firmware's own LineAssembler, so the VM sees
    bytes exactly as a Pico's stdin delivers them."""

    def __init__(self, ask):
        from hardware.line_assembler import POLL_BYTES, LineAssembler
        self.ask = ask
        self.asm = LineAssembler()
        self.budget = POLL_BYTES
        self.chunk = b""
        self.at = 0

    def poll(self):
        for _ in range(self.budget):
            if self.at >= len(self.chunk):
                r = self.ask("Y")
                if len(r) <= 2:
                    return None
                self.chunk = unhexlify(r[2:])
                self.at = 0
            b = self.chunk[self.at]
            self.at += 1
            r = self.asm.feed(b)
            if r is not None:
                return r
        return None


def make(ask):
    levels = [255]
    return [RemotePin(ask, levels, i) for i in range(8)], RemoteLines(ask)
