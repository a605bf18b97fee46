# What each display shows, as text lines (max 8 lines x 21 characters, the 5x7 font),
# computed from the engine's state and the controller's UI state. Pure: no I/O.
#
# Hidden information (D1, D3, P4, K1): a seat display shows only its own seat's cards; the
# banker's cards reach a display only from the banker's turn on (PH_BANKER or later, or
# once the deal has ended); the banker display never shows a player's cards.
from micropython import const


from game import engine as E
from game import hands
from game.cards import card_name

_COLS = const(21)

class UI:
    """The controller's state the views need besides the engine; `mode` is the top of the
    controls' stack (controls.py): an amount entry, the menu, a sale, a card by hand, each
    saying its own lines (prompt, line, seat_lines, banker_line, next_card_line)."""
    # set on an instance only when used: an instance's attributes are a dict on the heap
    seal = ""                     # the kept session's seal (seal.py)
    note = ""                     # a weak shuffle's verdict, for the pass (shuffle_check.py)

    def __init__(self):
        self.mode = None
        self.msg = ""             # last message (a refusal, an anomaly)
        self.msg_seat = 0         # seat display that shows msg too (0: banker display only)
        self.fatal = ""           # settings error / crash: every display shows it
        self.over = False         # the table session is over (T1)
        self.history = ""         # where the finished session was kept
        self.phones = False       # no seat displays: the phones are (banker display shows
        self.codes = None         # amounts); the seats' phone codes; the pages' address
        self.address = ""
        self.report = None        # the power-on check's lines (banker display), or None


def wrap(text, out, first, last):
    """Word-wrap text into out[first..last]; returns the next free line (out None: only
    counts). One string made a line, none to count."""
    i = first
    a = 0
    n = len(text)
    while a < n and i <= last:
        if n - a <= _COLS:
            b = n
        else:
            b = text.rfind(" ", a, a + _COLS + 1)
            if b <= a:
                b = a + _COLS
        if out is not None:
            out[i] = text if b - a == n else text[a:b]
        a = b
        while a < n and text.startswith(" ", a):
            a += 1
        i += 1
    return i


def message(text, out, keep7):
    """A refusal or an anomaly, whole, at the foot of a display: as many lines as it needs
    above line 7 and below the heading (keep7: a one-line message leaves line 7 alone)."""
    n = wrap(text, None, 0, 7)
    wrap(text, out, 6 if keep7 and n == 1 else (8 - n if n < 7 else 1), 7)


def signed(n):
    return "+%d" % n if n > 0 else "%d" % n


def right(left, tail):
    """left, then tail flush right on a 21-character line (one string made)."""
    w = _COLS - len(left)
    if w <= len(tail):
        w = len(tail) + 1
    return "%s%*s" % (left, w, tail)


def total_text(e, slot, short):
    n = e.ncards(slot)
    if n == 0:
        return ""
    kind = e.hand_kind(slot)
    total = e.hand_total(slot)
    if kind == hands.KIND_BUST:
        return "BUST" if not short else "B%d" % total
    if kind == hands.KIND_PONTOON:
        return "PONTOON" if not short else "PON"
    if kind == hands.KIND_ROYAL_PONTOON:
        return "ROYAL" if not short else "RP"
    if kind == hands.KIND_FIVE_CARD_TRICK:
        return "5-card %d" % total if not short else "5C%d" % total
    if e.hand_soft(slot):
        return "soft %d" % total if not short else "s%d" % total
    return "%d" % total


def hand_line(e, slot):
    """'AS 7C 2H  soft 20': the cards, then the total (soft totals as such). The total
    follows the cards rather than sitting flush right, so that a new card changes only a
    few character cells and the display sends only those columns."""
    n = e.ncards(slot)
    cards = card_name(e.card(slot, 0)) if n else ""
    for i in range(1, n):                # (no list and join: a hand is a card or two)
        cards += " " + card_name(e.card(slot, i))
    tail = total_text(e, slot, False)
    if len(cards) + 2 + len(tail) > _COLS:
        tail = total_text(e, slot, True)
        if len(cards) + 2 + len(tail) > _COLS:
            return right(cards, tail)
    return cards + "  " + tail


def banker_name(e):
    """Who takes the stakes: casino's house dealer, else the banker (one word everywhere)."""
    return "Dealer" if e.casino else "Banker"


def banker_visible(e):
    """The banker's cards may be seen: his turn (K1) or later, or the deal has ended."""
    ph = e.phase
    return ph == E.PH_BANKER or ph == E.PH_OVER or ph == E.PH_IDLE


def deal_banker(e):
    """The banker of the deal on the table (the last one between deals: N2 may have moved
    the bank for the next deal already)."""
    return e.hand_seat(0) if e.deals else e.banker


def deal_number(e):
    return e.deals if e.in_deal() else e.deals + 1


def acting_seat(e):
    """The seat whose turn it is to press buttons (0: the banker/dealer or nobody)."""
    ph = e.phase
    if ph == E.PH_STAKES or ph == E.PH_BETS:
        return e.next_stake_seat()
    if ph == E.PH_IDLE and e.casino and not e.want_shuffle:
        return 1
    slot = e.current_slot()
    if slot >= 0 and e.pend == E.PEND_NONE:
        return e.hand_seat(slot)
    return 0


def prompt(e, ui):
    """The table's prompt of the moment (banker display line 6 and the serial line)."""
    if ui.fatal:
        return "Stopped: see message"
    p = ui.mode.prompt()
    if p:
        return p
    ph = e.phase
    if ph == E.PH_OVER:
        return "Session over"
    if ph == E.PH_CUT:
        return "Cut: card to seat %d" % e.card_seat()
    if ph == E.PH_IDLE:
        if e.want_shuffle:
            return "Shuffle, then OK"
        if e.need_kitty:
            return "Banker: put up kitty"
        if e.casino:
            return "Seat 1 to bet"
        first = e.banker % e.seats + 1
        return "Deal to seat %d" % first
    if ph == E.PH_STAKES or ph == E.PH_BETS:
        return "Seat %d to stake" % e.next_stake_seat()
    if ph == E.PH_BANKER:
        if e.casino:
            return "Dealer draws"
        return "Banker: draw or STICK"
    if e.card_due():
        t = e.card_seat()
        if t == 0:
            return "Deal to banker" if not e.casino else "Deal to dealer"
        return "Deal to seat %d" % t
    return "Seat %d to play" % acting_seat(e)


def actions(e, seat):
    """Legal actions of `seat` now (engine.check): words, and the buy range text."""
    words = []
    buy = ""
    if e.check(E.EV_STICK, seat) is None:
        words.append("STICK")
    if e.check(E.EV_TWIST, seat) is None:
        words.append("TWIST")
    if e.casino:
        if e.check(E.EV_DOUBLE, seat) is None:
            words.append("DOUBLE")
    else:
        slot = e.current_slot()
        lo = e.initial_stake(seat)
        hi = e.buy_max(seat, slot)
        if e.check(E.EV_BUY, seat, lo) is None:
            words.append("BUY")
            buy = "buy %d-%d" % (lo, hi)
    if e.check(E.EV_SPLIT, seat) is None:
        words.append("SPLIT")
    if e.rules.burn and e.check(E.EV_BURN, seat) is None:
        words.append("burn")
    return words, buy


def card_wanted(e):
    """The engine takes a card now (one not already on the table, R2): the cut, a deal's
    first card, the card rounds, a twist/buy/split/burn's card, the banker's draws."""
    ph = e.phase
    if ph == E.PH_CUT:
        return True
    if e.want_shuffle:
        return False
    if ph == E.PH_IDLE:
        return not e.casino and not e.need_kitty
    if ph == E.PH_PLAY:
        return e.card_due()
    return ph == E.PH_DEAL1 or ph == E.PH_DEAL2 or ph == E.PH_BANKER


def amount_line(name, lo, hi, value):
    """An amount entry's line: what, its range, then the value between - and + flush right."""
    head = "%s %d-%d" % (name, lo, hi)
    tail = "- %d + OK" % value
    if len(head) + 1 + len(tail) > _COLS:
        head = name                     # a wide range: the amount matters more
    return right(head, tail)


def _blank(out):
    for i in range(len(out)):
        out[i] = ""


def fatal_view(ui, out):
    out[0] = "** TABLE STOPPED **"
    n = wrap(ui.fatal, out, 1, 6)
    if n <= 6:
        out[6] = "Journal is safe."
    out[7] = "Fix, then reset" if not ui.fatal.startswith("settings") else "OK: use defaults"


def seat_view(e, ui, seat, out):
    """Lines of seat `seat`'s display into out (8 strings); returns the highlighted line."""
    m = ui.mode
    _blank(out)
    if ui.fatal:
        fatal_view(ui, out)
        return 0
    banker = not e.casino and seat == deal_banker(e) and e.phase != E.PH_CUT
    label = " BANKER" if not e.casino and seat == e.banker and e.phase != E.PH_CUT else ""
    out[0] = right("Seat %d%s" % (seat, label), signed(e.balance(seat)))
    hl = -1
    ph = e.phase
    if ph == E.PH_CUT:
        out[6] = "Cut for the bank"
        if e.card_seat() == seat:
            out[7] = m.next_card_line(ui)
        return hl
    bust = False                         # a hand of this seat's is bust
    if banker:
        if e.deals and e.ncards(0):
            if banker_visible(e):
                out[1] = hand_line(e, 0)
            else:
                out[1] = "%d card%s, face down" % (e.ncards(0), "s" if e.ncards(0) > 1 else "")
    elif e.deals:
        line = 1
        cur = e.current_slot()
        stakes = ""
        for i in range(e.norder):
            slot = e.slot_at(i)
            if e.hand_seat(slot) != seat:
                continue
            if e.hand_flags(slot) & E.F_BUST:
                bust = True
            if line <= 4:
                out[line] = hand_line(e, slot)
                if slot == cur:
                    hl = line
                line += 1
            n = e.hand_stake(slot)
            if n:                            # none before this hand has staked
                stakes += " %d" % n
            n = e.hand_shoot(slot)
            if n:
                stakes += "+s%d" % n
        if stakes:
            out[5] = ("Stake" if line <= 2 else "Stakes") + stakes
    # the prompt and what to do
    if ph == E.PH_OVER:
        out[6] = "Final %s" % signed(e.balance(seat))
        out[7] = "WINNER" if seat in e.winners() else ""
        return hl
    if ph == E.PH_IDLE and e.deals_ended:
        if e.last_void:
            out[6] = "Deal void: no pay"
        else:
            net = e.deal_net(seat)
            if banker:
                out[6] = "Bank net %s" % signed(net)
            elif net > 0:
                out[6] = "%s pays you %d" % (banker_name(e), net)
            elif net < 0:
                out[6] = "Pay %s %d" % (banker_name(e).lower(), -net)
            else:
                out[6] = "Even"
    elif bust and e.in_deal():
        out[6] = "Bust: pay %s %d" % (banker_name(e).lower(), -e.deal_net(seat))
    acting = acting_seat(e)
    if m.seat_lines(e, ui, seat, out):
        pass
    elif acting == seat and ph == E.PH_PLAY:
        words, buy = actions(e, seat)
        out[6] = "Your turn"
        text = " ".join(words)
        if buy:
            text += " " + buy[4:]
        if len(text) > _COLS:
            text = " ".join([w[:3] for w in words]) + (" " + buy[4:] if buy else "")
        out[7] = text
    elif ph == E.PH_PLAY and e.card_due() and e.card_seat() == seat:
        out[6] = "Your turn"            # a card is coming (kept: fewer pages to send)
    elif banker and ph == E.PH_BANKER and not e.casino:
        out[6] = "Your turn: draw"
        out[7] = "or STICK to stand"
    if ui.msg and ui.msg_seat == seat:
        message(ui.msg, out, m.line_stays)          # (a card by hand: its entry stays)
    return hl


def banker_view(e, ui, out):
    """The banker's (dealer's) display: prompt, his hand when it may be seen, summary."""
    m = ui.mode
    _blank(out)
    if ui.fatal:
        fatal_view(ui, out)
        return 0
    ph = e.phase
    table = e.rules.preset == 0
    if e.casino:
        head = "DEALER"
    elif ph == E.PH_CUT:
        head = "CUT FOR BANK"
    else:
        head = "BANK seat %d" % e.banker
    if table:
        out[0] = right(head, "deal %d/8" % min(8, e.counted + (1 if ph != E.PH_OVER else 0)))
    else:
        out[0] = right(head, "deal %d" % deal_number(e))
    if ph == E.PH_OVER:
        out[1] = "Session over"
        win = "".join(" %d" % s for s in e.winners())
        wrap("Winner%s:%s" % ("s" if len(win) > 2 else "", win), out, 2, 3)
        _tokens(e, out, 4, 5, True, True)
        out[6] = "OK: new session"
        out[7] = ("%s seal %s" % (ui.history[-8:-4], ui.seal) if ui.history
                  else "seal " + ui.seal)
        return -1
    if e.deals and e.ncards(0) and ph != E.PH_CUT:
        if banker_visible(e):
            out[1] = hand_line(e, 0)
        else:
            out[1] = "%d card%s, face down" % (e.ncards(0), "s" if e.ncards(0) > 1 else "")
    if e.rules.shoot:
        out[2] = "Kitty %d" % e.kitty
    if ph == E.PH_IDLE and e.deals_ended:
        if e.last_void:
            out[3] = "Deal void: no pay"
        else:
            _tokens(e, out, 3, 5, False, False)
    elif e.in_deal():
        _tokens(e, out, 3, 5, False, True)
    out[6] = prompt(e, ui)
    if e.casino and ph == E.PH_IDLE and not e.want_shuffle and e.initial_stake(1):
        out[2] = "STICK: same bets"     # the online game's "new round, same bets"
    m.banker_line(ui, out)
    if ui.note and not out[7]:
        out[7] = ui.note
    if ui.msg:
        message(ui.msg, out, m.line_stays)
    return 6


BUST_KEY = "x: bust, stake lost"


def _tokens(e, out, first, last, balances, stakes):
    """Per player seat: 'S1 4' stakes during a deal, 'S1 +4' nets after it, or balances."""
    line = ""
    i = first
    dealer = deal_banker(e)
    busts = 0
    if stakes and not balances:
        # each seat's stake and whether a hand of it is bust, in one walk of the hands
        # (not a walk a seat); a bust adds 1 << 24
        st = [0] * (e.seats + 1)
        for k in range(e.norder):
            slot = e.slot_at(k)
            s = e.hand_seat(slot)
            st[s] += e.hand_stake(slot)
            if e.hand_flags(slot) & E.F_BUST:
                st[s] |= 1 << 24
    for s in range(1, e.seats + 1):
        if not e.casino and s == dealer and not balances:
            continue
        if balances:
            n = e.balance(s)             # (one format a token, not signed() and a second)
            tok = ("S%d +%d" if n > 0 else "S%d %d") % (s, n)
        elif stakes:
            n = st[s]
            if n >> 24:
                tok = "S%d:%dx" % (s, n & 0xFFFFFF)
                busts += 1
            else:
                tok = "S%d:%d" % (s, n)
        else:
            n = e.deal_net(s)
            tok = ("S%d +%d" if n > 0 else "S%d %d") % (s, n)
        if len(line) + 1 + len(tok) > _COLS:
            if i > last:
                return
            out[i] = line
            i += 1
            line = tok
        else:
            line = (line + "  " + tok) if line else tok
            if len(line) > _COLS:
                line = line.replace("  ", " ")
    if line and i <= last:
        out[i] = line
    if busts:                            # say what the x means, below the stakes or above
        if i + 1 <= last:
            out[i + 1] = BUST_KEY
        elif not out[first - 1]:
            out[first - 1] = BUST_KEY
        elif not out[7]:                 # the action line, until an entry needs it
            out[7] = BUST_KEY
