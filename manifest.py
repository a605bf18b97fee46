# The shoe, frozen into a MicroPython build (frozen bytecode runs in place from flash: no
# heap for the code, imports in milliseconds). Included by the board definitions
# boards/uf2/RPI_PICO*/manifest.py, which `make uf2` builds (tools/uf2.py):
#   include("../../../manifest.py", board="pico")             # the Pico
#   include("../../../manifest.py", board="pico_w", web=True)  # the Pico W
#
# Frozen: firmware/'s packages (the web part, webui, on the Pico W only) and its top-level
# modules but the .mpy path's import_index and the host's micropython.py; main.py included
# (MicroPython runs a frozen main.py at boot, before looking on the filesystem: the UF2
# alone is the shoe); the board's wiring as `board` (and boards/pico.py as `pico` on the
# Pico W, which imports it); the Adafruit drivers at the versions requirements.txt pins;
# microdot with the web part only.
# A file on the filesystem still shadows a frozen module of the same name ('' comes
# before '.frozen' on sys.path): a board.py there rewires the pins without a rebuild.
# The driver sources come from this repo's venv; SHOE_SITE_PACKAGES names another folder.
import glob
import os

options.defaults(board="pico", web=False)  # noqa: F821 - manifest API

# manifest files run with the current directory set to their own folder
_fw = "firmware"
# import_index serves the .mpy path's imports from the filesystem; micropython.py is the
# host's stand-in for the built-in module
_NOT_FROZEN = ("import_index.py", "micropython.py")
_WEB = ("webui",)
for _name in sorted(os.listdir(_fw)):
    if os.path.isdir(os.path.join(_fw, _name)):
        if os.path.exists(os.path.join(_fw, _name, "__init__.py")) and (
                _name not in _WEB or options.web):  # noqa: F821
            package(_name, base_path=_fw)  # noqa: F821
    elif _name.endswith(".py") and _name not in _NOT_FROZEN:
        module(_name, base_path=_fw)  # noqa: F821

# A module is named after its file, so the wiring is staged as board.py (pico.py) under
# build/ (written only when it changed: the freezing step rebuilds by timestamp).
_BOARD_MODULES = {"pico": (("board.py", "pico.py"),),
                  "pico_w": (("board.py", "pico_w.py"), ("pico.py", "pico.py"))}
_stage = os.path.abspath(os.path.join("build", "uf2", "stage-" + options.board))  # noqa: F821
os.makedirs(_stage, exist_ok=True)
for _as, _src in _BOARD_MODULES[options.board]:  # noqa: F821
    with open(os.path.join("boards", _src), "rb") as _f:
        _text = _f.read()
    _dest = os.path.join(_stage, _as)
    _old = None
    if os.path.exists(_dest):
        with open(_dest, "rb") as _f:
            _old = _f.read()
    if _old != _text:
        with open(_dest, "wb") as _f:
            _f.write(_text)
    module(_as, base_path=_stage)  # noqa: F821

_sp = os.environ.get("SHOE_SITE_PACKAGES")
if not _sp:
    _found = sorted(glob.glob(".venv/lib/python3*/site-packages/adafruit_ssd1306.py"))
    if not _found:
        raise Exception("no Adafruit drivers in .venv: run `make uf2` (it installs them), or "
                        "set SHOE_SITE_PACKAGES")
    _sp = os.path.dirname(_found[-1])
_sp = os.path.abspath(_sp)
package("adafruit_pn532", files=["__init__.py", "adafruit_pn532.py", "i2c.py"],  # noqa: F821
        base_path=_sp)
package("adafruit_bus_device", files=["__init__.py", "i2c_device.py",  # noqa: F821
                                      "spi_device.py"], base_path=_sp)
module("adafruit_ssd1306.py", base_path=_sp)  # noqa: F821
if options.web:  # noqa: F821
    package("microdot", files=["__init__.py", "microdot.py", "helpers.py"],  # noqa: F821
            base_path=_sp)
