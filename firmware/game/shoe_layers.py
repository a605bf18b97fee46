# The engine's shoe (R2, N1, N3) and the cut for the first banker (B1): where every
# physical card copy is, as layers. A card taken must come from the top layer; a card
# going under the pack joins the layer being formed. Functions of the Engine `e`.
from micropython import const


import sys

from .cards import card_name, cut_rank

if sys.implementation.name != "micropython":  # CPython: the viper functions run as Python
    from .native_shim import micropython, ptr8, uint  # noqa: F401

# Mirrors of engine.py's layout (a const is inlined only in its own module;
# host_tests/engine/test_engine_layout.py checks they agree).
_HB = const(8)
_HB_N = const(5)
_SB = const(3)
_SB_CUT = const(1)
_SB_CUT_IN = const(2)
_PH_IDLE = const(2)
_LOC_TABLE = const(255)
_LOC_DISCARD = const(254)
_LAYER_LIMIT = const(240)


# The two loops over every copy, as machine code on a Pico (viper): the end of a deal, the
# shuffle and the cut each ran one or two of them in Python, milliseconds of the event.
@micropython.viper
def _relayer(loc: ptr8, n: int, lo: int, hi: int, to: int) -> int:
    """Every copy whose place is lo..hi goes to `to`; returns how many went."""
    moved = 0
    span = uint(hi - lo)
    for i in range(n):
        if uint(loc[i] - lo) <= span:    # lo <= place <= hi in one comparison
            loc[i] = to
            moved += 1
    return moved


@micropython.viper
def _lowest(loc: ptr8, n: int) -> int:
    """The lowest place of any copy | how many copies are there << 8."""
    best = 256
    count = 0
    for i in range(n):
        where = loc[i]
        if where < best:
            best = where
            count = 1
        elif where == best:
            count += 1
    return best | count << 8


@micropython.native
def take(e, code):
    """Move one copy of `code` from the top of the shoe to the table, or say why not."""
    loc = e.loc
    top = e.top_layer
    idx = code
    while idx < e.copies:
        if loc[idx] == top and e.top_count > 0:
            loc[idx] = _LOC_TABLE
            e.top_count -= 1
            e.in_shoe -= 1
            if e.top_count == 0:
                find_top(e)
            return None
        idx += 52
    # Why not: say what the shoe knows about this card (R2).
    under = 0
    discard = 0
    idx = code
    while idx < e.copies:
        where = loc[idx]
        if where == _LOC_DISCARD:
            discard += 1
        elif where != _LOC_TABLE:
            under += 1
        idx += 52
    name = card_name(code)
    if under:
        return "%s went under the pack and cannot come out before the cards above it (R2)" % name
    if discard:
        return "%s is in the discard tray until the next shuffle (R2)" % name
    if e.packs == 1:
        return "%s is already on the table (R2)" % name
    return "every %s of the %d packs is already on the table (R2)" % (name, e.packs)


@micropython.native
def find_top(e):
    low = _lowest(e.loc, e.copies)
    best = low & 0xFF
    count = low >> 8
    if best >= _LOC_DISCARD:
        e.top_layer = 0
        e.top_count = 0
    else:
        e.top_layer = best
        e.top_count = count


def under(e, code):
    """A card on the table goes under the pack, into the layer being formed."""
    loc = e.loc
    idx = code
    while idx < e.copies:
        if loc[idx] == _LOC_TABLE:
            layer = _LOC_DISCARD if e.casino else e.next_layer
            loc[idx] = layer
            if layer != _LOC_DISCARD:
                e.in_shoe += 1
                if e.top_count == 0:
                    e.top_layer = layer
                    e.top_count = 1
                elif layer == e.top_layer:
                    e.top_count += 1
            return
        idx += 52


@micropython.native
def table_under(e):
    """Every card left on the table goes under the pack, into the layer being formed (the
    discard tray in the casino game): the end of a deal, each card as under() takes it."""
    layer = _LOC_DISCARD if e.casino else e.next_layer
    count = _relayer(e.loc, e.copies, _LOC_TABLE, _LOC_TABLE, layer)
    if not count or layer == _LOC_DISCARD:
        return
    e.in_shoe += count
    if e.top_count == 0:
        e.top_layer = layer
        e.top_count = count
    elif layer == e.top_layer:
        e.top_count += count


@micropython.native
def close_layer(e):
    e.next_layer += 1
    if e.next_layer >= _LAYER_LIMIT:
        # Renumber so layers stay within a byte; order is kept.
        loc = e.loc
        base = e.top_layer
        for i in range(e.copies):
            where = loc[i]
            if where < _LOC_DISCARD:
                loc[i] = where - base
        e.next_layer -= base
        e.deal_layer_base -= base
        if e.deal_layer_base < 0:
            e.deal_layer_base = 0
        e.top_layer = 0


def hand_under(e, slot):
    """A hand's cards go under the pack as one layer."""
    hb = e.hb
    base = slot * _HB
    for i in range(hb[base + _HB_N]):
        under(e, hb[base + i])
    close_layer(e)


def runs_out(e):
    # N3 ruling: only cards that went under during this deal are left (or none).
    return e.top_count == 0 or e.top_layer >= e.deal_layer_base


def cards_back(e):
    """Every card on the table goes under the pack, and a shuffle is due."""
    e.in_shoe += _relayer(e.loc, e.copies, _LOC_TABLE, _LOC_TABLE, e.next_layer)
    find_top(e)
    close_layer(e)
    e.want_shuffle = 1


def shuffle(e):
    if not e.want_shuffle:
        return "nothing asked for a shuffle now (N1)"
    if e.in_deal():
        return "no shuffle during a deal"
    # every copy off the table (in a layer or the discard tray) into one layer 0
    e.in_shoe = e.top_count = _relayer(e.loc, e.copies, 0, _LOC_DISCARD, 0)
    e.next_layer = 1
    e.top_layer = 0
    e.want_shuffle = 0
    return None


# ----------------------------------------------------------------- the cut (B1)
def start_cut_round(e, everyone):
    sb = e.sb
    first = 0
    for s in range(1, e.seats + 1):
        if everyone:
            sb[s * _SB + _SB_CUT_IN] = 1
        if sb[s * _SB + _SB_CUT_IN] and not first:
            first = s
    e.pos = first


def cut_card(e, code):
    sb = e.sb
    why = take(e, code)
    if why:
        return why
    s = e.pos
    sb[s * _SB + _SB_CUT] = code
    for t in range(s + 1, e.seats + 1):
        if sb[t * _SB + _SB_CUT_IN]:
            e.pos = t
            return None
    # the highest cut, how many share it and the last of them: each card ranked once
    best = tied = winner = 0
    for t in range(1, e.seats + 1):
        if sb[t * _SB + _SB_CUT_IN]:
            rank = cut_rank(sb[t * _SB + _SB_CUT])
            if rank > best:
                best = rank
                tied = 0
            if rank == best:
                tied += 1
                winner = t
    # only the tied cut again (a lone highest is the banker)
    for t in range(1, e.seats + 1):
        if t != winner and sb[t * _SB + _SB_CUT_IN] and (
                tied == 1 or cut_rank(sb[t * _SB + _SB_CUT]) != best):
            sb[t * _SB + _SB_CUT_IN] = 0
    if tied > 1:
        start_cut_round(e, False)
        if e.top_count == 0:
            # Not enough cards left for a re-cut: everything back, shuffle, cut again.
            cards_back(e)
            start_cut_round(e, False)
        return None
    e.banker = winner
    e.phase = _PH_IDLE
    cards_back(e)
    if e.rules.shoot:
        e.need_kitty = 1
    return None
