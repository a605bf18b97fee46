# Whose turn it is on the I2C bus: the shoe reader, the seat displays and the buttons'
# expander share it, and this one object says who goes next. The reader, the screens
# (table/screens.py) and the loop (table/app.py) ask it; nothing else decides.
#   1. A card being read, or waiting to be taken, goes before any display page, so that
#      the next card is found while the last one is still being shown.
#   2. Except the display of the event just taken (`own`: a card's seat, a stake's): it
#      goes out whole before the reader's release, which waits meanwhile (the reader is
#      settling, for a bounded hold: a card entering then is found by the next listing).
#      An amount entered shows on the banker's display too (`then`): it is looked at
#      next, before the displays still owed from earlier and before the phones' work.
#   3. Between two pages of any display the reader gets a look, and a card that waits or a
#      press sends the loop round first (the rest of the display follows).
#   4. While the tag mode runs it has the reader to itself (`lent`).


class BusTurn:
    def __init__(self):
        self.reader = None               # shoe_reader.ShoeReader, once booted (displays first)
        self.btn = None                  # the buttons: a press that waits
        self.lent = False                # the tag mode has the reader (tag_run.py)
        self.own = -1                    # the display an event concerns: it goes first
        self.then = -1                   # and the one that follows it (a press's)
        self.drawing_own = False         # the display being drawn is that one
        self.between_pages = self._between_pages   # one bound method, made once
        self.card_near = False           # the reader has a card on its way (urgent)
        self.card_window = None          # told when that changes (housekeeping: no collection)

    def goes_first(self, i, then=-1):
        """Display i (-1: none) is the one the event just taken concerns; display `then`
        (-1: none) is looked at right after it."""
        self.own = i
        self.then = then

    def owed(self, dirty):
        """Is a display of the event just taken still to be looked at (`dirty`: the
        displays waiting)? Other work waits for it."""
        f = self.own
        g = self.then
        return f >= 0 and dirty >> f & 1 or g >= 0 and dirty >> g & 1

    def release_waits(self, dirty):
        """The loop's question before it polls: the reader's release is put off while the
        own display (a bit of `dirty`) waits to be drawn."""
        f = self.own
        return f >= 0 and dirty >> f & 1

    def display_may_go(self, dirty):
        """May a display page take the bus now (`dirty`: the displays waiting)? Not while a
        card is being read, unless the own display waits and the reader is settling."""
        r = self.reader
        if r is None or not r.urgent():
            return True
        f = self.own
        return f >= 0 and dirty & (1 << f) and r.settling()

    def service(self):
        """The reader gets a look (between display pages, after a journal write); whoever
        keeps the collections out of a card's way is told when one starts or ends."""
        r = self.reader
        near = False
        if r is not None and not self.lent:
            r.service()
            near = r.urgent()
        if near != self.card_near:
            self.card_near = near
            if self.card_window is not None:
                self.card_window(near)

    def _between_pages(self):
        """A display page went out (seat_displays.SeatDisplays.show asks): True when the
        loop should go round before the next page."""
        self.service()
        r = self.reader
        if r.urgent() and not (self.drawing_own and r.settling()):
            return True
        return self.btn.pending()
