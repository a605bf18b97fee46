# Loading the unchanged Adafruit drivers on MicroPython and CPython.
#
# install() rebinds the `time` global of each driver module to firmware/drvtime (MicroPython
# lacks time.monotonic; on the host it also puts the drivers on the simulated clock).
# `busio` and `digitalio` resolve to firmware/busio.py and firmware/digitalio.py, which must
# come before any Blinka copies on the import path (MICROPYPATH / sys.path).
import drvtime

_done = False


def install():
    global _done
    if _done:
        return
    import adafruit_bus_device.i2c_device as a
    import adafruit_pn532.adafruit_pn532 as b
    import adafruit_pn532.i2c as c
    import adafruit_ssd1306 as d
    for m in (a, b, c, d):
        m.time = drvtime
    _done = True


def pn532(i2c, **kw):
    """PN532_I2C on a busio.I2C; kw go to the driver (irq=, reset=, req=, debug=)."""
    install()
    from adafruit_pn532.i2c import PN532_I2C
    return PN532_I2C(i2c, **kw)


def ssd1306(i2c, addr=0x3C, width=128, height=64):
    install()
    from adafruit_ssd1306 import SSD1306_I2C
    return SSD1306_I2C(width, height, i2c, addr=addr)
