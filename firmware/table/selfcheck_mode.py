# The menu's "Check the shoe": a builder's walk through the parts, between deals. Each
# seat display shows its seat number in large digits; the banker's display lists the
# buttons (each ticked once pressed), the last card passed over the reader and how long it
# took to read (from the reader finding the tag to its record read), and the faults since
# boot. UNDO leaves it. Like a tag-mode run it has the reader and the displays to itself
# (it takes the table's tag-run slot, app.Table.tags); nothing it sees is a game event.
from hardware import drvtime
from game.cards import card_name
from hardware.font5x7 import FIRST, FONT, WIDTH
from .health_report import fault_text
from .screens import BANKER_DISPLAY
from hardware.shoe_reader import ANOMALY

NAMES = ("STICK", "TWIST", "BUY", "SPLIT", "MINUS", "PLUS", "OK")   # UNDO: leaves
_UNDO = 7


def start(table):
    """Begin the check; the reason when it cannot run now."""
    t = table
    e = t.session.e
    if t.tags_busy():
        return "a tag-mode run is on: finish it first"
    if e is not None and e.in_deal():
        return "the shoe's check is for between deals: finish or void this deal first"
    t.tags = SelfCheck(t, t.tags)
    t.say("# check the shoe: press each button, pass a card; UNDO leaves")
    return None


def big_digit(ch, out, first=0):
    """The 5x7 glyph of ch drawn with '#' two columns a pixel: 7 lines from out[first]."""
    g = (ord(ch) - FIRST) * WIDTH
    for row in range(7):
        s = "     "
        for k in range(WIDTH):
            s += "##" if FONT[g + k] >> row & 1 else "  "
        out[first + row] = s


class SelfCheck:
    def __init__(self, table, tags):
        self.t = table
        self.tags = tags                 # the table's tag run, given back at the end
        self.busy = table.turn.lent = True   # it has the reader to itself
        self.leaving = False
        self.seen = 0                    # bit i: button i was pressed
        self.card = "Card: pass one"
        self.since = -1                  # ticks_ms the reader began on a tag (-1: none)
        self.drawn = 0                   # bit i: display i shows its number
        self.banker = True               # the banker's lines changed
        self.buf = [""] * 8

    def command(self, line):
        return "the shoe's check is on: UNDO leaves it"

    def press(self, b):
        if b == _UNDO:
            self.stop()
        elif b < len(NAMES):
            self.seen |= 1 << b
            self.banker = True

    def stop(self):
        self.leaving = True

    def step(self):
        t = self.t
        rd = t.reader
        if self.leaving:
            self._end()
            return True
        r = rd.poll()
        now = drvtime.ticks_ms()
        if r is None:
            if not rd.urgent():
                self.since = -1
            elif self.since < 0:
                self.since = now
        else:
            took = drvtime.ticks_diff(now, self.since) if self.since >= 0 else 0
            self.since = -1
            self.banker = True
            if r != ANOMALY:
                self.card = "Card %s read %d ms" % (card_name(r), took)
                t.say("# check: card %s read in %d ms" % (card_name(r), took))
            else:
                self.card = ("Reader " + rd.anomaly)[:21]
        disp = t.screens.disp
        buf = self.buf
        if self.banker:                  # one display a pass, the banker's first
            self.banker = False
            self._banker_lines(buf)
            disp.show(BANKER_DISPLAY, buf, 0)
            return True
        for i in range(min(disp.n, BANKER_DISPLAY)):
            if not self.drawn >> i & 1:
                self.drawn |= 1 << i
                big_digit(str(i + 1), buf)
                buf[7] = "Seat %d display" % (i + 1)
                disp.show(i, buf, -1)
                return True
        return True

    def _banker_lines(self, out):
        out[0] = "Check the shoe"
        for k in range(3):               # three buttons a line, a "+" once pressed
            out[1 + k] = " ".join(NAMES[i] + ("+" if self.seen >> i & 1 else "")
                                  for i in range(3 * k, min(3 * k + 3, len(NAMES))))
        out[4] = ""
        out[5] = self.card
        out[6] = ("Faults " + fault_text())[:21]
        out[7] = "UNDO: leave"
        if self.seen == (1 << len(NAMES)) - 1:
            out[4] = "Buttons all ok"

    def _end(self):
        t = self.t
        self.busy = t.turn.lent = False
        t.tags = self.tags
        t.say("# check the shoe: done")
        sc = t.screens
        sc.forget()                      # the displays showed the check
        t.reader.ignore_field()          # the last card may still lie on the reader
        t.rearm()                        # the card checked last, dealt next, is a card
        sc.all_dirty()
