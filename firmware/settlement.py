# The engine's money (R1), the banker's turn (K), settlement (S) and the end of a deal
# (N1-N3, T1): functions of the Engine `e`.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


import hands
from shoe_layers import cards_back, close_layer, runs_out, under

# Mirrors of engine.py's layout (a const is inlined only in its own module;
# host_tests/test_engine_layout.py checks they agree).
_R_PHASE = const(0)
_R_CASINO = const(1)
_R_SEATS = const(2)
_R_COPIES = const(4)
_R_BANKER = const(6)
_R_KITTY = const(7)
_R_DEAL_KITTY = const(8)
_R_NEED_KITTY = const(9)
_R_WANT_SHUFFLE = const(10)
_R_COUNTED = const(12)
_R_DEALS_ENDED = const(13)
_R_LAST_VOID = const(14)
_R_LAST_COUNTED = const(15)
_R_PONTOON_DEALT = const(16)
_R_BANKER_PONTOON = const(17)
_R_DOUBLED = const(18)
_R_OUTSTANDING_SHOOT = const(20)
_R_PEND = const(23)
_R_NORDER = const(27)
_R_NSLOTS = const(28)
_R_IN_SHOE = const(34)
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


# ----------------------------------------------------------------- money (R1)
def pay(e, payer, payee, amount, slot):
    """Move `amount` from seat payer to seat payee for hand `slot` (R1)."""
    sw = e.sw
    sw[payer * _SW + _SW_BALANCE] -= amount
    sw[payee * _SW + _SW_BALANCE] += amount
    sw[payer * _SW + _SW_NET] -= amount
    sw[payee * _SW + _SW_NET] += amount
    if slot > 0:
        e.hw[slot * _HW + _HW_NET] += amount if payee == e.hb[slot * _HB + _HB_SEAT] else -amount


def kitty_move(e, seat, amount, slot):
    """Positive: seat pays the kitty; negative: the kitty pays seat (X6, X7)."""
    v = e.v
    sw = e.sw
    sw[seat * _SW + _SW_BALANCE] -= amount
    v[_R_KITTY] += amount
    sw[seat * _SW + _SW_NET] -= amount
    v[_R_DEAL_KITTY] += amount
    if slot > 0:
        e.hw[slot * _HW + _HW_NET] -= amount


def single(e, mult):
    # V3 ruling: a single payment becomes double; doubles and trebles stay.
    if e.v[_R_DOUBLED] and mult < 2:
        return 2
    return mult


def win_mult(e, kind):
    if e.v[_R_CASINO]:
        # S4: Pontoon and five-card trick 2:1, other winners 1:1.
        return 2 if kind == hands.KIND_PONTOON or kind == hands.KIND_FIVE_CARD_TRICK else 1
    if kind == hands.KIND_PONTOON:
        return single(e, e.rules.pontoon_pays)  # V4
    if kind == hands.KIND_ROYAL_PONTOON:
        return 3  # V6
    if kind == hands.KIND_FIVE_CARD_TRICK:
        return 2
    return single(e, 1)


def shoot_settle(e, slot, won):
    amount = e.hw[slot * _HW + _HW_SHOOT]
    if amount:
        e.v[_R_OUTSTANDING_SHOOT] -= amount
        kitty_move(e, e.hb[slot * _HB + _HB_SEAT], -amount if won else amount, slot)  # X7


def move_bank(e, seat):
    v = e.v
    if v[_R_KITTY]:
        # X8: the old banker takes back what is left in the kitty.
        e.sw[v[_R_BANKER] * _SW + _SW_BALANCE] += v[_R_KITTY]
        v[_R_KITTY] = 0
    v[_R_BANKER] = seat
    if e.rules.shoot:
        v[_R_NEED_KITTY] = 1


# ----------------------------------------------------------------- banker (K)
def banker_turn(e):
    v = e.v
    hb = e.hb
    order = e.order
    for i in range(v[_R_NORDER]):
        if not hb[order[i] * _HB + _HB_FLAGS] & _F_BUST:
            break
    else:
        end_deal(e)  # K2: nothing left to settle
        return
    v[_R_PHASE] = _PH_BANKER
    if v[_R_CASINO] and dealer_stands(e):
        settle(e)
        return
    after_accept(e)


def dealer_stands(e):
    # K1 casino: draw to soft 17 inclusive, stand on hard 17 or more; five cards stop.
    hb = e.hb
    value = hands.value(hb, 0, hb[_HB_N])
    total = value & 63
    if hb[_HB_N] >= _MAX_CARDS or total > 21:
        return True
    if total > 17:
        return True
    if total == 17:
        return value < hands.SOFT
    return False


def banker_card(e, code):
    e._add_card(0, code)
    if e.v[_R_CASINO]:
        if dealer_stands(e):
            settle(e)
        else:
            after_accept(e)
        return
    if e.hand_total(0) > 21 or e.hb[_HB_N] >= _MAX_CARDS:
        settle(e)
        return
    after_accept(e)


def stand(e):
    v = e.v
    if v[_R_CASINO]:
        return "the dealer stands by itself in the casino game (K1)"
    if v[_R_PHASE] != _PH_BANKER:
        return "the banker stands only in his own turn, after every player (K1)"
    settle(e)
    return None


# ----------------------------------------------------------------- settlement (D4, S)
def banker_pontoon_at_deal(e):
    v = e.v
    hb = e.hb
    hw = e.hw
    r = e.rules
    # D4 (X3, V4, V7 ruling): the banker's Pontoon collects at once; nobody acts.
    v[_R_PONTOON_DEALT] = True
    v[_R_BANKER_PONTOON] = True
    order = r.pontoon_order
    bgrade = hands.pontoon_grade(hb, 0, 2, order)
    if v[_R_CASINO]:
        mult = 1
    elif r.banker_pontoon_collects_single:
        mult = single(e, 1)
    else:
        mult = single(e, r.pontoon_pays)
    for i in range(v[_R_NORDER]):
        slot = e.order[i]
        seat = hb[slot * _HB + _HB_SEAT]
        grade = hands.pontoon_grade(hb, slot * _HB, 2, order)
        if not v[_R_CASINO] and grade > bgrade:
            pay(e, v[_R_BANKER], seat,
                hw[slot * _HW + _HW_STAKE] * win_mult(e, hands.KIND_PONTOON), slot)
            shoot_settle(e, slot, True)
        else:
            pay(e, seat, v[_R_BANKER], hw[slot * _HW + _HW_STAKE] * mult, slot)
            shoot_settle(e, slot, False)
    hb[_HB_FLAGS] |= _F_DONE
    end_deal(e)


def settle(e):
    v = e.v
    hb = e.hb
    # S1-S4 against the banker's final hand; only standing hands take part (K2).
    order = e.rules.pontoon_order
    royal = e.rules.royal_pontoon
    bn = hb[_HB_N]
    bbust = e.hand_total(0) > 21
    bfive = not bbust and bn >= _MAX_CARDS
    bstrength = hands.strength(hb, 0, bn, order, False)
    banker = v[_R_BANKER]
    for i in range(v[_R_NORDER]):
        slot = e.order[i]
        base = slot * _HB
        if hb[base + _HB_FLAGS] & _F_BUST:
            continue
        seat = hb[base + _HB_SEAT]
        kind = hands.kind(hb, base, hb[base + _HB_N], order, royal)
        st = hands.strength(hb, base, hb[base + _HB_N], order, royal)
        stake = e.hw[slot * _HW + _HW_STAKE]
        if bbust:
            won = True
        elif bfive:
            won = st >= hands.STRENGTH_PONTOON  # S3: only Pontoons are paid
        else:
            won = st > bstrength  # S2, H7: ties to the banker
        if won:
            pay(e, banker, seat, stake * win_mult(e, kind), slot)
        else:
            if v[_R_CASINO]:
                mult = 1  # S4: every loss single
            elif bfive:
                mult = 2  # S3
            else:
                mult = single(e, 1)
            pay(e, seat, banker, stake * mult, slot)
        shoot_settle(e, slot, won)
    hb[_HB_FLAGS] |= _F_DONE
    end_deal(e)


# ----------------------------------------------------------------- between deals (N, T1)
def end_deal(e):
    v = e.v
    hb = e.hb
    for slot in range(v[_R_NSLOTS]):
        base = slot * _HB
        if not hb[base + _HB_FLAGS] & _F_BUST:
            for i in range(hb[base + _HB_N]):
                under(e, hb[base + i])
    close_layer(e)
    v[_R_PHASE] = _PH_IDLE
    v[_R_DEALS_ENDED] += 1
    v[_R_LAST_VOID] = False
    v[_R_LAST_COUNTED] = True
    old_banker = v[_R_BANKER]
    r = e.rules
    if v[_R_CASINO]:
        # N1 ruling: shuffle when less than a quarter of the shoe is left.
        if v[_R_IN_SHOE] * 4 < v[_R_COPIES]:
            v[_R_WANT_SHUFFLE] = True
    else:
        if v[_R_PONTOON_DEALT]:
            v[_R_WANT_SHUFFLE] = True  # N1
        if not v[_R_BANKER_PONTOON]:
            # N2: the unsplit Pontoon nearest the banker's left takes the bank.
            for i in range(v[_R_NORDER]):
                base = e.order[i] * _HB
                if hb[base + _HB_FLAGS] & _F_SPLIT or hb[base + _HB_N] != 2:
                    continue
                if hands.pontoon_grade(hb, base, 2, r.pontoon_order) >= 0:
                    move_bank(e, hb[base + _HB_SEAT])
                    break
        if r.shoot and v[_R_KITTY] == 0 and v[_R_BANKER] == old_banker:
            v[_R_NEED_KITTY] = 1  # X8: an empty kitty is put up again
    if r.preset == _P_TABLE:
        v[_R_COUNTED] += 1
        if v[_R_COUNTED] >= 8:
            v[_R_PHASE] = _PH_OVER  # T1


def void(e):
    v = e.v
    sw = e.sw
    # N3: every payment of the deal is reverted; not counted; shuffle.
    for s in range(v[_R_SEATS] + 1):
        sw[s * _SW + _SW_BALANCE] -= sw[s * _SW + _SW_NET]
        sw[s * _SW + _SW_NET] = 0
    v[_R_KITTY] -= v[_R_DEAL_KITTY]
    v[_R_DEAL_KITTY] = 0
    for slot in range(v[_R_NSLOTS]):
        e.hw[slot * _HW + _HW_NET] = 0
    cards_back(e)
    v[_R_PHASE] = _PH_IDLE
    v[_R_PEND] = _PEND_NONE
    v[_R_DEALS_ENDED] += 1
    v[_R_LAST_VOID] = True
    v[_R_LAST_COUNTED] = False


def after_accept(e):
    # N3 ruling: a deal that needs a card the shoe no longer holds is void at once.
    if e.card_due() and e.in_deal() and runs_out(e):
        void(e)
