"""Exact values of a Pontoon decision from what the decider could know (tools/night.py).

A pool is the cards unseen by the decider, as 10 rank counts (A, 2, ..., 9, T) like
tools/odds.py's shoes: every card he will draw and every card the banker holds face down
or will draw comes out of it, without replacement. The values are expected money (units of
stake), exact (a recursion over the ranks drawn, memoized on the composition), not sampled:

* a player's choice (stick, twist, buy AMOUNT, split, double, shoot AMOUNT) is valued with
  the best play after it; the banker's hand (both cards unseen, no Pontoon: D4 ended the
  deal otherwise) draws by a stated policy, its final-hand distribution from
  odds.py's recursion (``odds.final_probabilities``) on the pool at the moment the player stops;
* the banker's own choice (draw or stand, `table`/`classic`) is valued against the
  players' standing hands as he sees them: their face-up cards and their card counts, the
  face-down cards drawn from his pool and consistent with the hand still standing (not
  bust; stuck at the minimum, or 21, or five cards; a face-down Pontoon would have been
  shown), with his best play after.

Approximations, named where the values are shown: a split's second hand is valued as the
first (the same pool); the players still to play and the banker's face-down cards are
not removed from each other's pools beyond what the pool says.
"""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
for _p in (_here, os.path.join(_here, "..", "firmware")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import odds  # noqa: E402

STICK, TWIST, BUY, SPLIT, DOUBLE, SHOOT, PASS = (
    "stick", "twist", "buy", "split", "double", "shoot", "pass")
DRAW, STAND = "draw", "stand"
BUST, FIVE, PONTOON, ROYAL = 0, 30, 40, 50     # hands.py's strengths (0: a bust)
VALUES = odds.VALUES
MAX_CARDS = 5
CASINO = 2


def rank_of(code):
    """Card code (rank * 4 + suit) -> index in a pool (A=0 .. 9, T=9 for 10/J/Q/K)."""
    r = code >> 2
    return 9 if r >= 9 else r


def total(hard, ace):
    return hard + 10 if ace and hard <= 11 else hard


def strength(hard, ace, n):
    """hands.strength for a hand known by its hard sum, ace and count (a two-card 21 is a
    Pontoon: after a split too, P9)."""
    t = total(hard, ace)
    if t > 21:
        return BUST
    if n == 2 and t == 21:
        return PONTOON
    if n >= MAX_CARDS:
        return FIVE
    return t


def banker_rule(policy):
    """A tools/strategies.py banker name -> odds.py's drawing rule."""
    if policy == "casino":
        return "casino"
    if policy.startswith("draw-below-"):
        n = policy[len("draw-below-"):]
        if n.isdigit() and 12 <= int(n) <= 21:
            return "draw-to-%d" % int(n)
    raise ValueError("banker policy must be draw-below-N (12 <= N <= 21) or casino, not %r"
                     % policy)


class Valuer:
    """Decision values under one table's rules and one banker policy."""

    def __init__(self, rules, banker_policy="draw-below-17", doubled=False):
        self.rules = rules
        self.casino = rules.preset == CASINO
        self.policy = "casino" if self.casino else banker_policy
        self.threshold, self.at = odds.parse_rule(banker_rule(self.policy))
        self.doubled = doubled
        self._banker = {}
        self._root = None            # the pool of the decision being valued
        self._root_weights = {}
        self._stand = {}
        self._memo = {}

    # ---------------------------------------------------------------- settlement (S)
    def single(self, mult):
        return 2 if self.doubled and mult < 2 else mult

    def payoff(self, ps, b):
        """What a player hand of strength ps wins per unit of stake against a banker's final
        hand b (BUST, FIVE or a total): S1-S4, H6, H7 (ties to the banker)."""
        if ps == BUST:
            return -(1 if self.casino else self.single(1))
        if self.casino:
            win = 2 if ps >= FIVE else 1
            if b == BUST:
                return win
            if b == FIVE:
                return win if ps >= PONTOON else -1
            return win if ps > b else -1
        if ps >= ROYAL:
            win = 3
        elif ps >= PONTOON:
            win = self.single(self.rules.pontoon_pays)
        elif ps == FIVE:
            win = 2
        else:
            win = self.single(1)
        if b == BUST:
            return win
        if b == FIVE:
            return win if ps >= PONTOON else -2
        return win if ps > b else -self.single(1)

    # ---------------------------------------------------------------- the banker's hand
    def banker_dist(self, pool):
        """{final: probability} of the banker's hand from `pool` by the policy, given it is
        not a Pontoon; None when the pool cannot fill it."""
        got = self._banker.get(pool, False)
        if got is not False:
            return got
        probs = self._probabilities(pool)
        dist = None
        rest = 1.0 - probs[2] if probs else 0.0
        if rest > 1e-12:
            dist = {BUST: probs[0] / rest, FIVE: probs[1] / rest}
            for i in range(3, len(probs)):
                if probs[i]:
                    dist[self.threshold + i - 3] = probs[i] / rest
        self._banker[pool] = dist
        return dist

    def _probabilities(self, pool):
        """odds.final_probabilities of `pool`; from the decision's own pool (its root) less
        the cards a player's draws took, by the banker's final hands reweighted (below)."""
        root = self._root
        if root is None or sum(pool) < MAX_CARDS:
            return odds.final_probabilities(pool, self.threshold, self.at)
        taken = [root[r] - pool[r] for r in range(10)]
        if min(taken) < 0:
            return odds.final_probabilities(pool, self.threshold, self.at)
        table = _final_hands(self.threshold, self.at)
        weights = self._root_weights.get(root)
        if weights is None:
            # every final hand's chance from the root pool, times (its cards' count)!
            weights = []
            for _, orders, _, ranks in table:
                w = orders
                for r, k in ranks:
                    w *= _falling(root[r], k)
                weights.append(w)
            self._root_weights = {root: weights}
        # The chance of a final hand b from root - taken is its chance from the root times,
        # for each rank r the player took, falling(root_r - b_r, x_r) / falling(root_r, x_r)
        # (falling(n - x, b) falling(n, x) = falling(n, b) falling(n - b, x)), over the
        # fewer cards left: only the ranks both took change anything.
        left = sum(pool)
        over = [0.0] * (MAX_CARDS + 1)
        for k in range(2, MAX_CARDS + 1):
            over[k] = 1.0 / _falling(left, k)
        ratio = [None] * 10
        for r in range(10):
            x = taken[r]
            if x:
                base = _falling(root[r], x)
                ratio[r] = [_falling(root[r] - b, x) / base if root[r] >= b else 0.0
                            for b in range(MAX_CARDS + 1)]
        out = [0.0] * (25 - self.threshold)
        for (o, _, k, ranks), w in zip(table, weights):
            if not w:
                continue
            f = w * over[k]
            for r, b in ranks:
                g = ratio[r]
                if g is not None:
                    f *= g[b]
            out[o] += f
        return out

    def stand_value(self, pool, ps):
        """(expected payoff per unit stake, probability of beating the banker)."""
        key = (pool, ps)
        got = self._stand.get(key)
        if got is None:
            dist = None
            if ps == BUST or ps >= PONTOON:            # lost at once; paid whatever he holds
                dist = {BUST: 1.0}
            else:
                dist = self.banker_dist(pool)
            if dist is None:
                got = (0.0, 0.0)
            else:
                ev = win = 0.0
                for b, p in dist.items():
                    x = self.payoff(ps, b)
                    ev += p * x
                    if x > 0:
                        win += p
                got = (ev, win)
            self._stand[key] = got
        return got

    # ---------------------------------------------------------------- a player's hand
    def _draw(self, pool, hard, ace, n, stake, init, lastbuy, twisted, doubled):
        """(value, win probability) of taking one card, then the best play."""
        left = sum(pool)
        if left == 0:
            return 0.0, 0.0
        ev = win = 0.0
        for r in range(10):
            c = pool[r]
            if not c:
                continue
            nxt = pool[:r] + (c - 1,) + pool[r + 1:]
            v, w = self._best(nxt, hard + VALUES[r], ace or r == 0, n + 1, stake, init,
                              lastbuy, twisted, doubled)
            ev += c * v
            win += c * w
        return ev / left, win / left

    def _best(self, pool, hard, ace, n, stake, init, lastbuy, twisted, doubled):
        key = (pool, hard, ace, n, stake, init, lastbuy, twisted, doubled)
        got = self._memo.get(key)
        if got is not None:
            return got
        ch = self.choices(pool, hard, ace, n, stake, init, lastbuy, twisted, doubled)
        got = max(ch.values())
        self._memo[key] = got
        return got

    def choices(self, pool, hard, ace, n, stake, init, lastbuy=0, twisted=False,
                doubled=False, can_split=False):
        """{choice: (money value, win probability)} of every choice the hand has; a hand with
        none (bust, 21, five cards) has one, 'stop'. Buys are named 'buy N'."""
        t = total(hard, ace)
        ps = strength(hard, ace, n)
        if t > 21 or ps >= PONTOON or t == 21 or n >= MAX_CARDS:
            v, w = self.stand_value(pool, ps)
            return {"stop": (v * stake, w)}
        if n < 2:                                    # a split hand's second card is dealt
            return {"card": self._draw(pool, hard, ace, n, stake, init, lastbuy, twisted,
                                       doubled)}
        out = {}
        if t >= self.rules.stick_min:
            v, w = self.stand_value(pool, ps)
            out[STICK] = (v * stake, w)
        out[TWIST] = self._draw(pool, hard, ace, n, stake, init, lastbuy, True, doubled)
        if not self.casino and not twisted and not (
                n == 4 and self.rules.four_card_eleven_twist_only and hard <= 11):
            hi = lastbuy if lastbuy else 2 * init
            for a in range(init, hi + 1):
                out["%s %d" % (BUY, a)] = self._draw(pool, hard, ace, n, stake + a, init, a,
                                                     twisted, doubled)
        if self.casino and not doubled and 2 <= n <= 4:
            out[DOUBLE] = self._draw(pool, hard, ace, n, stake + init, init, lastbuy,
                                     twisted, True)
        if can_split:
            v = VALUES[_pair_rank(hard, ace)]
            one, w = self._draw(pool, v, v == 1, 1, init, init, 0, False, False)
            out[SPLIT] = (stake - init + 2 * one, w)   # both hands valued alike (module notes)
        return out

    def player(self, pool, cards, stake, init, lastbuy=0, twisted=False, doubled=False,
               can_split=False):
        """The choices of a hand of card codes `cards` (see choices())."""
        hard = sum(VALUES[rank_of(c)] for c in cards)
        ace = any(rank_of(c) == 0 for c in cards)
        self._root = tuple(pool)
        return self.choices(tuple(pool), hard, ace, len(cards), stake, init, lastbuy,
                            twisted, doubled, can_split)

    def shoot(self, pool, cards, stake, init, room, amount, fourth=False, lastbuy=0,
              twisted=False):
        """{'shoot N': value, 'pass': 0} for a shoot bet (X2, X4) paid 1:1 when the hand
        beats the banker, its main stake played for the best value (X4: `fourth`, the bet
        asks for a card). Values of the bet only."""
        self._root = tuple(pool)
        ch = self.player(pool, cards, stake, init, lastbuy, twisted) if len(cards) >= 2 else \
            {"card": self._draw(tuple(pool), sum(VALUES[rank_of(c)] for c in cards),
                                any(rank_of(c) == 0 for c in cards), len(cards), stake, init,
                                0, False, False)}
        if fourth:
            ch = {k: v for k, v in ch.items() if k != STICK} or ch
        _, w = max(ch.values())
        if len(cards) < 2:
            # X2, X3: before the second cards the banker may still turn up a Pontoon, which
            # takes the bet (the values above are given that he has none)
            left = sum(pool)
            if left > 1:
                w *= 1.0 - 2.0 * pool[0] * pool[9] / (left * (left - 1))
        per = 2 * w - 1
        out = {PASS: (0.0, w)}
        for a in sorted({amount, room}):
            if a > 0:
                out["%s %d" % (SHOOT, a)] = (a * per, w)
        return out

    # ---------------------------------------------------------------- the banker's turn
    def hidden_strengths(self, pool, visible, n):
        """{strength: probability} of a standing player hand with `visible` card codes of
        its `n`, the rest drawn from `pool` and consistent with the hand standing."""
        hard0 = sum(VALUES[rank_of(c)] for c in visible)
        ace0 = any(rank_of(c) == 0 for c in visible)
        k = n - len(visible)
        dist = {}
        stick_min = self.rules.stick_min

        def rec(pool, hard, ace, k, weight):
            if k == 0:
                t = total(hard, ace)
                if t > 21:
                    return
                if n == 2 and t == 21 and len(visible) < 2:
                    return                               # a Pontoon is shown (P2)
                if n < MAX_CARDS and t < 21 and t < stick_min:
                    return                               # it could not have stuck (P6)
                s = strength(hard, ace, n)
                dist[s] = dist.get(s, 0) + weight
                return
            for r in range(10):
                c = pool[r]
                if c:
                    rec(pool[:r] + (c - 1,) + pool[r + 1:], hard + VALUES[r], ace or r == 0,
                        k - 1, weight * c)

        rec(tuple(pool), hard0, ace0, k, 1)
        whole = sum(dist.values())
        if not whole:                          # nothing fits: take the hand as seen
            return {strength(hard0, ace0, n): 1.0}
        return {s: w / whole for s, w in dist.items()}

    def banker(self, pool, cards, hands):
        """{'draw': value, 'stand': value} (money, the banker's side) of the banker's hand
        `cards` against `hands` = [(stake, visible codes, card count)] standing."""
        seen = []
        for stake, visible, n in hands:
            seen.append((stake, self.hidden_strengths(pool, visible, n)))

        def gain(b):
            g = 0.0
            for stake, dist in seen:
                for ps, p in dist.items():
                    g -= stake * p * self.payoff(ps, b)
            return g

        gains = {}
        memo = {}

        def g_of(b):
            v = gains.get(b)
            if v is None:
                v = gains[b] = gain(b)
            return v

        def best(pool, hard, ace, n):
            key = (pool, hard, ace, n)
            got = memo.get(key)
            if got is None:
                t = total(hard, ace)
                if t > 21:
                    got = g_of(BUST)
                elif n >= MAX_CARDS:
                    got = g_of(FIVE)
                else:
                    got = max(g_of(t), draw(pool, hard, ace, n))
                memo[key] = got
            return got

        def draw(pool, hard, ace, n):
            left = sum(pool)
            if not left:
                return g_of(total(hard, ace))
            v = 0.0
            for r in range(10):
                c = pool[r]
                if c:
                    v += c * best(pool[:r] + (c - 1,) + pool[r + 1:], hard + VALUES[r],
                                  ace or r == 0, n + 1)
            return v / left

        pool = tuple(pool)
        hard = sum(VALUES[rank_of(c)] for c in cards)
        ace = any(rank_of(c) == 0 for c in cards)
        return {DRAW: draw(pool, hard, ace, len(cards)),
                STAND: g_of(strength(hard, ace, len(cards)))}


_FINAL_HANDS = {}


def _falling(n, k):
    p = 1
    for i in range(k):
        p *= n - i
    return p


def _final_hands(threshold, at):
    """Every hand the banker can end with under a drawing rule, whatever the pool: (outcome
    index as in odds.final_probabilities, the orders of its cards that reach it, its card
    count, its (rank, count) pairs). Its chance from a pool is orders times, for each rank,
    falling(count in pool, its count), over falling(pool size, card count)."""
    key = (threshold, at)
    got = _FINAL_HANDS.get(key)
    if got is not None:
        return got
    ends = {}

    def rec(drawn, hard, n):
        ace = drawn[0] > 0
        t, soft = odds.hand_total(hard, ace)
        end = None
        if t > 21:
            end = 0
        elif n == 2 and t == 21:
            end = 2                                  # H1
        elif n == MAX_CARDS:
            end = 1                                  # H2, K1
        elif n >= 2 and not odds._draws(t, soft, ace, threshold, at):
            end = 3 + t - threshold
        if end is not None:
            was = ends.get(drawn)
            ends[drawn] = (end, (was[1] if was else 0) + 1)
            return
        for r in range(10):
            rec(drawn[:r] + (drawn[r] + 1,) + drawn[r + 1:], hard + VALUES[r], n + 1)

    rec((0,) * 10, 0, 0)
    got = _FINAL_HANDS[key] = [
        (end, orders, sum(drawn), tuple((r, drawn[r]) for r in range(10) if drawn[r]))
        for drawn, (end, orders) in sorted(ends.items())]
    return got


def _pair_rank(hard, ace):
    """The rank index of one card of a two-card pair with this hard sum."""
    return 0 if ace else hard // 2 - 1
