# A simulated I2C bus with the machine.I2C surface used by firmware/busio.py.
#
# The shoe's bus runs at 400 kHz, the most every part on it allows (ds): the PN532 is an
# I2C fast-mode (400 kHz) slave, the TCA9548A/PCA9548A switch is specified for 0 to
# 400 kHz, and the SSD1306 needs a clock cycle of at least 2.5 us. 1 MHz Fast-mode Plus
# would take none of the three (tools/bench_reader.py shows what it would save).
#
# Devices: objects with ack(bus) -> bool (address phase), write(bus, data) and
# read(bus, buf, n). A NACKed address raises OSError(EIO) like machine.I2C on the rp2.
# A model that sees a protocol violation raises ProtocolError (not an OSError, so no
# driver retry loop can swallow it).
from boards.simdev.clock import Clock

EIO = 5


class ProtocolError(Exception):
    pass


class Stats:
    # per device: transactions, bytes host->device, bytes device->host, NACKs
    def __init__(self):
        self.transactions = 0
        self.tx = 0
        self.rx = 0
        self.nacks = 0

    def wire_bytes(self):
        # payload plus one address byte per transaction
        return self.tx + self.rx + self.transactions + self.nacks

    def reset(self):
        self.transactions = self.tx = self.rx = self.nacks = 0

    def __repr__(self):
        return "Stats(trans=%d tx=%d rx=%d nacks=%d)" % (
            self.transactions, self.tx, self.rx, self.nacks)


class SimI2C:
    """machine.I2C look-alike. freq in Hz; every byte costs 9 clocks, every transaction a
    start, an address byte and a stop (or repeated start)."""

    def __init__(self, clock=None, freq=400000):
        self.clock = clock or Clock()
        self.freq = freq
        self.devices = {}
        self.muxes = []
        self.stats = Stats()          # whole bus
        self.nack_faults = {}         # address -> remaining forced NACKs
        self.log = None               # set to a list to record (addr, 'w'/'r', bytes)
        # the wires (bus clear, NXP UM10204 3.1.16): a target holding SDA low
        self.held = 0                 # SCL clocks the target still needs to let SDA go
        self.wait_stop = False        # let go: a STOP must end the broken transfer first
        self.stuck_ns = -1            # when the bus got stuck (-1: not stuck)
        self.cleared_ns = 0           # when the STOP freed it
        self.sticky = -1              # a switch channel whose target grabs SDA again at
        #                               every transfer to it (fault_stuck(sticky=ch))
        self.scl_out = 1              # what the host drives when its pins are GPIOs
        self.sda_out = 1
        self.clocks = 0               # SCL rising edges the host made by hand

    # --- the wires, for a host that bit-bangs them (the bus clear)
    def fault_stuck(self, clocks=9, sticky=-1):
        """Fault injector: a target, cut off in the middle of a byte, holds SDA low until
        `clocks` SCL clocks have gone by; every transfer fails until then and a STOP.
        sticky=ch: a target on switch channel ch that does it again at every transfer to it
        while that channel is on."""
        self.held = clocks
        self.wait_stop = False
        self.stuck_ns = self.clock.ns
        if sticky >= 0:
            self.sticky = sticky

    def fault_sticky(self, channel):
        """Fault injector: a target on switch channel `channel` grabs SDA (as
        fault_stuck) at every transfer to it while that channel is on, from now on: the
        first one goes through, the next fails (on the virtual Pico the SDA pin follows at
        each address phase, tools/vpico)."""
        self.sticky = channel

    def stuck(self):
        return self.held > 0 or self.wait_stop

    def sda(self):
        """The SDA wire's level (open drain: low when anyone pulls it down)."""
        return 0 if self.held or not self.sda_out else 1

    def scl(self):
        return self.scl_out

    def drive(self, line, level):
        """The host's own drive of 'sda' or 'scl' (1: let go, pulled up)."""
        self.clock.ns += 5000             # half a clock of a bit-banged 100 kHz
        if line == "scl":
            if level and not self.scl_out:
                self.clocks += 1
                if self.held:
                    self.held -= 1
                    if not self.held:
                        self.wait_stop = True
            self.scl_out = level
        else:
            if level and not self.sda_out and self.scl_out and not self.held:
                if self.wait_stop:        # a STOP: the bus is free again
                    self.wait_stop = False
                    self.stuck_ns = -1
                    self.cleared_ns = self.clock.ns
            self.sda_out = level

    def _sticky_grab(self):
        if self.sticky >= 0 and not self.stuck():
            for mux in self.muxes:
                if mux.mask & (1 << self.sticky):
                    self.fault_stuck(9)
                    return

    # --- wiring
    def add_device(self, address, model):
        if address in self.devices:
            raise ValueError("address 0x%02x already on the bus" % address)
        self.devices[address] = model
        if hasattr(model, "resolve"):
            self.muxes.append(model)
        if hasattr(model, "attach"):
            model.attach(self)
        return model

    def fault_nack(self, address, count=1):
        """The next `count` transactions to `address` are NACKed."""
        self.nack_faults[address] = self.nack_faults.get(address, 0) + count

    def _charge(self, nbytes, stop=True):
        clocks = 1 + 9 * (1 + nbytes) + (1 if stop else 0)
        self.clock.ns += clocks * 1000000000 // self.freq

    def _find(self, address, reading):
        found = []
        dev = self.devices.get(address)
        if dev is not None:
            found.append(dev)
        for mux in self.muxes:
            for d in mux.resolve(address):
                found.append(d)
        if reading and len(found) > 1:
            raise ProtocolError("bus conflict: %d devices answer a read at 0x%02x"
                                % (len(found), address))
        return found

    def _address_phase(self, address, nbytes, reading, stop):
        self._charge(nbytes if nbytes else 0, stop)
        return self.address(address, reading)

    # --- the phases of one transaction, for a host that clocks the bus itself (tools/vpico):
    # address() -> the devices that ACKed, then deliver() (write) or collect() (read).
    # A device whose read() has side effects also has peek(bus, buf, n), the same bytes
    # without them, so a read can be answered before its length is known.
    def address(self, address, reading):
        """The address phase: the devices that ACK (OSError(EIO) when none does)."""
        if self.stuck() or not self.scl_out or not self.sda_out:
            self.stats.nacks += 1         # no START can be made: the controller gives up
            raise OSError(EIO)
        devs = self._find(address, reading)
        forced = self.nack_faults.get(address, 0)
        if forced:
            self.nack_faults[address] = forced - 1
            acked = ()
        else:
            acked = [d for d in devs if d.ack(self)]
        if not acked:
            self.stats.nacks += 1
            for d in devs:
                st = getattr(d, "stats", None)
                if st:
                    st.nacks += 1
            raise OSError(EIO)
        self.stats.transactions += 1
        for d in acked:
            d.stats.transactions += 1
            if self.sticky >= 0 and d not in self.devices.values():
                self._sticky_grab()       # (its transfer goes through; the next fails)
        return acked

    def deliver(self, addr, devs, buf):
        """The data phase of a write to the devices address() returned."""
        n = len(buf)
        self.stats.tx += n
        if self.log is not None:
            self.log.append((addr, "w", bytes(buf)))
        for d in devs:
            d.stats.tx += n
            d.write(self, buf)

    def collect(self, addr, dev, buf):
        """The data phase of a read from the device address() returned."""
        n = len(buf)
        self.stats.rx += n
        dev.stats.rx += n
        dev.read(self, buf, n)
        if self.log is not None:
            self.log.append((addr, "r", bytes(buf)))

    # --- machine.I2C API
    def scan(self):
        found = []
        for a in range(0x08, 0x78):
            try:
                self.writeto(a, b"")
                found.append(a)
            except OSError:
                pass
        return found

    def writeto(self, addr, buf, stop=True):
        devs = self._address_phase(addr, len(buf), False, stop)
        self.deliver(addr, devs, buf)
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        data = bytearray()
        for b in vector:
            data.extend(b)
        return self.writeto(addr, data, stop)

    def readfrom_into(self, addr, buf, stop=True):
        dev = self._address_phase(addr, len(buf), True, stop)[0]
        self.collect(addr, dev, buf)

    def readfrom(self, addr, n, stop=True):
        buf = bytearray(n)
        self.readfrom_into(addr, buf, stop)
        return bytes(buf)


class WirePin:
    """SDA or SCL of a SimI2C as a GPIO (machine.Pin-like, open drain): what the bus clear
    drives when it takes the pins from the I2C block."""
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1

    def __init__(self, bus, line):
        self.bus = bus
        self.line = line             # "sda" or "scl"

    def init(self, *a, **k):
        pass

    def value(self, v=None):
        if v is None:
            return self.bus.sda() if self.line == "sda" else self.bus.scl()
        self.bus.drive(self.line, 1 if v else 0)
        return None


def bus_clear(bus, sda, scl):
    """firmware/hardware/bus_recovery.py's BusClear on `bus`'s wires (pins numbered sda, scl); None
    for a bus without wires (boards/simdev/remote.py's)."""
    if not hasattr(bus, "drive"):
        return None
    from hardware.bus_recovery import BusClear
    pins = {sda: WirePin(bus, "sda"), scl: WirePin(bus, "scl")}
    return BusClear(pins.get, sda, scl, bus.sda, _no_pins)


def _no_pins():
    pass                         # the model's I2C block has no pins to give back
