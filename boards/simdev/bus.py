# A simulated I2C bus with the machine.I2C surface used by firmware/busio.py.
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
