# The Pontoon engine: a pure state machine fed one event at a time (docs/TRANSCRIPT.md).
# No I/O, no clock, no hardware. `apply` answers None (accepted) or a reason (rejected,
# state unchanged). Hands live in preallocated byte buffers, one byte per card; an
# accepted card allocates nothing. Rule IDs: docs/RULES.md, rulings to docs/RULINGS.md.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from array import array

import hands
from cards import card_name, cut_rank, point
from rules import seats_error

# Event kinds (the words of TRANSCRIPT.md).
EV_CARD = const(1)
EV_STAKE = const(2)
EV_BUY = const(3)
EV_TWIST = const(4)
EV_STICK = const(5)
EV_SPLIT = const(6)
EV_DOUBLE = const(7)
EV_BURN = const(8)
EV_SHOOT = const(9)
EV_KITTY = const(10)
EV_BANKDOUBLE = const(11)
EV_SELL = const(12)
EV_STAND = const(13)
EV_SHUFFLE = const(14)
EV_VOID = const(15)
EVENT_WORDS = (
    "", "card", "stake", "buy", "twist", "stick", "split", "double", "burn", "shoot",
    "kitty", "bankdouble", "sell", "stand", "shuffle", "void",
)

# Phases.
PH_CUT = const(1)  # B1: cutting for the first banker
PH_IDLE = const(2)  # between deals
PH_BETS = const(3)  # casino: bets before any card
PH_DEAL1 = const(4)  # D1: first card round
PH_STAKES = const(5)  # D2: initial stakes
PH_DEAL2 = const(6)  # D3: second card round (shoot bets / bankdouble before its first card)
PH_PLAY = const(7)  # P: players' turns
PH_BANKER = const(8)  # K: banker's / dealer's turn
PH_OVER = const(9)  # T1: the table session is finished

# What a hand is waiting for.
PEND_NONE = const(0)
PEND_ONE = const(1)  # buy, twist, double: one card to the current hand
PEND_SPLIT = const(2)  # one card to the current hand, then one to the new hand
PEND_BURN = const(3)  # two cards to the current hand

# Hand flags.
F_TWISTED = const(1)
F_BUST = const(2)
F_DONE = const(4)
F_ACTED = const(8)  # bought, twisted, doubled or stuck: no split/burn any more
F_DOUBLED = const(16)
F_SPLIT = const(32)  # the seat split this hand (it or its ancestor): no bank move (P9)
F_SHOT4 = const(64)  # X4 shoot placed on this three-card hand

# Shoe locations per physical card copy (C4, R2).
LOC_TABLE = const(255)
LOC_DISCARD = const(254)  # casino discard tray
_LAYER_LIMIT = const(240)

MAX_CARDS = const(5)
MAX_AMOUNT = const(1000000)  # for parsing; the rules cap stakes and the kitty
HOUSE = const(0)
MAX_SHOOT = const(10000)  # the largest kitty: keeps a hand's amounts in 16 bits

_P_TABLE = const(0)
_P_CLASSIC = const(1)
_P_CASINO = const(2)


# State layout. Everything lives in eight preallocated buffers (no per-card or per-hand
# objects), so the whole state of an 8-seat table is under 1 KB and nothing is allocated
# while a deal is played. Scalars are registers in one array, named by these indices.
_R_PHASE = const(0)
_R_CASINO = const(1)
_R_SEATS = const(2)
_R_PACKS = const(3)
_R_COPIES = const(4)
_R_MAX_HANDS = const(5)
_R_BANKER = const(6)
_R_KITTY = const(7)
_R_DEAL_KITTY = const(8)
_R_NEED_KITTY = const(9)
_R_WANT_SHUFFLE = const(10)
_R_DEALS = const(11)
_R_COUNTED = const(12)
_R_DEALS_ENDED = const(13)
_R_LAST_VOID = const(14)
_R_LAST_COUNTED = const(15)
_R_PONTOON_DEALT = const(16)
_R_BANKER_PONTOON = const(17)
_R_DOUBLED = const(18)
_R_SHOOT_POS = const(19)
_R_OUTSTANDING_SHOOT = const(20)
_R_POS = const(21)
_R_CUR = const(22)
_R_PEND = const(23)
_R_PEND_LEFT = const(24)
_R_PEND_SLOT = const(25)
_R_PEND_SLOT2 = const(26)
_R_NORDER = const(27)
_R_NSLOTS = const(28)
_R_NPLAYERS = const(29)
_R_TOP_LAYER = const(30)
_R_TOP_COUNT = const(31)
_R_NEXT_LAYER = const(32)
_R_DEAL_LAYER_BASE = const(33)
_R_IN_SHOE = const(34)
_NREGS = const(35)

# Per hand (slot 0 is the banker's): bytes [card0..card4, count, seat, flags] ...
_HB = const(8)
_HB_N = const(5)
_HB_SEAT = const(6)
_HB_FLAGS = const(7)
# ... and 16-bit words [stake, last buy, shoot bet, net].
_HW = const(4)
_HW_STAKE = const(0)
_HW_LASTBUY = const(1)
_HW_SHOOT = const(2)
_HW_NET = const(3)
# Per seat (index 0: the casino house): 32-bit [balance, deal net, initial stake] ...
_SW = const(3)
_SW_BALANCE = const(0)
_SW_NET = const(1)
_SW_INITIAL = const(2)
# ... and bytes [hands held, has shot, cut card, in this cut round].
_SB = const(4)
_SB_HANDS = const(0)
_SB_SHOT = const(1)
_SB_CUT = const(2)
_SB_CUT_IN = const(3)


_REGISTER_NAMES = (
    "phase",
    "casino",
    "seats",
    "packs",
    "copies",
    "max_hands",
    "banker",
    "kitty",
    "deal_kitty",
    "need_kitty",
    "want_shuffle",
    "deals",
    "counted",
    "deals_ended",
    "last_void",
    "last_counted",
    "pontoon_dealt",
    "banker_pontoon",
    "doubled",
    "shoot_pos",
    "outstanding_shoot",
    "pos",
    "cur",
    "pend",
    "pend_left",
    "pend_slot",
    "pend_slot2",
    "norder",
    "nslots",
    "nplayers",
    "top_layer",
    "top_count",
    "next_layer",
    "deal_layer_base",
    "in_shoe",
)


class Engine:
    def __init__(self, rules, seats, banker=0, packs=0):
        """rules: rules.Rules; seats: participants (casino: player seats); banker 0 = cut."""
        casino = rules.preset == _P_CASINO
        why = seats_error(rules.preset, seats, banker)
        if why:
            raise ValueError(why)
        if packs and not 1 <= packs <= 8:
            raise ValueError("packs must be 1 to 8")
        if not packs:
            packs = 8 if casino else (2 if seats >= 8 else 1)  # C1, C4 ruling
        # Hands: the banker's plus four per player (P3), three in casino.
        maxh = 1 + seats * 3 if casino else 1 + (seats - 1) * 4
        self.rules = rules
        self.v = v = array("i", bytes(4 * _NREGS))
        self.hb = bytearray(maxh * _HB)
        self.hw = array("h", bytes(2 * _HW * maxh))
        self.sw = array("i", bytes(4 * _SW * (seats + 1)))
        self.sb = bytearray(_SB * (seats + 1))
        self.order = bytearray(maxh)  # player slots in play order
        self.porder = bytearray(seats)  # players in play order (B2)
        # Shoe: one byte per physical card copy = its layer, LOC_TABLE or LOC_DISCARD.
        self.loc = bytearray(packs * 52)
        v[_R_CASINO] = casino
        v[_R_SEATS] = seats
        v[_R_PACKS] = packs
        v[_R_COPIES] = packs * 52
        v[_R_MAX_HANDS] = maxh
        v[_R_TOP_COUNT] = packs * 52
        v[_R_IN_SHOE] = packs * 52
        v[_R_NEXT_LAYER] = 1
        v[_R_DEAL_LAYER_BASE] = 1
        if casino:
            v[_R_BANKER] = HOUSE
            v[_R_PHASE] = PH_IDLE
        elif banker:
            v[_R_BANKER] = banker
            v[_R_PHASE] = PH_IDLE
        else:
            v[_R_PHASE] = PH_CUT
            self._start_cut_round(True)
        if rules.shoot and v[_R_BANKER]:
            v[_R_NEED_KITTY] = 1

    def state(self):
        """Every buffer the engine's state lives in (nothing else changes after __init__):
        snapshot.py saves and restores them, so a boot replays only the newest events."""
        return (self.v, self.hb, self.hw, self.sw, self.sb, self.order, self.porder, self.loc)

    def __getattr__(self, name):
        # Read-only views of the registers (engine.phase, engine.kitty, ...): one tuple
        # of names costs less RAM than a property per register.
        for i in range(_NREGS):
            if _REGISTER_NAMES[i] == name:
                return self.v[i]
        raise AttributeError(name)

    # Per hand and per seat fields.
    def ncards(self, slot):
        return self.hb[slot * _HB + _HB_N]

    def card(self, slot, i):
        return self.hb[slot * _HB + i]

    def hand_seat(self, slot):
        return self.hb[slot * _HB + _HB_SEAT]

    def hand_flags(self, slot):
        return self.hb[slot * _HB + _HB_FLAGS]

    def hand_stake(self, slot):
        return self.hw[slot * _HW + _HW_STAKE]

    def buy_max(self, seat, slot):
        """P4: a buy adds from the seat's first stake (initial_stake) up to the hand's
        last buy, or twice the first stake for its first buy."""
        last = self.hw[slot * _HW + _HW_LASTBUY]
        return last if last else 2 * self.sw[seat * _SW + _SW_INITIAL]

    def hand_shoot(self, slot):
        return self.hw[slot * _HW + _HW_SHOOT]

    def hand_net(self, slot):
        return self.hw[slot * _HW + _HW_NET]

    def slot_at(self, i):
        """The i-th player hand in play order."""
        return self.order[i]

    def balance(self, seat):
        return self.sw[seat * _SW + _SW_BALANCE]

    def deal_net(self, seat):
        return self.sw[seat * _SW + _SW_NET]

    def initial_stake(self, seat):
        return self.sw[seat * _SW + _SW_INITIAL]

    def state_bytes(self):
        """Bytes of game state held in the buffers (the budget is 1 KB for 8 seats)."""
        return (len(self.v) * 4 + len(self.hb) + len(self.hw) * 2 + len(self.sw) * 4
                + len(self.sb) + len(self.order) + len(self.porder) + len(self.loc))

    # ----------------------------------------------------------------- queries
    def hand_total(self, slot):
        return hands.value(self.hb, slot * _HB, self.hb[slot * _HB + _HB_N]) & 63

    def hand_soft(self, slot):
        return hands.value(self.hb, slot * _HB, self.hb[slot * _HB + _HB_N]) >= hands.SOFT

    def hand_kind(self, slot):
        return hands.kind(
            self.hb, slot * _HB, self.hb[slot * _HB + _HB_N], self.rules.pontoon_order,
            slot != 0 and self.rules.royal_pontoon,
        )

    def hand_strength(self, slot):
        return hands.strength(
            self.hb, slot * _HB, self.hb[slot * _HB + _HB_N], self.rules.pontoon_order,
            slot != 0 and self.rules.royal_pontoon,
        )

    def current_slot(self):
        """The player hand being played, or -1."""
        v = self.v
        if v[_R_PHASE] == PH_PLAY and v[_R_CUR] < v[_R_NORDER]:
            return self.order[v[_R_CUR]]
        return -1

    def in_deal(self):
        v = self.v
        return PH_BETS <= v[_R_PHASE] <= PH_BANKER

    def finished(self):
        v = self.v
        return v[_R_PHASE] == PH_OVER

    def total_money(self):
        """R1: the sum of every balance and the kitty (always 0)."""
        v = self.v
        s = v[_R_KITTY]
        for i in range(v[_R_SEATS] + 1):
            s += self.sw[i * _SW + _SW_BALANCE]
        return s

    def card_due(self):
        """True when the next event must (or may only) be a card."""
        v = self.v
        ph = v[_R_PHASE]
        if ph == PH_PLAY:
            return v[_R_PEND] != PEND_NONE
        if ph == PH_DEAL1 or ph == PH_DEAL2 or ph == PH_CUT:
            return True
        if ph == PH_BANKER:
            return v[_R_CASINO]  # the casino dealer must draw; a banker chooses to
        return False

    def expected_card_slot(self):
        """Slot (hand) the next card goes to, -1 if none (cut: -2 - seat)."""
        v = self.v
        ph = v[_R_PHASE]
        if ph == PH_CUT:
            return -2 - v[_R_POS]
        if ph == PH_DEAL1 or ph == PH_DEAL2:
            return self._deal_slot(v[_R_POS])
        if ph == PH_PLAY and v[_R_PEND] != PEND_NONE:
            if v[_R_PEND] == PEND_SPLIT and v[_R_PEND_LEFT] == 1:
                return v[_R_PEND_SLOT2]
            return v[_R_PEND_SLOT]
        if ph == PH_BANKER:
            return 0
        return -1

    def card_seat(self):
        """The seat whose hand the next card goes to: the cutting seat in the cut (B1), the
        first player (at the banker's left, B2) for a deal's first card, 0 for the
        banker's hand, -1 when no card is due."""
        slot = self.expected_card_slot()
        if slot <= -2:
            return -2 - slot
        if slot > 0:
            return self.hb[slot * _HB + _HB_SEAT]
        if slot == 0:
            return 0
        v = self.v
        if v[_R_PHASE] == PH_IDLE:
            return v[_R_BANKER] % v[_R_SEATS] + 1
        return -1

    def next_stake_seat(self):
        v = self.v
        if v[_R_PHASE] == PH_STAKES or v[_R_PHASE] == PH_BETS:
            return self.porder[v[_R_POS]]
        return 0

    # ----------------------------------------------------------------- events
    def apply(self, ev, seat=0, amount=0, card=0):
        """Apply one event. None when accepted; else the reason, state unchanged."""
        v = self.v
        if v[_R_PHASE] == PH_OVER:
            return "the session is over: eight deals were played (T1)"
        if ev == EV_CARD and not 0 <= card < 52:
            return "that is not a card"
        if amount < 0 or amount > MAX_AMOUNT:
            return "amounts must be 0 to %d units" % MAX_AMOUNT
        if ev == EV_CARD:
            return self._card(card)
        if ev == EV_SHUFFLE:
            return self._shuffle()
        if ev == EV_VOID:
            if not self.in_deal():
                return "no deal is in progress to void (N3)"
            self._void()
            return None
        if v[_R_PHASE] == PH_CUT:
            return "the cut for the first banker comes first: waiting for a card for seat %d (B1)" % v[_R_POS]
        if ev == EV_STAKE:
            return self._stake(seat, amount)
        if ev == EV_KITTY:
            return self._kitty(amount)
        if ev == EV_SELL:
            return self._sell(seat, amount)
        if ev == EV_BANKDOUBLE:
            return self._bankdouble()
        if ev == EV_SHOOT:
            return self._shoot(seat, amount)
        if ev == EV_STAND:
            return self._stand()
        if EV_BUY <= ev <= EV_BURN:
            return self._action(ev, seat, amount, True)
        return "unknown event"

    def check(self, ev, seat=0, amount=0):
        """Would this player action be accepted now? None, or the reason (nothing changes)."""
        v = self.v
        if v[_R_PHASE] == PH_OVER:
            return "the session is over"
        if EV_BUY <= ev <= EV_BURN:
            return self._action(ev, seat, amount, False)
        return "only player actions can be checked"

    # ----------------------------------------------------------------- shoe (R2, N3)
    def _take(self, code):
        """Move one copy of `code` from the top of the shoe to the table, or say why not."""
        v = self.v
        top = v[_R_TOP_LAYER]
        idx = code
        while idx < v[_R_COPIES]:
            if self.loc[idx] == top and v[_R_TOP_COUNT] > 0:
                self.loc[idx] = LOC_TABLE
                v[_R_TOP_COUNT] -= 1
                v[_R_IN_SHOE] -= 1
                if v[_R_TOP_COUNT] == 0:
                    self._find_top()
                return None
            idx += 52
        # Why not: say what the shoe knows about this card (R2).
        table = 0
        under = 0
        discard = 0
        idx = code
        while idx < v[_R_COPIES]:
            where = self.loc[idx]
            if where == LOC_TABLE:
                table += 1
            elif where == LOC_DISCARD:
                discard += 1
            else:
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

    def _find_top(self):
        v = self.v
        best = 256
        count = 0
        for i in range(v[_R_COPIES]):
            where = self.loc[i]
            if where < best:
                best = where
                count = 1
            elif where == best:
                count += 1
        if best >= LOC_DISCARD:
            v[_R_TOP_LAYER] = 0
            v[_R_TOP_COUNT] = 0
        else:
            v[_R_TOP_LAYER] = best
            v[_R_TOP_COUNT] = count

    def _under(self, code):
        """A card on the table goes under the pack, into the layer being formed."""
        v = self.v
        idx = code
        while idx < v[_R_COPIES]:
            if self.loc[idx] == LOC_TABLE:
                layer = LOC_DISCARD if v[_R_CASINO] else v[_R_NEXT_LAYER]
                self.loc[idx] = layer
                if layer != LOC_DISCARD:
                    v[_R_IN_SHOE] += 1
                    if v[_R_TOP_COUNT] == 0:
                        v[_R_TOP_LAYER] = layer
                        v[_R_TOP_COUNT] = 1
                    elif layer == v[_R_TOP_LAYER]:
                        v[_R_TOP_COUNT] += 1
                return
            idx += 52

    def _close_layer(self):
        v = self.v
        v[_R_NEXT_LAYER] += 1
        if v[_R_NEXT_LAYER] >= _LAYER_LIMIT:
            # Renumber so layers stay within a byte; order is kept.
            base = v[_R_TOP_LAYER]
            for i in range(v[_R_COPIES]):
                where = self.loc[i]
                if where < LOC_DISCARD:
                    self.loc[i] = where - base
            v[_R_NEXT_LAYER] -= base
            v[_R_DEAL_LAYER_BASE] -= base
            if v[_R_DEAL_LAYER_BASE] < 0:
                v[_R_DEAL_LAYER_BASE] = 0
            v[_R_TOP_LAYER] = 0

    def _hand_under(self, slot):
        base = slot * _HB
        for i in range(self.hb[slot * _HB + _HB_N]):
            self._under(self.hb[base + i])
        self._close_layer()

    def _runs_out(self):
        v = self.v
        # N3 ruling: only cards that went under during this deal are left (or none).
        return v[_R_TOP_COUNT] == 0 or v[_R_TOP_LAYER] >= v[_R_DEAL_LAYER_BASE]

    def _shuffle(self):
        v = self.v
        if not v[_R_WANT_SHUFFLE]:
            return "nothing asked for a shuffle now (N1)"
        if self.in_deal():
            return "no shuffle during a deal"
        for i in range(v[_R_COPIES]):
            if self.loc[i] != LOC_TABLE:
                self.loc[i] = 0
        v[_R_NEXT_LAYER] = 1
        v[_R_TOP_LAYER] = 0
        v[_R_IN_SHOE] = 0
        for i in range(v[_R_COPIES]):
            if self.loc[i] == 0:
                v[_R_IN_SHOE] += 1
        v[_R_TOP_COUNT] = v[_R_IN_SHOE]
        v[_R_WANT_SHUFFLE] = False
        return None

    # ----------------------------------------------------------------- the cut (B1)
    def _start_cut_round(self, everyone):
        v = self.v
        first = 0
        for s in range(1, v[_R_SEATS] + 1):
            if everyone:
                self.sb[s * _SB + _SB_CUT_IN] = 1
            if self.sb[s * _SB + _SB_CUT_IN] and not first:
                first = s
        v[_R_POS] = first

    def _cut_card(self, code):
        v = self.v
        why = self._take(code)
        if why:
            return why
        s = v[_R_POS]
        self.sb[s * _SB + _SB_CUT] = code
        nxt = 0
        for t in range(s + 1, v[_R_SEATS] + 1):
            if self.sb[t * _SB + _SB_CUT_IN]:
                nxt = t
                break
        if nxt:
            v[_R_POS] = nxt
            return None
        best = 0
        for t in range(1, v[_R_SEATS] + 1):
            if self.sb[t * _SB + _SB_CUT_IN] and cut_rank(self.sb[t * _SB + _SB_CUT]) > best:
                best = cut_rank(self.sb[t * _SB + _SB_CUT])
        tied = 0
        for t in range(1, v[_R_SEATS] + 1):
            if self.sb[t * _SB + _SB_CUT_IN] and cut_rank(self.sb[t * _SB + _SB_CUT]) == best:
                tied += 1
                winner = t
            else:
                self.sb[t * _SB + _SB_CUT_IN] = 0
        if tied > 1:
            self._start_cut_round(False)
            if self._runs_out_cut():
                # Not enough cards left for a re-cut: everything back, shuffle, cut again.
                self._cards_back_for_shuffle()
                self._start_cut_round(False)
            return None
        v[_R_BANKER] = winner
        v[_R_PHASE] = PH_IDLE
        self._cards_back_for_shuffle()
        if self.rules.shoot:
            v[_R_NEED_KITTY] = 1
        return None

    def _runs_out_cut(self):
        v = self.v
        return v[_R_TOP_COUNT] == 0

    def _cards_back_for_shuffle(self):
        v = self.v
        for i in range(v[_R_COPIES]):
            if self.loc[i] == LOC_TABLE:
                self.loc[i] = v[_R_NEXT_LAYER]
                v[_R_IN_SHOE] += 1
        self._find_top()
        self._close_layer()
        v[_R_WANT_SHUFFLE] = True

    # ----------------------------------------------------------------- the deal (D1-D4)
    def _begin_deal(self):
        v = self.v
        v[_R_DEALS] += 1
        v[_R_DEAL_LAYER_BASE] = v[_R_NEXT_LAYER]
        v[_R_NSLOTS] = 0
        v[_R_NORDER] = 0
        v[_R_DOUBLED] = 0
        v[_R_PONTOON_DEALT] = False
        v[_R_BANKER_PONTOON] = False
        v[_R_SHOOT_POS] = 0
        v[_R_OUTSTANDING_SHOOT] = 0
        v[_R_DEAL_KITTY] = 0
        v[_R_PEND] = PEND_NONE
        v[_R_CUR] = 0
        # B2: play order starts at the banker's left and ends with the banker.
        n = 0
        if v[_R_CASINO]:
            for s in range(1, v[_R_SEATS] + 1):
                self.porder[n] = s
                n += 1
        else:
            s = v[_R_BANKER]
            for _ in range(v[_R_SEATS] - 1):
                s = s + 1 if s < v[_R_SEATS] else 1
                self.porder[n] = s
                n += 1
        v[_R_NPLAYERS] = n
        for s in range(v[_R_SEATS] + 1):
            self.sw[s * _SW + _SW_NET] = 0
            self.sw[s * _SW + _SW_INITIAL] = 0
            self.sb[s * _SB + _SB_HANDS] = 0
            self.sb[s * _SB + _SB_SHOT] = 0
        for slot in range(n + 1):
            self._clear_slot(slot)
            if slot:
                self.hb[slot * _HB + _HB_SEAT] = self.porder[slot - 1]
                self.order[slot - 1] = slot
                self.sb[self.porder[slot - 1] * _SB + _SB_HANDS] = 1
        self.hb[_HB_SEAT] = v[_R_BANKER]
        v[_R_NSLOTS] = n + 1
        v[_R_NORDER] = n
        v[_R_POS] = 0

    def _clear_slot(self, slot):
        self.hb[slot * _HB + _HB_N] = 0
        self.hb[slot * _HB + _HB_FLAGS] = 0
        self.hw[slot * _HW + _HW_STAKE] = 0
        self.hw[slot * _HW + _HW_LASTBUY] = 0
        self.hw[slot * _HW + _HW_SHOOT] = 0
        self.hw[slot * _HW + _HW_NET] = 0

    def _deal_slot(self, pos):
        v = self.v
        # Round position -> slot: players first in play order, the banker last.
        return pos + 1 if pos < v[_R_NPLAYERS] else 0

    def _add_card(self, slot, code):
        n = self.hb[slot * _HB + _HB_N]
        self.hb[slot * _HB + n] = code
        self.hb[slot * _HB + _HB_N] = n + 1

    def _card(self, code):
        v = self.v
        ph = v[_R_PHASE]
        if ph == PH_CUT:
            return self._cut_card(code)
        if v[_R_WANT_SHUFFLE]:
            return "shuffle and cut the pack first (N1/N3)"
        if ph == PH_IDLE:
            if v[_R_CASINO]:
                return "place the bets first: seat 1 bets before any card (D2)"
            if v[_R_NEED_KITTY]:
                return "the banker must put up a kitty of %d to %d first (X1/X8)" % (
                    self.rules.kitty_min, self.rules.kitty_max)
            why = self._take(code)
            if why:
                return why
            self._begin_deal()
            v[_R_PHASE] = PH_DEAL1
            self._deal_card(code)
            return None
        if ph == PH_DEAL1 or ph == PH_DEAL2:
            why = self._take(code)
            if why:
                return why
            self._deal_card(code)
            return None
        if ph == PH_PLAY:
            if v[_R_PEND] == PEND_NONE:
                return "no card is due: seat %d must act first (stick, twist%s)" % (
                    self.hb[(self.order[v[_R_CUR]]) * _HB + _HB_SEAT], ", double" if v[_R_CASINO] else ", buy")
            why = self._take(code)
            if why:
                return why
            self._play_card(code)
            return None
        if ph == PH_BANKER:
            why = self._take(code)
            if why:
                return why
            self._banker_card(code)
            return None
        if ph == PH_STAKES:
            return "no card is due: seat %d must stake first (D2)" % self.porder[v[_R_POS]]
        if ph == PH_BETS:
            return "no card is due: seat %d must bet first (D2)" % self.porder[v[_R_POS]]
        return "no card is due now"

    def _deal_card(self, code):
        v = self.v
        slot = self._deal_slot(v[_R_POS])
        self._add_card(slot, code)
        v[_R_POS] += 1
        if v[_R_POS] <= v[_R_NPLAYERS]:
            self._after_accept()
            return
        v[_R_POS] = 0
        if v[_R_PHASE] == PH_DEAL1:
            if v[_R_CASINO]:
                v[_R_PHASE] = PH_DEAL2
            else:
                v[_R_PHASE] = PH_STAKES
            self._after_accept()
            return
        # D3 done: D4 banker's Pontoon, else the players' turns.
        if hands.pontoon_grade(self.hb, 0, 2, self.rules.pontoon_order) >= 0:
            self._banker_pontoon_at_deal()
            return
        for i in range(v[_R_NPLAYERS]):
            if hands.pontoon_grade(self.hb, (i + 1) * _HB, 2, self.rules.pontoon_order) >= 0:
                v[_R_PONTOON_DEALT] = True
        v[_R_PHASE] = PH_PLAY
        v[_R_CUR] = 0
        self._settle_automatic_then_advance()

    # ----------------------------------------------------------------- money
    def _pay(self, payer, payee, amount, slot):
        """Move `amount` from seat payer to seat payee for hand `slot` (R1)."""
        self.sw[payer * _SW + _SW_BALANCE] -= amount
        self.sw[payee * _SW + _SW_BALANCE] += amount
        self.sw[payer * _SW + _SW_NET] -= amount
        self.sw[payee * _SW + _SW_NET] += amount
        if slot > 0:
            self.hw[slot * _HW + _HW_NET] += amount if payee == self.hb[slot * _HB + _HB_SEAT] else -amount

    def _kitty_move(self, seat, amount, slot):
        """Positive: seat pays the kitty; negative: the kitty pays seat (X6, X7)."""
        v = self.v
        self.sw[seat * _SW + _SW_BALANCE] -= amount
        v[_R_KITTY] += amount
        self.sw[seat * _SW + _SW_NET] -= amount
        v[_R_DEAL_KITTY] += amount
        if slot > 0:
            self.hw[slot * _HW + _HW_NET] -= amount

    def _single(self, mult):
        v = self.v
        # V3 ruling: a single payment becomes double; doubles and trebles stay.
        if v[_R_DOUBLED] and mult < 2:
            return 2
        return mult

    def _win_mult(self, kind):
        v = self.v
        if v[_R_CASINO]:
            # S4: Pontoon and five-card trick 2:1, other winners 1:1.
            return 2 if kind == hands.KIND_PONTOON or kind == hands.KIND_FIVE_CARD_TRICK else 1
        if kind == hands.KIND_PONTOON:
            return self._single(self.rules.pontoon_pays)  # V4
        if kind == hands.KIND_ROYAL_PONTOON:
            return 3  # V6
        if kind == hands.KIND_FIVE_CARD_TRICK:
            return 2
        return self._single(1)

    # ----------------------------------------------------------------- stakes (D2)
    def _stake(self, seat, amount):
        v = self.v
        ph = v[_R_PHASE]
        if v[_R_CASINO] and ph == PH_IDLE:
            if v[_R_WANT_SHUFFLE]:
                return "shuffle the shoe first: less than a quarter is left (N1)"
            if seat != 1:
                return "bets go in seat order: seat 1 bets first (D2)"
            why = self._stake_range(amount)
            if why:
                return why
            self._begin_deal()
            v[_R_PHASE] = PH_BETS
            return self._stake_accept(seat, amount)
        if ph == PH_BETS or ph == PH_STAKES:
            want = self.porder[v[_R_POS]]
            if seat != want:
                return "it is seat %d's turn to stake, not seat %d's (D2)" % (want, seat)
            why = self._stake_range(amount)
            if why:
                return why
            return self._stake_accept(seat, amount)
        if ph == PH_IDLE:
            return "stakes come after the first card of a deal (D1, D2)"
        return "no stake is due now (D2)"

    def _stake_range(self, amount):
        lo = self.rules.stake_min
        hi = self.rules.stake_max
        if amount < lo or amount > hi:
            return "a stake must be %d to %d units (D2)" % (lo, hi)
        return None

    def _stake_accept(self, seat, amount):
        v = self.v
        self.sw[seat * _SW + _SW_INITIAL] = amount
        slot = v[_R_POS] + 1
        self.hw[slot * _HW + _HW_STAKE] = amount
        v[_R_POS] += 1
        if v[_R_POS] >= v[_R_NPLAYERS]:
            v[_R_POS] = 0
            v[_R_PHASE] = PH_DEAL1 if v[_R_PHASE] == PH_BETS else PH_DEAL2
        self._after_accept()
        return None

    # ----------------------------------------------------------------- V3, X, N4
    def _bankdouble(self):
        v = self.v
        if not self.rules.banker_doubling:
            return "banker doubling is not played: rules option banker_doubling is off (V3)"
        if v[_R_PHASE] != PH_DEAL2 or v[_R_POS] != 0:
            return "the banker may double only after the initial stakes, before the second card (V3)"
        if v[_R_DOUBLED]:
            return "the banker has already doubled this deal (V3)"
        v[_R_DOUBLED] = 1
        return None

    def _kitty(self, amount):
        v = self.v
        r = self.rules
        if not r.shoot:
            return "there is no kitty: rules option shoot is off (X1)"
        if self.in_deal():
            return "the kitty can be put up or added to only between deals (X8)"
        if amount < 1:
            return "a kitty amount must be at least 1 (X1)"
        if v[_R_KITTY] == 0:
            if amount < r.kitty_min or amount > r.kitty_max:
                return "the kitty must be %d to %d units (X1)" % (r.kitty_min, r.kitty_max)
        elif v[_R_KITTY] + amount > r.kitty_max:
            return "the kitty may not grow beyond %d units (X8)" % r.kitty_max
        self.sw[v[_R_BANKER] * _SW + _SW_BALANCE] -= amount
        v[_R_KITTY] += amount
        v[_R_NEED_KITTY] = 0
        return None

    def _sell(self, seat, price):
        v = self.v
        if self.rules.preset != _P_CLASSIC:
            return "the bank can be sold only in the classic game (N4, T3)"
        if self.in_deal():
            return "the bank can be sold only between deals (N4)"
        if not 1 <= seat <= v[_R_SEATS]:
            return "there is no seat %d" % seat
        if seat == v[_R_BANKER]:
            return "seat %d already holds the bank (N4)" % seat
        if price < 0:
            return "the price cannot be negative (N4)"
        self.sw[seat * _SW + _SW_BALANCE] -= price
        self.sw[v[_R_BANKER] * _SW + _SW_BALANCE] += price
        self._move_bank(seat)
        return None

    def _move_bank(self, seat):
        v = self.v
        if v[_R_KITTY]:
            # X8: the old banker takes back what is left in the kitty.
            self.sw[v[_R_BANKER] * _SW + _SW_BALANCE] += v[_R_KITTY]
            v[_R_KITTY] = 0
        v[_R_BANKER] = seat
        if self.rules.shoot:
            v[_R_NEED_KITTY] = 1

    def _shoot(self, seat, amount):
        v = self.v
        r = self.rules
        if not r.shoot:
            return "shoot bets are not played: rules option shoot is off (X2)"
        if amount < 1:
            return "a shoot bet must be at least 1 unit (X2)"
        if v[_R_PHASE] == PH_DEAL2 and v[_R_POS] == 0:
            p = self._play_index(seat)
            if p < 0:
                return "seat %d is not a player this deal (X2)" % seat
            if p < v[_R_SHOOT_POS]:
                return "shoot bets go in play order: seat %d has passed (X2)" % seat
            if v[_R_OUTSTANDING_SHOOT] + amount > v[_R_KITTY]:
                return "the shoot bets would exceed the kitty of %d (X2)" % v[_R_KITTY]
            slot = p + 1
            if amount > MAX_SHOOT:
                return "one hand's shoot bets may total at most %d units (X2)" % MAX_SHOOT
            self.hw[slot * _HW + _HW_SHOOT] += amount
            self.sb[seat * _SB + _SB_SHOT] = 1
            v[_R_OUTSTANDING_SHOOT] += amount
            v[_R_SHOOT_POS] = p + 1
            return None
        slot = self.current_slot()
        if slot < 0 or v[_R_PEND] != PEND_NONE:
            return "no shoot bet is possible now (X2, X4)"
        if self.hb[slot * _HB + _HB_SEAT] != seat:
            return "it is seat %d's turn, not seat %d's (P1)" % (self.hb[slot * _HB + _HB_SEAT], seat)
        n = self.hb[slot * _HB + _HB_N]
        f = self.hb[slot * _HB + _HB_FLAGS]
        ok = False
        if n == 3 and not (f & F_SHOT4) and self.hand_total(slot) < 21:
            ok = True  # X4
        elif n == 2 and (f & F_SPLIT) and not (f & F_ACTED) and self.hw[slot * _HW + _HW_SHOOT] == 0 \
                and self.sb[seat * _SB + _SB_SHOT]:
            ok = True  # X5
        if not ok:
            return "a shoot bet is allowed only before the fourth card on a three-card hand (X4, X5)"
        if v[_R_OUTSTANDING_SHOOT] + amount > v[_R_KITTY]:
            return "the shoot bets would exceed the kitty of %d (X4)" % v[_R_KITTY]
        if self.hw[slot * _HW + _HW_SHOOT] + amount > MAX_SHOOT:
            return "one hand's shoot bets may total at most %d units (X4)" % MAX_SHOOT
        if n == 3:
            self.hb[slot * _HB + _HB_FLAGS] = f | F_SHOT4
        self.hw[slot * _HW + _HW_SHOOT] += amount
        self.sb[seat * _SB + _SB_SHOT] = 1
        v[_R_OUTSTANDING_SHOOT] += amount
        return None

    def _play_index(self, seat):
        v = self.v
        for i in range(v[_R_NPLAYERS]):
            if self.porder[i] == seat:
                return i
        return -1

    # ----------------------------------------------------------------- players (P)
    def _action(self, ev, seat, amount, commit):
        v = self.v
        if v[_R_PHASE] != PH_PLAY:
            if v[_R_PHASE] == PH_BANKER:
                return "the players' turns are over: it is the %s's turn (K1)" % (
                    "dealer" if v[_R_CASINO] else "banker")
            return "no player acts now: %s" % self._waiting()
        if not 1 <= seat <= v[_R_SEATS]:
            return "there is no seat %d" % seat
        slot = self.order[v[_R_CUR]]
        who = self.hb[slot * _HB + _HB_SEAT]
        if v[_R_PEND] != PEND_NONE:
            return "a card is due to seat %d first" % who
        if seat != who:
            if seat == v[_R_BANKER] and not v[_R_CASINO]:
                return "the banker plays after every player (K1)"
            return "it is seat %d's turn, not seat %d's (P1)" % (who, seat)
        n = self.hb[slot * _HB + _HB_N]
        f = self.hb[slot * _HB + _HB_FLAGS]
        total = self.hand_total(slot)
        r = self.rules
        if ev == EV_STICK:
            if total < r.stick_min:
                return "stick needs a total of %d or more (P6)" % r.stick_min
            if not commit:
                return None
            self.hb[slot * _HB + _HB_FLAGS] = f | F_DONE | F_ACTED
            self._advance()
            return None
        if ev == EV_TWIST:
            if total >= 21:
                return "a hand of 21 takes no more cards (P7)"
            if not commit:
                return None
            self.hb[slot * _HB + _HB_FLAGS] = f | F_TWISTED | F_ACTED
            self._pend(PEND_ONE, slot, 1)
            return None
        if ev == EV_BUY:
            if v[_R_CASINO]:
                return "there is no buying in the casino game: twist or double (P10)"
            if f & F_TWISTED:
                return "after a twist the hand can only twist (P5)"
            if total >= 21:
                return "a hand of 21 takes no more cards (P7)"
            if n == 4 and r.four_card_eleven_twist_only and \
                    hands.hard_total(self.hb, slot * _HB, 4) <= 11:
                return "a four-card hand of 11 or less may only twist (V5)"
            lo = self.sw[seat * _SW + _SW_INITIAL]
            hi = self.buy_max(seat, slot)
            if amount < lo or amount > hi:
                return "this buy must add %d to %d units (P4)" % (lo, hi)
            if not commit:
                return None
            self.hw[slot * _HW + _HW_STAKE] += amount
            self.hw[slot * _HW + _HW_LASTBUY] = amount
            self.hb[slot * _HB + _HB_FLAGS] = f | F_ACTED
            self._pend(PEND_ONE, slot, 1)
            return None
        if ev == EV_DOUBLE:
            if not v[_R_CASINO]:
                return "double is only in the casino game; buy instead (P4, P10)"
            if f & F_DOUBLED:
                return "a hand may double only once (P10)"
            if total >= 21:
                return "a hand of 21 takes no more cards (P7)"
            if not commit:
                return None
            self.hw[slot * _HW + _HW_STAKE] += self.sw[seat * _SW + _SW_INITIAL]
            self.hb[slot * _HB + _HB_FLAGS] = f | F_DOUBLED | F_ACTED
            self._pend(PEND_ONE, slot, 1)
            return None
        if ev == EV_SPLIT:
            if n != 2 or (f & F_ACTED):
                return "only a two-card hand that has not acted can split (P3)"
            base = slot * _HB
            a = self.hb[base]
            b = self.hb[base + 1]
            if v[_R_CASINO]:
                if point(a) != point(b):
                    return "a split needs two cards of equal value (P3)"
            elif a >> 2 != b >> 2:
                return "a split needs two cards of equal rank: %s and %s differ (P3)" % (
                    card_name(a), card_name(b))
            if r.split_aces_only and a >> 2 != 0:
                return "only aces may be split (V1)"
            limit = 3 if v[_R_CASINO] else 4
            if self.sb[seat * _SB + _SB_HANDS] >= limit:
                return "a seat may hold at most %d hands (P3)" % limit
            if not commit:
                return None
            new = v[_R_NSLOTS]
            v[_R_NSLOTS] += 1
            self._clear_slot(new)
            self.hb[new * _HB + _HB_SEAT] = seat
            self.hw[new * _HW + _HW_STAKE] = self.sw[seat * _SW + _SW_INITIAL]
            self.hb[new * _HB + _HB_FLAGS] = F_SPLIT
            self.hb[slot * _HB + _HB_FLAGS] = f | F_SPLIT
            self.hb[new * _HB] = b
            self.hb[new * _HB + _HB_N] = 1
            self.hb[slot * _HB + _HB_N] = 1
            # P3 ruling: the new hand goes right after the split one.
            for i in range(v[_R_NORDER], v[_R_CUR] + 1, -1):
                self.order[i] = self.order[i - 1]
            self.order[v[_R_CUR] + 1] = new
            v[_R_NORDER] += 1
            self.sb[seat * _SB + _SB_HANDS] += 1
            for i in range(v[_R_NORDER]):
                if self.hb[self.order[i] * _HB + _HB_SEAT] == seat:
                    self.hb[self.order[i] * _HB + _HB_FLAGS] |= F_SPLIT
            v[_R_PEND_SLOT2] = new
            self._pend(PEND_SPLIT, slot, 2)
            return None
        if ev == EV_BURN:
            if not r.burn:
                return "burning is not played: rules option burn is off (V8)"
            base = slot * _HB
            if n != 2 or (f & F_ACTED) or hands.has_ace(self.hb, base, 2) or \
                    hands.hard_total(self.hb, base, 2) != r.burn:
                return "only two cards making a hard %d can be burned (V8)" % r.burn
            if not commit:
                return None
            self._hand_under(slot)
            self.hb[slot * _HB + _HB_N] = 0
            self._pend(PEND_BURN, slot, 2)
            return None
        return "unknown action"

    def _pend(self, kind, slot, count):
        v = self.v
        v[_R_PEND] = kind
        v[_R_PEND_SLOT] = slot
        v[_R_PEND_LEFT] = count
        self._after_accept()

    def _play_card(self, code):
        v = self.v
        if v[_R_PEND] == PEND_SPLIT and v[_R_PEND_LEFT] == 1:
            slot = v[_R_PEND_SLOT2]
        else:
            slot = v[_R_PEND_SLOT]
        self._add_card(slot, code)
        v[_R_PEND_LEFT] -= 1
        if v[_R_PEND_LEFT] > 0:
            self._after_accept()
            return
        v[_R_PEND] = PEND_NONE
        self._settle_automatic_then_advance()

    def _settle_automatic_then_advance(self):
        v = self.v
        # P2, P7, P8: hands with no choice left end by themselves; then the next hand.
        slot = self.order[v[_R_CUR]] if v[_R_CUR] < v[_R_NORDER] else -1
        if slot >= 0 and not self._auto_end(slot):
            self._after_accept()
            return
        self._advance()

    def _auto_end(self, slot):
        """End the hand if it has no choice left; True when it ended."""
        v = self.v
        n = self.hb[slot * _HB + _HB_N]
        base = slot * _HB
        total = hands.value(self.hb, base, n) & 63
        if total > 21:
            # P8: shown, the banker takes the current stake at once, cards under the pack.
            self.hb[slot * _HB + _HB_FLAGS] |= F_BUST | F_DONE
            seat = self.hb[slot * _HB + _HB_SEAT]
            if v[_R_CASINO]:
                self._pay(seat, HOUSE, self.hw[slot * _HW + _HW_STAKE], slot)
            else:
                self._pay(seat, v[_R_BANKER], self.hw[slot * _HW + _HW_STAKE] * self._single(1), slot)
            if self.hw[slot * _HW + _HW_SHOOT]:
                v[_R_OUTSTANDING_SHOOT] -= self.hw[slot * _HW + _HW_SHOOT]
                self._kitty_move(seat, self.hw[slot * _HW + _HW_SHOOT], slot)  # X6
            self._hand_under(slot)
            return True
        if n == 2 and hands.pontoon_grade(self.hb, base, 2, self.rules.pontoon_order) >= 0:
            v[_R_PONTOON_DEALT] = True
            self.hb[slot * _HB + _HB_FLAGS] |= F_DONE
            return True
        if total == 21 or n >= MAX_CARDS:
            self.hb[slot * _HB + _HB_FLAGS] |= F_DONE
            return True
        return False

    def _advance(self):
        """Move to the next hand that still has choices (P1), or to the banker."""
        v = self.v
        v[_R_CUR] += 1
        while v[_R_CUR] < v[_R_NORDER]:
            if not self._auto_end(self.order[v[_R_CUR]]):
                self._after_accept()
                return
            v[_R_CUR] += 1
        self._banker_turn()

    # ----------------------------------------------------------------- banker (K)
    def _standing(self):
        v = self.v
        for i in range(v[_R_NORDER]):
            if not self.hb[self.order[i] * _HB + _HB_FLAGS] & F_BUST:
                return True
        return False

    def _banker_turn(self):
        v = self.v
        if not self._standing():
            self._end_deal()  # K2: nothing left to settle
            return
        v[_R_PHASE] = PH_BANKER
        if v[_R_CASINO] and self._dealer_stands():
            self._settle()
            return
        self._after_accept()

    def _dealer_stands(self):
        # K1 casino: draw to soft 17 inclusive, stand on hard 17 or more; five cards stop.
        value = hands.value(self.hb, 0, self.hb[_HB_N])
        total = value & 63
        if self.hb[_HB_N] >= MAX_CARDS or total > 21:
            return True
        if total > 17:
            return True
        if total == 17:
            return value < hands.SOFT
        return False

    def _banker_card(self, code):
        v = self.v
        self._add_card(0, code)
        total = self.hand_total(0)
        if v[_R_CASINO]:
            if self._dealer_stands():
                self._settle()
            else:
                self._after_accept()
            return
        if total > 21 or self.hb[_HB_N] >= MAX_CARDS:
            self._settle()
            return
        self._after_accept()

    def _stand(self):
        v = self.v
        if v[_R_CASINO]:
            return "the dealer stands by itself in the casino game (K1)"
        if v[_R_PHASE] != PH_BANKER:
            return "the banker stands only in his own turn, after every player (K1)"
        self._settle()
        return None

    def _banker_pontoon_at_deal(self):
        v = self.v
        # D4 (X3, V4, V7 ruling): the banker's Pontoon collects at once; nobody acts.
        v[_R_PONTOON_DEALT] = True
        v[_R_BANKER_PONTOON] = True
        order = self.rules.pontoon_order
        bgrade = hands.pontoon_grade(self.hb, 0, 2, order)
        if v[_R_CASINO]:
            mult = 1
        elif self.rules.banker_pontoon_collects_single:
            mult = self._single(1)
        else:
            mult = self._single(self.rules.pontoon_pays)
        for i in range(v[_R_NORDER]):
            slot = self.order[i]
            seat = self.hb[slot * _HB + _HB_SEAT]
            grade = hands.pontoon_grade(self.hb, slot * _HB, 2, order)
            if not v[_R_CASINO] and grade > bgrade:
                self._pay(v[_R_BANKER], seat, self.hw[slot * _HW + _HW_STAKE] * self._win_mult(hands.KIND_PONTOON), slot)
                self._shoot_settle(slot, True)
            else:
                self._pay(seat, v[_R_BANKER], self.hw[slot * _HW + _HW_STAKE] * mult, slot)
                self._shoot_settle(slot, False)
        self.hb[_HB_FLAGS] |= F_DONE
        self._end_deal()

    def _shoot_settle(self, slot, won):
        v = self.v
        amount = self.hw[slot * _HW + _HW_SHOOT]
        if amount:
            v[_R_OUTSTANDING_SHOOT] -= amount
            self._kitty_move(self.hb[slot * _HB + _HB_SEAT], -amount if won else amount, slot)  # X7

    def _settle(self):
        v = self.v
        # S1-S4 against the banker's final hand; only standing hands take part (K2).
        order = self.rules.pontoon_order
        bn = self.hb[_HB_N]
        btotal = self.hand_total(0)
        bbust = btotal > 21
        bfive = not bbust and bn >= MAX_CARDS
        bstrength = hands.strength(self.hb, 0, bn, order, False)
        banker = v[_R_BANKER]
        for i in range(v[_R_NORDER]):
            slot = self.order[i]
            if self.hb[slot * _HB + _HB_FLAGS] & F_BUST:
                continue
            seat = self.hb[slot * _HB + _HB_SEAT]
            royal = self.rules.royal_pontoon
            kind = hands.kind(self.hb, slot * _HB, self.hb[slot * _HB + _HB_N], order, royal)
            st = hands.strength(self.hb, slot * _HB, self.hb[slot * _HB + _HB_N], order, royal)
            stake = self.hw[slot * _HW + _HW_STAKE]
            if bbust:
                won = True
            elif bfive:
                won = st >= hands.STRENGTH_PONTOON  # S3: only Pontoons are paid
            else:
                won = st > bstrength  # S2, H7: ties to the banker
            if won:
                self._pay(banker, seat, stake * self._win_mult(kind), slot)
            else:
                if v[_R_CASINO]:
                    mult = 1  # S4: every loss single
                elif bfive:
                    mult = 2  # S3
                else:
                    mult = self._single(1)
                self._pay(seat, banker, stake * mult, slot)
            self._shoot_settle(slot, won)
        self.hb[_HB_FLAGS] |= F_DONE
        self._end_deal()

    # ----------------------------------------------------------------- between deals (N)
    def _end_deal(self):
        v = self.v
        for slot in range(v[_R_NSLOTS]):
            if not self.hb[slot * _HB + _HB_FLAGS] & F_BUST:
                base = slot * _HB
                for i in range(self.hb[slot * _HB + _HB_N]):
                    self._under(self.hb[base + i])
        self._close_layer()
        v[_R_PHASE] = PH_IDLE
        v[_R_DEALS_ENDED] += 1
        v[_R_LAST_VOID] = False
        v[_R_LAST_COUNTED] = True
        old_banker = v[_R_BANKER]
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
                    slot = self.order[i]
                    if self.hb[slot * _HB + _HB_FLAGS] & F_SPLIT or self.hb[slot * _HB + _HB_N] != 2:
                        continue
                    if hands.pontoon_grade(self.hb, slot * _HB, 2,
                                           self.rules.pontoon_order) >= 0:
                        self._move_bank(self.hb[slot * _HB + _HB_SEAT])
                        break
            if self.rules.shoot and v[_R_KITTY] == 0 and v[_R_BANKER] == old_banker:
                v[_R_NEED_KITTY] = 1  # X8: an empty kitty is put up again
        if self.rules.preset == _P_TABLE:
            v[_R_COUNTED] += 1
            if v[_R_COUNTED] >= 8:
                v[_R_PHASE] = PH_OVER  # T1

    def _void(self):
        v = self.v
        # N3: every payment of the deal is reverted; not counted; shuffle.
        for s in range(v[_R_SEATS] + 1):
            self.sw[s * _SW + _SW_BALANCE] -= self.sw[s * _SW + _SW_NET]
            self.sw[s * _SW + _SW_NET] = 0
        v[_R_KITTY] -= v[_R_DEAL_KITTY]
        v[_R_DEAL_KITTY] = 0
        for slot in range(v[_R_NSLOTS]):
            self.hw[slot * _HW + _HW_NET] = 0
        for i in range(v[_R_COPIES]):
            if self.loc[i] == LOC_TABLE:
                self.loc[i] = v[_R_NEXT_LAYER]
                v[_R_IN_SHOE] += 1
        self._find_top()
        self._close_layer()
        v[_R_PHASE] = PH_IDLE
        v[_R_PEND] = PEND_NONE
        v[_R_WANT_SHUFFLE] = True
        v[_R_DEALS_ENDED] += 1
        v[_R_LAST_VOID] = True
        v[_R_LAST_COUNTED] = False

    def _after_accept(self):
        # N3 ruling: a deal that needs a card the shoe no longer holds is void at once.
        if self.card_due() and self.in_deal() and self._runs_out():
            self._void()

    def _waiting(self):
        v = self.v
        ph = v[_R_PHASE]
        if ph == PH_IDLE:
            if v[_R_WANT_SHUFFLE]:
                return "the pack must be shuffled"
            return "the next deal has not begun"
        if ph == PH_STAKES or ph == PH_BETS:
            return "seat %d must stake" % self.porder[v[_R_POS]]
        if ph == PH_DEAL1 or ph == PH_DEAL2:
            return "the deal is going round"
        if ph == PH_BANKER:
            return "it is the dealer's turn" if v[_R_CASINO] else "it is the banker's turn"
        return "waiting"
