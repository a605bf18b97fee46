# An amount entry, the mode most presses meet: MINUS/PLUS move the amount (held: to its
# bound), OK takes it. The game opens one at the bottom of the controls' stack (stakes, the
# kitty, the shoot window's bet, X2) and the buttons push one on top (a buy, the kitty or a
# shoot bet from the menu). The sale of the bank and a card by hand are entries with steps
# of their own (bank_sale.py, card_entry.py); the menu is a mode of its own (menu.py).
from micropython import const


from game import engine as E
from .sources import SRC_BUTTON

# views' mode kinds (a const is inlined only in its own module)
_K_NONE = const(0)
_K_STAKE = const(1)
_K_BUY = const(2)
_K_KITTY = const(3)
_K_SHOOT = const(4)

_B_BUY = const(2)
_B_MINUS = const(4)
_B_PLUS = const(5)
_B_OK = const(6)
_B_UNDO = const(7)


class Entry:
    """kind (views.K_*), the seat it is for (0: the banker / table), lo..hi and the value."""

    def __init__(self, controls, kind=_K_NONE, seat=0, lo=0, hi=0):
        self.c = controls
        self.set(kind, seat, lo, hi)

    def set(self, kind, seat, lo, hi):
        self.kind = kind
        self.seat = seat
        self.lo = lo
        self.hi = hi
        self.value = lo

    def press(self, b, long):
        """True when the press is the entry's (else it is the game's or the menu's)."""
        if self.kind == _K_NONE:
            return False
        c = self.c
        if b == _B_MINUS or b == _B_PLUS:
            if long:
                self.value = self.hi if b == _B_PLUS else self.lo
            else:
                v = self.value + (1 if b == _B_PLUS else -1)
                v = self.skip(v, 1 if b == _B_PLUS else -1)
                if self.lo <= v <= self.hi:
                    self.value = v
            c.entry_moved()
            return True
        if long:
            return False
        if b == _B_OK:
            why = self.take()
            if why:
                c.t.refuse(why, self.seat)
            return True
        if b == _B_UNDO:
            if self is not c.game:       # one a button opened: UNDO closes it
                c.close()
                c.t.narrator.prompt()    # a sale's prompt ends with it
                return True
            if self.kind == _K_SHOOT and c.shoot.passed():
                c.shoot.unpass()
                return True
            return False
        if b == _B_BUY and self.kind == _K_BUY:
            c.close()                    # BUY again: no buy after all
            return True
        return False

    def skip(self, v, step):
        """A value the entry never offers is stepped over (the sale's buyer: N4)."""
        return v

    def take(self):
        """OK: the amount becomes its event; None, or why it was refused (the entry stays)."""
        t = self.c.t
        kind = self.kind
        v = self.value
        if kind == _K_STAKE:
            return t.event(E.EV_STAKE, self.seat, v, 0, SRC_BUTTON)
        if kind == _K_BUY:
            return t.event(E.EV_BUY, self.seat, v, 0, SRC_BUTTON)
        if kind == _K_KITTY:
            return t.event(E.EV_KITTY, 0, v, 0, SRC_BUTTON)
        if v == 0:                       # K_SHOOT, X2: 0 = pass
            return self.c.shoot.pass_(self.seat)
        return t.event(E.EV_SHOOT, self.seat, v, 0, SRC_BUTTON)
