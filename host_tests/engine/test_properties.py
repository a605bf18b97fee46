"""Property tests (hypothesis): on random event streams, legal and illegal, under random
presets and random `classic` option sets, the engine never raises, R1 and R2 hold after
every event, a rejected event never changes the state, and a three-card hand that shot for its
fourth card (X4) never ends without it."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import engine as E
from autoplay import Autoplayer
from game.rules import SEATS_MAX, SEATS_MIN, parse_rules

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CLASSIC_OPTIONS = {
    "split_aces_only": st.sampled_from(["on", "off"]),
    "stick_min": st.sampled_from(["15", "16"]),
    "banker_doubling": st.sampled_from(["on", "off"]),
    "pontoon_pays": st.sampled_from(["1", "2", "3"]),
    "banker_pontoon_collects_single": st.sampled_from(["on", "off"]),
    "four_card_eleven_twist_only": st.sampled_from(["on", "off"]),
    "royal_pontoon": st.sampled_from(["on", "off"]),
    "pontoon_order": st.sampled_from(
        ["equal", "picture_beats_ten", "natural_beats_plain", "ace_ten_ordinary"]),
    "burn": st.sampled_from(["13", "14", "off"]),
    "shoot": st.sampled_from(["on", "off"]),
    "kitty_min": st.sampled_from(["1", "10"]),
    "kitty_max": st.sampled_from(["10", "40", "100"]),
    "stake_max": st.sampled_from(["5", "10"]),
}


@st.composite
def tables(draw):
    """(rules, seats, banker, packs)."""
    preset = draw(st.sampled_from(["table", "classic", "casino"]))
    words = [preset]
    if preset == "classic":
        names = draw(st.lists(st.sampled_from(sorted(CLASSIC_OPTIONS)), unique=True))
        for name in names:
            words.append("%s=%s" % (name, draw(CLASSIC_OPTIONS[name])))
    rules = parse_rules(words)
    if preset == "casino":
        seats = draw(st.integers(SEATS_MIN[2], SEATS_MAX[2]))
        banker = 0
    else:
        seats = draw(st.integers(SEATS_MIN[0], SEATS_MAX[0]))
        banker = draw(st.integers(0, seats))  # 0: the cut (B1)
    packs = draw(st.sampled_from([0, 0, 1, 2]))
    return rules, seats, banker, packs


def snapshot(e):
    return (e.registers().tobytes(), bytes(e.hb), e.hw.tobytes(), e.sw.tobytes(), bytes(e.sb),
            bytes(e.order), bytes(e.porder), bytes(e.loc))


def check_r2(e):
    """Every card copy on the table is in a live hand (or a cut), and the reverse."""
    on_table = [0] * 52
    for i in range(e.copies):
        if e.loc[i] == E.LOC_TABLE:
            on_table[i % 52] += 1
    if e.phase == E.PH_CUT:
        return  # cut cards are on the table until the cut is decided
    live = [0] * 52
    if e.in_deal():
        slots = [0] + [e.slot_at(i) for i in range(e.norder)]
        for slot in slots:
            if e.hand_flags(slot) & E.F_BUST:
                continue
            for i in range(e.ncards(slot)):
                live[e.card(slot, i)] += 1
    assert live == on_table, "R2: cards in hands %s differ from cards on the table %s" % (
        live, on_table)
    for code in range(52):
        assert on_table[code] <= e.packs


def check_x4(e):
    """X4: a shoot bet before the fourth card asks for it: no such hand ends on three cards."""
    if e.in_deal():
        for i in range(e.norder):
            slot = e.slot_at(i)
            f = e.hand_flags(slot)
            if f & E.F_SHOT4 and e.ncards(slot) == 3:
                assert not f & E.F_DONE, "X4: a hand ended on three cards after its shoot bet"


def random_event(draw, e):
    kind = draw(st.integers(E.EV_CARD, E.EV_VOID + 3))
    if kind > E.EV_VOID:
        kind = E.EV_VOID  # voids are weighted up: every payment must be reverted (N3)
    seat = draw(st.integers(0, e.seats + 1))
    amount = draw(st.sampled_from([0, 1, 2, 3, 5, 7, 10, 20, 150]))
    card = draw(st.integers(0, 51))
    if kind == E.EV_CARD and draw(st.booleans()):
        # A card that is on the table already (R2) or under the pack.
        for slot in range(e.nslots):
            if e.ncards(slot):
                card = e.card(slot, 0)
                break
    return kind, seat, amount, card


@SETTINGS
@given(tables(), st.data())
def test_random_streams_keep_r1_r2_and_rejections_change_nothing(table, data):
    rules, seats, banker, packs = table
    e = E.Engine(rules, seats, banker, packs)
    bot = Autoplayer(e, data.draw(st.integers(0, 10**6)))
    steps = data.draw(st.integers(20, 400))
    accepted = 0
    for _ in range(steps):
        if e.finished():
            break
        if data.draw(st.integers(0, 9)) < 7:
            ev = bot.next_event()
            if ev is None:
                break
        else:
            ev = random_event(data.draw, e)
        before = snapshot(e)
        why = e.apply(*ev)  # must never raise
        if why is None:
            accepted += 1
        else:
            assert isinstance(why, str) and why
            assert snapshot(e) == before, "rejected %r changed the state (%s)" % (ev, why)
        assert e.total_money() == 0, "R1 broken after %r" % (ev,)
        check_r2(e)
        check_x4(e)
    assert accepted > 0


@SETTINGS
@given(tables(), st.integers(0, 10**6))
def test_scripted_sessions_settle_and_conserve(table, seed):
    # Whole sessions of legal play: every event accepted, money conserved, and after each
    # deal nothing is left on the table (R2: the cards are back in the shoe).
    rules, seats, banker, packs = table
    e = E.Engine(rules, seats, banker, packs)
    bot = Autoplayer(e, seed)
    ended = 0
    for _ in range(3000):
        if e.finished() or e.deals_ended >= 6:
            break
        ev = bot.next_event()
        assert e.apply(*ev) is None, ev
        assert e.total_money() == 0
        check_x4(e)
        if e.deals_ended != ended:
            ended = e.deals_ended
            assert not e.in_deal()
            assert all(e.loc[i] != E.LOC_TABLE for i in range(e.copies))
            # The deal's own payments balance too, the kitty's share included.
            assert sum(e.deal_net(seat) for seat in range(e.seats + 1)) + e.deal_kitty == 0
    assert ended >= 1


def test_the_property_checks_can_fail():
    # A deliberately broken engine (money created from nothing) is caught by R1.
    e = E.Engine(parse_rules(["table"]), 3, 1)
    e.sw[1 * 3] += 5
    assert e.total_money() != 0
