# N4, the sale of the bank between deals of the classic game, on the buttons: the banker
# chooses the buyer, then the price, then the buyer confirms; the last OK is the `sell` event.
import engine as E
import views as V

SRC_BUTTON = 1


class BankSale:
    def __init__(self, table, controls):
        self.t = table
        self.c = controls

    def possible(self):
        e = self.t.session.e
        return (e.rules.preset == 1 and not e.casino and not e.in_deal() and e.banker > 0
                and e.phase == E.PH_IDLE)

    def open(self):
        """Step 1: the buyer (-/+ over the other seats), from the banker's left (B2)."""
        e = self.t.session.e
        if not self.possible():
            return "the bank can be sold only between deals of the classic game (N4)"
        lo = 2 if e.banker == 1 else 1
        hi = e.seats - 1 if e.banker == e.seats else e.seats
        self.c.open(V.K_SELL_SEAT, 0, lo, hi)
        self.t.ui.value = e.banker % e.seats + 1
        self.t.narrator.prompt()
        return None

    def step(self, kind, seat, v):
        """OK on each step: buyer chosen -> price; price chosen -> the buyer's OK; the
        buyer's OK -> the `sell` event."""
        t = self.t
        if kind == V.K_SELL_SEAT:
            self.c.open(V.K_SELL_PRICE, v, 0, 20 * t.session.e.rules.stake_max)
        elif kind == V.K_SELL_PRICE:
            t.ui.price = v               # agreed here, sold at the buyer's OK
            self.c.open(V.K_SELL_OK, seat, v, v)
        else:
            return t.event(E.EV_SELL, seat, t.ui.price, 0, SRC_BUTTON)
        t.narrator.prompt()
        return None
