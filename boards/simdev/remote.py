# The simulated board over a pipe: the firmware runs on the MicroPython VM while the device
# models run in a CPython process (tools/hwbridge.py), so the VM's heap holds only what a
# Pico would hold (firmware, drivers, this small client). Requests go to stdout as lines
# starting with "\x01", replies come back on stdin:
#   W aa hex -> K | N      write        R aa n -> K hex | N    read
#   T -> ns                clock        S ns -> K               sleep
#   I -> 0|1               PN532 IRQ    X text -> K            script event for the host
#   Q us -> K              sleep until the IRQ asserts, at most us
#   B -> levels            buttons      Y -> K [hex]           serial bytes for the VM
#   Z hz duty -> K         the buzzer's PWM
# (buttons, the serial line and the buzzer live in remote_io.py, loaded only when asked for)
import sys
from binascii import hexlify, unhexlify

EIO = 5


def _ask(line):
    # an empty line finishes a request already started with "\x01..."
    sys.stdout.write("\x01" + line + "\n" if line else "\n")
    return sys.stdin.readline().strip()


class RemoteBus:
    def __init__(self, freq=400000):
        self.freq = freq

    def writeto(self, addr, buf, stop=True):
        # hex in 32-byte pieces, so a 1 KB frame does not need a 2 KB string
        w = sys.stdout.write
        w("\x01W %02x " % addr)
        mv = memoryview(buf)
        for i in range(0, len(buf), 32):
            w(hexlify(mv[i:i + 32]))
        r = _ask("")
        if r != "K":
            raise OSError(EIO)
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        """The buffers of `vector` in one write (machine.I2C.writevto)."""
        w = sys.stdout.write
        w("\x01W %02x " % addr)
        n = 0
        for buf in vector:
            mv = memoryview(buf)
            for i in range(0, len(buf), 32):
                w(hexlify(mv[i:i + 32]))
            n += len(buf)
        if _ask("") != "K":
            raise OSError(EIO)
        return n

    def readfrom_into(self, addr, buf, stop=True):
        r = _ask("R %02x %d" % (addr, len(buf)))
        if r[0] != "K":
            raise OSError(EIO)
        data = unhexlify(r[2:])
        for i in range(len(buf)):
            buf[i] = data[i]

    def scan(self):
        out = []
        for a in range(0x08, 0x78):
            try:
                self.writeto(a, b"")
                out.append(a)
            except OSError:
                pass
        return out


class RemoteClock:
    def _ns(self):
        return int(_ask("T"))

    def monotonic(self):
        return self._ns() / 1000000000

    def ticks_ms(self):
        return self._ns() // 1000000

    def sleep(self, s):
        if s > 0:
            _ask("S %d" % int(s * 1000000000))


class RemoteIrq:
    def value(self, v=None):
        return int(_ask("I"))

    def wait_low(self, us):
        _ask("Q %d" % us)


class _Chip:
    def __init__(self):
        self.irq = RemoteIrq()


class RemoteWorld:
    """Stands in for boards.sim.World on the VM side (sim.world = RemoteWorld())."""

    def __init__(self, freq=400000):
        self.bus = RemoteBus(freq)
        self.clock = RemoteClock()
        self.pn532 = _Chip()
        self.i2c = None
        self.mux_driver = None

    def __getattr__(self, name):
        if name == "buttons" or name == "serial":
            from boards.simdev import remote_io
            self.buttons, self.serial = remote_io.make(_ask)
            return getattr(self, name)
        if name == "buzzer":
            from boards.simdev import remote_io
            self.buzzer = remote_io.RemotePWM(_ask)
            return self.buzzer
        raise AttributeError(name)


def host(text):
    """Tell the host-side script something (e.g. 'deal 12')."""
    return _ask("X " + text)
