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
from . import drvtime



class Health:
    def reset(self):
        self.faults = None               # {part: faults since boot}, made at the first
        self.cause = "power-on"          # why the shoe last started (board.reset_cause)
        self.booted = drvtime.ticks_ms()
        self.reader = -1                 # the PN532's version << 8 | revision (-1: missing)
        self.watchdog = None             # the board's (feed(), stop()), started at boot
        self.report_until = 0            # ticks_ms the power-on report leaves the display

    def fault(self, part):
        if self.faults is None:
            self.faults = {}
        self.faults[part] = self.faults.get(part, 0) + 1


HEALTH = Health()
HEALTH.reset()


def fault(part):
    """Count a fault of `part` (the recovery code's `! fault` lines call this)."""
    HEALTH.fault(part)
