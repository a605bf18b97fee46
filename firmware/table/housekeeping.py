# What the loop does when nothing else is due: a garbage collection after each burst of
# activity, the heap's figures once a deal, and folding the journal's tail at moments when
# no card can come. The loop is blind meanwhile (a collection, a heap figure and, longest,
# a fold's flash work), so each waits for its moment.
from micropython import const


from hardware import drvtime

# the tail is folded while a player decides once it holds this many bytes (of
# journal.TAIL_MAX): fewer folds, and still rarely a fold inside an append
_FOLD_IDLE = const(240)
# between deals the tail is folded once nothing has happened for this long: a dealer who
# starts the next deal at once is not met by a blind loop
_QUIET_MS = const(1500)
_SNAP_AFTER = const(16)        # events a boot may replay before a snapshot is due
_SEAL_LINES = const(8)         # journal lines a quiet pass feeds the seal after a boot
# A collection once this much has been allocated since the last one: garbage then never
# spreads far above the live data, so what outlives it (a new session's engine, a message)
# is not left high in the heap, splitting the free space (MicroPython allocates first-fit
# from the bottom). The table's own collection after each burst usually comes first.
# The boot (its imports and replay: most of what the table will ever hold) collects every
# _BOOT_GC_EVERY bytes instead, until start(): at GC_EVERY it would mark the same live data
# again and again, and with no threshold at all the code loaded from .mpy files would lie
# scattered among the boot's garbage, splitting the free space (the stock UF2).
GC_EVERY = 24 * 1024
_BOOT_GC_EVERY = const(64 * 1024)
# A table serving phones makes garbage all the time (their messages), so its collections
# fell inside most cards: it collects every WEB_GC_EVERY bytes instead, and not after
# each burst (the threshold's collection comes soon enough anyway). Higher, the garbage
# spreads higher and splits the free space (docs/DEVELOPING.md, issue 43).
WEB_GC_EVERY = 32 * 1024
# While a card is on its way (the reader has it, its display drawn before its release:
# ShoeReader.urgent) no collection falls inside: the one owed comes at the first
# allocation after, in whatever waited for the card.
_CARD_GC_EVERY = const(128 * 1024)

try:
    import gc as _gc
    _gc.mem_alloc                        # MicroPython's: CPython's gc has no heap figures
except (ImportError, AttributeError):
    _gc = None


def collect():
    if _gc is not None:
        _gc.collect()


def boot_collections():
    """Collections every _BOOT_GC_EVERY bytes from now on: main.py asks before the .mpy
    path's imports, whose loaders' garbage would otherwise scatter the code through the heap."""
    if _gc is not None and hasattr(_gc, "threshold"):
        _gc.collect()
        _gc.threshold(_BOOT_GC_EVERY)


def heap_line(what):
    """'# heap in use <what> N, free M' after a collection; "" on CPython."""
    if _gc is None:
        return ""
    _gc.collect()
    return "# heap in use %s %d, free %d" % (what, _gc.mem_alloc(), _gc.mem_free())


class Housekeeping:
    def __init__(self, session):
        self.session = session
        self.collect = False             # something happened since the last collection
        self.heap_due = False            # a deal ended: take the heap figures when idle
        self.active_at = 0               # ticks_ms when the loop last had something to do
        self.min_free = -1
        self.max_alloc = 0               # heap in use after a collection, at its highest
        self.faults = None               # faults.Faults: looked at when the table is quiet
        self.every = GC_EVERY
        self.after_bursts = True         # a collection after each burst of activity
        self._threshold(_BOOT_GC_EVERY)

    def start(self, turn):
        """The boot is over: collections every GC_EVERY bytes from now on, none inside a
        card's way (`turn`, the bus turn, tells when one starts and ends)."""
        turn.card_window = self.card_window
        self._threshold(self.every)

    def serving(self):
        """The table serves phones from now on (webui/web.py): WEB_GC_EVERY, no collection
        after a burst."""
        self.every = WEB_GC_EVERY
        self.after_bursts = False
        self._threshold(self.every)

    def card_window(self, near):
        """A card is on its way (near), or no longer (hardware/bus_turn.py says, when it
        changes): no collection inside it."""
        self._threshold(_CARD_GC_EVERY if near else self.every)

    def _threshold(self, n):
        if _gc is not None and hasattr(_gc, "threshold"):
            _gc.threshold(n)

    def busy(self, now):
        self.collect = True
        self.active_at = now

    def idle(self, card_near=False):
        """Nothing else to do in this pass: the faults a look, the seal a few of the
        journal's lines after a boot (ledger/seal.py), a collection, or the heap figures.
        card_near (the reader is reading a card, or has one waiting): none of them, which
        would come between that card and its display."""
        if card_near:
            return
        if self.faults is not None:
            self.faults.quiet(drvtime.ticks_ms())
        s = self.session
        if s.e is not None and s.seal.behind():
            s.seal.catch_up_some(s.journal, _SEAL_LINES)
        # the heap figures once a deal, when the table waits for a player
        figures = self.heap_due and (self._players_turn() or self._quiet())
        if not (self.collect or figures):
            return
        # one collection after each burst of activity, while the table waits: the
        # garbage of the last events goes now rather than in the middle of a card
        self.collect = False
        if _gc is None:
            self.heap_due = False
            return
        if figures:
            self.heap_figures()
        elif self.after_bursts:
            _gc.collect()

    def heap_figures(self):
        """The heap's figures now (each walks the heap): the low point before this
        collection, what it holds after. Nothing on a port without them (CPython)."""
        self.heap_due = False
        if _gc is None:
            return
        self.low_point()
        _gc.collect()
        a = _gc.mem_alloc()
        if a > self.max_alloc:
            self.max_alloc = a

    def low_point(self):
        if _gc is None:
            return
        f = _gc.mem_free()
        if self.min_free < 0 or f < self.min_free:
            self.min_free = f

    def fold_due(self):
        """The journal's tail goes into journal.txt while the table waits for a player,
        not a card, once it is half full; or between deals once the table has been quiet
        a while. Never while a card may come: a tail left to fill is folded by the append
        that overflows it, at whatever moment that is."""
        s = self.session
        j = s.journal
        e = s.e
        if s.fold_wait or e is None:
            return False
        if not j.fold_pending():
            if j.stale:                  # a fold's second half, on the next pass
                return self._players_turn() or not e.in_deal()
            # the snapshot after a fold, on a pass of its own once the table is quiet (a
            # press held up by the fold goes first); or nothing to fold, but a boot or
            # UNDO replayed many events: a snapshot spares the next boot that replay
            return ((s.snap_wanted or s.snapshot_due(_SNAP_AFTER)) and self._quiet()
                    and (self._players_turn() or not e.in_deal()))
        if j.nbody >= _FOLD_IDLE and self._players_turn():
            return True
        return not e.in_deal() and self._quiet()

    def _players_turn(self):
        """In a deal, waiting for a stake or a decision: a card now would be refused.
        (Between deals a card may come at any moment: it starts the next deal.)"""
        e = self.session.e
        return e is not None and e.in_deal() and e.expected_card_slot() == -1

    def _quiet(self):
        return drvtime.ticks_diff(drvtime.ticks_ms(), self.active_at) >= _QUIET_MS
