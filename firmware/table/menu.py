# The banker's menu (a long OK): the items that make sense now, MINUS/PLUS to choose, OK to
# take one, UNDO to leave. Every event of the transcript language can be given from here,
# so a table without a serial line lacks nothing.
from micropython import const


from game import engine as E
from .sources import SRC_BUTTON
from . import views as V
from .entry import Entry

# its kind (private; no other mode's, so that a change of mode is a change of kind)
_K_MENU = const(5)

_B_MINUS = const(4)
_B_PLUS = const(5)
_B_OK = const(6)
_B_UNDO = const(7)

# The menu's items (codes in self.items) and their names.
_M_SHUFFLE = const(1)
_M_STAND = const(2)
_M_VOID = const(3)
_M_BURN = const(4)
_M_BANKDOUBLE = const(5)
_M_SHOOT = const(6)
_M_KITTY = const(7)
_M_NEW = const(8)
_M_DOUBLE = const(9)
_M_TAGS_WRITE = const(10)
_M_TAGS_ENROLL = const(11)
_M_TAGS_CHECK = const(12)
_M_SELL = const(13)
_M_SAME_BETS = const(14)
_M_CARD = const(15)
_M_CODES = const(16)
_M_CHECK = const(17)
_M_SEAT_CODE = const(20)  # + seat: its phone code; + 0: the pages' address (web.py)
NAMES = ("", "Shuffle done", "Banker stands", "Void this deal", "Burn (V8)",
         "Banker doubles", "Shoot bet", "Kitty", "New session", "Double",
         "Write card tags", "Enroll card tags", "Check the deck", "Sell the bank",
         "Same bets", "Enter card by hand", "Phone codes", "Check the shoe")


class Menu:
    line_stays = False       # a message covers the item shown

    def __init__(self, controls):
        self.c = controls
        self.t = controls.t
        self.kind = _K_MENU
        self.seat = 0
        self.items = []                  # the item codes (_M_*)
        self.value = 0                   # the item shown

    def _show(self, items):
        self.items = items
        self.value = 0
        self.c.push(self)

    def open(self):
        t = self.t
        e = t.session.e
        items = []
        if V.card_wanted(e):
            items.append(_M_CARD)       # the tag of the card in hand will not read
        if e.want_shuffle and not e.in_deal():
            items.append(_M_SHUFFLE)
        if e.phase == E.PH_BANKER and not e.casino:
            items.append(_M_STAND)
        seat = V.acting_seat(e)
        if e.phase == E.PH_PLAY and seat:
            if e.rules.burn and e.check(E.EV_BURN, seat) is None:
                items.append(_M_BURN)
            if e.casino and e.check(E.EV_DOUBLE, seat) is None:
                items.append(_M_DOUBLE)
        window = e.phase == E.PH_DEAL2 and e.pos == 0 and not e.casino
        if window and e.rules.banker_doubling and not e.doubled:
            items.append(_M_BANKDOUBLE)
        if e.rules.shoot and (window or (e.phase == E.PH_PLAY and seat)):
            items.append(_M_SHOOT)
        if e.rules.shoot and not e.in_deal():
            items.append(_M_KITTY)
        if self.c.sale.possible():
            items.append(_M_SELL)
        if e.casino and e.phase == E.PH_IDLE and not e.want_shuffle and e.initial_stake(1):
            items.append(_M_SAME_BETS)
        if t.web is not None:
            items.append(_M_CODES)
        if e.in_deal():
            items.append(_M_VOID)
        else:
            items.append(_M_NEW)
            items.append(_M_TAGS_WRITE)
            items.append(_M_TAGS_ENROLL)
            items.append(_M_TAGS_CHECK)
            items.append(_M_CHECK)
        self._show(items)

    def shown(self):
        return True

    def prompt(self):
        return ""                        # the game's prompt stays while the menu is open

    def seat_lines(self, e, ui, seat, out):
        return False                     # the menu is the banker display's

    def banker_line(self, ui, out):
        out[7] = self.line(ui)

    def next_card_line(self, ui):
        return "Your card next"

    def line(self, ui):
        """The banker display's entry line: the item shown."""
        item = self.items[self.value]
        if item == _M_SEAT_CODE:
            return "> " + ui.address
        if item > _M_SEAT_CODE:
            return "> Seat %d code %s" % (item - _M_SEAT_CODE, ui.codes[item - _M_SEAT_CODE])
        return "> " + NAMES[item]

    def press(self, b, long):
        if b == _B_MINUS:
            self.value = (self.value - 1) % len(self.items)
        elif b == _B_PLUS:
            self.value = (self.value + 1) % len(self.items)
        elif b == _B_OK:
            item = self.items[self.value]
            self.c.close()
            self._choose(item)
        elif b == _B_UNDO:
            self.c.close()
        self.t.screens.all_dirty()
        return True                      # every press is the menu's while it is open

    def _choose(self, item):
        t = self.t
        c = self.c
        e = t.session.e
        why = None
        if item == _M_SHUFFLE:
            why = t.event(E.EV_SHUFFLE, 0, 0, 0, SRC_BUTTON)
        elif item == _M_STAND:
            why = t.event(E.EV_STAND, 0, 0, 0, SRC_BUTTON)
        elif item == _M_VOID:
            why = t.event(E.EV_VOID, 0, 0, 0, SRC_BUTTON)
        elif item == _M_BURN:
            why = t.event(E.EV_BURN, V.acting_seat(e), 0, 0, SRC_BUTTON)
        elif item == _M_DOUBLE:
            why = t.event(E.EV_DOUBLE, V.acting_seat(e), 0, 0, SRC_BUTTON)
        elif item == _M_BANKDOUBLE:
            why = t.event(E.EV_BANKDOUBLE, 0, 0, 0, SRC_BUTTON)
        elif item == _M_KITTY:
            room = e.kitty_room()
            if room < 1:
                why = "the kitty is at its maximum (X8)"
            else:
                Entry(c).open_kitty(1 if e.kitty else e.rules.kitty_min, room)
        elif item == _M_SHOOT:
            why = c.shoot.open()
        elif item == _M_SELL:
            why = c.sale.open()
        elif item == _M_CARD:
            why = c.card.open()
        elif item == _M_SAME_BETS:
            why = c.same_bets()
        elif item == _M_NEW:
            why = t.new_session()
        elif item == _M_TAGS_WRITE:
            why = t.tag_run().command("tags write")
        elif item == _M_TAGS_ENROLL:
            why = t.tag_run().command("tags enroll")
        elif item == _M_TAGS_CHECK:
            why = t.tag_run().command("tags check")
        elif item == _M_CODES:
            self._codes()
        elif item == _M_CHECK:
            from . import selfcheck_mode
            why = selfcheck_mode.start(t)
        if why:
            t.refuse(why)

    def _codes(self):
        """The pages' address, then each seat's phone code, one a press (MINUS/PLUS)."""
        where = self.t.web.net.where()
        self.t.ui.address = where[7:].rstrip("/") if where.startswith("http://") else where
        self._show([_M_SEAT_CODE + s for s in range(self.t.session.e.seats + 1)])
