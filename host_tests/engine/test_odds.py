"""tools/odds.py: exact dealer-outcome probabilities (RULES C3, H1, H2, H5, K1).

The reference values come from brute-force enumerations written here
independently of odds.py (no memoization, no rank-count shortcuts where the
shoe is small enough): every ordered sequence of distinct physical cards is
played out with a dealer written from the rule text, and totals are found by
trying every 1/11 assignment of the aces.
"""
import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction as F
from math import perm

import pytest
from hypothesis import given, settings, strategies as st

import odds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ODDS = os.path.join(ROOT, "tools", "odds.py")
VALUE_OF_RANK = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]        # A, 2..9, T (ace as 1 here)


# ------------------------------------------------------------ reference dealer

def best_total(cards):
    """C3 by brute force: (total, soft). Each ace tried as 1 and as 11."""
    options = [(1, 11) if c == 1 else (c,) for c in cards]
    sums = {sum(choice) for choice in itertools.product(*options)}
    ok = [s for s in sums if s <= 21]
    hard = sum(cards)                      # every ace as 1
    if ok:
        return max(ok), max(ok) != hard    # soft: some ace is counting 11
    return min(sums), False


def wants_card(rule, total, soft, cards):
    if rule == "h17":
        return total < 17 or (total == 17 and soft)
    if rule == "casino":
        # seed 003: "draw on a soft 17 (two, three or four cards totalling 17, if one of
        # them is an ace) or lower"; stand on 17 without an ace and on 18 or more
        return total < 17 or (total == 17 and 1 in cards)
    if rule == "s17":
        return total < 17
    n = int(rule[len("draw-to-"):])
    return total < n


def final_outcome(cards, rule):
    """The dealer's outcome once ``cards`` (values, ace = 1) are in hand, or
    None if he draws another card."""
    if len(cards) < 2:
        return None
    total, soft = best_total(cards)
    if total > 21:
        return "bust"
    if len(cards) == 2 and sorted(cards) == [1, 10]:
        return "pontoon"
    if len(cards) == 5:
        return "five-card-trick"
    if wants_card(rule, total, soft, cards):
        return None
    return str(total)


def physical_cards(counts):
    """One list entry per physical card (value, ace = 1)."""
    return [VALUE_OF_RANK[i] for i, c in enumerate(counts) for _ in range(c)]


def brute_permutations(counts, rule, upcard=None):
    """Every ordered 5-card sequence of distinct physical cards is equally
    likely; the dealer plays a prefix of it."""
    cards = physical_cards(counts)
    tally = Counter()
    n = 0
    for seq in itertools.permutations(range(len(cards)), 5):
        hand = [cards[i] for i in seq]
        if upcard is not None and hand[0] != VALUE_OF_RANK[upcard]:
            continue
        n += 1
        for k in range(2, 6):
            out = final_outcome(hand[:k], rule)
            if out is not None:
                tally[out] += 1
                break
        else:
            raise AssertionError("dealer never stopped")
    return {k: F(v, n) for k, v in tally.items()}


def brute_tree_physical(counts, rule):
    """Depth-first over distinct physical cards, stopping where the dealer
    stops; a stop after k cards has probability 1 / (N)_k."""
    cards = physical_cards(counts)
    n_cards = len(cards)
    leaves = Counter()

    def dfs(hand, used):
        out = final_outcome(hand, rule)
        if out is not None:
            leaves[(out, len(hand))] += 1
            return
        for i, c in enumerate(cards):
            if not used >> i & 1:
                hand.append(c)
                dfs(hand, used | 1 << i)
                hand.pop()

    dfs([], 0)
    res = Counter()
    for (out, k), m in leaves.items():
        res[out] += F(m, perm(n_cards, k))
    return dict(res)


def brute_tree_ranks(counts, rule):
    """Depth-first over rank sequences (no memo), exact fractions."""
    res = Counter()

    def dfs(hand, counts, p):
        out = final_outcome(hand, rule)
        if out is not None:
            res[out] += p
            return
        left = sum(counts)
        for i, c in enumerate(counts):
            if c:
                counts[i] -= 1
                hand.append(VALUE_OF_RANK[i])
                dfs(hand, counts, p * F(c, left))
                hand.pop()
                counts[i] += 1

    dfs([], list(counts), F(1))
    return dict(res)


def assert_same(got, ref):
    """got: dealer_outcomes(..., exact=True); ref: reference dict (missing = 0)."""
    assert set(ref) <= set(got), (set(ref) - set(got))
    for k, v in got.items():
        assert v == ref.get(k, 0), (k, v, ref.get(k, 0))
    assert sum(got.values()) == 1


ONE_PACK = [4, 4, 4, 4, 4, 4, 4, 4, 4, 16]


# ------------------------------------------------------------ hand-computed

def test_hand_computed_soft_17_shoe():
    # Shoe A, 6, 4, 4, 4 worked out by hand. A-6 (p 1/10) is a soft 17:
    # h17 draws (a 4: soft 21), s17 stands on 17. A-4-6 and 6-4-A are 21,
    # A-4-4 a soft 19, 6-4-4-A and 4-4-x-y five-card tricks.
    counts = [1, 0, 0, 3, 0, 1, 0, 0, 0, 0]
    h = odds.dealer_outcomes(counts, "h17", exact=True)
    assert dict(h) == {"pontoon": 0, "five-card-trick": F(2, 10), "17": 0, "18": F(2, 10),
                       "19": F(3, 10), "20": 0, "21": F(3, 10), "bust": 0}
    s = odds.dealer_outcomes(counts, "s17", exact=True)
    assert dict(s) == {"pontoon": 0, "five-card-trick": F(2, 10), "17": F(1, 10),
                       "18": F(2, 10), "19": F(3, 10), "20": 0, "21": F(2, 10), "bust": 0}


def test_hand_computed_casino_17_with_an_ace():
    # Shoe A, 6, T, T, T worked out by hand (20 ordered first pairs). A-T: Pontoon (6/20);
    # T-T: 20 (6/20); A-6 (2/20): soft 17, both draw a T: A-6-T is 17 with an ace; T-6
    # (6/20): 16 draws, the A (1/3) makes T-6-A, 17 with an ace, a T (2/3) busts. h17 stands
    # on those hard 17s; the casino dealer (K1, seed 003) draws again, a T: bust.
    counts = [1, 0, 0, 0, 0, 1, 0, 0, 0, 3]
    h = odds.dealer_outcomes(counts, "h17", exact=True)
    assert dict(h) == {"pontoon": F(6, 20), "five-card-trick": 0, "17": F(4, 20), "18": 0,
                       "19": 0, "20": F(6, 20), "21": 0, "bust": F(4, 20)}
    c = odds.dealer_outcomes(counts, "casino", exact=True)
    assert dict(c) == {"pontoon": F(6, 20), "five-card-trick": 0, "17": 0, "18": 0,
                       "19": 0, "20": F(6, 20), "21": 0, "bust": F(8, 20)}


def test_hand_computed_small_shoes():
    # A + four ten-values: A-T / T-A is a Pontoon (2/5), T-T stands on 20.
    r = odds.dealer_outcomes([1, 0, 0, 0, 0, 0, 0, 0, 0, 4], "h17", exact=True)
    assert r["pontoon"] == F(2, 5) and r["20"] == F(3, 5)
    # Five 2s: 2-2-2-2-2 = 10 is a five-card trick whatever the rule (K1 stop at five).
    for rule in ("h17", "s17", "draw-to-12", "draw-to-21"):
        r = odds.dealer_outcomes([0, 5, 0, 0, 0, 0, 0, 0, 0, 0], rule, exact=True)
        assert r["five-card-trick"] == 1
    # 9, 9, T, T, T under s17: 18 = 1/10, 19 = 6/10, 20 = 3/10.
    r = odds.dealer_outcomes([0, 0, 0, 0, 0, 0, 0, 0, 2, 3], "s17", exact=True)
    assert (r["18"], r["19"], r["20"]) == (F(1, 10), F(6, 10), F(3, 10))
    # Soft 21 stops (C3 ruling): A, 5, 5, 5, 5 under draw-to-21: A-5-5 stands on 21.
    r = odds.dealer_outcomes([1, 0, 0, 0, 4, 0, 0, 0, 0, 0], "draw-to-21", exact=True)
    # The A is equally likely in each of the 5 positions. In the first three it
    # makes a soft 21 in three cards (stops: "21"); 5-5-5-A is a hard 16 and
    # 5-5-5-5 a 20, both draw the fifth card: 21 in five cards = trick.
    p_a_late = F(2, 5)
    assert r["five-card-trick"] == p_a_late
    assert r["21"] == 1 - p_a_late


def test_pontoon_single_pack_and_eight_packs():
    for rule in ("h17", "s17", "draw-to-12", "draw-to-16"):
        r = odds.dealer_outcomes(ONE_PACK, rule, exact=True)
        assert r["pontoon"] == 2 * F(4, 52) * F(16, 51)
        assert sum(r.values()) == 1
    r = odds.dealer_outcomes(odds.shoe_counts(8), "h17", exact=True)
    assert r["pontoon"] == 2 * F(32, 416) * F(128, 415)
    assert abs(odds.dealer_outcomes(odds.shoe_counts(8), "h17")["pontoon"] - 0.0474513438) < 1e-9


# ------------------------------------------------------------ brute force

SMALL_SHOES = [
    # A  2  3  4  5  6  7  8  9  T
    ([2, 0, 0, 0, 0, 2, 0, 0, 0, 3], "h17"),    # soft 17s and Pontoons
    ([2, 0, 0, 0, 0, 2, 0, 0, 0, 3], "s17"),
    ([2, 1, 1, 1, 1, 1, 0, 0, 0, 3], "h17"),
    ([1, 2, 2, 2, 0, 0, 0, 0, 1, 2], "s17"),
    ([2, 0, 0, 0, 0, 2, 0, 0, 0, 3], "casino"),  # T-6-A and A-6-T: 17s with an ace
    ([2, 1, 1, 1, 1, 1, 0, 0, 0, 3], "casino"),
    ([3, 3, 2, 2, 0, 0, 0, 0, 0, 0], "draw-to-21"),   # five-card tricks
    ([1, 1, 1, 1, 1, 1, 1, 1, 1, 2], "draw-to-14"),
]


@pytest.mark.parametrize("counts,rule", SMALL_SHOES)
def test_matches_permutation_brute_force(counts, rule):
    got = odds.dealer_outcomes(counts, rule, exact=True)
    assert_same(got, brute_permutations(counts, rule))


@pytest.mark.parametrize("upcard", [0, 5, 9])
def test_upcard_matches_permutation_brute_force(upcard):
    counts = [2, 1, 1, 1, 1, 1, 0, 0, 0, 3]
    got = odds.dealer_outcomes(counts, "h17", upcard=odds.RANKS[upcard], exact=True)
    assert_same(got, brute_permutations(counts, "h17", upcard=upcard))


def test_single_pack_draw_to_12_matches_physical_card_enumeration():
    got = odds.dealer_outcomes(ONE_PACK, "draw-to-12", exact=True)
    ref = brute_tree_physical(ONE_PACK, "draw-to-12")
    assert_same(got, ref)
    assert list(got) == ["pontoon", "five-card-trick", "12", "13", "14", "15", "16",
                         "17", "18", "19", "20", "21", "bust"]


@pytest.mark.parametrize("packs,rule", [(1, "h17"), (1, "s17"), (8, "h17"), (8, "s17"),
                                        (1, "casino"), (8, "casino"),
                                        (2, "draw-to-16"), (1, "draw-to-19")])
def test_full_shoes_match_rank_tree(packs, rule):
    counts = odds.shoe_counts(packs)
    assert_same(odds.dealer_outcomes(counts, rule, exact=True), brute_tree_ranks(counts, rule))


@settings(max_examples=30, deadline=None)
@given(counts=st.lists(st.integers(0, 2), min_size=10, max_size=10)
       .filter(lambda c: 5 <= sum(c) <= 8),
       rule=st.sampled_from(["h17", "s17", "casino", "draw-to-12", "draw-to-15", "draw-to-17",
                             "draw-to-20", "draw-to-21"]))
def test_random_small_shoes_match_brute_force(counts, rule):
    assert_same(odds.dealer_outcomes(counts, rule, exact=True),
                brute_permutations(counts, rule))


# ------------------------------------------------------------ identities

@pytest.mark.parametrize("rule", ["h17", "s17", "casino", "draw-to-13"])
def test_upcard_mixture_equals_unconditional(rule):
    counts = odds.shoe_counts(1, ["AS", "5H", "KD", "KC"])
    n = sum(counts)
    mix = Counter()
    for i, c in enumerate(counts):
        if c:
            for k, v in odds.dealer_outcomes(counts, rule, upcard=odds.RANKS[i], exact=True).items():
                mix[k] += F(c, n) * v
    assert dict(mix) == dict(odds.dealer_outcomes(counts, rule, exact=True))


def test_h17_differs_from_s17_only_through_soft_17():
    c8 = odds.shoe_counts(8)
    h = odds.dealer_outcomes(c8, "h17", exact=True)
    s = odds.dealer_outcomes(c8, "s17", exact=True)
    assert h["pontoon"] == s["pontoon"]
    assert s["17"] > h["17"]
    assert h["bust"] > s["bust"] and h["five-card-trick"] > s["five-card-trick"]
    for k in ("18", "19", "20", "21"):
        assert h[k] > s[k]
    # draw-to-17 is s17 by definition.
    assert odds.dealer_outcomes(c8, "draw-to-17", exact=True) == s


def test_casino_differs_from_h17_only_through_17s_with_a_hard_ace():
    # K1 casino draws on every 17 holding an ace, h17 only on the soft ones (C3): the
    # casino dealer ends on 17 less often and draws on to everything else more often.
    c8 = odds.shoe_counts(8)
    h = odds.dealer_outcomes(c8, "h17", exact=True)
    c = odds.dealer_outcomes(c8, "casino", exact=True)
    assert c["pontoon"] == h["pontoon"]
    assert c["17"] < h["17"]
    for k in ("five-card-trick", "18", "19", "20", "21", "bust"):
        assert c[k] > h[k], k
    assert sum(c.values()) == sum(h.values()) == 1


def test_shoe_counts_and_removal():
    assert odds.shoe_counts(1) == ONE_PACK
    assert odds.shoe_counts(2, ["5h", "10D", "ks", "AS", "AS"]) == [6, 8, 8, 8, 7, 8, 8, 8, 8, 30]
    with pytest.raises(ValueError):
        odds.shoe_counts(1, ["AS", "as"])
    with pytest.raises(ValueError):
        odds.shoe_counts(1, ["1S"])
    with pytest.raises(ValueError):
        odds.shoe_counts(0)


def test_library_rejects_bad_input():
    with pytest.raises(ValueError):
        odds.dealer_outcomes(ONE_PACK, "h18")
    for bad in ("draw-to-11", "draw-to-22", "draw-to-x"):
        with pytest.raises(ValueError):
            odds.dealer_outcomes(ONE_PACK, bad)
    with pytest.raises(ValueError):
        odds.dealer_outcomes([4] * 9, "h17")            # 9 ranks
    with pytest.raises(ValueError):
        odds.dealer_outcomes([0, 0, 0, 0, 0, 0, 0, 0, 1, 3], "h17")   # 4 cards
    with pytest.raises(ValueError):
        odds.dealer_outcomes([0, 5, 0, 0, 0, 0, 0, 0, 0, 0], "h17", upcard="A")


def test_float_results_sum_to_one():
    for packs in (1, 2, 6, 8):
        for rule in ("h17", "s17", "casino", "draw-to-12", "draw-to-16", "draw-to-21"):
            r = odds.dealer_outcomes(odds.shoe_counts(packs), rule)
            assert all(isinstance(v, float) and 0 <= v <= 1 for v in r.values())
            assert abs(sum(r.values()) - 1) < 1e-12


# ------------------------------------------------------------ CLI

def run_cli(*args):
    return subprocess.run([sys.executable, ODDS] + list(args), capture_output=True, text=True,
                          timeout=60)


def test_cli_json_contract_h17():
    p = run_cli("--packs", "8", "--dealer", "h17", "--json")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("\n") == 1
    obj = json.loads(p.stdout)
    assert list(obj) == ["pontoon", "five-card-trick", "17", "18", "19", "20", "21", "bust"]
    assert obj == odds.dealer_outcomes(odds.shoe_counts(8), "h17")
    assert all(isinstance(v, float) for v in obj.values())


def test_cli_json_contract_s17_and_draw_to_16():
    obj = json.loads(run_cli("--dealer", "s17", "--json").stdout)
    assert list(obj) == ["pontoon", "five-card-trick", "17", "18", "19", "20", "21", "bust"]
    assert obj == odds.dealer_outcomes(ONE_PACK, "s17")
    obj = json.loads(run_cli("--dealer", "draw-to-16", "--json").stdout)
    assert list(obj) == ["pontoon", "five-card-trick", "16", "17", "18", "19", "20", "21", "bust"]
    assert obj["pontoon"] == float(2 * F(4, 52) * F(16, 51))


def test_cli_remove_shoe_upcard():
    obj = json.loads(run_cli("--remove", "5H,ks,10d", "--dealer", "s17", "--json").stdout)
    assert obj == odds.dealer_outcomes([4, 4, 4, 4, 3, 4, 4, 4, 4, 14], "s17")
    obj = json.loads(run_cli("--shoe", "A=1,4=3,6=1", "--dealer", "h17", "--json").stdout)
    assert obj["21"] == 0.3 and obj["17"] == 0.0
    obj = json.loads(run_cli("--shoe", "a=4,2=4,3=4,4=4,5=4,6=4,7=4,8=4,9=4,10=16",
                             "--remove", "AS", "--json").stdout)
    assert obj == odds.dealer_outcomes([3] + [4] * 8 + [16], "h17")
    obj = json.loads(run_cli("--packs", "2", "--upcard", "K", "--json").stdout)
    assert obj == odds.dealer_outcomes(odds.shoe_counts(2), "h17", upcard="T")
    assert obj["pontoon"] == 8 / 103


def test_cli_table():
    p = run_cli("--packs", "8", "--dealer", "s17")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    pont = [l for l in lines if l.startswith("pontoon")]
    assert pont and "4.7451%" in pont[0]
    bust = [l for l in lines if l.startswith("bust")][0]
    assert "27.9317%" in bust and "#" * 40 in bust      # the longest bar
    assert any(l.startswith("sum") and "100.0000%" in l for l in lines)


@pytest.mark.parametrize("args,needles", [
    (["--dealer", "foo"], ["foo", "h17", "s17", "casino", "draw-to-N"]),
    (["--dealer", "draw-to-25"], ["draw-to-25", "12 <= N <= 21"]),
    (["--packs", "0"], ["--packs", "'0'", "1 to"]),
    (["--packs", "two"], ["--packs", "two"]),
    (["--remove", "5X"], ["5X", "CDHS"]),
    (["--remove", "1H"], ["1H", "A23456789TJQK"]),
    (["--remove", "AS,AS"], ["AS"]),
    (["--shoe", "A=4,K=2"], ["K=2", "A,2,3,4,5,6,7,8,9,T"]),
    (["--shoe", "A=4", "--packs", "2"], ["--packs", "--shoe"]),
    (["--upcard", "Z"], ["Z", "A, 2-9"]),
    (["--nonsense"], ["--nonsense"]),
])
def test_cli_bad_input_exits_2_with_one_line(args, needles):
    p = run_cli(*args)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and p.stderr.endswith("\n")
    for n in needles:
        assert n in p.stderr, (n, p.stderr)


@pytest.mark.parametrize("remove,packs,message", [
    ("5H,5H,5H,5H,5H", "1", "card 5H removed 5 times but 1 pack holds only 1"),
    ("5h,KS,5H", "1", "card 5H removed 2 times but 1 pack holds only 1"),
    ("10d,10D,10d", "2", "card 10D removed 3 times but 2 packs hold only 2"),
])
def test_cli_a_card_removed_too_often_is_counted_in_full(remove, packs, message):
    p = run_cli("--packs", packs, "--remove", remove)
    assert p.returncode == 2
    assert p.stderr == "odds.py: error: %s\n" % message


def test_cli_upcard_shows_the_shoe_the_dealer_draws_from():
    lines = run_cli("--upcard", "Q").stdout.splitlines()
    assert lines[1] == "dealer's first card: Q (a ten-value, T)"
    assert lines[2] == "shoe after the first card (51 cards): " \
        "A=4,2=4,3=4,4=4,5=4,6=4,7=4,8=4,9=4,T=15"
    lines = run_cli("--packs", "8", "--upcard", "6", "--remove", "6H").stdout.splitlines()
    assert lines[1] == "dealer's first card: 6"
    assert lines[2].startswith("shoe after the first card (414 cards): ") and ",6=30," in lines[2]
    lines = run_cli("--packs", "8").stdout.splitlines()
    assert lines[1].startswith("shoe (416 cards): ")
