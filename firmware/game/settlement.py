# The engine's money (R1), the banker's turn (K), settlement (S) and the end of a deal
# (N1-N3, T1): functions of the Engine `e`. The deal's end runs in one event, so its
# functions are machine code on a Pico (viper reads the engine's buffers as machine bytes
# and words; native elsewhere), so that Engine.apply keeps within its budget
# (docs/DEVELOPING.md).
from micropython import const


import sys

from . import hands
from .shoe_layers import cards_back, close_layer, runs_out, table_under

if sys.implementation.name != "micropython":  # CPython: no machine code
    from .native_shim import micropython, ptr8, ptr16, ptr32  # noqa: F401

# Mirrors of engine.py's layout (a const is inlined only in its own module;
# host_tests/engine/test_engine_layout.py checks they agree).
_HB = const(8)
_HB_N = const(5)
_HB_SEAT = const(6)
_HB_FLAGS = const(7)
_HW = const(4)
_HW_STAKE = const(0)
_HW_SHOOT = const(2)
_HW_NET = const(3)
_SW = const(3)
_SW_BALANCE = const(0)
_SW_NET = const(1)
_PH_IDLE = const(2)
_PH_BANKER = const(8)
_PH_OVER = const(9)
_PEND_NONE = const(0)
_F_BUST = const(2)
_F_DONE = const(4)
_F_SPLIT = const(32)
_MAX_CARDS = const(5)
_P_TABLE = const(0)
# hands.py's strengths (checked by the same test)
_STRENGTH_FIVE_CARD_TRICK = const(30)
_STRENGTH_PONTOON = const(40)
_STRENGTH_ROYAL = const(50)


# ----------------------------------------------------------------- money (R1)
@micropython.viper
def pay(e, payer: int, payee: int, amount: int, slot: int):
    """Move `amount` from seat payer to seat payee for hand `slot` (R1)."""
    sw = ptr32(e.sw)                     # array("i"): machine words
    sw[payer * _SW + _SW_BALANCE] -= amount
    sw[payee * _SW + _SW_BALANCE] += amount
    sw[payer * _SW + _SW_NET] -= amount
    sw[payee * _SW + _SW_NET] += amount
    if slot > 0:
        k = slot * _HW + _HW_NET
        hw = ptr16(e.hw)                 # array("h"): viper reads its halfwords unsigned
        net = int(hw[k])
        if net >= 0x8000:
            net -= 0x10000
        if payee == int(ptr8(e.hb)[slot * _HB + _HB_SEAT]):
            hw[k] = net + amount
        else:
            hw[k] = net - amount


def kitty_move(e, seat, amount, slot):
    """Positive: seat pays the kitty; negative: the kitty pays seat (X6, X7)."""
    sw = e.sw
    sw[seat * _SW + _SW_BALANCE] -= amount
    e.kitty += amount
    sw[seat * _SW + _SW_NET] -= amount
    e.deal_kitty += amount
    if slot > 0:
        e.hw[slot * _HW + _HW_NET] -= amount


@micropython.native
def single(e, mult):
    # V3 ruling: a single payment becomes double; doubles and trebles stay.
    if e.doubled and mult < 2:
        return 2
    return mult


@micropython.native
def win_mult(e, st):
    """What a winning hand of strength `st` (hands.strength) is paid, times its stake."""
    pontoon = _STRENGTH_PONTOON <= st < _STRENGTH_ROYAL
    if e.casino:
        # S4: Pontoon and five-card trick 2:1, other winners 1:1.
        return 2 if pontoon or st == _STRENGTH_FIVE_CARD_TRICK else 1
    if pontoon:
        return single(e, e.rules.pontoon_pays)  # V4
    if st == _STRENGTH_ROYAL:
        return 3  # V6
    if st == _STRENGTH_FIVE_CARD_TRICK:
        return 2
    return single(e, 1)


def shoot_settle(e, slot, won):
    amount = e.hw[slot * _HW + _HW_SHOOT]
    if amount:
        e.outstanding_shoot -= amount
        kitty_move(e, e.hb[slot * _HB + _HB_SEAT], -amount if won else amount, slot)  # X7


@micropython.native
def move_bank(e, seat):
    if e.kitty:
        # X8: the old banker takes back what is left in the kitty.
        e.sw[e.banker * _SW + _SW_BALANCE] += e.kitty
        e.kitty = 0
    e.banker = seat
    if e.rules.shoot:
        e.need_kitty = 1


# ----------------------------------------------------------------- banker (K)
def banker_turn(e):
    hb = e.hb
    order = e.order
    for i in range(e.norder):
        if not hb[order[i] * _HB + _HB_FLAGS] & _F_BUST:
            break
    else:
        end_deal(e)  # K2: nothing left to settle
        return
    e.phase = _PH_BANKER
    if e.casino and dealer_stands(e):
        settle(e)
        return
    after_accept(e)


def dealer_stands(e):
    # K1 casino (seed 003's own words): a 17 holding an ace is soft (T-6-A too) and draws,
    # any other 17 or more stands; five cards stop.
    hb = e.hb
    n = hb[_HB_N]
    total = hands.value(hb, 0, n) & 63
    if n >= _MAX_CARDS or total > 17:
        return True
    if total == 17:
        return not hands.has_ace(hb, 0, n)
    return False


@micropython.native
def banker_card(e, code):
    e._add_card(0, code)
    if e.casino:
        if dealer_stands(e):
            settle(e)
        else:
            after_accept(e)
        return
    if e.hand_total(0) > 21 or e.hb[_HB_N] >= _MAX_CARDS:
        settle(e)
        return
    after_accept(e)


@micropython.native
def stand(e):
    if e.casino:
        return "the dealer stands by itself in the casino game (K1)"
    if e.phase != _PH_BANKER:
        return "the banker stands only in his own turn, after every player (K1)"
    settle(e)
    return None


# ----------------------------------------------------------------- settlement (D4, S)
@micropython.viper
def banker_pontoon_at_deal(e):
    hbo = e.hb
    hb = ptr8(hbo)
    hw = ptr16(e.hw)                     # stakes are never negative
    r = e.rules
    # D4 (X3, V4, V7 ruling): the banker's Pontoon collects at once; nobody acts.
    e.pontoon_dealt = 1
    e.banker_pontoon = 1
    ranking = r.pontoon_order
    bgrade = int(hands.pontoon_grade(hbo, 0, 2, ranking))
    casino = int(e.casino)
    if casino:
        mult = 1
    elif r.banker_pontoon_collects_single:
        mult = int(single(e, 1))
    else:
        mult = int(single(e, r.pontoon_pays))
    better = int(win_mult(e, _STRENGTH_PONTOON))  # a better Pontoon than the banker's
    banker = int(e.banker)
    order = ptr8(e.order)
    for i in range(int(e.norder)):
        slot = order[i]
        seat = hb[slot * _HB + _HB_SEAT]
        grade = int(hands.pontoon_grade(hbo, slot * _HB, 2, ranking))
        if not casino and grade > bgrade:
            pay(e, banker, seat, hw[slot * _HW + _HW_STAKE] * better, slot)
            won = 1
        else:
            pay(e, seat, banker, hw[slot * _HW + _HW_STAKE] * mult, slot)
            won = 0
        if hw[slot * _HW + _HW_SHOOT]:
            shoot_settle(e, slot, won)
    hb[_HB_FLAGS] |= _F_DONE
    end_deal(e)


@micropython.viper
def settle(e):
    hbo = e.hb
    hb = ptr8(hbo)
    hw = ptr16(e.hw)                     # stakes and shoots are never negative
    # S1-S4 against the banker's final hand; only standing hands take part (K2). A hand's
    # strength says its kind too (a bust 0, a five-card trick, a Pontoon, a royal one).
    ranking = e.rules.pontoon_order
    royal = e.rules.royal_pontoon
    bstrength = int(hands.strength(hbo, 0, hb[_HB_N], ranking, False))
    bbust = bstrength == 0
    bfive = bstrength == _STRENGTH_FIVE_CARD_TRICK
    banker = int(e.banker)
    if e.casino:
        lose = 1  # S4: every loss single
    elif bfive:
        lose = 2  # S3
    else:
        lose = int(single(e, 1))
    ordinary = int(win_mult(e, 21))  # what most winners are paid, asked once
    order = ptr8(e.order)
    strength = hands.strength
    transfer = pay
    for i in range(int(e.norder)):
        slot = order[i]
        base = slot * _HB
        if hb[base + _HB_FLAGS] & _F_BUST:
            continue
        seat = hb[base + _HB_SEAT]
        st = int(strength(hbo, base, hb[base + _HB_N], ranking, royal))
        stake = hw[slot * _HW + _HW_STAKE]
        if bbust:
            won = 1
        elif bfive:
            won = 1 if st >= _STRENGTH_PONTOON else 0  # S3: only Pontoons are paid
        else:
            won = 1 if st > bstrength else 0  # S2, H7: ties to the banker
        if won:
            mult = ordinary if st < _STRENGTH_FIVE_CARD_TRICK else int(win_mult(e, st))
            transfer(e, banker, seat, stake * mult, slot)
        else:
            transfer(e, seat, banker, stake * lose, slot)
        if hw[slot * _HW + _HW_SHOOT]:
            shoot_settle(e, slot, won)
    hb[_HB_FLAGS] |= _F_DONE
    end_deal(e)


# ----------------------------------------------------------------- between deals (N, T1)
@micropython.viper
def end_deal(e):
    table_under(e)  # every hand still on the table (a bust one went under at once)
    close_layer(e)
    e.phase = _PH_IDLE
    e.deals_ended = int(e.deals_ended) + 1
    e.last_void = 0
    e.last_counted = 1
    old_banker = int(e.banker)
    r = e.rules
    if e.casino:
        # N1 ruling: shuffle when less than a quarter of the shoe is left.
        if int(e.in_shoe) * 4 < int(e.copies):
            e.want_shuffle = 1
    elif e.pontoon_dealt:
        e.want_shuffle = 1  # N1
        if not e.banker_pontoon:
            # N2: the unsplit Pontoon nearest the banker's left takes the bank (a deal
            # without a Pontoon dealt has none to look for)
            hbo = e.hb
            hb = ptr8(hbo)
            order = ptr8(e.order)
            ranking = r.pontoon_order
            for i in range(int(e.norder)):
                base = order[i] * _HB
                if hb[base + _HB_FLAGS] & _F_SPLIT or hb[base + _HB_N] != 2:
                    continue
                if int(hands.pontoon_grade(hbo, base, 2, ranking)) >= 0:
                    move_bank(e, hb[base + _HB_SEAT])
                    break
    if not e.casino and r.shoot and not e.kitty and int(e.banker) == old_banker:
        e.need_kitty = 1  # X8: an empty kitty is put up again
    if int(r.preset) == _P_TABLE:
        counted = int(e.counted) + 1
        e.counted = counted
        if counted >= 8:
            e.phase = _PH_OVER  # T1


def void(e):
    sw = e.sw
    # N3: every payment of the deal is reverted; not counted; shuffle.
    for s in range(e.seats + 1):
        sw[s * _SW + _SW_BALANCE] -= sw[s * _SW + _SW_NET]
        sw[s * _SW + _SW_NET] = 0
    e.kitty -= e.deal_kitty
    e.deal_kitty = 0
    for slot in range(e.nslots):
        e.hw[slot * _HW + _HW_NET] = 0
    cards_back(e)
    e.phase = _PH_IDLE
    e.pend = _PEND_NONE
    e.deals_ended += 1
    e.last_void = 1
    e.last_counted = 0


def after_accept(e):
    # N3 ruling: a deal that needs a card the shoe no longer holds is void at once.
    if e.card_due() and e.in_deal() and runs_out(e):
        void(e)
