# A card by hand: a card whose tag will not read (a damaged sticker, a tag outside the UID
# map) is chosen on the buttons and goes through the table's event() like a read card:
# journaled first, then shown as a read card would be (face down only on its seat's display).
from micropython import const


from game import engine as E
from game.cards import card_name
from .sources import SRC_BUTTON
from . import views as V
from .entry import Entry

# its kind (private; entry.py's and bank_sale.py's are below it)
_K_CARD = const(9)

_B_MINUS = const(4)
_B_PLUS = const(5)
_B_OK = const(6)
_B_UNDO = const(7)


class CardEntry(Entry):
    line_stays = True        # the card chosen stays in sight under a refusal
    every_display = True     # as the sale's: every display is drawn again as it moves

    def __init__(self, controls):
        Entry.__init__(self, controls)
        self.up = False                  # the card goes face up (the banker display may show it)
        self.who = ""                    # whose card, for the prompt ("seat 2", "banker")

    def open(self):
        t = self.c.t
        e = t.session.e
        if not V.card_wanted(e):
            return "no card is due now: " + V.prompt(e, t.ui)
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
        self.set(_K_CARD, seat, 0, 51)
        self.up = up
        self.who = who
        self.c.push(self)
        t.narrator.prompt()
        return None

    # ------------------------------------------------------------------ its lines
    def prompt(self):
        return "Card by hand: " + self.who

    def line(self, ui):
        return V.right("Card", "- %s + OK" % card_name(self.value))

    def seat_lines(self, e, ui, seat, out):
        """Only the card's own seat sees it chosen (face down or not, it may see it); the
        other seats' lines wait for the card."""
        if self.seat == seat:
            out[6] = "Your card by hand"
            out[7] = self.line(ui)
        return True

    def banker_line(self, ui, out):
        """A player's face-down card only on his own display; the banker's own cards and
        face-up cards here."""
        out[7] = self.line(ui) if self.up or self.seat == 0 else \
            "On seat %d's display" % self.seat

    def next_card_line(self, ui):
        return self.line(ui)

    def press(self, b, long):
        """MINUS/PLUS: the rank down/up; held: the suit; OK: the card; UNDO: no card. Every
        card stays reachable (one already on the table is refused on OK, R2: skipping it
        would tell where it is)."""
        t = self.c.t
        c = self.value
        if b == _B_OK:
            why = t.event(E.EV_CARD, 0, 0, c, SRC_BUTTON)   # refused: the entry stays
            if why:
                if t.buzzer is not None:     # (a card entered again: the dealer hears it too)
                    t.buzzer.buzz()
                t.refuse(why, self.seat)
        elif b == _B_UNDO:
            self.c.close()
            t.narrator.prompt()
        elif b == _B_MINUS or b == _B_PLUS:
            d = 1 if b == _B_PLUS else -1
            if long:
                c = (c & ~3) | ((c & 3) + d) % 4
            else:
                c = ((c >> 2) + d) % 13 * 4 + (c & 3)
            self.value = c
            self.c.entry_moved()
        else:
            t.refuse("Card: -/+, OK or UNDO", self.seat)
        return True                      # every press is the card's while it is chosen
