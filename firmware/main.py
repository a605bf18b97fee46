# Runs at power-up (MicroPython convention): the table controller, and a safe stop.
# On any error the exception is printed on the serial line, every display says the table
# stopped (the journal on flash already holds every accepted event, so nothing is lost),
# and after a pause the board resets and resumes from the journal.
import sys

# Imports that never ask the filesystem. MicroPython keeps no built-in module in
# sys.modules and looks for an "extensible" one (time, os, array, machine, ...) on every
# sys.path entry before it takes the built-in, and a module it lacks (the drivers try
# `typing`) is looked for everywhere: up to six littlefs lookups at
# every such import of every module and function. So the built-ins are registered once,
# the wiring is imported from the whole path (a board file on the filesystem still takes
# the frozen one's place), and on the shoe's own UF2 the table then imports from the
# frozen modules alone; the whole path is back when main.py ends (the REPL).
_EXTENSIBLE = ("array", "binascii", "collections", "errno", "hashlib", "io", "json",
               "machine", "os", "random", "re", "select", "socket", "struct", "time")


def _import_table(path):
    """(app, board), imported. The wiring comes from the whole path (a board file on the
    filesystem takes the frozen one's place); the path then stays narrowed to the frozen
    modules on the shoe's own UF2, to an ImportIndex of the files on the stock one."""
    if sys.implementation.name != "micropython" or ".frozen" not in path:
        from table import app
        return app, None
    keep = path[:]
    path.clear()                         # an empty sys.path makes import take the built-in
    for name in _EXTENSIBLE:
        try:
            sys.modules[name] = __import__(name)
        except ImportError:              # not on this port
            pass
    path.append(".frozen")
    try:
        from table import app            # the shoe's own UF2
        frozen = True
    except ImportError:                  # the stock UF2: the table is files (.mpy)
        frozen = False
    path.clear()
    path.extend(keep)
    if not frozen:
        try:
            from import_index import mount
            mount(path)
        except ImportError:              # deployed before there was one
            pass
        from table.housekeeping import boot_collections
        boot_collections()
        from table import app
    import board
    if frozen:
        path.clear()
        path.append(".frozen")
    return app, board


_path = sys.path[:]
try:
    app, _board = _import_table(sys.path)
    app.main(_board)
except KeyboardInterrupt:
    print("# stopped from the serial line")
except Exception as exc:  # noqa: BLE001 - report anything, then stop safely
    if hasattr(sys, "print_exception"):
        sys.print_exception(exc)
    else:
        import traceback
        traceback.print_exc()
    try:
        t = app.table
        if t is not None:
            t.show_error("%s: %s" % (type(exc).__name__, exc))
    except Exception:  # noqa: BLE001
        pass
    try:
        import machine
        import time
        time.sleep(10)
        machine.reset()
    except ImportError:
        pass
finally:
    sys.path.clear()
    sys.path.extend(_path)
    if "import_index" in sys.modules:
        sys.modules["import_index"].unmount()
