# The engine's optional bank rules: banker doubling (V3), the kitty and shoot bets (X1-X8),
# the sale of the bank (N4). Functions of the Engine `e`.
from micropython import const


from .settlement import move_bank

# Mirrors of engine.py's layout (a const is inlined only in its own module;
# host_tests/engine/test_engine_layout.py checks they agree).
_HB = const(8)
_HB_N = const(5)
_HB_SEAT = const(6)
_HB_FLAGS = const(7)
_HW = const(4)
_HW_SHOOT = const(2)
_SW = const(3)
_SW_BALANCE = const(0)
_PH_DEAL2 = const(6)
_PEND_NONE = const(0)
_F_ACTED = const(8)
_F_SHOT4 = const(64)
_F_X5_CHANCE = const(128)
_MAX_SHOOT = const(10000)
_P_CLASSIC = const(1)


def bankdouble(e):
    if not e.rules.banker_doubling:
        return "banker doubling is not played: rules option banker_doubling is off (V3)"
    if e.phase != _PH_DEAL2 or e.pos != 0:
        return "the banker may double only after the initial stakes, before the second card (V3)"
    if e.doubled:
        return "the banker has already doubled this deal (V3)"
    e.doubled = 1
    return None


def kitty(e, amount):
    r = e.rules
    if not r.shoot:
        return "there is no kitty: rules option shoot is off (X1)"
    if e.in_deal():
        return "the kitty can be put up or added to only between deals (X8)"
    if amount < 1:
        return "a kitty amount must be at least 1 (X1)"
    if e.kitty == 0:
        if amount < r.kitty_min or amount > r.kitty_max:
            return "the kitty must be %d to %d units (X1)" % (r.kitty_min, r.kitty_max)
    elif amount > e.kitty_room():
        return "the kitty may not grow beyond %d units (X8)" % r.kitty_max
    e.sw[e.banker * _SW + _SW_BALANCE] -= amount
    e.kitty += amount
    e.need_kitty = 0
    return None


def sell(e, seat, price):
    if e.rules.preset != _P_CLASSIC:
        return "the bank can be sold only in the classic game (N4, T3)"
    if e.in_deal():
        return "the bank can be sold only between deals (N4)"
    if not 1 <= seat <= e.seats:
        return "there is no seat %d" % seat
    if seat == e.banker:
        return "seat %d already holds the bank (N4)" % seat
    if price < 0:
        return "the price cannot be negative (N4)"
    e.sw[seat * _SW + _SW_BALANCE] -= price
    e.sw[e.banker * _SW + _SW_BALANCE] += price
    move_bank(e, seat)
    return None


def shoot(e, seat, amount):
    if not e.rules.shoot:
        return "shoot bets are not played: rules option shoot is off (X2)"
    if amount < 1:
        return "a shoot bet must be at least 1 unit (X2)"
    if e.phase == _PH_DEAL2 and e.pos == 0:
        return _shoot_before_second_card(e, seat, amount)
    hb = e.hb
    hw = e.hw
    slot = e.current_slot()
    if slot < 0 or e.pend != _PEND_NONE:
        return "no shoot bet is possible now (X2, X4)"
    if hb[slot * _HB + _HB_SEAT] != seat:
        return "it is seat %d's turn, not seat %d's (P1)" % (hb[slot * _HB + _HB_SEAT], seat)
    n = hb[slot * _HB + _HB_N]
    f = hb[slot * _HB + _HB_FLAGS]
    ok = False
    if n == 3 and not (f & _F_SHOT4) and e.hand_total(slot) < 21:
        ok = True  # X4
    elif n == 2 and (f & _F_X5_CHANCE) and not (f & _F_ACTED) and hw[slot * _HW + _HW_SHOOT] == 0:
        ok = True  # X5: split off while the seat had a shoot bet standing
    if not ok:
        return "a shoot bet is allowed only before the fourth card on a three-card hand (X4, X5)"
    if amount > e.shoot_room():
        return "the shoot bets would exceed the kitty of %d (X4)" % e.kitty
    if hw[slot * _HW + _HW_SHOOT] + amount > _MAX_SHOOT:
        return "one hand's shoot bets may total at most %d units (X4)" % _MAX_SHOOT
    if n == 3:
        hb[slot * _HB + _HB_FLAGS] = f | _F_SHOT4
    hw[slot * _HW + _HW_SHOOT] += amount
    e.outstanding_shoot += amount
    return None


def _shoot_before_second_card(e, seat, amount):
    # X2: in play order, before the second card round.
    p = -1
    for i in range(e.nplayers):
        if e.porder[i] == seat:
            p = i
            break
    if p < 0:
        return "seat %d is not a player this deal (X2)" % seat
    if p < e.shoot_pos:
        return "shoot bets go in play order: seat %d has passed (X2)" % seat
    if amount > e.shoot_room():
        return "the shoot bets would exceed the kitty of %d (X2)" % e.kitty
    if amount > _MAX_SHOOT:
        return "one hand's shoot bets may total at most %d units (X2)" % _MAX_SHOOT
    e.hw[(p + 1) * _HW + _HW_SHOOT] += amount
    e.outstanding_shoot += amount
    e.shoot_pos = p + 1
    return None
