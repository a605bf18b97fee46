# The players' turns (P): one function per action, the cards they call for, and the
# move to the next hand. Functions of the Engine `e`. An action function checks, and
# changes the state only when `commit` is true (Engine.check asks without committing).
from micropython import const


from . import hands
from .cards import card_name, point
from .settlement import after_accept, banker_turn, kitty_move, pay, single
from .shoe_layers import hand_under

# Mirrors of engine.py's layout (a const is inlined only in its own module;
# host_tests/engine/test_engine_layout.py checks they agree).
_HB = const(8)
_HB_N = const(5)
_HB_SEAT = const(6)
_HB_FLAGS = const(7)
_HW = const(4)
_HW_STAKE = const(0)
_HW_LASTBUY = const(1)
_HW_SHOOT = const(2)
_SW = const(3)
_SW_INITIAL = const(2)
_SB = const(3)
_SB_HANDS = const(0)
_EV_BUY = const(3)
_PH_IDLE = const(2)
_PH_BETS = const(3)
_PH_DEAL1 = const(4)
_PH_STAKES = const(5)
_PH_DEAL2 = const(6)
_PH_PLAY = const(7)
_PH_BANKER = const(8)
_PEND_NONE = const(0)
_PEND_ONE = const(1)
_PEND_SPLIT = const(2)
_PEND_BURN = const(3)
_F_TWISTED = const(1)
_F_BUST = const(2)
_F_DONE = const(4)
_F_ACTED = const(8)
_F_DOUBLED = const(16)
_F_SPLIT = const(32)
_F_SHOT4 = const(64)
_F_X5_CHANCE = const(128)
_MAX_CARDS = const(5)
_HOUSE = const(0)


def act(e, ev, seat, amount, commit):
    """A player action (EV_BUY to EV_BURN) by `seat`: None, or why not."""
    if e.phase != _PH_PLAY:
        if e.phase == _PH_BANKER:
            return "the players' turns are over: it is the %s's turn (K1)" % (
                "dealer" if e.casino else "banker")
        return "no player acts now: %s" % _waiting(e)
    if not 1 <= seat <= e.seats:
        return "there is no seat %d" % seat
    slot = e.order[e.cur]
    who = e.hb[slot * _HB + _HB_SEAT]
    if e.pend != _PEND_NONE:
        return "a card is due to seat %d first" % who
    if seat != who:
        if seat == e.banker and not e.casino:
            return "the banker plays after every player (K1)"
        return "it is seat %d's turn, not seat %d's (P1)" % (who, seat)
    return _ACTIONS[ev - _EV_BUY](e, seat, slot, amount, commit)


def buy(e, seat, slot, amount, commit):
    if e.casino:
        return "there is no buying in the casino game: twist or double (P10)"
    hb = e.hb
    f = hb[slot * _HB + _HB_FLAGS]
    if f & _F_TWISTED:
        return "after a twist the hand can only twist (P5)"
    if e.hand_total(slot) >= 21:
        return "a hand of 21 takes no more cards (P7)"
    if hb[slot * _HB + _HB_N] == 4 and e.rules.four_card_eleven_twist_only and \
            hands.hard_total(hb, slot * _HB, 4) <= 11:
        return "a four-card hand of 11 or less may only twist (V5)"
    lo = e.sw[seat * _SW + _SW_INITIAL]
    hi = e.buy_max(seat, slot)
    if amount < lo or amount > hi:
        return "this buy must add %d to %d units (P4)" % (lo, hi)
    if not commit:
        return None
    e.hw[slot * _HW + _HW_STAKE] += amount
    e.hw[slot * _HW + _HW_LASTBUY] = amount
    hb[slot * _HB + _HB_FLAGS] = f | _F_ACTED
    _pend(e, _PEND_ONE, slot, 1)
    return None


def twist(e, seat, slot, amount, commit):
    if e.hand_total(slot) >= 21:
        return "a hand of 21 takes no more cards (P7)"
    if not commit:
        return None
    e.hb[slot * _HB + _HB_FLAGS] |= _F_TWISTED | _F_ACTED
    _pend(e, _PEND_ONE, slot, 1)
    return None


def stick(e, seat, slot, amount, commit):
    if e.hb[slot * _HB + _HB_FLAGS] & _F_SHOT4 and e.hb[slot * _HB + _HB_N] == 3:
        return "a shoot bet before the fourth card asks for it: twist or buy, not stick (X4)"
    if e.hand_total(slot) < e.rules.stick_min:
        return "stick needs a total of %d or more (P6)" % e.rules.stick_min
    if not commit:
        return None
    e.hb[slot * _HB + _HB_FLAGS] |= _F_DONE | _F_ACTED
    advance(e)
    return None


def split(e, seat, slot, amount, commit):
    hb = e.hb
    base = slot * _HB
    f = hb[base + _HB_FLAGS]
    if hb[base + _HB_N] != 2 or (f & _F_ACTED):
        return "only a two-card hand that has not acted can split (P3)"
    a = hb[base]
    b = hb[base + 1]
    if e.casino:
        if point(a) != point(b):
            return "a split needs two cards of equal value (P3)"
    elif a >> 2 != b >> 2:
        return "a split needs two cards of equal rank: %s and %s differ (P3)" % (
            card_name(a), card_name(b))
    if e.rules.split_aces_only and a >> 2 != 0:
        return "only aces may be split (V1)"
    limit = 3 if e.casino else 4
    if e.sb[seat * _SB + _SB_HANDS] >= limit:
        return "a seat may hold at most %d hands (P3)" % limit
    if not commit:
        return None
    new = e.nslots
    e.nslots += 1
    e._clear_slot(new)
    hb[new * _HB + _HB_SEAT] = seat
    e.hw[new * _HW + _HW_STAKE] = e.sw[seat * _SW + _SW_INITIAL]
    hb[new * _HB + _HB_FLAGS] = _F_SPLIT
    hb[base + _HB_FLAGS] = f | _F_SPLIT
    hb[new * _HB] = b
    hb[new * _HB + _HB_N] = 1
    hb[base + _HB_N] = 1
    # P3 ruling: the new hand goes right after the split one.
    order = e.order
    for i in range(e.norder, e.cur + 1, -1):
        order[i] = order[i - 1]
    order[e.cur + 1] = new
    e.norder += 1
    e.sb[seat * _SB + _SB_HANDS] += 1
    shot = False                         # X5: a shoot bet of the seat's stands now
    for i in range(e.norder):
        k = order[i] * _HB
        if hb[k + _HB_SEAT] == seat:
            hb[k + _HB_FLAGS] |= _F_SPLIT
            if e.hw[order[i] * _HW + _HW_SHOOT] and not hb[k + _HB_FLAGS] & _F_BUST:
                shot = True
    if shot:
        hb[new * _HB + _HB_FLAGS] |= _F_X5_CHANCE
    e.pend_slot2 = new
    _pend(e, _PEND_SPLIT, slot, 2)
    return None


def double(e, seat, slot, amount, commit):
    if not e.casino:
        return "double is only in the casino game; buy instead (P4, P10)"
    f = e.hb[slot * _HB + _HB_FLAGS]
    if f & _F_DOUBLED:
        return "a hand may double only once (P10)"
    if e.hand_total(slot) >= 21:
        return "a hand of 21 takes no more cards (P7)"
    if not commit:
        return None
    e.hw[slot * _HW + _HW_STAKE] += e.sw[seat * _SW + _SW_INITIAL]
    e.hb[slot * _HB + _HB_FLAGS] = f | _F_DOUBLED | _F_ACTED
    _pend(e, _PEND_ONE, slot, 1)
    return None


def burn(e, seat, slot, amount, commit):
    r = e.rules
    if not r.burn:
        return "burning is not played: rules option burn is off (V8)"
    hb = e.hb
    base = slot * _HB
    if hb[base + _HB_N] != 2 or (hb[base + _HB_FLAGS] & _F_ACTED) or \
            hands.has_ace(hb, base, 2) or hands.hard_total(hb, base, 2) != r.burn:
        return "only two cards making a hard %d can be burned (V8)" % r.burn
    if not commit:
        return None
    hand_under(e, slot)
    hb[base + _HB_N] = 0
    _pend(e, _PEND_BURN, slot, 2)
    return None


# In event order: EV_BUY, EV_TWIST, EV_STICK, EV_SPLIT, EV_DOUBLE, EV_BURN.
_ACTIONS = (buy, twist, stick, split, double, burn)


def _pend(e, kind, slot, count):
    e.pend = kind
    e.pend_slot = slot
    e.pend_left = count
    after_accept(e)


def _waiting(e):
    ph = e.phase
    if ph == _PH_IDLE:
        if e.want_shuffle:
            return "the pack must be shuffled"
        return "the next deal has not begun"
    if ph == _PH_STAKES or ph == _PH_BETS:
        return "seat %d must stake" % e.porder[e.pos]
    if ph == _PH_DEAL1 or ph == _PH_DEAL2:
        return "the deal is going round"
    if ph == _PH_BANKER:
        return "it is the dealer's turn" if e.casino else "it is the banker's turn"
    return "waiting"


# ----------------------------------------------------------------- cards and turns
def play_card(e, code):
    """The card an action called for (to the second hand of a split once the first has one)."""
    if e.pend == _PEND_SPLIT and e.pend_left == 1:
        slot = e.pend_slot2
    else:
        slot = e.pend_slot
    e._add_card(slot, code)
    e.pend_left -= 1
    if e.pend_left > 0:
        after_accept(e)
        return
    e.pend = _PEND_NONE
    settle_automatic_then_advance(e)


def settle_automatic_then_advance(e):
    # P2, P7, P8: hands with no choice left end by themselves; then the next hand.
    if e.cur < e.norder and not _auto_end(e, e.order[e.cur]):
        after_accept(e)
        return
    advance(e)


def _auto_end(e, slot):
    """End the hand if it has no choice left; True when it ended."""
    hb = e.hb
    hw = e.hw
    base = slot * _HB
    n = hb[base + _HB_N]
    total = hands.value(hb, base, n) & 63
    if total > 21:
        # P8: shown, the banker takes the current stake at once, cards under the pack.
        hb[base + _HB_FLAGS] |= _F_BUST | _F_DONE
        seat = hb[base + _HB_SEAT]
        if e.casino:
            pay(e, seat, _HOUSE, hw[slot * _HW + _HW_STAKE], slot)
        else:
            pay(e, seat, e.banker, hw[slot * _HW + _HW_STAKE] * single(e, 1), slot)
        if hw[slot * _HW + _HW_SHOOT]:
            e.outstanding_shoot -= hw[slot * _HW + _HW_SHOOT]
            kitty_move(e, seat, hw[slot * _HW + _HW_SHOOT], slot)  # X6
        hand_under(e, slot)
        return True
    if n == 2 and hands.pontoon_grade(hb, base, 2, e.rules.pontoon_order) >= 0:
        e.pontoon_dealt = 1
        hb[base + _HB_FLAGS] |= _F_DONE
        return True
    if total == 21 or n >= _MAX_CARDS:
        hb[base + _HB_FLAGS] |= _F_DONE
        return True
    return False


def advance(e):
    """Move to the next hand that still has choices (P1), or to the banker."""
    e.cur += 1
    while e.cur < e.norder:
        if not _auto_end(e, e.order[e.cur]):
            after_accept(e)
            return
        e.cur += 1
    banker_turn(e)
