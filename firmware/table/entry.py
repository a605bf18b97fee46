# An amount entry, the mode most presses meet: MINUS/PLUS move the amount (held: to its
# bound), OK takes it. The game opens one at the bottom of the controls' stack (stakes, the
# kitty, the shoot window's bet, X2) and the buttons push one on top (a buy, the kitty or a
# shoot bet from the menu). The sale of the bank and a card by hand are entries with steps
# of their own (bank_sale.py, card_entry.py); the menu is a mode of its own (menu.py).
# Each mode says its own lines (the views ask it: prompt, line, seat_lines, banker_line).
from micropython import const


from game import engine as E
from .sources import SRC_BUTTON
from . import views as V

# What the entry asks for. Private: a mode's kind is its own business (bank_sale.py and
# card_entry.py number theirs on from these, so that no two modes share one).
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
    """What it asks for (a private kind), the seat it is for (0: the banker / table), lo..hi
    and the value."""
    line_stays = False       # its line stays on the display under a message
    every_display = False    # a move of its value shows on every display, not the seat's only

    def __init__(self, controls, kind=_K_NONE, seat=0, lo=0, hi=0):
        self.c = controls
        self.set(kind, seat, lo, hi)

    def set(self, kind, seat, lo, hi):
        self.kind = kind
        self.seat = seat
        self.lo = lo
        self.hi = hi
        self.value = lo

    # ------------------------------------------------------------------ what it asks for
    def follow(self, e, shooter, over):
        """The game's entry: what the game asks for now (stakes, the kitty, a shoot bet, X2;
        shooter: the shoot window's seat); its value is kept while it stays the same entry."""
        kind = _K_NONE
        seat = 0
        lo = hi = 0
        ph = e.phase
        r = e.rules
        if ph == E.PH_STAKES or ph == E.PH_BETS or (
                e.casino and ph == E.PH_IDLE and not e.want_shuffle and not over):
            kind = _K_STAKE
            seat = V.acting_seat(e)
            lo = r.stake_min
            hi = r.stake_max
        elif ph == E.PH_IDLE and e.need_kitty:
            kind = _K_KITTY
            lo = r.kitty_min
            hi = r.kitty_max
        elif shooter:
            kind = _K_SHOOT            # X2: 0 = pass
            seat = shooter
            hi = e.shoot_room()
        if kind != self.kind or seat != self.seat or lo != self.lo or hi != self.hi:
            self.set(kind, seat, lo, hi)

    def open_buy(self, seat, lo, hi):
        self._open(_K_BUY, seat, lo, hi)

    def open_kitty(self, lo, hi):
        self._open(_K_KITTY, 0, lo, hi)

    def open_shoot(self, seat, lo, hi):
        """A shoot bet (lo 0: the window's, where 0 is a pass, X2)."""
        self._open(_K_SHOOT, seat, lo, hi)

    def _open(self, kind, seat, lo, hi):
        """Opened by a button: on top of the controls' stack."""
        self.set(kind, seat, lo, hi)
        self.c.push(self)

    def shown(self):
        """Something is asked for (the game's entry asks for nothing between its asks)."""
        return self.kind != _K_NONE

    # ------------------------------------------------------------------ its lines
    def prompt(self):
        """The table's prompt while it is open ("": the game's prompt)."""
        if self.kind == _K_SHOOT and self.lo == 0:
            return "Seat %d: shoot or pass" % self.seat
        return ""

    def line(self, ui):
        """The amount line: what, its range and the value between - and +."""
        return V.amount_line(("", "Stake", "Buy", "Kitty", "Shoot")[self.kind], self.lo,
                             self.hi, self.value)

    def seat_lines(self, e, ui, seat, out):
        """Lines 6 and 7 of seat `seat`'s display when the entry is that seat's; True when
        written (the game's lines then give way)."""
        k = self.kind
        if k == _K_NONE or self.seat != seat:
            return False
        if k == _K_SHOOT and self.lo == 0:
            out[6] = "Shoot bet? 0 = pass"
        else:
            out[6] = "Your %s" % ("stake" if k == _K_STAKE else (
                "buy" if k == _K_BUY else "bet"))
        out[7] = self.line(ui)
        return True

    def banker_line(self, ui, out):
        """Line 7 of the banker display: the entry, or who is choosing."""
        if self.kind == _K_NONE:
            return
        if self.seat == 0 or ui.phones:
            out[7] = self.line(ui)
        else:
            out[7] = "Seat %d: - + OK" % self.seat

    def next_card_line(self, ui):
        """Line 7 of the display of the seat whose card comes next (the cut)."""
        return "Your card next"

    # ------------------------------------------------------------------ the presses
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
