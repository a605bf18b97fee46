# The engine's shoe (R2, N1, N3) and the cut for the first banker (B1): where every
# physical card copy is, as layers. A card taken must come from the top layer; a card
# going under the pack joins the layer being formed. Functions of the Engine `e`.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from cards import card_name, cut_rank

# Mirrors of engine.py's layout (a const is inlined only in its own module;
# host_tests/test_engine_layout.py checks they agree).
_R_PHASE = const(0)
_R_CASINO = const(1)
_R_SEATS = const(2)
_R_PACKS = const(3)
_R_COPIES = const(4)
_R_BANKER = const(6)
_R_NEED_KITTY = const(9)
_R_WANT_SHUFFLE = const(10)
_R_POS = const(21)
_R_TOP_LAYER = const(30)
_R_TOP_COUNT = const(31)
_R_NEXT_LAYER = const(32)
_R_DEAL_LAYER_BASE = const(33)
_R_IN_SHOE = const(34)
_HB = const(8)
_HB_N = const(5)
_SB = const(4)
_SB_CUT = const(2)
_SB_CUT_IN = const(3)
_PH_IDLE = const(2)
_LOC_TABLE = const(255)
_LOC_DISCARD = const(254)
_LAYER_LIMIT = const(240)


def take(e, code):
    """Move one copy of `code` from the top of the shoe to the table, or say why not."""
    v = e.v
    loc = e.loc
    top = v[_R_TOP_LAYER]
    idx = code
    while idx < v[_R_COPIES]:
        if loc[idx] == top and v[_R_TOP_COUNT] > 0:
            loc[idx] = _LOC_TABLE
            v[_R_TOP_COUNT] -= 1
            v[_R_IN_SHOE] -= 1
            if v[_R_TOP_COUNT] == 0:
                find_top(e)
            return None
        idx += 52
    # Why not: say what the shoe knows about this card (R2).
    under = 0
    discard = 0
    idx = code
    while idx < v[_R_COPIES]:
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
    if v[_R_PACKS] == 1:
        return "%s is already on the table (R2)" % name
    return "every %s of the %d packs is already on the table (R2)" % (name, v[_R_PACKS])


def find_top(e):
    v = e.v
    loc = e.loc
    best = 256
    count = 0
    for i in range(v[_R_COPIES]):
        where = loc[i]
        if where < best:
            best = where
            count = 1
        elif where == best:
            count += 1
    if best >= _LOC_DISCARD:
        v[_R_TOP_LAYER] = 0
        v[_R_TOP_COUNT] = 0
    else:
        v[_R_TOP_LAYER] = best
        v[_R_TOP_COUNT] = count


def under(e, code):
    """A card on the table goes under the pack, into the layer being formed."""
    v = e.v
    loc = e.loc
    idx = code
    while idx < v[_R_COPIES]:
        if loc[idx] == _LOC_TABLE:
            layer = _LOC_DISCARD if v[_R_CASINO] else v[_R_NEXT_LAYER]
            loc[idx] = layer
            if layer != _LOC_DISCARD:
                v[_R_IN_SHOE] += 1
                if v[_R_TOP_COUNT] == 0:
                    v[_R_TOP_LAYER] = layer
                    v[_R_TOP_COUNT] = 1
                elif layer == v[_R_TOP_LAYER]:
                    v[_R_TOP_COUNT] += 1
            return
        idx += 52


def close_layer(e):
    v = e.v
    v[_R_NEXT_LAYER] += 1
    if v[_R_NEXT_LAYER] >= _LAYER_LIMIT:
        # Renumber so layers stay within a byte; order is kept.
        loc = e.loc
        base = v[_R_TOP_LAYER]
        for i in range(v[_R_COPIES]):
            where = loc[i]
            if where < _LOC_DISCARD:
                loc[i] = where - base
        v[_R_NEXT_LAYER] -= base
        v[_R_DEAL_LAYER_BASE] -= base
        if v[_R_DEAL_LAYER_BASE] < 0:
            v[_R_DEAL_LAYER_BASE] = 0
        v[_R_TOP_LAYER] = 0


def hand_under(e, slot):
    """A hand's cards go under the pack as one layer."""
    hb = e.hb
    base = slot * _HB
    for i in range(hb[base + _HB_N]):
        under(e, hb[base + i])
    close_layer(e)


def runs_out(e):
    v = e.v
    # N3 ruling: only cards that went under during this deal are left (or none).
    return v[_R_TOP_COUNT] == 0 or v[_R_TOP_LAYER] >= v[_R_DEAL_LAYER_BASE]


def cards_back(e):
    """Every card on the table goes under the pack, and a shuffle is due."""
    v = e.v
    loc = e.loc
    for i in range(v[_R_COPIES]):
        if loc[i] == _LOC_TABLE:
            loc[i] = v[_R_NEXT_LAYER]
            v[_R_IN_SHOE] += 1
    find_top(e)
    close_layer(e)
    v[_R_WANT_SHUFFLE] = True


def shuffle(e):
    v = e.v
    if not v[_R_WANT_SHUFFLE]:
        return "nothing asked for a shuffle now (N1)"
    if e.in_deal():
        return "no shuffle during a deal"
    loc = e.loc
    for i in range(v[_R_COPIES]):
        if loc[i] != _LOC_TABLE:
            loc[i] = 0
    v[_R_NEXT_LAYER] = 1
    v[_R_TOP_LAYER] = 0
    v[_R_IN_SHOE] = 0
    for i in range(v[_R_COPIES]):
        if loc[i] == 0:
            v[_R_IN_SHOE] += 1
    v[_R_TOP_COUNT] = v[_R_IN_SHOE]
    v[_R_WANT_SHUFFLE] = False
    return None


# ----------------------------------------------------------------- the cut (B1)
def start_cut_round(e, everyone):
    v = e.v
    sb = e.sb
    first = 0
    for s in range(1, v[_R_SEATS] + 1):
        if everyone:
            sb[s * _SB + _SB_CUT_IN] = 1
        if sb[s * _SB + _SB_CUT_IN] and not first:
            first = s
    v[_R_POS] = first


def cut_card(e, code):
    v = e.v
    sb = e.sb
    why = take(e, code)
    if why:
        return why
    s = v[_R_POS]
    sb[s * _SB + _SB_CUT] = code
    for t in range(s + 1, v[_R_SEATS] + 1):
        if sb[t * _SB + _SB_CUT_IN]:
            v[_R_POS] = t
            return None
    best = 0
    for t in range(1, v[_R_SEATS] + 1):
        if sb[t * _SB + _SB_CUT_IN] and cut_rank(sb[t * _SB + _SB_CUT]) > best:
            best = cut_rank(sb[t * _SB + _SB_CUT])
    tied = 0
    for t in range(1, v[_R_SEATS] + 1):
        if sb[t * _SB + _SB_CUT_IN] and cut_rank(sb[t * _SB + _SB_CUT]) == best:
            tied += 1
            winner = t
        else:
            sb[t * _SB + _SB_CUT_IN] = 0
    if tied > 1:
        start_cut_round(e, False)
        if v[_R_TOP_COUNT] == 0:
            # Not enough cards left for a re-cut: everything back, shuffle, cut again.
            cards_back(e)
            start_cut_round(e, False)
        return None
    v[_R_BANKER] = winner
    v[_R_PHASE] = _PH_IDLE
    cards_back(e)
    if e.rules.shoot:
        v[_R_NEED_KITTY] = 1
    return None
