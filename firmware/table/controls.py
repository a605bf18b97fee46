# The eight buttons. A press goes to the mode on top of a stack: at its bottom the entry
# the game asks for (stakes, the kitty, a shoot bet; nothing shown when none), above it what
# a button opened (the menu, a buy, the sale of the bank, a card by hand), each owning its
# own fields. A press no mode takes is the game's: STICK, TWIST, SPLIT, BUY (the casino's
# double), UNDO; a long OK opens the menu. views.UI.mode is the top, which the views draw
# by asking it for its lines (entry.py: prompt, line, seat_lines, banker_line).
from micropython import const


from game import engine as E
from .sources import SRC_BUTTON
from .screens import BANKER_DISPLAY
from . import views as V
from hardware.buttons import LONG
from .entry import Entry

# buttons, in boards' BUTTONS order
_B_STICK = const(0)
_B_TWIST = const(1)
_B_BUY = const(2)
_B_SPLIT = const(3)
_B_MINUS = const(4)
_B_PLUS = const(5)
_B_OK = const(6)
_B_UNDO = const(7)



class Controls:
    def __init__(self, table):
        self.t = table
        self.ui = table.ui
        self.game = Entry(self)          # the entry the game asks for (sync)
        self.stack = [self.game]
        table.ui.mode = self.game

    def __getattr__(self, name):
        # The modes a table may never use (the menu, the sale of the bank, the shoot window,
        # a card by hand) are made, and their modules imported, on first use: frozen code
        # costs no heap, but each function of an imported module is an object on it.
        if name == "menu":
            from .menu import Menu as mode
        elif name == "sale":
            from .bank_sale import BankSale as mode
        elif name == "shoot":
            from .shoot_window import ShootWindow as mode
        elif name == "card":
            from .card_entry import CardEntry as mode
        else:
            raise AttributeError(name)
        m = mode(self)
        setattr(self, name, m)
        return m

    def press(self, b):
        long = b >= LONG
        b &= LONG - 1
        t = self.t
        ui = self.ui
        if ui.msg:                       # a new press replaces the last refusal
            ui.msg = ""
            t.screens.all_dirty()
        if ui.fatal:
            if b == _B_OK and t.settings.error:
                t.use_defaults()
            return
        if t.tags_busy():
            t.tags.press(b)              # UNDO stops the tag mode (the shoe's check takes
            return                       # the others)
        if ui.over:
            if b == _B_OK:
                t.new_session()
            return
        if self.stack[-1].press(b, long):
            return
        if long:
            if b == _B_OK:
                self.menu.open()
            return
        self._game_press(b, t.session.e)

    def _game_press(self, b, e):
        t = self.t
        seat = V.acting_seat(e)
        why = None
        if b == _B_STICK:
            if e.casino and e.phase == E.PH_IDLE:
                why = self.same_bets()
            elif e.phase == E.PH_BANKER and not e.casino:
                why = t.event(E.EV_STAND, 0, 0, 0, SRC_BUTTON)
            else:
                why = t.event(E.EV_STICK, seat, 0, 0, SRC_BUTTON)
        elif b == _B_TWIST:
            why = t.event(E.EV_TWIST, seat, 0, 0, SRC_BUTTON)
        elif b == _B_SPLIT:
            why = t.event(E.EV_SPLIT, seat, 0, 0, SRC_BUTTON)
        elif b == _B_BUY:
            if e.casino:
                why = t.event(E.EV_DOUBLE, seat, 0, 0, SRC_BUTTON)
            else:
                why = self._open_buy(seat)
        elif b == _B_OK:
            if e.want_shuffle and not e.in_deal():
                why = t.event(E.EV_SHUFFLE, 0, 0, 0, SRC_BUTTON)
            else:
                why = "nothing to confirm: " + V.prompt(e, self.ui)
        elif b == _B_UNDO:
            why = t.undo()
            if why is None:
                t.say("* undo: back at #%d" % t.session.nev)
        if why:
            t.refuse(why, seat)

    # ------------------------------------------------------------------ the stack
    def entry_moved(self):
        """The top entry's value changed: its displays are drawn again, the seat's first."""
        m = self.stack[-1]
        sc = self.t.screens
        if m.every_display:              # the sale's and a card's other displays too
            sc.all_dirty()               # the buyer's display follows the choice
            self.t.narrator.prompt()
        sc.mark(BANKER_DISPLAY)
        if m.seat:
            sc.mark(m.seat - 1)
            self.t.turn.goes_first(m.seat - 1, BANKER_DISPLAY)

    def push(self, mode):
        """A mode a button opened goes on top (in place of any such mode before it)."""
        del self.stack[1:]
        self.stack.append(mode)
        self.ui.mode = mode
        sc = self.t.screens
        sc.all_dirty()
        seat = mode.seat
        self.t.turn.goes_first(seat - 1 if seat else BANKER_DISPLAY)

    def close(self):
        """What a button opened is closed; the entry the game asks for shows again."""
        del self.stack[1:]
        self.ui.mode = self.game
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
        Entry(self).open_buy(seat, lo, e.buy_max(seat, slot))
        return None

    def after_event(self):
        """An event was accepted: what a button opened closes with it."""
        if len(self.stack) > 1:
            del self.stack[1:]
            self.ui.mode = self.game
        self.sync()

    def sync(self):
        """The entry the game asks for now (stakes, the kitty, a shoot bet), at the bottom
        of the stack: its value is kept while it stays the same entry."""
        e = self.t.session.e
        if e is not None:
            self.game.follow(e, self.shoot.window_seat() if e.rules.shoot else 0, self.ui.over)

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
            why = t.event(E.EV_STAKE, seat, bets[seat - 1], 0, SRC_BUTTON)
            if why or e.phase != E.PH_BETS:
                return why
            seat = e.next_stake_seat()
