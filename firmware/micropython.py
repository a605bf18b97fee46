# HOST ONLY (CPython): the `micropython` module the firmware and the Adafruit drivers import
# `const` from. MicroPython's own built-in module is found before any file, so this one is
# never frozen, never deployed and never compiled (manifest.py, tools/deploy.py and
# tools/mpy_build.py skip it); the emitters (@micropython.viper/native) are
# game/native_shim.py's.


def const(x):
    """MicroPython folds a const() into the code that reads it; here it is the value."""
    return x
