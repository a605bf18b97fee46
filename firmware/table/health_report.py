# The shoe's report on itself (health.py keeps the state): the `health` line, the power-on
# report, each part's check. Imported when needed and let go again (app.Table), as it is
# needed at boot and when asked only.
import sys

from hardware import drvtime
from hardware.health import HEALTH
from ledger import forget

WATCHDOG_MS = 8000          # just under the most rp2's machine.WDT takes
REPORT_MS = 8000            # the power-on report's time on the banker's display (a board's
#                             CHECK_MS says otherwise: 0, none)


def start(board):
    """At boot: why the shoe started, and its watchdog, started now (NoWatchdog on a board
    without one)."""
    HEALTH.reset()
    if hasattr(board, "reset_cause"):
        HEALTH.cause = board.reset_cause()
    if hasattr(board, "make_watchdog"):
        return board.make_watchdog(WATCHDOG_MS)
    return NoWatchdog()


class NoWatchdog:
    """A board without a watchdog: feeding it costs a call."""

    def feed(self):
        pass


def fault_text():
    f = HEALTH.faults
    if not f:                            # (None: none yet)
        return "none"
    return " ".join("%s %d" % (k, f[k]) for k in sorted(f))


def version():
    """(version, build): the shoe's VERSION (from the UF2's board name) and the
    MicroPython build it runs on; ("dev", the interpreter) off the shoe's UF2."""
    machine = getattr(sys.implementation, "_machine", "")
    v = "dev"
    if machine.startswith("Pontoon shoe "):
        v = machine[13:].split(" ", 1)[0]
    impl = sys.implementation
    build = "%s %d.%d.%d" % ((impl.name,) + tuple(impl.version[:3]))
    if impl.name == "micropython":
        try:
            import os
            # "v1.28.0 on 2026-12-06 (GNU 12.2.1 MinSizeRel)": the build's date
            build = os.uname().version.split(" (")[0]
        except (ImportError, AttributeError):
            pass
    return v, build


def reader_version(reader):
    """The PN532's firmware (GetFirmwareVersion) as version << 8 | revision, asked before
    the reader listens; 0 if it does not answer."""
    try:
        fw = reader.pn.firmware_version  # (IC, Ver, Rev, Support)
        return fw[1] << 8 | fw[2]
    except Exception:  # noqa: BLE001 - any failure means no version
        return 0


def reader_state():
    v = HEALTH.reader
    if v < 0:
        return "missing"
    return "ok PN532 v%d.%d" % (v >> 8, v & 0xFF) if v else "ok"


def switch_state(board):
    """'ok' if the I2C switch answers a read of its channel register, else 'missing'."""
    if not hasattr(board, "make_mux"):
        return "none"
    try:
        mux = board.make_mux()
        buf = bytearray(1)
        i2c = mux.i2c
        while not i2c.try_lock():
            pass
        try:
            i2c.readfrom_into(mux.address, buf)
        finally:
            i2c.unlock()
        return "ok"
    except OSError:
        return "missing"


def buttons_state(pins, names):
    """'ok', or the buttons held down (a stuck or miswired one reads pressed)."""
    down = [names[i] for i in range(len(pins)) if not pins[i].value()]
    return "ok" if not down else " ".join(down) + " held down"


def flash_state(root):
    try:
        import os
        st = os.statvfs(root or "/")
        free = st[0] * st[3] // 1024
        return "ok %dK free" % free if free < 100000 else "ok"
    except (OSError, AttributeError, ImportError):
        return "ok"


def _stakes_taker(table):
    """The last display's name: casino's house dealer, else the banker (views.py's word)."""
    e = table.session.e
    return "dealer" if e is not None and e.casino else "banker"


def display_states(disp, n=9, last="banker"):
    """[(name, state)] of each display: 'ok' answering, 'missing' not."""
    out = []
    for i in range(n):
        name = last + " display" if i == n - 1 else "display %d" % (i + 1)
        ok = disp is not None and i < disp.n and disp.ok[i]
        out.append((name, "ok" if ok else "missing"))
    return out


def parts(table, pins=None):
    """[(part, state)]: reader (as found at boot), switch, each display, buttons (held
    down now), flash."""
    b = table.board
    if pins is None:
        btn = table.btn
        pins = btn.pins if hasattr(btn, "pins") else btn.b.pins
    out = [("reader", reader_state()), ("switch", switch_state(b))]
    out += display_states(table.screens.disp, last=_stakes_taker(table))
    out.append(("buttons", buttons_state(pins, getattr(b, "BUTTONS", ()))))
    out.append(("flash", flash_state(table.root)))
    return out


def line(table, states=None):
    """The `health` answer: one line naming every part and its state, the boot reason,
    the firmware's version and build, uptime, faults since boot."""
    h = HEALTH
    v, build = version()
    up = drvtime.ticks_diff(drvtime.ticks_ms(), h.booted) // 1000
    items = ["%s %s" % p for p in (states or parts(table))]
    items.append("boot %s" % h.cause)
    items.append("firmware %s (%s)" % (v, build))
    items.append("up %d s" % up)
    items.append("faults %s" % fault_text())
    return "health: " + ", ".join(items)


def page(table):
    """The Pico W's /health page (web.py): the `health` line, one item a line."""
    return "Pontoon shoe: health\n" + line(table)[8:].replace(", ", "\n") + "\n"


def _seats(states, want):
    return "".join(str(i + 1) for i in range(8) if (states[i][1] == "ok") == want)


def report(table, states):
    """The power-on report: eight lines of at most 21 characters (the banker's display)."""
    h = HEALTH
    st = dict(states)
    who = _stakes_taker(table)
    ds = display_states(table.screens.disp, last=who)
    ok = _seats(ds, True)
    bad = _seats(ds, False)
    seats = "Seats ok" if not bad else ("Seats %s missing" % bad if ok else "No seat displays")
    v = version()[0]
    return ("Shoe check: " + h.cause,
            ("Reader " + reader_state())[:21],
            "Switch " + st["switch"],
            seats[:21],
            ("Dealer" if who == "dealer" else "Banker") + " display " + ds[8][1],
            ("Buttons " + st["buttons"])[:21],
            ("Flash " + st["flash"])[:21],
            "Pontoon " + v)


def power_on(t):
    """At boot (app.Table): the reader made (MissingReader when it does not answer), every
    part checked, the check said on the serial line and put on the banker's display.
    Returns the buttons' pins."""
    b = t.board
    st = t.settings
    h = HEALTH
    uid_map = None
    if st.uid_map:
        from hardware.uid_map import UidMap
        try:
            uid_map = UidMap().load(t.root + st.uid_map)
        except (OSError, ValueError) as x:
            t.say("! uid map %s: %s" % (st.uid_map, x))
    try:
        t.reader = b.make_reader(uid_map=uid_map, gone_polls=st.gone_polls,
                                 timeout_ms=st.timeout_ms)
        h.reader = reader_version(t.reader)
    except Exception as x:  # noqa: BLE001 - no reader: the table plays on without it
        t.reader = MissingReader()
        h.reader = -1
        t.say("! fault reader: missing (%s: %s)" % (type(x).__name__, x))
    h.watchdog.feed()
    pins = b.make_buttons()
    forget("hardware.drivers")           # the drivers are loaded and installed: boot work
    states = parts(t, pins)
    t.say("# check: " + line(t, states)[8:])     # (the health line's parts)
    ms = getattr(b, "CHECK_MS", REPORT_MS)
    if ms:
        t.ui.report = report(t, states)
        h.report_until = drvtime.ticks_add(drvtime.ticks_ms(), ms)
        t.screens.mark(8)                # (the banker's display)
    return pins


class MissingReader:
    """The reader's place when the PN532 did not answer at boot: the table plays on
    without it (cards by hand, or typed on the serial line)."""
    missing = True
    polls = 0
    max_gap_ms = 0

    def poll(self, hold=False):
        return None

    def service(self):
        pass

    def urgent(self, short=False):
        return False

    def settling(self):
        return False

    def rearm(self):
        pass

    def unwatched(self):
        pass

    def ignore_field(self):
        pass

    def wait(self, seconds):
        drvtime.sleep(seconds)
