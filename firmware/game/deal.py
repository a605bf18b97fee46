# The engine's deal (D1-D4): where a card event goes, the start of a deal, the card
# rounds and the stakes. Functions of the Engine `e`; a deal's start (every hand cleared)
# is viper code on a Pico.
from micropython import const


import sys

from . import hands
from .actions import play_card, settle_automatic_then_advance
from .settlement import after_accept, banker_card, banker_pontoon_at_deal
from .shoe_layers import cut_card, take

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
_SW = const(3)
_SW_NET = const(1)
_SW_INITIAL = const(2)
_SB = const(3)
_SB_HANDS = const(0)
_PH_CUT = const(1)
_PH_IDLE = const(2)
_PH_BETS = const(3)
_PH_DEAL1 = const(4)
_PH_STAKES = const(5)
_PH_DEAL2 = const(6)
_PH_PLAY = const(7)
_PH_BANKER = const(8)
_PEND_NONE = const(0)


@micropython.native
def card(e, code):
    """A card event in any phase: the card goes where the game wants it, or why not."""
    ph = e.phase
    if ph == _PH_CUT:
        return cut_card(e, code)
    if e.want_shuffle:
        return "shuffle and cut the pack first (N1/N3)"
    if ph == _PH_IDLE:
        if e.casino:
            return "place the bets first: seat 1 bets before any card (D2)"
        if e.need_kitty:
            return "the banker must put up a kitty of %d to %d first (X1/X8)" % (
                e.rules.kitty_min, e.rules.kitty_max)
        why = take(e, code)
        if why:
            return why
        begin_deal(e)
        e.phase = _PH_DEAL1
        deal_card(e, code)
        return None
    if ph == _PH_DEAL1 or ph == _PH_DEAL2:
        why = take(e, code)
        if why:
            return why
        deal_card(e, code)
        return None
    if ph == _PH_PLAY:
        if e.pend == _PEND_NONE:
            return "no card is due: seat %d must act first (stick, twist%s)" % (
                e.hb[e.order[e.cur] * _HB + _HB_SEAT],
                ", double" if e.casino else ", buy")
        why = take(e, code)
        if why:
            return why
        play_card(e, code)
        return None
    if ph == _PH_BANKER:
        why = take(e, code)
        if why:
            return why
        banker_card(e, code)
        return None
    if ph == _PH_STAKES:
        return "no card is due: seat %d must stake first (D2)" % e.porder[e.pos]
    if ph == _PH_BETS:
        return "no card is due: seat %d must bet first (D2)" % e.porder[e.pos]
    return "no card is due now"


@micropython.viper
def begin_deal(e):
    hb = ptr8(e.hb)
    sw = ptr32(e.sw)
    sb = ptr8(e.sb)
    porder = ptr8(e.porder)
    e.deals = int(e.deals) + 1
    e.deal_layer_base = e.next_layer
    e.nslots = 0
    e.norder = 0
    e.doubled = 0
    e.pontoon_dealt = 0
    e.banker_pontoon = 0
    e.shoot_pos = 0
    e.outstanding_shoot = 0
    e.deal_kitty = 0
    e.pend = _PEND_NONE
    e.cur = 0
    # B2: play order starts at the banker's left and ends with the banker.
    seats = int(e.seats)
    banker = int(e.banker)
    n = 0
    if e.casino:
        for s in range(1, seats + 1):
            porder[n] = s
            n += 1
    else:
        s = banker
        for _ in range(seats - 1):
            s = s + 1 if s < seats else 1
            porder[n] = s
            n += 1
    e.nplayers = n
    for s in range(seats + 1):
        sw[s * _SW + _SW_NET] = 0
        sw[s * _SW + _SW_INITIAL] = 0
        sb[s * _SB + _SB_HANDS] = 0
    # every hand of the deal cleared as Engine._clear_slot does, in one pass each buffer
    hw = ptr16(e.hw)
    for i in range((n + 1) * _HW):
        hw[i] = 0                        # stake, last buy, shoot, net
    order = ptr8(e.order)
    for slot in range(n + 1):
        base = slot * _HB
        hb[base + _HB_N] = 0
        hb[base + _HB_FLAGS] = 0
        if slot:
            hb[base + _HB_SEAT] = porder[slot - 1]
            order[slot - 1] = slot
            sb[porder[slot - 1] * _SB + _SB_HANDS] = 1
    hb[_HB_SEAT] = banker
    e.nslots = n + 1
    e.norder = n
    e.pos = 0


def deal_card(e, code):
    e._add_card(e._deal_slot(e.pos), code)
    e.pos += 1
    if e.pos <= e.nplayers:
        after_accept(e)
        return
    e.pos = 0
    if e.phase == _PH_DEAL1:
        e.phase = _PH_DEAL2 if e.casino else _PH_STAKES
        after_accept(e)
        return
    # D3 done: D4 banker's Pontoon, else the players' turns.
    hb = e.hb
    order = e.rules.pontoon_order
    if hands.pontoon_grade(hb, 0, 2, order) >= 0:
        banker_pontoon_at_deal(e)
        return
    for i in range(e.nplayers):
        if hands.pontoon_grade(hb, (i + 1) * _HB, 2, order) >= 0:
            e.pontoon_dealt = 1
    e.phase = _PH_PLAY
    e.cur = 0
    settle_automatic_then_advance(e)


# ----------------------------------------------------------------- stakes (D2)
def stake(e, seat, amount):
    ph = e.phase
    if e.casino and ph == _PH_IDLE:
        if e.want_shuffle:
            return "shuffle the shoe first: less than a quarter is left (N1)"
        if seat != 1:
            return "bets go in seat order: seat 1 bets first (D2)"
        why = _stake_range(e, amount)
        if why:
            return why
        begin_deal(e)
        e.phase = _PH_BETS
        return _stake_accept(e, seat, amount)
    if ph == _PH_BETS or ph == _PH_STAKES:
        want = e.porder[e.pos]
        if seat != want:
            return "it is seat %d's turn to stake, not seat %d's (D2)" % (want, seat)
        why = _stake_range(e, amount)
        if why:
            return why
        return _stake_accept(e, seat, amount)
    if ph == _PH_IDLE:
        return "stakes come after the first card of a deal (D1, D2)"
    return "no stake is due now (D2)"


def _stake_range(e, amount):
    lo = e.rules.stake_min
    hi = e.rules.stake_max
    if amount < lo or amount > hi:
        return "a stake must be %d to %d units (D2)" % (lo, hi)
    return None


def _stake_accept(e, seat, amount):
    e.sw[seat * _SW + _SW_INITIAL] = amount
    e.hw[(e.pos + 1) * _HW + _HW_STAKE] = amount
    e.pos += 1
    if e.pos >= e.nplayers:
        e.pos = 0
        e.phase = _PH_DEAL1 if e.phase == _PH_BETS else _PH_DEAL2
    after_accept(e)
    return None
