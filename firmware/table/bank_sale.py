# N4, the sale of the bank between deals of the classic game, on the buttons: the banker
# chooses the buyer, then the price, then the buyer confirms; the last OK is the `sell` event.
# One mode on the controls' stack whose kind is its step.
from micropython import const


from game import engine as E
from .sources import SRC_BUTTON
from . import views as V
from .entry import Entry

# its steps, its kinds (private; entry.py's are below them)
_K_SELL_SEAT = const(6)
_K_SELL_PRICE = const(7)
_K_SELL_OK = const(8)



class BankSale(Entry):
    every_display = True     # the buyer's display follows the banker's choice

    def __init__(self, controls):
        Entry.__init__(self, controls)
        self.price = 0                   # agreed at the price step, sold at the buyer's OK

    def possible(self):
        e = self.c.t.session.e
        return (e.rules.preset == 1 and not e.casino and not e.in_deal() and e.banker > 0
                and e.phase == E.PH_IDLE)

    def open(self):
        """Step 1: the buyer (-/+ over the other seats), from the banker's left (B2)."""
        t = self.c.t
        e = t.session.e
        if not self.possible():
            return "the bank can be sold only between deals of the classic game (N4)"
        lo = 2 if e.banker == 1 else 1
        hi = e.seats - 1 if e.banker == e.seats else e.seats
        self.set(_K_SELL_SEAT, 0, lo, hi)
        self.value = e.banker % e.seats + 1
        self.c.push(self)
        t.narrator.prompt()
        return None

    def skip(self, v, step):
        if self.kind == _K_SELL_SEAT and v == self.c.t.session.e.banker:
            return v + step              # N4: the bank goes to another seat
        return v

    def take(self):
        """OK on each step: buyer chosen -> price; price chosen -> the buyer's OK; the
        buyer's OK -> the `sell` event."""
        t = self.c.t
        v = self.value
        if self.kind == _K_SELL_SEAT:
            self._step(_K_SELL_PRICE, v, 0, 20 * t.session.e.rules.stake_max)
        elif self.kind == _K_SELL_PRICE:
            self.price = v
            self._step(_K_SELL_OK, self.seat, v, v)
        else:
            return t.event(E.EV_SELL, self.seat, self.price, 0, SRC_BUTTON)
        t.narrator.prompt()
        return None

    def _step(self, kind, seat, lo, hi):
        self.set(kind, seat, lo, hi)
        self.c.push(self)                # every display is drawn again, the buyer's first

    # ------------------------------------------------------------------ its lines
    def prompt(self):
        k = self.kind
        if k == _K_SELL_SEAT:
            return "Sell bank to seat %d?" % self.value
        if k == _K_SELL_PRICE:
            return "Sell to %d: price?" % self.seat
        return "Seat %d: buy for %d?" % (self.seat, self.price)

    def line(self, ui):
        k = self.kind
        if k == _K_SELL_SEAT:
            return V.right("Sell to seat", "- %d + OK" % self.value)
        if k == _K_SELL_OK:
            return "OK: buy  UNDO: no"
        return V.amount_line("Price", self.lo, self.hi, self.value)

    def seat_lines(self, e, ui, seat, out):
        """The seller sees what he offers, the buyer what he is asked; True when the lines
        were written."""
        k = self.kind
        buyer = self.value if k == _K_SELL_SEAT else self.seat
        if seat == e.banker:
            out[6] = "Selling the bank"
            out[7] = self.line(ui) if k != _K_SELL_OK else "to %d for %d: wait" % (
                buyer, self.price)
            return True
        if seat != buyer:
            return False
        if k == _K_SELL_OK:
            out[6] = "Buy the bank for %d?" % self.price
            out[7] = self.line(ui)
        else:
            out[6] = "Bank offered to you"
            if k == _K_SELL_PRICE:
                out[7] = self.line(ui)
        return True

    def banker_line(self, ui, out):
        out[7] = self.line(ui)
