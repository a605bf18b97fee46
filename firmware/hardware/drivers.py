# Loading the unchanged Adafruit drivers on MicroPython and CPython.
#
# install() rebinds the `time` global of each driver module to firmware/drvtime (MicroPython
# lacks time.monotonic; on the host it also puts the drivers on the simulated clock).
# `busio` and `digitalio` resolve to firmware/busio.py and firmware/digitalio.py, which must
# come before any Blinka copies on the import path (MICROPYPATH / sys.path).
# The displays' driver and the reader's are installed apart: at boot the displays are drawn
# before the PN532 driver (the biggest, the slowest to import) is even imported.
import sys

from . import drvtime

_done = bytearray(2)        # [displays, reader]


def _bus_device():
    import adafruit_bus_device.i2c_device as a
    a.time = drvtime


def install_displays():
    if _done[0]:
        return
    _bus_device()
    import adafruit_ssd1306 as d
    d.time = drvtime
    _done[0] = 1


def forget_displays():
    """Let the display driver's module go (its heap is needed elsewhere): seat_displays keeps
    its init commands and its buffer, and draws with its own font. Imported again (and
    installed) by the next install_displays(). The SPI device module it imports goes too:
    nothing else uses it."""
    sys.modules.pop("adafruit_ssd1306", None)
    sys.modules.pop("adafruit_bus_device.spi_device", None)
    pkg = sys.modules.get("adafruit_bus_device")
    if pkg is not None and hasattr(pkg, "spi_device"):
        del pkg.spi_device
    _done[0] = 0


def install_reader():
    if _done[1]:
        return
    _bus_device()
    import adafruit_pn532.adafruit_pn532 as b
    import adafruit_pn532.i2c as c
    b.time = drvtime
    c.time = drvtime
    _done[1] = 1


def install():
    install_displays()
    install_reader()


def pn532(i2c, **kw):
    """PN532_I2C on a busio.I2C; kw go to the driver (irq=, reset=, req=, debug=)."""
    install_reader()
    from adafruit_pn532.i2c import PN532_I2C
    return PN532_I2C(i2c, **kw)


def ssd1306(i2c, addr=0x3C, width=128, height=64):
    install_displays()
    from adafruit_ssd1306 import SSD1306_I2C
    return SSD1306_I2C(width, height, i2c, addr=addr)
