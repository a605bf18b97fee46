# The shoe's account of itself: which parts answer (the reader and its firmware, the
# switch, each display, the buttons, the journal's flash), why it last started, its version
# and build, its uptime and the faults counted since boot. Told at power-on (the serial
# line and a one-screen report on the banker's display) and by the serial command `health`
# (health_report.py).
#
# A fault anywhere in the firmware is counted with health.fault(part), part a short word
# ("reader", "bus", "switch", "display 3", ...): HEALTH is the one shared object, so a
# driver's recovery code needs no reference to the table.
#
# The watchdog (the board's make_watchdog, machine.WDT on a Pico; health_report.start) is
# fed by the loop each pass and by long boot work (the journal's replay).
# What is needed at boot or when asked only is in health_report.py: this module stays in
# the heap all along.
import drvtime

WATCHDOG_MS = 8000          # rp2's machine.WDT takes at most 8388 ms
REPORT_MS = 8000            # the power-on report's time on the banker's display (a board's
#                             CHECK_MS says otherwise: 0, none)


class Health:
    def __init__(self):
        self.reset()

    def reset(self):
        self.faults = {}                 # part -> faults since boot
        self.cause = "power-on"          # why the shoe last started (board.reset_cause)
        self.booted = drvtime.ticks_ms()
        self.report_at = 0               # ticks_ms the power-on report went up,
        self.report_ms = REPORT_MS       # for this long
        self.reader = "not started"      # each part's state at its last check
        self.switch = "not checked"
        self.buttons = "not checked"
        self.flash = "not checked"

    def fault(self, part):
        self.faults[part] = self.faults.get(part, 0) + 1

    def fault_text(self):
        if not self.faults:
            return "none"
        return " ".join("%s %d" % (k, self.faults[k]) for k in sorted(self.faults))


HEALTH = Health()


def fault(part):
    """Count a fault of `part` (the recovery code's `! fault` lines call this)."""
    HEALTH.fault(part)
