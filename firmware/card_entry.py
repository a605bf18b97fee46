# A card by hand: a card whose tag will not read (a damaged sticker, a tag outside the UID
# map) is chosen on the buttons and goes through the table's event() like a read card:
# journaled first, then shown as a read card would be (face down only on its seat's display).
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


class CardEntry:
    def __init__(self, table, controls):
        self.t = table
        self.c = controls

    def open(self):
        t = self.t
        e = t.session.e
        ui = t.ui
        if not V.card_wanted(e):
            return "no card is due now: " + V.prompt(e, ui)
        slot = e.expected_card_slot()
        seat = e.card_seat()
        if slot <= -2:
            up = True                    # the cut is face up (B1)
            who = "cut S%d" % seat
        elif seat == 0:
            up = e.phase == E.PH_BANKER  # his own draws in his turn (K1)
            who = "dealer" if e.casino else "banker"
        else:
            up = e.phase == E.PH_PLAY and bool(e.hand_flags(slot) & E.F_TWISTED)
            who = "seat %d" % seat
        self.c.open(V.K_CARD, seat, 0, 51)
        ui.card_up = up
        ui.card_for = who
        t.narrator.prompt()
        return None

    def press(self, b, long):
        """MINUS/PLUS: the rank down/up; held: the suit; OK: the card; UNDO: no card. Every
        card stays reachable (one already on the table is refused on OK, R2: skipping it
        would tell where it is)."""
        ui = self.t.ui
        c = ui.value
        if b == _B_OK:
            self.c.commit()
        elif b == _B_UNDO:
            self.c.close()
            self.t.narrator.prompt()
        elif b == _B_MINUS or b == _B_PLUS:
            d = 1 if b == _B_PLUS else -1
            if long:
                c = (c & ~3) | ((c & 3) + d) % 4
            else:
                c = ((c >> 2) + d) % 13 * 4 + (c & 3)
            ui.value = c
            self.c.entry_moved()
        else:
            self.t.refuse("Card: -/+, OK or UNDO", ui.seat)
