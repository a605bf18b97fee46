# Which display to draw next, and its lines: a display is marked dirty when what it shows
# may have changed; redraw_one() builds one dirty display's lines (the priority one first),
# skips it when they hash as before, and sends its pages. Whose turn the bus is (a card
# waiting, the display of the event just taken, the others) the bus turn says
# (hardware/bus_turn.py). The views (views.py) make the lines; seat_displays.py puts them
# on glass. It is handed what it draws (the session's engine, the UI state, the web's seat
# codes), not the table.
from micropython import const


from array import array

from . import views as V
from hardware.drvtime import count_up

BANKER_DISPLAY = 8
_INTERRUPTED = const(-2)  # seat_displays: a card came between two pages


class Screens:
    def __init__(self, session, ui, turn):
        self.session = session           # its engine (e) is what the displays show
        self.ui = ui
        self.turn = turn                 # hardware.bus_turn.BusTurn
        self.web = None                  # web.Web: the seats' phone codes (web.py)
        self.seat_displays = True        # False: phones are the seat displays (settings)
        self.disp = None                 # seat_displays.SeatDisplays (board.make_displays)
        self.faults = None               # faults.Faults, once the table watches them
        self.pages = 8                   # 8-pixel text lines per display (4: 128x32 panels)
        self.buf = [""] * 8
        self.hashes = array("i", [0] * 9)   # what each display shows (0: unknown)
        self.dirty = 0                   # bit i: display i may have changed
        # per display, counted up whenever it may have changed (a seat's phone follows its
        # seat's display: webui/web_poll.py)
        self.marks = array("i", [0] * 9)
        self.second = -1                 # the one after the bus turn's own (who acts now)
        self.gen = 0                     # bumped whenever what a display shows may change
        self.held = -1                   # the display whose lines are in buf, built at
        self.held_gen = 0                # held_gen, with this highlight and hash
        self.held_hl = -1
        self.held_hash = 0

    def mark(self, i):
        self.dirty |= 1 << i
        self.gen = count_up(self.gen)
        self.marks[i] = count_up(self.marks[i])

    def mark_some(self, mask):
        """The displays of mask's bits may have changed."""
        self.dirty |= mask
        self.gen = count_up(self.gen)
        marks = self.marks
        i = 0
        while mask:
            if mask & 1:
                marks[i] = count_up(marks[i])
            mask >>= 1
            i += 1

    def all_dirty(self):
        e = self.session.e
        n = min(e.seats, 8) if e is not None else 8
        self.mark_some(((1 << n) - 1) | (1 << BANKER_DISPLAY))

    def forget(self):
        """What the displays show is unknown (another mode drew on them): redraw all."""
        for i in range(len(self.hashes)):
            self.hashes[i] = 0

    def lines(self, i):
        """Display i's lines into buf; the highlighted line (-1: none)."""
        buf = self.buf
        e = self.session.e
        ui = self.ui
        if e is None:
            for k in range(8):
                buf[k] = ""
            V.fatal_view(ui, buf)
            return 0
        if i == BANKER_DISPLAY and ui.report and not ui.fatal:
            for k in range(8):           # the power-on check (health_report.report)
                buf[k] = ui.report[k]
            return -1
        if i == BANKER_DISPLAY:
            hl = V.banker_view(e, ui, buf)
        elif i >= e.seats and not ui.fatal:
            for k in range(8):           # a display no seat uses stays blank
                buf[k] = ""
            return -1
        else:
            hl = V.seat_view(e, ui, i + 1, buf)
            if self.web is not None:     # the seat's code for its phone page, if room
                for k in (7, 5, 4):
                    if not buf[k]:
                        buf[k] = "Phone code " + self.web.code(i + 1)
                        break
        if self.pages == 4:
            # 128x32 panels: the header, the current hand, the prompt and the action line
            buf[1] = buf[hl] if 1 <= hl <= 4 else buf[1]
            buf[2] = buf[6]
            buf[3] = buf[7]
            hl = 1 if 1 <= hl <= 4 else (2 if i == BANKER_DISPLAY else -1)
        return hl

    def redraw_one(self):
        """Redraw one dirty display (the bus turn's own first). True if one was looked at."""
        turn = self.turn
        d = self.dirty
        if not self.seat_displays:
            d &= 1 << BANKER_DISPLAY     # phones are the seat displays (web.py)
            self.dirty = d
        if turn.lent:
            d &= ~(1 << BANKER_DISPLAY)  # the tag mode shows its progress there
        elif d and not turn.display_may_go(d):
            return False
        if not d:
            return False
        i = turn.own
        if i < 0 or not d & (1 << i):
            i = turn.then
            if i < 0 or not d & (1 << i):
                i = self.second
                self.second = -1
                if i < 0 or not d & (1 << i):
                    i = 0
                    while not d & (1 << i):
                        i += 1
        own = turn.drawing_own = i == turn.own
        turn.own = -1
        g = turn.then
        if g >= 0 and (g == i or not d >> g & 1):
            turn.then = -1
        self.dirty &= ~(1 << i)
        if i == self.held and self.gen == self.held_gen:
            hl = self.held_hl            # the rest of an interrupted display: buf holds
            h = self.held_hash           # its lines still (no rebuild for a page)
        else:
            hl = self.lines(i)
            # the display an event concerns has surely changed: its hash (a walk of
            # every line) is taken once it is drawn
            h = 0 if own else self._hash(hl)
            self.held = i
            self.held_gen = self.gen
            self.held_hl = hl
            self.held_hash = h
            turn.service()               # building the lines took a while on a Pico
        if h and h == self.hashes[i]:
            self._let_go()
            return True
        self.hashes[i] = h
        # before the reader is up (boot) the whole display at once
        r = self.disp.show(i, self.buf, hl,
                           turn.between_pages if turn.reader is not None else None)
        if r == _INTERRUPTED:            # by a card: finish later
            self.hashes[i] = 0
            self.dirty |= 1 << i
            turn.own = i
            return True
        if r < 0:
            self.hashes[i] = 0           # try again when it answers
            if self.faults is not None:
                self.faults.display_failed(i)    # the bus or the switch may be the cause
        elif not h:
            self.hashes[i] = self._hash(hl)
        self._let_go()
        return True

    def _hash(self, hl):
        """What display lines in buf (highlight hl) show, as a number (never 0: unknown)."""
        h = hl + 7
        for k in range(self.pages):
            h = (h * 31 + hash(self.buf[k])) & 0x3FFFFFFF
        return h or 1

    def _let_go(self):
        """The display is drawn: its lines need not outlive it (a display's strings are a
        few hundred bytes of heap while the table waits)."""
        self.held = -1
        buf = self.buf
        for k in range(8):
            buf[k] = ""

    def draw_all(self):
        """Every dirty display at once (boot, a stop)."""
        while self.redraw_one():
            pass

    def show_error(self, text):
        """Last resort (main.py): every display says the table stopped."""
        self.ui.fatal = text
        self.held = -1                   # buf is about to hold other lines
        if self.disp is None:
            return
        for i in range(9):
            try:
                self.lines(i)
                self.disp.show(i, self.buf, 0)
            except Exception:  # noqa: BLE001 - a display that fails here is left as it is
                pass
