"""tools/night.py's arithmetic: the settle-up is the true minimum (against a brute force
over every partition of the table), and tools/decisions.py's exact values agree with
tools/odds.py and with a brute force over every ordered sequence of physical cards of a
small pack (written here from the rule text: S1-S3, H6, H7, P4, P6, P7, K1)."""
import itertools
import random

import pytest
from hypothesis import given, settings, strategies as st

import decisions as D
import night
import odds
from game.rules import Rules

TABLE = Rules("table")
CASINO = Rules("casino")


# ------------------------------------------------------------ settle-up

def partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]
        yield [[first]] + part


def fewest_payments_brute(balances):
    """Every partition of those owed or owing into groups; a group that sums to 0 settles
    in (its size - 1) payments and a settle-up's payments split the table into such
    groups, so the minimum is the count less the most zero-sum groups."""
    owed = [b for b in balances.values() if b]
    if not owed:
        return 0
    best = 0
    for part in partitions(list(range(len(owed)))):
        if all(sum(owed[i] for i in g) == 0 for g in part):
            best = max(best, len(part))
    return len(owed) - best


@st.composite
def ledgers(draw):
    n = draw(st.integers(2, 9))                     # eight seats, or seven and the house
    values = draw(st.lists(st.integers(-30, 30), min_size=n - 1, max_size=n - 1))
    values.append(-sum(values))
    return {s: v for s, v in enumerate(values)}


@settings(max_examples=150, deadline=None)
@given(ledgers())
def test_the_settle_up_is_the_fewest_payments_and_settles_everybody(ledger):
    pays = night.settle_up(ledger)
    left = dict(ledger)
    for payer, payee, amount in pays:
        assert amount > 0 and payer != payee
        left[payer] += amount
        left[payee] -= amount
    assert not any(left.values()), (ledger, pays)
    assert len(pays) == fewest_payments_brute(ledger), (ledger, pays)


def test_the_settle_up_finds_groups_a_greedy_pairing_misses():
    # the greedy biggest-to-biggest needs 4 payments here; {+5, -5} and {+3, +4, -7} need 3
    ledger = {1: 5, 2: -5, 3: 3, 4: 4, 5: -7}
    pays = night.settle_up(ledger)
    assert len(pays) == 3
    assert night.settle_up({1: 0, 2: 0}) == []
    with pytest.raises(ValueError):
        night.settle_up({1: 2, 2: -1})


# ------------------------------------------------------------ against odds.py

def test_the_banker_distribution_is_odds_py_given_no_pontoon():
    pool = (4, 4, 3, 4, 2, 4, 4, 1, 4, 13)
    v = D.Valuer(TABLE, "draw-below-17")
    exact = odds.dealer_outcomes(list(pool), "draw-to-17", exact=True)
    rest = 1 - exact["pontoon"]
    got = v.banker_dist(pool)
    assert got[D.BUST] == pytest.approx(float(exact["bust"] / rest), abs=1e-12)
    assert got[D.FIVE] == pytest.approx(float(exact["five-card-trick"] / rest), abs=1e-12)
    for t in range(17, 22):
        assert got.get(t, 0.0) == pytest.approx(float(exact[str(t)] / rest), abs=1e-12)
    c = D.Valuer(CASINO).banker_dist(pool)
    exact = odds.dealer_outcomes(list(pool), "casino", exact=True)
    assert c[17] == pytest.approx(float(exact["17"] / (1 - exact["pontoon"])), abs=1e-12)
    # sticking on 19 from this pool: paid when the banker busts or stands lower, else single
    stick = v.player(pool, [36, 32], 3, 3)["stick"][0]        # TC 9C = 19, stake 3
    win = got[D.BUST] + got.get(17, 0) + got.get(18, 0)
    lose = 1 - win - got[D.FIVE]
    assert stick == pytest.approx(3 * (win - lose - 2 * got[D.FIVE]), abs=1e-12)


# ------------------------------------------------------------ brute force, small packs

def total(cards):
    """C3 from the rule text: every ace tried as 1 and as 11."""
    sums = {sum(c) for c in itertools.product(*[(1, 11) if x == 1 else (x,) for x in cards])}
    ok = [s for s in sums if s <= 21]
    return max(ok) if ok else min(sums)


def kind(cards):
    t = total(cards)
    if t > 21:
        return ("bust", t)
    if len(cards) == 2 and t == 21:
        return ("pontoon", t)
    if len(cards) == 5:
        return ("five", t)
    return ("hand", t)


def table_payoff(player, banker):
    """S1-S3, H6, H7 for one unit of stake (table preset, no options)."""
    pk, pt = kind(player)
    bk, bt = kind(banker)
    if pk == "bust":
        return -1
    win = 2 if pk in ("pontoon", "five") else 1
    if bk == "bust":
        return win
    if bk == "five":
        return win if pk == "pontoon" else -2
    if pk in ("pontoon", "five"):
        return win
    return win if pt > bt else -1


def banker_finals(deck, stands_on):
    """Every way the banker's hand ends from `deck` (physical cards, in every order): two
    cards, no Pontoon (D4 would have ended the deal), then drawing below `stands_on` (K1)
    up to five cards. Yields (probability weight, final cards)."""
    out = []

    def play(hand, rest, weight):
        t = total(hand)
        if t > 21 or len(hand) == 5 or t >= stands_on or not rest:
            out.append((weight, hand))
            return
        for i in range(len(rest)):
            play(hand + [rest[i]], rest[:i] + rest[i + 1:], weight / len(rest))

    pairs = [(i, j) for i in range(len(deck)) for j in range(len(deck)) if i != j]
    for i, j in pairs:
        if kind([deck[i], deck[j]])[0] == "pontoon":
            continue
        rest = [deck[k] for k in range(len(deck)) if k not in (i, j)]
        play([deck[i], deck[j]], rest, 1.0)
    whole = sum(w for w, _ in out)
    return [(w / whole, h) for w, h in out]


def stand_brute(hand, deck):
    return sum(w * table_payoff(hand, b) for w, b in banker_finals(deck, 17))


def best_brute(hand, deck, stake, init, lastbuy, twisted):
    """The best money value of the hand from here (stick at 15+, twist, buy init..max)."""
    t = total(hand)
    if t > 21 or t == 21 or len(hand) == 5:
        return stake * stand_brute(hand, deck)
    return max(choices_brute(hand, deck, stake, init, lastbuy, twisted).values())


def choices_brute(hand, deck, stake, init, lastbuy, twisted):
    out = {}
    if total(hand) >= 15:
        out["stick"] = stake * stand_brute(hand, deck)

    def draw(new_stake, last, tw):
        return sum(best_brute(hand + [deck[i]], deck[:i] + deck[i + 1:], new_stake, init,
                              last, tw) for i in range(len(deck))) / len(deck)

    out["twist"] = draw(stake, lastbuy, True)
    if not twisted:
        for a in range(init, (lastbuy or 2 * init) + 1):
            out["buy %d" % a] = draw(stake + a, a, twisted)
    return out


def codes(ranks):
    """Card codes for point values (1 = ace, 10 = a ten), suits in turn."""
    return [(9 if r == 10 else r - 1) * 4 + i % 4 for i, r in enumerate(ranks)]


@pytest.mark.parametrize("seed", range(4))
def test_player_values_agree_with_brute_force_on_small_packs(seed):
    rng = random.Random(seed)
    hand = rng.choice([[10, 2, 3], [5, 4, 2, 2], [9, 3, 2], [8, 6, 1]])
    deck = [rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]) for _ in range(8)]
    pool = [0] * 10
    for r in deck:
        pool[r - 1] += 1
    init = 1
    want = choices_brute(hand, deck, 2, init, 1 if len(hand) > 2 else 0, False)
    got = D.Valuer(TABLE, "draw-below-17").player(pool, codes(hand), 2, init,
                                                   1 if len(hand) > 2 else 0)
    assert set(got) == set(want), (got, want)
    for c in want:
        assert got[c][0] == pytest.approx(want[c], abs=1e-9), (c, hand, deck)


def test_banker_values_agree_with_brute_force_when_the_hands_are_seen():
    # one player hand all face up (its cards known): stand and draw need no guessing
    deck = [10, 10, 3, 7, 5, 2, 9]
    pool = [0] * 10
    for r in deck:
        pool[r - 1] += 1
    player = [10, 8]                               # 18, stake 2
    banker = [10, 6]                               # 16
    got = D.Valuer(TABLE, "draw-below-17").banker(pool, codes(banker),
                                                  [(2, codes(player), 2)])
    stand = -2 * table_payoff(player, banker)

    def best(hand, rest):
        t = total(hand)
        if t > 21 or len(hand) == 5:
            return -2 * table_payoff(player, hand)
        return max(-2 * table_payoff(player, hand), draw(hand, rest))

    def draw(hand, rest):
        return sum(best(hand + [rest[i]], rest[:i] + rest[i + 1:])
                   for i in range(len(rest))) / len(rest)

    assert got[D.STAND] == pytest.approx(stand)
    assert got[D.DRAW] == pytest.approx(draw(banker, deck))


def test_a_hidden_hand_is_only_what_could_still_stand():
    v = D.Valuer(TABLE)
    # two face-down cards of a hand that stuck: 15 to 20 only (a Pontoon would be shown)
    dist = v.hidden_strengths((4, 4, 4, 4, 4, 4, 4, 4, 4, 16), [], 2)
    assert set(dist) <= set(range(15, 21)) and abs(sum(dist.values()) - 1) < 1e-12


# ------------------------------------------------------------ what each could see

SEEN = """rules table
seats 3
banker 1
card 2C
card 3C
card 4C
stake 2 1
stake 3 1
card 5C
card 6C
card 7C
twist 2
card 8C
stick 2
buy 3 1
card 9C
stick 3
card TC
stand
"""


def test_each_decision_is_valued_from_the_cards_its_maker_could_not_see(tmp_path):
    path = tmp_path / "0001.txt"
    path.write_text(SEEN)
    rv = night.Review(str(path))
    by = {(d["seat"], d["choice"], d["hand"]): d for d in rv.decisions}
    # seat 2 twists on 2C 5C: the rest of the pack is unseen (the others' cards face down)
    assert by[(2, "twist", "2C 5C")]["unseen"] == 50
    # seat 3 sticks on 3C 6C 9C: seat 2's twisted 8C is face up (P5), his 2C 5C are not
    assert by[(3, "stick", "3C 6C 9C")]["unseen"] == 52 - 3 - 1
    # the banker (seat 1) draws on 4C 7C: the 8C is seen, seat 3's bought 9C is not (P4)
    draw = by[(1, "draw", "4C 7C")]
    assert draw["banker"] and draw["unseen"] == 52 - 2 - 1
    assert draw["hindsight"] == "next card TC: 21"
    stand = by[(1, "stand", "4C 7C TC")]
    assert stand["best"] == "stand"                      # 21 against a 15 and an 18 or less
    # the ledger is the engine's
    assert rv.balances == {1: 3, 2: -1, 3: -2} and rv.winners == []     # bought: stake 2


@pytest.mark.parametrize("policy,rules", [("draw-below-17", TABLE), ("draw-below-15", TABLE),
                                          ("casino", CASINO)])
def test_the_pools_a_players_draws_leave_agree_with_odds_py(policy, rules):
    """The banker's hand from the decision's pool less the player's cards (the reweighted
    final hands) is odds.py's recursion run on that smaller pool."""
    rng = random.Random(policy)
    v = D.Valuer(rules, policy)
    for packs in (1, 8):
        root = tuple(odds.shoe_counts(packs))
        v._root = root
        for _ in range(5):
            pool = list(root)
            for _ in range(rng.randrange(4)):
                r = rng.choice([i for i in range(10) if pool[i]])
                pool[r] -= 1
            got = v._probabilities(tuple(pool))
            want = odds.final_probabilities(tuple(pool), v.threshold, v.at)
            assert got == pytest.approx(want, abs=1e-12)


def test_casino_choices_are_tools_strategies_basic_strategy(tmp_path):
    """In an eight-pack shoe a few cards move little: the best choice from the exact values
    is the basic strategy tools/strategies.py computes from a full shoe, where they differ
    by more than a hair."""
    import autoplay
    import strategies
    from game.cards import parse_card
    from game.rules import parse_rules
    path = tmp_path / "0001.txt"
    path.write_text("\n".join(autoplay.play_session(parse_rules(["casino"]), 3, 5,
                                                    deals=8)) + "\n")
    rv = night.Review(str(path))
    basic = strategies.CasinoBasic(8)
    checked = 0
    for d in rv.decisions:
        vals = sorted(d["values"].values(), reverse=True)
        if len(vals) < 2 or vals[0] - vals[1] < 0.02:
            continue
        cards = [parse_card(c) for c in d["hand"].split()]
        hand = strategies.Hand(cards, 15, can_split="split" in d["values"],
                               can_double="double" in d["values"])
        assert basic.decide(hand) == d["best"], d
        checked += 1
    assert checked >= 10
