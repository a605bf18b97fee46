# Freeze the shoe firmware, the three Adafruit drivers and microdot into a MicroPython build for the
# Pico (frozen bytecode runs from flash: no import-time RAM for the code, no .mpy files).
#
#   git clone https://github.com/micropython/micropython && cd micropython
#   make -C mpy-cross
#   make -C ports/rp2 submodules BOARD=RPI_PICO
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/this/repo/manifest.py
#   (a Pico W: BOARD=RPI_PICO_W, then `make deploy BOARD=pico_w DEPLOY_ARGS=--frozen`)
#   # flash ports/rp2/build-RPI_PICO/firmware.uf2 (hold BOOTSEL, copy to the RPI-RP2 drive)
#   make deploy DEPLOY_ARGS=--frozen     # in this repo: main.py, boot.py, board.mpy only
#
# Not frozen: main.py and boot.py (MicroPython runs them from the filesystem by name) and
# board.py (the wiring, deployed as board.mpy; freezing names a module after its file, and
# the file is boards/pico.py). Files on the filesystem shadow frozen modules ('' comes
# before '.frozen' on sys.path), so `tools/deploy.py --frozen` removes old copies.
# The driver sources come from this repo's venv (the versions in requirements.txt); set
# SHOE_SITE_PACKAGES to use another directory that holds them.
import glob
import os

# the port's own frozen modules (asyncio, neopixel, ...)
include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821 - manifest API

# manifest files run with the current directory set to their own folder
_fw = "firmware"
for _name in sorted(os.listdir(_fw)):
    if _name.endswith(".py") and _name not in ("main.py", "boot.py"):
        module(_name, base_path=_fw)  # noqa: F821

_sp = os.environ.get("SHOE_SITE_PACKAGES")
if not _sp:
    _found = sorted(glob.glob(".venv/lib/python3*/site-packages/adafruit_ssd1306.py"))
    if not _found:
        raise Exception("no Adafruit drivers in .venv: run `make test` once, or set "
                        "SHOE_SITE_PACKAGES")
    _sp = os.path.dirname(_found[-1])
_sp = os.path.abspath(_sp)
package("adafruit_pn532", files=["__init__.py", "adafruit_pn532.py", "i2c.py"],  # noqa: F821
        base_path=_sp)
package("adafruit_bus_device", files=["__init__.py", "i2c_device.py",  # noqa: F821
                                      "spi_device.py"], base_path=_sp)
module("adafruit_ssd1306.py", base_path=_sp)  # noqa: F821
# the web server of the Pico W (firmware/web.py); on a plain Pico it is never imported
package("microdot", files=["__init__.py", "microdot.py", "helpers.py"],  # noqa: F821
        base_path=_sp)
