# The eight buttons: a press becomes an event (STICK, TWIST, SPLIT, BUY's double in the
# casino game), or moves the amount entry the game or a button opened (stakes, a buy, the
# kitty, a shoot bet, the sale of the bank), or goes to the menu (a long OK), the card by
# hand or the tag mode. The entry's state lives in views.UI, which the views draw.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


import engine as E
import views as V
from buttons import LONG

# buttons, in boards' BUTTONS order
_B_STICK = const(0)
_B_TWIST = const(1)
_B_BUY = const(2)
_B_SPLIT = const(3)
_B_MINUS = const(4)
_B_PLUS = const(5)
_B_OK = const(6)
_B_UNDO = const(7)

_SRC_BUTTON = const(1)  # app.SRC_BUTTON: an event's source
BANKER_DISPLAY = 8


class Controls:
    def __init__(self, table):
        self.t = table
        self.ui = table.ui

    def __getattr__(self, name):
        # The modes a table may never use (the menu, the sale of the bank, the shoot window,
        # a card by hand) are made, and their modules imported, on first use: frozen code
        # costs no heap, but each function of an imported module is an object on it.
        if name == "menu":
            from menu import Menu as mode
        elif name == "sale":
            from bank_sale import BankSale as mode
        elif name == "shoot":
            from shoot_window import ShootWindow as mode
        elif name == "card":
            from card_entry import CardEntry as mode
        else:
            raise AttributeError(name)
        m = mode(self.t, self)
        setattr(self, name, m)
        return m

    def press(self, b):
        long = b >= LONG
        b &= LONG - 1
        t = self.t
        ui = self.ui
        e = t.session.e
        if ui.msg:                       # a new press replaces the last refusal
            ui.msg = ""
            t.screens.all_dirty()
        if ui.fatal:
            if b == _B_OK and t.settings.error:
                t.use_defaults()
            return
        if t.tags_busy():
            if b == _B_UNDO:              # UNDO stops the tag mode; other presses wait
                t.tags.stop()
            return
        if ui.over:
            if b == _B_OK:
                t.new_session()
            return
        if ui.kind == V.K_MENU:
            self.menu.press(b)
            return
        if ui.kind == V.K_CARD:
            self.card.press(b, long)
            return
        if ui.kind != V.K_NONE and not long and self._entry_press(b, e):
            return
        if long:
            if b == _B_OK:
                self.menu.open()
            elif b == _B_PLUS and ui.kind != V.K_NONE:
                ui.value = ui.hi
                self.entry_moved()
            elif b == _B_MINUS and ui.kind != V.K_NONE:
                ui.value = ui.lo
                self.entry_moved()
            return
        self._game_press(b, e)

    def _entry_press(self, b, e):
        """A short press while an amount entry is open; False when it is not the entry's."""
        ui = self.ui
        if b == _B_MINUS or b == _B_PLUS:
            v = ui.value + (1 if b == _B_PLUS else -1)
            if ui.kind == V.K_SELL_SEAT and v == e.banker:
                v += 1 if b == _B_PLUS else -1   # N4: the bank goes to another seat
            if ui.lo <= v <= ui.hi:
                ui.value = v
            self.entry_moved()
            return True
        if b == _B_OK:
            self.commit()
            return True
        if b == _B_UNDO and ui.kind == V.K_SHOOT and not ui.manual and self.shoot.passed():
            self.shoot.unpass()
            return True
        if b == _B_UNDO and ui.manual:
            self.close()
            self.t.narrator.prompt()     # a sale's prompt ends with it
            return True
        if b == _B_BUY and ui.kind == V.K_BUY:
            ui.kind = V.K_NONE
            ui.manual = False
            self.t.screens.all_dirty()
            return True
        return False

    def _game_press(self, b, e):
        t = self.t
        seat = V.acting_seat(e)
        why = None
        if b == _B_STICK:
            if e.casino and e.phase == E.PH_IDLE:
                why = self.same_bets()
            elif e.phase == E.PH_BANKER and not e.casino:
                why = t.event(E.EV_STAND, 0, 0, 0, _SRC_BUTTON)
            else:
                why = t.event(E.EV_STICK, seat, 0, 0, _SRC_BUTTON)
        elif b == _B_TWIST:
            why = t.event(E.EV_TWIST, seat, 0, 0, _SRC_BUTTON)
        elif b == _B_SPLIT:
            why = t.event(E.EV_SPLIT, seat, 0, 0, _SRC_BUTTON)
        elif b == _B_BUY:
            if e.casino:
                why = t.event(E.EV_DOUBLE, seat, 0, 0, _SRC_BUTTON)
            else:
                why = self._open_buy(seat)
        elif b == _B_OK:
            if e.want_shuffle and not e.in_deal():
                why = t.event(E.EV_SHUFFLE, 0, 0, 0, _SRC_BUTTON)
            else:
                why = "nothing to confirm: " + V.prompt(e, self.ui)
        elif b == _B_UNDO:
            why = t.undo()
            if why is None:
                t.say("* undo: back at #%d" % t.session.nev)
        if why:
            t.refuse(why, seat)

    # ------------------------------------------------------------------ the amount entry
    def entry_moved(self):
        """The entry's value changed: its displays are drawn again, the seat's first."""
        ui = self.ui
        sc = self.t.screens
        if ui.kind >= V.K_SELL_SEAT:     # the sale's and a card's other displays too
            sc.all_dirty()               # the buyer's display follows the choice
            self.t.narrator.prompt()
        sc.mark(BANKER_DISPLAY)
        if ui.seat:
            sc.mark(ui.seat - 1)
            sc.first = ui.seat - 1

    def open(self, kind, seat, lo, hi):
        """An entry opened by a button (a buy, the kitty, a shoot bet, a sale, a card)."""
        ui = self.ui
        ui.kind = kind
        ui.manual = True
        ui.seat = seat
        ui.lo = lo
        ui.hi = hi
        ui.value = lo
        sc = self.t.screens
        sc.all_dirty()
        sc.first = seat - 1 if seat else BANKER_DISPLAY

    def close(self):
        """The entry a button opened is closed; the one the game asks for, if any, opens."""
        ui = self.ui
        ui.kind = V.K_NONE
        ui.manual = False
        self.sync()
        self.t.screens.all_dirty()

    def _open_buy(self, seat):
        e = self.t.session.e
        slot = e.current_slot()
        if slot < 0:
            return "no player acts now: " + V.prompt(e, self.ui)
        lo = e.initial_stake(seat)
        why = e.check(E.EV_BUY, seat, lo)
        if why:
            return why
        self.open(V.K_BUY, seat, lo, e.buy_max(seat, slot))
        return None

    def commit(self):
        t = self.t
        ui = self.ui
        kind = ui.kind
        seat = ui.seat
        v = ui.value
        if kind == V.K_STAKE:
            why = t.event(E.EV_STAKE, seat, v, 0, _SRC_BUTTON)
        elif kind == V.K_BUY:
            why = t.event(E.EV_BUY, seat, v, 0, _SRC_BUTTON)
        elif kind == V.K_KITTY:
            why = t.event(E.EV_KITTY, 0, v, 0, _SRC_BUTTON)
        elif kind == V.K_CARD:
            why = t.event(E.EV_CARD, 0, 0, v, _SRC_BUTTON)   # refused: the entry stays
        elif kind >= V.K_SELL_SEAT:
            why = self.sale.step(kind, seat, v)
        elif v == 0:
            why = self.shoot.pass_(seat)
        else:
            why = t.event(E.EV_SHOOT, seat, v, 0, _SRC_BUTTON)
        if why:
            t.refuse(why, seat)

    def after_event(self):
        """An event was accepted: an entry a button opened closes with it."""
        ui = self.ui
        if ui.kind != V.K_NONE and ui.manual:
            ui.kind = V.K_NONE
            ui.manual = False
        self.sync()

    def sync(self):
        """Open the amount entry the game asks for (stakes, the kitty, a shoot bet)."""
        ui = self.ui
        e = self.t.session.e
        if e is None or ui.manual:
            return
        kind = V.K_NONE
        seat = 0
        lo = hi = 0
        ph = e.phase
        r = e.rules
        shooter = self.shoot.window_seat() if r.shoot else 0
        if ph == E.PH_STAKES or ph == E.PH_BETS or (
                e.casino and ph == E.PH_IDLE and not e.want_shuffle and not ui.over):
            kind = V.K_STAKE
            seat = V.acting_seat(e)
            lo = r.stake_min
            hi = r.stake_max
        elif ph == E.PH_IDLE and e.need_kitty:
            kind = V.K_KITTY
            lo = r.kitty_min
            hi = r.kitty_max
        elif shooter:
            kind = V.K_SHOOT            # X2: 0 = pass
            seat = shooter
            hi = e.shoot_room()
        if kind != ui.kind or seat != ui.seat or lo != ui.lo or hi != ui.hi:
            ui.kind = kind
            ui.seat = seat
            ui.lo = lo
            ui.hi = hi
            ui.value = lo

    def same_bets(self):
        """`casino`: one press re-places every seat's bet of the previous round (D2)."""
        t = self.t
        e = t.session.e
        if e.want_shuffle or e.phase != E.PH_IDLE:
            return "same bets: only before the first bet of a round (D2)"
        bets = [e.initial_stake(s) for s in range(1, e.seats + 1)]
        if 0 in bets:
            return "no bets of a previous round to repeat (D2)"
        seat = 1
        while True:
            why = t.event(E.EV_STAKE, seat, bets[seat - 1], 0, _SRC_BUTTON)
            if why or e.phase != E.PH_BETS:
                return why
            seat = e.next_stake_seat()
