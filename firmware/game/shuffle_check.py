# Shuffle quality from the order the shoe saw (issue 44): after a shuffle, how many of the
# pairs of cards that lay together before it come out side by side again, against what a
# fair shuffle keeps. A pair "lay together" when the two cards came out of the shoe one
# right after the other, or one after the other in one hand: at a deal's end the cards go
# under the pack in the order they were dealt, a bust hand at once as a hand
# (boards/simdev/deck.py, shoe_layers.py), so the pack before a shuffle holds both kinds
# side by side (tools/shuffles.py measures what a weak shuffle keeps). Either order counts
# as kept: an overhand shuffle, which turns packets over, is caught as well as a cut.
#
# Two bytes a card code, for the pass before and this one: the code that came out right
# after it, and the next card of its hand (the last time it was dealt: a card dealt again
# lies where it went last; one not dealt in the last pass, where it lay the time before,
# for a cut may bring the undealt cards to the top). A card compares a few bytes: no
# allocation. The verdict is taken after the first WINDOW cards of a pass (or at its end,
# on the host): a fair shuffle of N copies, k of each code, puts a given unordered pair of
# codes side by side at a given place with chance 2k^2/(N(N-1)), so the count kept is close
# to Poisson with the sum of those chances over the places checked; weak when a fair
# shuffle keeps as many in fewer than LEVEL of cases.
from .engine import EV_CARD as _EV_CARD, EV_SHUFFLE as _EV_SHUFFLE

NONE = 255
WINDOW = 22                 # cards of a new pass checked before the verdict
LEVEL = 0.01                # weak: a fair shuffle keeps as many this rarely


class ShuffleCheck:
    def __init__(self, window=WINDOW):
        self.window = window
        self.due = False                 # the verdict is due (the window just completed)
        self.before = bytearray(52)      # the last pass: each code's follower
        self.now = bytearray(52)         # this pass's, being filled
        self.hand_before = bytearray(52)  # the same for the next card of its hand
        self.hand_now = bytearray(52)
        self.restart(False)

    def restart(self, shuffled=True):
        """A new pass: after a shuffle, what the last pass left is what it is checked by."""
        for b, n in ((self.before, self.now), (self.hand_before, self.hand_now)):
            for i in range(52):
                if not shuffled:
                    b[i] = NONE
                elif n[i] != NONE:       # a card not seen since lies where it lay before
                    b[i] = n[i]
                n[i] = NONE
        self.last = NONE                 # the card before this one in the pass
        self.cards = 0                   # cards out in this pass
        self.checked = 0                 # pairs checked (within the window)
        self.kept = 0                    # of them, pairs that lay together before
        self.known = shuffled            # a last pass to check against
        self.due = False
        self.weak_from = 1 << 30         # (event() sets it at a shuffle)

    def event(self, ev, card, packs, mate=NONE):
        """An event the engine took (its number as engine.py's EV_*, the card's code), with
        the session's packs; `mate`: the card before it in its hand (NONE: none). At a
        shuffle, the least count a fair shuffle keeps in fewer
        than LEVEL of cases over the window (self.weak_from: a card compares integers)."""
        if ev == _EV_CARD:
            if self.card(card, mate):
                self.due = True
        elif ev == _EV_SHUFFLE:
            self.restart(True)
            mean = self.per_pair(packs) * (self.window - 1)
            k = 1
            while poisson_tail(k, mean) >= LEVEL:
                k += 1
            self.weak_from = k

    def weak(self):
        """The window's verdict, taken on the card that completes it."""
        return self.kept >= self.weak_from

    @staticmethod
    def mate(e):
        """Before the engine `e` takes a card: the card before it in its hand (NONE)."""
        slot = e.expected_card_slot()
        if slot >= 0:
            n = e.ncards(slot)
            if n:
                return e.card(slot, n - 1)
        return NONE

    def card(self, code, mate=NONE):
        """One card out of the shoe (`mate`: the one before it in its hand). True when this
        card completes the window (the verdict is due: verdict())."""
        if mate != NONE:
            self.hand_now[mate] = code
        last = self.last
        if last != NONE:
            self.now[last] = code
            if self.known and self.cards < self.window:
                b = self.before
                h = self.hand_before
                if b[last] == code or b[code] == last or h[last] == code or h[code] == last:
                    self.kept += 1
                self.checked += 1
        self.last = code
        self.cards += 1
        return self.known and self.cards == self.window

    def expected(self, packs):
        """(the mean count a fair shuffle of `packs` packs keeps over the pairs checked, its
        spread)."""
        mean = self.per_pair(packs) * self.checked
        return mean, mean ** 0.5

    def per_pair(self, packs):
        """The chance that two cards side by side after a fair shuffle lay together
        before it."""
        k = packs
        n = 52 * k
        same = k * (k - 1) / (n * (n - 1.0))
        other = 2 * k * k / (n * (n - 1.0))
        b = self.before
        h = self.hand_before
        q = 0.0
        for a in range(52):              # each unordered pair of either table once
            for c, dup in ((b[a], False), (h[a], True)):
                if c == NONE:
                    continue
                if dup and (b[a] == c or b[c] == a):
                    continue
                if c != a and (b[c] == a if not dup else h[c] == a) and c < a:
                    continue
                q += same if c == a else other
        return q

    def verdict(self, packs):
        """(kept, expected, spread, p: the chance a fair shuffle keeps as many, weak)."""
        mean, spread = self.expected(packs)
        p = poisson_tail(self.kept, mean)
        return self.kept, mean, spread, p, self.known and self.checked > 0 and p < LEVEL


def poisson_tail(k, mean):
    """P(X >= k) for X Poisson with this mean."""
    if k <= 0:
        return 1.0
    term = 2.718281828459045 ** -mean
    below = 0.0
    for i in range(k):
        below += term
        term *= mean / (i + 1)
    tail = 1.0 - below
    return tail if tail > 0.0 else term      # (rounding: the first term left out)


def said(check, packs):
    """The serial line's words on the window's verdict."""
    kept, mean, spread, p, weak = check.verdict(packs)
    return "%s shuffle: %d neighbour%s kept in %d cards (a fair one keeps %.1f, spread %.1f; " \
        "p %.4f)" % ("weak" if weak else "fair", kept, "" if kept == 1 else "s",
                     check.checked + 1, mean, spread, p)
