# Runs at power-up (MicroPython convention): the table controller, and a safe stop.
# On any error the exception is printed on the serial line, every display says the table
# stopped (the journal on flash already holds every accepted event, so nothing is lost),
# and after a pause the board resets and resumes from the journal.
import sys

try:
    import app
    app.main()
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
