"""Player and banker strategies for tools/simulate.py (rule IDs: docs/RULES.md).

Players
-------
``stick-on-N``  any preset: stick as soon as the total is N or more (never below the stick
                minimum P6/V2: N is raised to it), otherwise twist; never buys, doubles or
                splits.
``basic``       `casino` only: a basic strategy computed from the casino rules rather than
                copied from a blackjack chart. 003 says "both of the dealer's cards stay
                closed until the player stands or busts", so the player sees no dealer card:
                the decision depends on the player's own hand only (total, soft or hard,
                number of cards, whether it may still double or split). The values come
                from the exact distribution of the casino dealer (K1: he draws on any 17
                holding an ace, rule `casino` of tools/odds.py) for a full shoe of
                the same packs, conditioned on the dealer holding no Pontoon (D4: the dealer
                checks first), and the player's cards drawn with full-shoe probabilities:
                  * stand (P6: only at 15 or more), ties lose (H7, S4), a 3-4 card 21 beats
                    all but a dealer's 21 and five-card trick, a five-card trick pays 2:1
                    unless the dealer also makes one (S3, S4), a two-card A+T pays 2:1 (also
                    after a split, P9 ruling), 21 and the fifth card stop the hand (P7);
                  * double (P10): once per hand, 2-4 cards, the stake grows by the initial
                    bet, one card follows and the hand may go on drawing (it may not double
                    again);
                  * split (P3, casino): two cards of equal point value, when two hands each
                    starting from one of the cards are worth more than the pair played as
                    one hand (re-splits allowed by the same test; the engine limits a seat
                    to three hands).

Bankers (`table`, `classic`; the casino dealer draws by itself, K1)
--------------------------------------------------------------------
``draw-below-N``  draw while the total is below N, stand at N or more (K1: the banker may
                  stand at any total; five cards or a bust end the turn by themselves).
``casino``        the casino dealer's rule (K1 `casino`, seed 003): draw below 17 and on a
                  17 holding an ace, stand on 17 without one and on 18 or more.
"""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
for _p in (_here, os.path.join(_here, "..", "firmware")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import odds  # noqa: E402

STICK = "stick"
TWIST = "twist"
DOUBLE = "double"
SPLIT = "split"
ACTIONS = (STICK, TWIST, DOUBLE, SPLIT)

MAX_CARDS = 5  # P7
CASINO = 2  # rules.Rules.preset index of `casino`


class StrategyError(ValueError):
    """A strategy name that does not exist or does not fit the preset (one-line message)."""


def point(code):
    """C2 point value of a card code (rank * 4 + suit): ace 1, pictures 10."""
    r = code >> 2
    return 10 if r >= 9 else r + 1


def total_of(cards):
    """C3: (total, soft) of a list of card codes."""
    hard = 0
    ace = False
    for c in cards:
        p = point(c)
        hard += p
        ace = ace or p == 1
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


class Hand:
    """What a player knows when deciding: his cards and what the engine would allow."""

    __slots__ = ("cards", "n", "total", "soft", "hard", "can_split", "can_double",
                 "stick_min")

    def __init__(self, cards, stick_min=15, can_split=None, can_double=True):
        self.cards = list(cards)
        self.n = len(self.cards)
        self.hard = sum(point(c) for c in self.cards)
        self.total, self.soft = total_of(self.cards)
        if can_split is None:
            can_split = self.n == 2 and point(self.cards[0]) == point(self.cards[1])
        self.can_split = can_split
        self.can_double = can_double and 2 <= self.n <= 4 and self.total < 21
        self.stick_min = stick_min


# ------------------------------------------------------------------ players

class StickOnN:
    """Stick at N or more (raised to the rules' stick minimum), else twist."""

    def __init__(self, n, stick_min=15):
        self.n = n
        self.at = max(n, stick_min)
        self.name = "stick-on-%d" % n

    def decide(self, hand):
        if hand.total >= max(self.at, hand.stick_min):
            return STICK
        return TWIST


class CasinoBasic:
    """Basic strategy for the casino preset, computed (see the module notes)."""

    name = "basic"

    def __init__(self, packs=8, stick_min=15):
        self.stick_min = stick_min
        counts = odds.shoe_counts(packs)
        d = odds.dealer_outcomes(counts, "casino")  # the engine's dealer (K1)
        nopontoon = 1.0 - d["pontoon"]
        self.dealer = {k: v / nopontoon for k, v in d.items() if k != "pontoon"}
        cards = float(sum(counts))
        # Draw probabilities by point value 1..10 (full shoe: removal effects ignored).
        self.p = [(v, counts[v - 1] / cards) for v in range(1, 11)]
        self._v = {}  # (hard, ace, n) -> best value with the double still allowed
        self._w = {}  # (hard, ace, n) -> best value without the double
        self._split = {}

    # Values per unit of the hand's stake at the moment of the decision.
    def stand_value(self, total, n):
        q = self.dealer
        if n >= MAX_CARDS:
            five = q["five-card-trick"]
            return 2.0 * (1.0 - five) - five  # S4: 2:1, loses to a dealer's trick (S3)
        if total == 21:
            lose = q["five-card-trick"] + q["21"]  # H7: ties lose
            return (1.0 - lose) - lose
        win = q["bust"]
        for t in range(17, total):
            win += q[str(t)]
        return win - (1.0 - win)

    def _after_card(self, hard, ace, n, table):
        """Value of taking one more card; `table` says whether a later double is allowed."""
        total = 0.0
        for v, pv in self.p:
            h2 = hard + v
            a2 = ace or v == 1
            n2 = n + 1
            t2 = h2 + 10 if a2 and h2 <= 11 else h2
            if t2 > 21:
                val = -1.0  # P8
            elif n2 == 2 and t2 == 21:
                val = 2.0  # a Pontoon from a split hand (P9 ruling); dealer has none
            elif n2 >= MAX_CARDS or t2 == 21:
                val = self.stand_value(t2, n2)  # P7: the hand stops
            else:
                val = self._best(h2, a2, n2, table)[0]
            total += pv * val
        return total

    def _best(self, hard, ace, n, may_double):
        memo = self._v if may_double else self._w
        key = (hard, ace, n)
        got = memo.get(key)
        if got is not None:
            return got
        total = hard + 10 if ace and hard <= 11 else hard
        choices = []
        if n >= 2 and total >= self.stick_min:
            choices.append((self.stand_value(total, n), STICK))
        choices.append((self._after_card(hard, ace, n, may_double), TWIST))
        if may_double and 2 <= n <= 4:
            choices.append((2.0 * self._after_card(hard, ace, n, False), DOUBLE))
        best = max(choices)
        memo[key] = best
        return best

    def split_gain(self, value):
        """EV(two hands from a pair of `value`) - EV(the pair as one hand)."""
        got = self._split.get(value)
        if got is None:
            one = self._after_card(value, value == 1, 1, True)
            pair = self._best(2 * value, value == 1, 2, True)[0]
            got = self._split[value] = 2.0 * one - pair
        return got

    def value(self, hand):
        return self._best(hand.hard, _has_ace(hand.cards), hand.n, hand.can_double)[0]

    def decide(self, hand):
        if hand.can_split and self.split_gain(point(hand.cards[0])) > 0:
            return SPLIT
        ace = _has_ace(hand.cards)
        best = self._best(hand.hard, ace, hand.n, hand.can_double)[1]
        if best == STICK and hand.total < hand.stick_min:  # cannot happen; P6 guard
            return TWIST
        return best

    def table(self):
        """Rows (label, {cards: action}) of the decision chart, for the docs and the CLI."""
        rows = []
        for soft in (False, True):
            for total in range(4 if not soft else 12, 21):
                label = ("soft %d" if soft else "hard %d") % total
                cells = {}
                for n in (2, 3, 4):
                    hard = total - 10 if soft else total
                    if soft and hard < n:  # needs at least the ace and n-1 cards of 1+
                        continue
                    if not soft and (hard < 2 * n or (n == 2 and hard < 4)):
                        continue
                    cells[n] = self._best(hard, soft, n, True)[1]
                rows.append((label, cells))
        return rows


def _has_ace(cards):
    for c in cards:
        if c < 4:
            return True
    return False


def parse_strategy(name, rules, packs=8):
    """`stick-on-N` (any preset) or `basic` (casino) -> a strategy with decide(hand)."""
    if name.startswith("stick-on-"):
        tail = name[len("stick-on-"):]
        if not tail.isdigit() or not 4 <= int(tail) <= 21:
            raise StrategyError("stick-on-N needs N from 4 to 21 (got %r)" % name)
        return StickOnN(int(tail), rules.stick_min)
    if name == "basic":
        if rules.preset != CASINO:
            raise StrategyError("the basic strategy is for the casino preset; "
                                "use stick-on-N for %s" % rules.name)
        return CasinoBasic(packs, rules.stick_min)
    raise StrategyError("unknown strategy %r (allowed: stick-on-N, basic)" % name)


# ------------------------------------------------------------------ bankers

class DrawBelow:
    """Draw while the total is below N (K1)."""

    def __init__(self, n):
        self.n = n
        self.name = "draw-below-%d" % n

    def draw(self, total, soft, ncards, ace=False):
        return total < self.n


class CasinoDealer:
    """The casino dealer's rule for a banker (K1 `casino`, seed 003): a 17 holding an ace
    is soft and draws; `ace`: one of the banker's cards is an ace."""

    name = "casino"

    def draw(self, total, soft, ncards, ace=False):
        return total < 17 or (total == 17 and ace)


def parse_banker(name, rules):
    if rules.preset == CASINO:
        raise StrategyError("the casino dealer draws by itself (K1); --banker is for "
                            "table and classic")
    if name.startswith("draw-below-"):
        tail = name[len("draw-below-"):]
        if not tail.isdigit() or not 2 <= int(tail) <= 22:
            raise StrategyError("draw-below-N needs N from 2 to 22 (got %r)" % name)
        return DrawBelow(int(tail))
    if name == "casino":
        return CasinoDealer()
    raise StrategyError("unknown banker strategy %r (allowed: draw-below-N, casino)" % name)
