# The banker's menu (a long OK): the items that make sense now, MINUS/PLUS to choose, OK to
# take one, UNDO to leave. Every event of the transcript language can be given from here,
# so a table without a serial line lacks nothing.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


import engine as E
import views as V

_B_MINUS = const(4)
_B_PLUS = const(5)
_B_OK = const(6)
_B_UNDO = const(7)
SRC_BUTTON = 1


class Menu:
    def __init__(self, table, controls):
        self.t = table
        self.c = controls
        self.ui = table.ui

    def _show(self, items):
        ui = self.ui
        ui.menu = items
        ui.menu_i = 0
        ui.kind = V.K_MENU
        ui.manual = True
        self.t.screens.all_dirty()

    def open(self):
        t = self.t
        e = t.session.e
        items = []
        if V.card_wanted(e):
            items.append(V.M_CARD)       # the tag of the card in hand will not read
        if e.want_shuffle and not e.in_deal():
            items.append(V.M_SHUFFLE)
        if e.phase == E.PH_BANKER and not e.casino:
            items.append(V.M_STAND)
        seat = V.acting_seat(e)
        if e.phase == E.PH_PLAY and seat:
            if e.rules.burn and e.check(E.EV_BURN, seat) is None:
                items.append(V.M_BURN)
            if e.casino and e.check(E.EV_DOUBLE, seat) is None:
                items.append(V.M_DOUBLE)
        window = e.phase == E.PH_DEAL2 and e.pos == 0 and not e.casino
        if window and e.rules.banker_doubling and not e.doubled:
            items.append(V.M_BANKDOUBLE)
        if e.rules.shoot and (window or (e.phase == E.PH_PLAY and seat)):
            items.append(V.M_SHOOT)
        if e.rules.shoot and not e.in_deal():
            items.append(V.M_KITTY)
        if self.c.sale.possible():
            items.append(V.M_SELL)
        if e.casino and e.phase == E.PH_IDLE and not e.want_shuffle and e.initial_stake(1):
            items.append(V.M_SAME_BETS)
        if t.web is not None:
            items.append(V.M_CODES)
        if e.in_deal():
            items.append(V.M_VOID)
        else:
            items.append(V.M_NEW)
            items.append(V.M_TAGS_WRITE)
            items.append(V.M_TAGS_ENROLL)
            items.append(V.M_TAGS_CHECK)
        self._show(items)

    def press(self, b):
        ui = self.ui
        if b == _B_MINUS:
            ui.menu_i = (ui.menu_i - 1) % len(ui.menu)
        elif b == _B_PLUS:
            ui.menu_i = (ui.menu_i + 1) % len(ui.menu)
        elif b == _B_OK:
            item = ui.menu[ui.menu_i]
            ui.kind = V.K_NONE
            ui.manual = False
            self.c.sync()
            self._choose(item)
        elif b == _B_UNDO:
            ui.kind = V.K_NONE
            ui.manual = False
            self.c.sync()
        self.t.screens.all_dirty()

    def _choose(self, item):
        t = self.t
        c = self.c
        e = t.session.e
        why = None
        if item == V.M_SHUFFLE:
            why = t.event(E.EV_SHUFFLE, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_STAND:
            why = t.event(E.EV_STAND, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_VOID:
            why = t.event(E.EV_VOID, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_BURN:
            why = t.event(E.EV_BURN, V.acting_seat(e), 0, 0, SRC_BUTTON)
        elif item == V.M_DOUBLE:
            why = t.event(E.EV_DOUBLE, V.acting_seat(e), 0, 0, SRC_BUTTON)
        elif item == V.M_BANKDOUBLE:
            why = t.event(E.EV_BANKDOUBLE, 0, 0, 0, SRC_BUTTON)
        elif item == V.M_KITTY:
            room = e.kitty_room()
            if room < 1:
                why = "the kitty is at its maximum (X8)"
            else:
                c.open(V.K_KITTY, 0, 1 if e.kitty else e.rules.kitty_min, room)
        elif item == V.M_SHOOT:
            why = c.shoot.open()
        elif item == V.M_SELL:
            why = c.sale.open()
        elif item == V.M_CARD:
            why = c.card.open()
        elif item == V.M_SAME_BETS:
            why = c.same_bets()
        elif item == V.M_NEW:
            why = t.new_session()
        elif item == V.M_TAGS_WRITE:
            why = t.tag_run().command("tags write")
        elif item == V.M_TAGS_ENROLL:
            why = t.tag_run().command("tags enroll")
        elif item == V.M_TAGS_CHECK:
            why = t.tag_run().command("tags check")
        elif item == V.M_CODES:
            self._codes()
        if why:
            t.refuse(why)

    def _codes(self):
        """The pages' address, then each seat's phone code, one a press (MINUS/PLUS)."""
        where = self.t.web.net.where()
        self.ui.address = where[7:].rstrip("/") if where.startswith("http://") else where
        self._show([V.M_SEAT_CODE + s for s in range(self.t.session.e.seats + 1)])
