# Valuing hands (C2, C3) and ranking them (H1-H7, V6, V7) straight from a byte buffer:
# nothing here allocates, so it may run under micropython.heap_lock(). value, pontoon_grade
# and strength are machine code on a Pico (viper): they run for every hand at every card,
# display and settlement.
from micropython import const


import sys

if sys.implementation.name != "micropython":  # CPython: the viper functions run as Python
    from .native_shim import micropython, ptr8  # noqa: F401

SOFT = const(64)  # added to a total when an ace counts 11

KIND_BUST = const(0)
KIND_ORDINARY = const(1)
KIND_TWENTY_ONE = const(2)
KIND_FIVE_CARD_TRICK = const(3)
KIND_PONTOON = const(4)
KIND_ROYAL_PONTOON = const(5)
KIND_NAMES = ("bust", "ordinary", "twenty-one", "five-card-trick", "pontoon", "royal-pontoon")

# Strengths compared by plain integers: ordinary totals 1..21 below these.
_STRENGTH_FIVE_CARD_TRICK = const(30)
STRENGTH_PONTOON = const(40)  # + grade under V7
_STRENGTH_ROYAL = const(50)

_ORDER_PICTURE = const(1)
_ORDER_NATURAL = const(2)
_ORDER_ACE_TEN_ORDINARY = const(3)


@micropython.viper
def value(buf: ptr8, start: int, n: int) -> int:
    """C3: best total not over 21 (else the lowest), plus SOFT when an ace counts 11."""
    hard = 0
    ace = 0
    for i in range(start, start + n):
        r = buf[i] >> 2
        if r == 0:
            ace = 1
            hard += 1
        elif r >= 9:
            hard += 10
        else:
            hard += r + 1
    if ace and hard <= 11:
        return hard + 10 + SOFT
    return hard


def hard_total(buf, start, n):
    """Every ace counted 1 (V5, V8)."""
    hard = 0
    for i in range(start, start + n):
        r = buf[i] >> 2
        hard += 10 if r >= 9 else r + 1
    return hard


def has_ace(buf, start, n):
    for i in range(start, start + n):
        if buf[i] < 4:
            return True
    return False


@micropython.viper
def pontoon_grade(buf: ptr8, start: int, n: int, order: int) -> int:
    """-1 when the cards are not a Pontoon (H1, V7); else 0, or 1 for the better kind."""
    if n != 2:
        return -1
    a = buf[start] >> 2
    b = buf[start + 1] >> 2
    if a == 0:
        other = b
    elif b == 0:
        other = a
    else:
        return -1
    if other < 9:
        return -1
    if order == _ORDER_ACE_TEN_ORDINARY:
        return -1 if other == 9 else 0
    if order == _ORDER_PICTURE:
        return 0 if other == 9 else 1
    if order == _ORDER_NATURAL:
        return 1 if other >= 11 else 0
    return 0


def is_royal(buf, start, n):
    # V6: three sevens (rank index 6).
    return n == 3 and buf[start] >> 2 == 6 and buf[start + 1] >> 2 == 6 and buf[start + 2] >> 2 == 6


def kind(buf, start, n, order, royal):
    """H1-H5 kind of a hand; `royal` is true only for a player's hand under V6."""
    total = value(buf, start, n) & 63
    if total > 21:
        return KIND_BUST
    if pontoon_grade(buf, start, n, order) >= 0:
        return KIND_PONTOON
    if royal and is_royal(buf, start, n):
        return KIND_ROYAL_PONTOON
    if n >= 5:
        return KIND_FIVE_CARD_TRICK
    if total == 21:
        return KIND_TWENTY_ONE
    return KIND_ORDINARY


@micropython.viper
def strength(buf, start: int, n: int, order: int, royal: int) -> int:
    """One integer per hand so that H6/H7 and V6/V7 become `>`: 0 for a bust."""
    v = int(value(buf, start, n))
    total = v & 63
    if total > 21:
        return 0
    if n == 2 and v == 21 + SOFT:        # an ace and a ten-card: the Pontoons (H1, V7)
        grade = int(pontoon_grade(buf, start, n, order))
        if grade >= 0:
            return STRENGTH_PONTOON + grade
    if royal and n == 3 and is_royal(buf, start, n):
        return _STRENGTH_ROYAL
    if n >= 5:
        return _STRENGTH_FIVE_CARD_TRICK
    return total
