#!/usr/bin/env python3
"""Exact probabilities of the dealer's (banker's) final hand in Pontoon.

Not a simulation: the result is computed exactly, by recursion over the
multiset of ranks drawn so far, with memoization, from a shoe of known
composition; cards are drawn without replacement. Suits never matter (C4), so
the shoe is a list of 10 rank counts ``[A, 2, 3, 4, 5, 6, 7, 8, 9, T]`` where
``T`` groups 10, J, Q and K (16 per 52-card pack).

Rules used (see docs/RULES.md):

* C2/C3 -- a hand's total is its best value not over 21 (one ace counted 11
  where that does not bust), else its lowest value; the hand is *soft* when an
  ace counts 11 in that total.
* H1 -- ``pontoon``: exactly two cards, an ace and a ten-value.  A two-card 21
  is always a Pontoon; the dealer takes no more cards.
* H2/K1 -- the dealer stops at five cards; five cards totalling 21 or less are a
  ``five-card-trick`` (whatever their total, 21 included).
* H5 -- ``bust``: total over 21.
* otherwise the outcome is the final standing total (key ``"17"``, ...).

Drawing rules (the dealer draws while the rule says so, and never beyond five
cards or past a bust):

* ``h17``  -- blackjack's "hits soft 17": draws below 17 and on a soft 17 (C3: an
  ace counting 11); stands on hard 17+ and on 18+.
* ``s17``  -- draws below 17, stands on every 17 (soft or hard) and above.
* ``casino`` -- K1 ``casino``, the engine's dealer, whose source (seed 003) calls
  soft any 17 holding an ace: draws below 17 and on a 17 with an ace among its
  cards (A-6, and T-6-A or A-6-K too, where the ace counts 1); stands on a 17
  without an ace and on 18+.
* ``draw-to-N`` (12 <= N <= 21) -- draws while the total is below N, stands at
  N or more (soft totals count as in C3).

Output keys, in this order (the machine-readable contract):
``pontoon, five-card-trick, [N .. 16 for draw-to-N with N < 17,] 17, 18, 19,
20, 21, bust``.  The total keys N..16 appear only for ``draw-to-N`` with
N < 17 and are placed, in numeric order, before ``17``.  Keys 17..21 are always
present (possibly 0.0, e.g. ``18`` under ``draw-to-19``).

Shoe size: the dealer may need up to five cards, so the shoe must hold at
least five cards (with ``--upcard``: the upcard plus four more); a smaller shoe
is rejected rather than inventing a rule for running out (N3 would void the
deal).

Library use::

    from odds import dealer_outcomes, shoe_counts
    dealer_outcomes(shoe_counts(packs=8), "casino")         # floats
    dealer_outcomes([4]*9 + [16], "s17", exact=True)         # Fractions
    dealer_outcomes(shoe_counts(1), "h17", upcard="T")       # given first card

Command line::

    python3 tools/odds.py --packs 8 --dealer h17 --json
    python3 tools/odds.py --packs 8 --dealer casino
    python3 tools/odds.py --dealer s17 --remove 5H,KS,10d
    python3 tools/odds.py --shoe A=4,2=4,3=4,4=4,5=4,6=4,7=4,8=4,9=4,T=16 --dealer draw-to-16
    python3 tools/odds.py --packs 8 --dealer h17 --upcard 6

Bad input exits with status 2 and a one-line message on stderr.
"""

import argparse
import json
import sys
from fractions import Fraction

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
VALUES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)   # hard values; the ace may add 10 (C2)
ACE, TEN = 0, 9
PER_PACK = (4, 4, 4, 4, 4, 4, 4, 4, 4, 16)
MAX_CARDS = 5          # K1: the dealer stops at five cards
MAX_PACKS = 1000

CARD_RANKS = "A23456789TJQK"
SUITS = "CDHS"
RULE_HELP = "h17, s17, casino or draw-to-N with 12 <= N <= 21"
# What the dealer does on a total equal to the threshold (below it he draws, above it he
# stands): stand, draw when the hand is soft (C3), draw when any of its cards is an ace.
STAND, DRAW_SOFT, DRAW_ACE = "stand", "soft", "ace"


class OddsError(ValueError):
    """Invalid shoe, rule or card; the message names what is wrong."""


# ---------------------------------------------------------------- rules

def parse_rule(rule):
    """Return ``(threshold, at_threshold)`` for a rule name.

    The dealer draws while ``total < threshold``; on a total equal to the
    threshold he draws when the hand is soft (``DRAW_SOFT``, h17), when any of its
    cards is an ace (``DRAW_ACE``, casino), or never (``STAND``).
    """
    if not isinstance(rule, str):
        raise OddsError("rule must be a string: %s" % RULE_HELP)
    r = rule.strip().lower()
    if r == "h17":
        return 17, DRAW_SOFT
    if r == "s17":
        return 17, STAND
    if r == "casino":
        return 17, DRAW_ACE
    if r.startswith("draw-to-"):
        tail = r[len("draw-to-"):]
        if tail.isdigit() and 12 <= int(tail) <= 21:
            return int(tail), STAND
    raise OddsError("unknown drawing rule %r: allowed %s" % (rule, RULE_HELP))


def outcome_keys(rule):
    """The result keys for ``rule``, in contract order."""
    threshold, _ = parse_rule(rule)
    low = [str(t) for t in range(threshold, 17)]      # only draw-to-N, N < 17
    return ["pontoon", "five-card-trick"] + low + ["17", "18", "19", "20", "21", "bust"]


def hand_total(hard, has_ace):
    """C3: (total, soft) from the hard sum (aces as 1) and whether an ace is held."""
    if has_ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


# ---------------------------------------------------------------- shoes

def shoe_counts(packs=1, remove=()):
    """Rank counts of ``packs`` 52-card packs minus the card codes in ``remove``.

    Card codes: rank A23456789TJQK or 10, suit CDHS, any case ("5H", "10d").
    Removing a physical card more often than the packs hold it is an error.
    """
    if isinstance(packs, bool) or not isinstance(packs, int) or not 1 <= packs <= MAX_PACKS:
        raise OddsError("packs must be an integer from 1 to %d, got %r" % (MAX_PACKS, packs))
    counts = [n * packs for n in PER_PACK]
    seen = {}
    for code in remove:
        rank, suit = parse_card(code)
        seen[rank + suit] = seen.get(rank + suit, 0) + 1
        counts[rank_index(rank)] -= 1
    for card, times in seen.items():     # all counted first: the message gives the total
        if times > packs:
            name = ("10" if card[0] == "T" else card[0]) + card[1]
            raise OddsError("card %s removed %d times but %d pack%s hold%s only %d"
                            % (name, times, packs, "s" if packs > 1 else "",
                               "" if packs > 1 else "s", packs))
    return counts


def parse_card(code):
    """``"10d"`` -> ``("T", "D")``; raises OddsError on a bad code."""
    c = str(code).strip().upper()
    if c.startswith("10"):
        c = "T" + c[2:]
    if len(c) != 2 or c[0] not in CARD_RANKS or c[1] not in SUITS:
        raise OddsError("bad card code %r: rank one of A23456789TJQK or 10, "
                        "suit one of CDHS (e.g. 5H, KS, 10d)" % (code,))
    return c[0], c[1]


def rank_index(rank):
    """Index in the counts list of a rank symbol (A, 2..9, T/10/J/Q/K)."""
    r = str(rank).strip().upper()
    if r in ("10", "J", "Q", "K"):
        r = "T"
    if r not in RANKS:
        raise OddsError("bad rank %r: allowed A, 2-9, T, 10, J, Q, K" % (rank,))
    return RANKS.index(r)


def parse_shoe(text):
    """``"A=4,2=4,...,T=16"`` -> counts; missing ranks count 0.

    Ranks A, 2-9 and T (or 10) for all ten-values together; J/Q/K are
    refused so that a count is never silently read as a single picture rank.
    """
    counts = [0] * 10
    given = set()
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        rank, sep, num = item.partition("=")
        r = rank.strip().upper()
        if r == "10":
            r = "T"
        if not sep or r not in RANKS:
            raise OddsError("bad --shoe entry %r: use RANK=COUNT with RANK one of "
                            "A,2,3,4,5,6,7,8,9,T (T = all ten-values)" % (item,))
        if r in given:
            raise OddsError("--shoe gives rank %s twice" % r)
        num = num.strip()
        if not num.isdigit():
            raise OddsError("bad --shoe count %r for rank %s: a non-negative integer" % (num, r))
        given.add(r)
        counts[RANKS.index(r)] = int(num)
    return counts


def _check_counts(counts):
    if len(counts) != 10:
        raise OddsError("counts must be 10 integers (A,2,3,4,5,6,7,8,9,T), got %d" % len(counts))
    out = []
    for i, c in enumerate(counts):
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise OddsError("count of rank %s must be a non-negative integer, got %r"
                            % (RANKS[i], c))
        out.append(c)
    return out


# ---------------------------------------------------------------- engine

def _falling(n, k):
    """n * (n-1) * ... * (n-k+1)."""
    p = 1
    for i in range(k):
        p *= n - i
    return p


def _draws(total, soft, ace, threshold, at_threshold):
    """Whether the dealer takes another card (two cards or more, not bust)."""
    if total != threshold:
        return total < threshold
    return (at_threshold == DRAW_SOFT and soft) or (at_threshold == DRAW_ACE and ace)


def _weights(counts, threshold, at_threshold, start):
    """Integer outcome weights and their common denominator.

    ``start`` is the dealer's hand so far (drawn-rank counts, at most one card
    for --upcard). Weight of an outcome = number of ordered sequences of
    distinct physical cards filling the dealer's remaining slots up to five
    cards that lead to it (cards beyond the dealer's stop are free), so that
    probability = weight / denominator with denominator = (M)_(5-k), M being
    the cards left and k the cards already in hand. Using one common
    denominator keeps the recursion in integer arithmetic.

    Memoized on the multiset of ranks drawn so far: given the starting shoe it
    fixes both the rest of the shoe and the dealer's hand (hard sum, ace,
    number of cards), and the dealer's decisions depend on nothing else.
    """
    memo = {}

    def rec(drawn, remaining, hard, ncards):
        key = drawn
        hit = memo.get(key)
        if hit is not None:
            return hit
        total, soft = hand_total(hard, drawn[ACE] > 0)
        free = _falling(remaining, MAX_CARDS - ncards)   # completions of the 5 slots
        outcome = None
        if total > 21:
            outcome = "bust"
        elif ncards == 2 and drawn[ACE] == 1 and drawn[TEN] == 1:
            outcome = "pontoon"                          # H1
        elif ncards == MAX_CARDS:
            outcome = "five-card-trick"                  # H2, K1 stop at five
        elif ncards >= 2 and not _draws(total, soft, drawn[ACE] > 0, threshold, at_threshold):
            outcome = str(total)                         # stands
        if outcome is not None:
            res = {outcome: free}
        else:
            res = {}
            left = remaining - 1
            for i in range(10):
                c = counts[i] - drawn[i]
                if c <= 0:
                    continue
                nd = drawn[:i] + (drawn[i] + 1,) + drawn[i + 1:]
                sub = rec(nd, left, hard + VALUES[i], ncards + 1)
                for k, v in sub.items():
                    res[k] = res.get(k, 0) + c * v
        memo[key] = res
        return res

    ncards = sum(start)
    remaining = sum(counts) - ncards
    hard = sum(n * v for n, v in zip(start, VALUES))
    weights = rec(tuple(start), remaining, hard, ncards)
    return weights, _falling(remaining, MAX_CARDS - ncards)


def final_probabilities(counts, threshold, at_threshold):
    """The recursion of _weights in floats, for a caller that asks it for many shoes
    (tools/decisions.py: the banker's hand from every shoe a player's draws leave).

    Returns a list: [bust, five-card trick, Pontoon, total threshold, ..., total 21]
    (probabilities from the full shoe ``counts``, no card given). A hand that ends is an
    index, not a dict: most of the recursion's states are ends, and sharing them is what
    makes this five times faster than _weights.
    """
    width = 3 + 22 - threshold
    memo = {}

    def rec(drawn, left, hard, ncards):
        got = memo.get(drawn)
        if got is not None:
            return got
        ace = drawn[ACE] > 0
        total, soft = hand_total(hard, ace)
        if total > 21:
            got = 0
        elif ncards == 2 and total == 21:
            got = 2                                      # H1
        elif ncards == MAX_CARDS:
            got = 1                                      # H2, K1 stop at five
        elif ncards >= 2 and not _draws(total, soft, ace, threshold, at_threshold):
            got = 3 + total - threshold                  # stands
        else:
            got = [0.0] * width
            for i in range(10):
                c = counts[i] - drawn[i]
                if c <= 0:
                    continue
                sub = rec(drawn[:i] + (drawn[i] + 1,) + drawn[i + 1:], left - 1,
                          hard + VALUES[i], ncards + 1)
                f = c / left
                if sub.__class__ is int:
                    got[sub] += f
                else:
                    for j in range(width):
                        got[j] += f * sub[j]
        memo[drawn] = got
        return got

    if sum(counts) < MAX_CARDS:
        return None
    out = rec((0,) * 10, sum(counts), 0, 0)
    if out.__class__ is int:
        return None
    return out


def dealer_outcomes(counts, rule, upcard=None, exact=False):
    """Probabilities of the dealer's final hand.

    counts -- 10 non-negative ints, the shoe by rank: A, 2, ..., 9, T (T = all
              ten-values). The dealer's cards come out of this shoe.
    rule   -- "h17", "s17", "casino" or "draw-to-N" (12 <= N <= 21).
    upcard -- optional rank (A, 2-9, T/10/J/Q/K): condition on the dealer's
              first card being that rank (it is taken from ``counts``).
    exact  -- return ``fractions.Fraction`` values instead of floats.

    Returns a dict with the keys of ``outcome_keys(rule)`` in that order; the
    values sum to 1. Raises OddsError (a ValueError) on bad input.
    """
    threshold, at_threshold = parse_rule(rule)
    counts = _check_counts(list(counts))
    start = [0] * 10
    if upcard is not None:
        u = rank_index(upcard)
        if counts[u] == 0:
            raise OddsError("upcard %s is not in the shoe" % RANKS[u])
        start[u] = 1
    if sum(counts) < MAX_CARDS:
        raise OddsError("the shoe must hold at least %d cards (the dealer may draw five), got %d"
                        % (MAX_CARDS, sum(counts)))
    weights, denom = _weights(counts, threshold, at_threshold, start)
    keys = outcome_keys(rule)
    unknown = set(weights) - set(keys)
    assert not unknown, unknown                          # cannot happen: totals >= threshold
    out = {}
    for k in keys:
        p = Fraction(weights.get(k, 0), denom)
        out[k] = p if exact else float(p)
    return out


# ---------------------------------------------------------------- CLI

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, "odds.py: error: %s\n" % " ".join(message.split()))


def _build_parser():
    p = _Parser(prog="odds.py",
                description="Exact probabilities of the Pontoon dealer's final hand.")
    p.add_argument("--packs", metavar="K",
                   help="number of 52-card packs in the shoe (default 1)")
    p.add_argument("--dealer", metavar="RULE", default="h17",
                   help="drawing rule: " + RULE_HELP + " (default h17)")
    p.add_argument("--remove", metavar="CARDS", default="",
                   help="cards already out of the shoe, e.g. 5H,KS,10d")
    p.add_argument("--shoe", metavar="COUNTS",
                   help="explicit rank counts instead of packs, e.g. A=4,2=4,...,9=4,T=16")
    p.add_argument("--upcard", metavar="R",
                   help="condition on the dealer's first card (A, 2-9, T, 10, J, Q, K)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object instead of the table")
    return p


def _parse_packs(text):
    t = text.strip()
    if not t.isdigit() or not 1 <= int(t) <= MAX_PACKS:
        raise OddsError("--packs must be an integer from 1 to %d, got %r" % (MAX_PACKS, text))
    return int(t)


def _shoe_from_args(args):
    remove = [c for c in args.remove.split(",") if c.strip()] if args.remove else []
    if args.shoe is not None:
        if args.packs is not None:
            raise OddsError("give either --packs or --shoe, not both")
        counts = parse_shoe(args.shoe)
        for code in remove:
            rank, _ = parse_card(code)
            i = rank_index(rank)
            if counts[i] == 0:
                raise OddsError("--remove %s: no %s left in the --shoe counts" % (code, RANKS[i]))
            counts[i] -= 1
        return counts
    packs = _parse_packs(args.packs) if args.packs is not None else 1
    return shoe_counts(packs, remove)


def _describe(counts, args):
    lines = ["dealer rule: %s" % args.dealer.strip().lower()]
    if args.upcard:                      # the shoe the dealer draws from: without that card
        u = rank_index(args.upcard)
        counts = list(counts)
        counts[u] -= 1
        given = args.upcard.strip().upper()
        lines.append("dealer's first card: %s%s" % (given, " (a ten-value, T)"
                                                     if RANKS[u] == "T" and given != "T" else ""))
    shoe = ",".join("%s=%d" % (r, c) for r, c in zip(RANKS, counts))
    lines.append("shoe %s(%d cards): %s" % ("after the first card " if args.upcard else "",
                                            sum(counts), shoe))
    return lines


def format_table(result, header=(), width=40):
    """Readable table: outcome, percent with 4 decimals, text bar."""
    top = max(result.values()) or 1.0
    lines = list(header)
    lines.append("%-16s %9s  %s" % ("outcome", "percent", "bar"))
    for k, v in result.items():
        bar = "#" * int(round(width * v / top))
        lines.append("%-16s %8.4f%%  %s" % (k, 100.0 * v, bar))
    lines.append("%-16s %8.4f%%" % ("sum", 100.0 * sum(result.values())))
    return "\n".join(lines)


def main(argv=None):
    args = _build_parser().parse_args(argv)
    try:
        parse_rule(args.dealer)
        counts = _shoe_from_args(args)
        exact = dealer_outcomes(counts, args.dealer, upcard=args.upcard, exact=True)
    except OddsError as e:
        sys.stderr.write("odds.py: error: %s\n" % e)
        return 2
    result = {k: float(v) for k, v in exact.items()}
    if args.json:
        print(json.dumps(result))
    else:
        print(format_table(result, _describe(counts, args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
