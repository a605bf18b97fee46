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
# host_tests/engine/test_engine_layout.py checks they agree).
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


def find_top(e):
    loc = e.loc
    best = 256
    count = 0
    for i in range(e.copies):
        where = loc[i]
        if where < best:
            best = where
            count = 1
        elif where == best:
            count += 1
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
    loc = e.loc
    for i in range(e.copies):
        if loc[i] == _LOC_TABLE:
            loc[i] = e.next_layer
            e.in_shoe += 1
    find_top(e)
    close_layer(e)
    e.want_shuffle = 1


def shuffle(e):
    if not e.want_shuffle:
        return "nothing asked for a shuffle now (N1)"
    if e.in_deal():
        return "no shuffle during a deal"
    loc = e.loc
    for i in range(e.copies):
        if loc[i] != _LOC_TABLE:
            loc[i] = 0
    e.next_layer = 1
    e.top_layer = 0
    e.in_shoe = 0
    for i in range(e.copies):
        if loc[i] == 0:
            e.in_shoe += 1
    e.top_count = e.in_shoe
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
    best = 0
    for t in range(1, e.seats + 1):
        if sb[t * _SB + _SB_CUT_IN] and cut_rank(sb[t * _SB + _SB_CUT]) > best:
            best = cut_rank(sb[t * _SB + _SB_CUT])
    tied = 0
    for t in range(1, e.seats + 1):
        if sb[t * _SB + _SB_CUT_IN] and cut_rank(sb[t * _SB + _SB_CUT]) == best:
            tied += 1
            winner = t
        else:
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
