# Buttons and the serial line of the simulated board over the bridge pipe (remote.py):
# "B" -> button levels (bit i = button i, 1 released), "L" -> "K" or "K <line>".


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
    """The serial line: a line the host has queued for the VM, or None."""

    def __init__(self, ask):
        self.ask = ask

    def poll(self):
        r = self.ask("L")
        if len(r) > 2:
            return r[2:]
        return None


def make(ask):
    levels = [255]
    return [RemotePin(ask, levels, i) for i in range(8)], RemoteLines(ask)
