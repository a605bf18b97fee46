# busio.I2C look-alike over a machine.I2C (or the simulated bus), for adafruit_bus_device.
# Only what I2CDevice uses: try_lock/unlock, scan, writeto, readfrom_into and
# writeto_then_readfrom with start/end. Whole-buffer calls pass the buffer through
# untouched; a start/end slice costs one memoryview object.
import sys


class I2C:
    def __init__(self, i2c, frequency=400000):
        self._i2c = i2c          # machine.I2C(0, scl=Pin(5), sda=Pin(4), freq=...) on a Pico
        self.frequency = frequency
        self._locked = False

    def try_lock(self):
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self):
        self._locked = False

    def deinit(self):
        self._locked = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()
        return False

    def scan(self):
        return self._i2c.scan()

    def writeto(self, address, buffer, *, start=0, end=None):
        if end is None:
            end = len(buffer)
        if start == 0 and end == len(buffer):
            self._i2c.writeto(address, buffer)
        else:
            self._i2c.writeto(address, memoryview(buffer)[start:end])

    def writevto(self, address, vector):
        """The buffers of `vector` in one write: one address, one start, one stop (an
        extension to busio, which machine.I2C and the simulated buses have)."""
        self._i2c.writevto(address, vector)

    def readfrom_into(self, address, buffer, *, start=0, end=None):
        if end is None:
            end = len(buffer)
        if start == 0 and end == len(buffer):
            self._i2c.readfrom_into(address, buffer)
        else:
            self._i2c.readfrom_into(address, memoryview(buffer)[start:end])

    def writeto_then_readfrom(self, address, buffer_out, buffer_in, *, out_start=0,
                              out_end=None, in_start=0, in_end=None):
        if out_end is None:
            out_end = len(buffer_out)
        if in_end is None:
            in_end = len(buffer_in)
        out = buffer_out
        if out_start or out_end != len(buffer_out):
            out = memoryview(buffer_out)[out_start:out_end]
        into = buffer_in
        if in_start or in_end != len(buffer_in):
            into = memoryview(buffer_in)[in_start:in_end]
        self._i2c.writeto(address, out, False)     # repeated start, no stop
        self._i2c.readfrom_into(address, into)


if sys.implementation.name != "micropython":
    class SPI:
        """Not implemented: the name exists so CPython can evaluate adafruit_bus_device's
        type annotations (spi_device.py imports busio.SPI for them; on MicroPython that
        import is never reached, typing being absent, and the class would be heap)."""

        def __init__(self, *a, **k):
            raise NotImplementedError("busio.SPI is not provided")
