# The Pontoon engine: a pure state machine fed one event at a time (TRANSCRIPT.md).
# No I/O, no clock, no hardware. `apply` answers None (accepted) or a reason (rejected,
# state unchanged). Hands live in preallocated byte buffers, one byte per card; an
# accepted card allocates nothing. Rule IDs refer to RULES.md, rulings to docs/RULINGS.md.
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from array import array

import hands
from cards import card_name, cut_rank, point

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
MAX_AMOUNT = const(1000000)
HOUSE = const(0)

_TABLE = const(0)
_CLASSIC = const(1)
_CASINO = const(2)


class Engine:
    def __init__(self, rules, seats, banker=0, packs=0):
        """rules: rules.Rules; seats: participants (casino: player seats); banker 0 = cut."""
        self.rules = rules
        self.casino = rules.preset == _CASINO
        if self.casino:
            if not 1 <= seats <= 7:
                raise ValueError("casino seats must be 1 to 7")
            if banker:
                raise ValueError("casino has no banker: the house deals")
        elif not 2 <= seats <= 10:
            raise ValueError("seats must be 2 to 10, the banker included")
        if banker and not 1 <= banker <= seats:
            raise ValueError("banker must be a seat from 1 to %d" % seats)
        if packs and not 1 <= packs <= 8:
            raise ValueError("packs must be 1 to 8")
        self.seats = seats
        if not packs:
            packs = 8 if self.casino else (2 if seats >= 8 else 1)  # C1, C4 ruling
        self.packs = packs
        self.copies = packs * 52
        maxh = 1 + seats * 4
        self.max_hands = maxh
        # Hands: slot 0 is the banker's (dealer's); player slots follow.
        self.cards = bytearray(maxh * MAX_CARDS)
        self.ncards = bytearray(maxh)
        self.hseat = bytearray(maxh)
        self.hflags = bytearray(maxh)
        self.hstake = array("i", bytes(4 * maxh))
        self.hlastbuy = array("i", bytes(4 * maxh))
        self.hshoot = array("i", bytes(4 * maxh))
        self.hnet = array("i", bytes(4 * maxh))
        self.order = bytearray(maxh)  # player slots in play order
        self.norder = 0
        self.nslots = 0
        # Seats: index 0 is the house in casino, unused otherwise.
        self.balance = array("i", bytes(4 * (seats + 1)))
        self.deal_net = array("i", bytes(4 * (seats + 1)))
        self.initial = array("i", bytes(4 * (seats + 1)))
        self.seat_hands = bytearray(seats + 1)
        self.seat_shot = bytearray(seats + 1)
        self.porder = bytearray(seats)  # players in play order (B2)
        self.nplayers = 0
        self.cut_card = bytearray(seats + 1)
        self.cut_in = bytearray(seats + 1)  # 1 = takes part in this cut round
        # Shoe: one byte per physical card copy = its layer, LOC_TABLE or LOC_DISCARD.
        self.loc = bytearray(self.copies)
        self.top_layer = 0
        self.top_count = self.copies
        self.next_layer = 1
        self.deal_layer_base = 1
        self.in_shoe = self.copies
        # Table state.
        self.kitty = 0
        self.deal_kitty = 0
        self.need_kitty = 0
        self.want_shuffle = False
        self.deals = 0  # deals begun
        self.counted = 0  # deals counted toward T1
        self.deals_ended = 0  # changes whenever a deal ends (settled or void)
        self.last_void = False
        self.last_counted = False
        self.pontoon_dealt = False
        self.banker_pontoon = False
        self.doubled = 0  # V3
        self.shoot_pos = 0  # X2: next play position allowed to shoot in the window
        self.outstanding_shoot = 0
        self.pos = 0
        self.cur = 0
        self.pend = PEND_NONE
        self.pend_left = 0
        self.pend_slot = 0
        self.pend_slot2 = 0
        if self.casino:
            self.banker = HOUSE
            self.phase = PH_IDLE
        elif banker:
            self.banker = banker
            self.phase = PH_IDLE
        else:
            self.banker = 0
            self.phase = PH_CUT
            self._start_cut_round(True)
        if rules.shoot and self.banker:
            self.need_kitty = 1
        self.initial_banker = self.banker

    # ----------------------------------------------------------------- queries
    def players_total(self):
        return self.nplayers

    def hand_total(self, slot):
        return hands.value(self.cards, slot * MAX_CARDS, self.ncards[slot]) & 63

    def hand_soft(self, slot):
        return hands.value(self.cards, slot * MAX_CARDS, self.ncards[slot]) >= hands.SOFT

    def hand_kind(self, slot):
        return hands.kind(
            self.cards, slot * MAX_CARDS, self.ncards[slot], self.rules.pontoon_order,
            slot != 0 and self.rules.royal_pontoon,
        )

    def hand_strength(self, slot):
        return hands.strength(
            self.cards, slot * MAX_CARDS, self.ncards[slot], self.rules.pontoon_order,
            slot != 0 and self.rules.royal_pontoon,
        )

    def current_slot(self):
        """The player hand being played, or -1."""
        if self.phase == PH_PLAY and self.cur < self.norder:
            return self.order[self.cur]
        return -1

    def in_deal(self):
        return PH_BETS <= self.phase <= PH_BANKER

    def finished(self):
        return self.phase == PH_OVER

    def total_money(self):
        """R1: the sum of every balance and the kitty (always 0)."""
        s = self.kitty
        for i in range(self.seats + 1):
            s += self.balance[i]
        return s

    def card_due(self):
        """True when the next event must (or may only) be a card."""
        ph = self.phase
        if ph == PH_PLAY:
            return self.pend != PEND_NONE
        if ph == PH_DEAL1 or ph == PH_DEAL2 or ph == PH_CUT:
            return True
        if ph == PH_BANKER:
            return self.casino  # the casino dealer must draw; a banker chooses to
        return False

    def expected_card_slot(self):
        """Slot (hand) the next card goes to, -1 if none (cut: -2 - seat)."""
        ph = self.phase
        if ph == PH_CUT:
            return -2 - self.pos
        if ph == PH_DEAL1 or ph == PH_DEAL2:
            return self._deal_slot(self.pos)
        if ph == PH_PLAY and self.pend != PEND_NONE:
            if self.pend == PEND_SPLIT and self.pend_left == 1:
                return self.pend_slot2
            return self.pend_slot
        if ph == PH_BANKER:
            return 0
        return -1

    def next_stake_seat(self):
        if self.phase == PH_STAKES or self.phase == PH_BETS:
            return self.porder[self.pos]
        return 0

    # ----------------------------------------------------------------- events
    def apply(self, ev, seat=0, amount=0, card=0):
        """Apply one event. None when accepted; else the reason, state unchanged."""
        if self.phase == PH_OVER:
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
        if self.phase == PH_CUT:
            return "the cut for the first banker comes first: waiting for a card for seat %d (B1)" % self.pos
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
        if self.phase == PH_OVER:
            return "the session is over"
        if EV_BUY <= ev <= EV_BURN:
            return self._action(ev, seat, amount, False)
        return "only player actions can be checked"

    # ----------------------------------------------------------------- shoe (R2, N3)
    def _take(self, code):
        """Move one copy of `code` from the top of the shoe to the table, or say why not."""
        top = self.top_layer
        idx = code
        while idx < self.copies:
            if self.loc[idx] == top and self.top_count > 0:
                self.loc[idx] = LOC_TABLE
                self.top_count -= 1
                self.in_shoe -= 1
                if self.top_count == 0:
                    self._find_top()
                return None
            idx += 52
        # Why not: say what the shoe knows about this card (R2).
        table = 0
        under = 0
        discard = 0
        idx = code
        while idx < self.copies:
            v = self.loc[idx]
            if v == LOC_TABLE:
                table += 1
            elif v == LOC_DISCARD:
                discard += 1
            else:
                under += 1
            idx += 52
        name = card_name(code)
        if under:
            return "%s went under the pack and cannot come out before the cards above it (R2)" % name
        if discard:
            return "%s is in the discard tray until the next shuffle (R2)" % name
        if self.packs == 1:
            return "%s is already on the table (R2)" % name
        return "every %s of the %d packs is already on the table (R2)" % (name, self.packs)

    def _find_top(self):
        best = 256
        count = 0
        for i in range(self.copies):
            v = self.loc[i]
            if v < best:
                best = v
                count = 1
            elif v == best:
                count += 1
        if best >= LOC_DISCARD:
            self.top_layer = 0
            self.top_count = 0
        else:
            self.top_layer = best
            self.top_count = count

    def _under(self, code):
        """A card on the table goes under the pack, into the layer being formed."""
        idx = code
        while idx < self.copies:
            if self.loc[idx] == LOC_TABLE:
                layer = LOC_DISCARD if self.casino else self.next_layer
                self.loc[idx] = layer
                if layer != LOC_DISCARD:
                    self.in_shoe += 1
                    if self.top_count == 0:
                        self.top_layer = layer
                        self.top_count = 1
                    elif layer == self.top_layer:
                        self.top_count += 1
                return
            idx += 52

    def _close_layer(self):
        self.next_layer += 1
        if self.next_layer >= _LAYER_LIMIT:
            # Renumber so layers stay within a byte; order is kept.
            base = self.top_layer
            for i in range(self.copies):
                v = self.loc[i]
                if v < LOC_DISCARD:
                    self.loc[i] = v - base
            self.next_layer -= base
            self.deal_layer_base -= base
            if self.deal_layer_base < 0:
                self.deal_layer_base = 0
            self.top_layer = 0

    def _hand_under(self, slot):
        base = slot * MAX_CARDS
        for i in range(self.ncards[slot]):
            self._under(self.cards[base + i])
        self._close_layer()

    def _runs_out(self):
        # N3 ruling: only cards that went under during this deal are left (or none).
        return self.top_count == 0 or self.top_layer >= self.deal_layer_base

    def _shuffle(self):
        if not self.want_shuffle:
            return "nothing asked for a shuffle now (N1)"
        if self.in_deal():
            return "no shuffle during a deal"
        for i in range(self.copies):
            if self.loc[i] != LOC_TABLE:
                self.loc[i] = 0
        self.next_layer = 1
        self.top_layer = 0
        self.in_shoe = 0
        for i in range(self.copies):
            if self.loc[i] == 0:
                self.in_shoe += 1
        self.top_count = self.in_shoe
        self.want_shuffle = False
        return None

    # ----------------------------------------------------------------- the cut (B1)
    def _start_cut_round(self, everyone):
        first = 0
        for s in range(1, self.seats + 1):
            if everyone:
                self.cut_in[s] = 1
            if self.cut_in[s] and not first:
                first = s
        self.pos = first

    def _cut_card(self, code):
        why = self._take(code)
        if why:
            return why
        s = self.pos
        self.cut_card[s] = code
        nxt = 0
        for t in range(s + 1, self.seats + 1):
            if self.cut_in[t]:
                nxt = t
                break
        if nxt:
            self.pos = nxt
            return None
        best = 0
        for t in range(1, self.seats + 1):
            if self.cut_in[t] and cut_rank(self.cut_card[t]) > best:
                best = cut_rank(self.cut_card[t])
        tied = 0
        for t in range(1, self.seats + 1):
            if self.cut_in[t] and cut_rank(self.cut_card[t]) == best:
                tied += 1
                winner = t
            else:
                self.cut_in[t] = 0
        if tied > 1:
            self._start_cut_round(False)
            if self._runs_out_cut():
                # Not enough cards left for a re-cut: everything back, shuffle, cut again.
                self._cards_back_for_shuffle()
                self._start_cut_round(False)
            return None
        self.banker = winner
        self.initial_banker = winner
        self.phase = PH_IDLE
        self._cards_back_for_shuffle()
        if self.rules.shoot:
            self.need_kitty = 1
        return None

    def _runs_out_cut(self):
        return self.top_count == 0

    def _cards_back_for_shuffle(self):
        for i in range(self.copies):
            if self.loc[i] == LOC_TABLE:
                self.loc[i] = self.next_layer
                self.in_shoe += 1
        self._find_top()
        self._close_layer()
        self.want_shuffle = True

    # ----------------------------------------------------------------- the deal (D1-D4)
    def _begin_deal(self):
        self.deals += 1
        self.deal_layer_base = self.next_layer
        self.nslots = 0
        self.norder = 0
        self.doubled = 0
        self.pontoon_dealt = False
        self.banker_pontoon = False
        self.shoot_pos = 0
        self.outstanding_shoot = 0
        self.deal_kitty = 0
        self.pend = PEND_NONE
        self.cur = 0
        # B2: play order starts at the banker's left and ends with the banker.
        n = 0
        if self.casino:
            for s in range(1, self.seats + 1):
                self.porder[n] = s
                n += 1
        else:
            s = self.banker
            for _ in range(self.seats - 1):
                s = s + 1 if s < self.seats else 1
                self.porder[n] = s
                n += 1
        self.nplayers = n
        for s in range(self.seats + 1):
            self.deal_net[s] = 0
            self.initial[s] = 0
            self.seat_hands[s] = 0
            self.seat_shot[s] = 0
        for slot in range(n + 1):
            self._clear_slot(slot)
            if slot:
                self.hseat[slot] = self.porder[slot - 1]
                self.order[slot - 1] = slot
                self.seat_hands[self.porder[slot - 1]] = 1
        self.hseat[0] = self.banker
        self.nslots = n + 1
        self.norder = n
        self.pos = 0

    def _clear_slot(self, slot):
        self.ncards[slot] = 0
        self.hflags[slot] = 0
        self.hstake[slot] = 0
        self.hlastbuy[slot] = 0
        self.hshoot[slot] = 0
        self.hnet[slot] = 0

    def _deal_slot(self, pos):
        # Round position -> slot: players first in play order, the banker last.
        return pos + 1 if pos < self.nplayers else 0

    def _add_card(self, slot, code):
        n = self.ncards[slot]
        self.cards[slot * MAX_CARDS + n] = code
        self.ncards[slot] = n + 1

    def _card(self, code):
        ph = self.phase
        if ph == PH_CUT:
            return self._cut_card(code)
        if self.want_shuffle:
            return "shuffle and cut the pack first (N1/N3)"
        if ph == PH_IDLE:
            if self.casino:
                return "place the bets first: seat 1 bets before any card (D2)"
            if self.need_kitty:
                return "the banker must put up a kitty of %d to %d first (X1/X8)" % (
                    self.rules.kitty_min, self.rules.kitty_max)
            why = self._take(code)
            if why:
                return why
            self._begin_deal()
            self.phase = PH_DEAL1
            self._deal_card(code)
            return None
        if ph == PH_DEAL1 or ph == PH_DEAL2:
            why = self._take(code)
            if why:
                return why
            self._deal_card(code)
            return None
        if ph == PH_PLAY:
            if self.pend == PEND_NONE:
                return "no card is due: seat %d must act first (stick, twist%s)" % (
                    self.hseat[self.order[self.cur]], ", double" if self.casino else ", buy")
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
            return "no card is due: seat %d must stake first (D2)" % self.porder[self.pos]
        if ph == PH_BETS:
            return "no card is due: seat %d must bet first (D2)" % self.porder[self.pos]
        return "no card is due now"

    def _deal_card(self, code):
        slot = self._deal_slot(self.pos)
        self._add_card(slot, code)
        self.pos += 1
        if self.pos <= self.nplayers:
            self._after_accept()
            return
        self.pos = 0
        if self.phase == PH_DEAL1:
            if self.casino:
                self.phase = PH_DEAL2
            else:
                self.phase = PH_STAKES
            self._after_accept()
            return
        # D3 done: D4 banker's Pontoon, else the players' turns.
        if hands.pontoon_grade(self.cards, 0, 2, self.rules.pontoon_order) >= 0:
            self._banker_pontoon_at_deal()
            return
        for i in range(self.nplayers):
            if hands.pontoon_grade(self.cards, (i + 1) * MAX_CARDS, 2, self.rules.pontoon_order) >= 0:
                self.pontoon_dealt = True
        self.phase = PH_PLAY
        self.cur = 0
        self._settle_automatic_then_advance()

    # ----------------------------------------------------------------- money
    def _pay(self, payer, payee, amount, slot):
        """Move `amount` from seat payer to seat payee for hand `slot` (R1)."""
        self.balance[payer] -= amount
        self.balance[payee] += amount
        self.deal_net[payer] -= amount
        self.deal_net[payee] += amount
        if slot > 0:
            self.hnet[slot] += amount if payee == self.hseat[slot] else -amount

    def _kitty_move(self, seat, amount, slot):
        """Positive: seat pays the kitty; negative: the kitty pays seat (X6, X7)."""
        self.balance[seat] -= amount
        self.kitty += amount
        self.deal_net[seat] -= amount
        self.deal_kitty += amount
        if slot > 0:
            self.hnet[slot] -= amount

    def _single(self, mult):
        # V3 ruling: a single payment becomes double; doubles and trebles stay.
        if self.doubled and mult < 2:
            return 2
        return mult

    def _win_mult(self, kind):
        if self.casino:
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
        ph = self.phase
        if self.casino and ph == PH_IDLE:
            if self.want_shuffle:
                return "shuffle the shoe first: less than a quarter is left (N1)"
            if seat != 1:
                return "bets go in seat order: seat 1 bets first (D2)"
            why = self._stake_range(amount)
            if why:
                return why
            self._begin_deal()
            self.phase = PH_BETS
            return self._stake_accept(seat, amount)
        if ph == PH_BETS or ph == PH_STAKES:
            want = self.porder[self.pos]
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
        self.initial[seat] = amount
        slot = self.pos + 1
        self.hstake[slot] = amount
        self.pos += 1
        if self.pos >= self.nplayers:
            self.pos = 0
            self.phase = PH_DEAL1 if self.phase == PH_BETS else PH_DEAL2
        self._after_accept()
        return None

    # ----------------------------------------------------------------- V3, X, N4
    def _bankdouble(self):
        if not self.rules.banker_doubling:
            return "banker doubling is not played: rules option banker_doubling is off (V3)"
        if self.phase != PH_DEAL2 or self.pos != 0:
            return "the banker may double only after the initial stakes, before the second card (V3)"
        if self.doubled:
            return "the banker has already doubled this deal (V3)"
        self.doubled = 1
        return None

    def _kitty(self, amount):
        r = self.rules
        if not r.shoot:
            return "there is no kitty: rules option shoot is off (X1)"
        if self.in_deal():
            return "the kitty can be put up or added to only between deals (X8)"
        if amount < 1:
            return "a kitty amount must be at least 1 (X1)"
        if self.kitty == 0:
            if amount < r.kitty_min or amount > r.kitty_max:
                return "the kitty must be %d to %d units (X1)" % (r.kitty_min, r.kitty_max)
        elif self.kitty + amount > r.kitty_max:
            return "the kitty may not grow beyond %d units (X8)" % r.kitty_max
        self.balance[self.banker] -= amount
        self.kitty += amount
        self.need_kitty = 0
        return None

    def _sell(self, seat, price):
        if self.rules.preset != _CLASSIC:
            return "the bank can be sold only in the classic game (N4, T3)"
        if self.in_deal():
            return "the bank can be sold only between deals (N4)"
        if not 1 <= seat <= self.seats:
            return "there is no seat %d" % seat
        if seat == self.banker:
            return "seat %d already holds the bank (N4)" % seat
        if price < 0:
            return "the price cannot be negative (N4)"
        self.balance[seat] -= price
        self.balance[self.banker] += price
        self._move_bank(seat)
        return None

    def _move_bank(self, seat):
        if self.kitty:
            # X8: the old banker takes back what is left in the kitty.
            self.balance[self.banker] += self.kitty
            self.kitty = 0
        self.banker = seat
        if self.rules.shoot:
            self.need_kitty = 1

    def _shoot(self, seat, amount):
        r = self.rules
        if not r.shoot:
            return "shoot bets are not played: rules option shoot is off (X2)"
        if amount < 1:
            return "a shoot bet must be at least 1 unit (X2)"
        if self.phase == PH_DEAL2 and self.pos == 0:
            p = self._play_index(seat)
            if p < 0:
                return "seat %d is not a player this deal (X2)" % seat
            if p < self.shoot_pos:
                return "shoot bets go in play order: seat %d has passed (X2)" % seat
            if self.outstanding_shoot + amount > self.kitty:
                return "the shoot bets would exceed the kitty of %d (X2)" % self.kitty
            slot = p + 1
            self.hshoot[slot] += amount
            self.seat_shot[seat] = 1
            self.outstanding_shoot += amount
            self.shoot_pos = p + 1
            return None
        slot = self.current_slot()
        if slot < 0 or self.pend != PEND_NONE:
            return "no shoot bet is possible now (X2, X4)"
        if self.hseat[slot] != seat:
            return "it is seat %d's turn, not seat %d's (P1)" % (self.hseat[slot], seat)
        n = self.ncards[slot]
        f = self.hflags[slot]
        ok = False
        if n == 3 and not (f & F_SHOT4) and self.hand_total(slot) < 21:
            ok = True  # X4
        elif n == 2 and (f & F_SPLIT) and not (f & F_ACTED) and self.hshoot[slot] == 0 \
                and self.seat_shot[seat]:
            ok = True  # X5
        if not ok:
            return "a shoot bet is allowed only before the fourth card on a three-card hand (X4, X5)"
        if self.outstanding_shoot + amount > self.kitty:
            return "the shoot bets would exceed the kitty of %d (X4)" % self.kitty
        if n == 3:
            self.hflags[slot] = f | F_SHOT4
        self.hshoot[slot] += amount
        self.seat_shot[seat] = 1
        self.outstanding_shoot += amount
        return None

    def _play_index(self, seat):
        for i in range(self.nplayers):
            if self.porder[i] == seat:
                return i
        return -1

    # ----------------------------------------------------------------- players (P)
    def _action(self, ev, seat, amount, commit):
        if self.phase != PH_PLAY:
            if self.phase == PH_BANKER:
                return "the players' turns are over: it is the banker's turn (K1)"
            return "no player acts now: %s" % self._waiting()
        if not 1 <= seat <= self.seats:
            return "there is no seat %d" % seat
        slot = self.order[self.cur]
        who = self.hseat[slot]
        if self.pend != PEND_NONE:
            return "a card is due to seat %d first" % who
        if seat != who:
            if seat == self.banker and not self.casino:
                return "the banker plays after every player (K1)"
            return "it is seat %d's turn, not seat %d's (P1)" % (who, seat)
        n = self.ncards[slot]
        f = self.hflags[slot]
        total = self.hand_total(slot)
        r = self.rules
        if ev == EV_STICK:
            if total < r.stick_min:
                return "stick needs a total of %d or more (P6)" % r.stick_min
            if not commit:
                return None
            self.hflags[slot] = f | F_DONE | F_ACTED
            self._advance()
            return None
        if ev == EV_TWIST:
            if total >= 21:
                return "a hand of 21 takes no more cards (P7)"
            if not commit:
                return None
            self.hflags[slot] = f | F_TWISTED | F_ACTED
            self._pend(PEND_ONE, slot, 1)
            return None
        if ev == EV_BUY:
            if self.casino:
                return "there is no buying in the casino game: twist or double (P10)"
            if f & F_TWISTED:
                return "after a twist the hand can only twist (P5)"
            if total >= 21:
                return "a hand of 21 takes no more cards (P7)"
            if n == 4 and r.four_card_eleven_twist_only and \
                    hands.hard_total(self.cards, slot * MAX_CARDS, 4) <= 11:
                return "a four-card hand of 11 or less may only twist (V5)"
            lo = self.initial[seat]
            hi = self.hlastbuy[slot] if self.hlastbuy[slot] else 2 * lo
            if amount < lo or amount > hi:
                return "this buy must add %d to %d units (P4)" % (lo, hi)
            if not commit:
                return None
            self.hstake[slot] += amount
            self.hlastbuy[slot] = amount
            self.hflags[slot] = f | F_ACTED
            self._pend(PEND_ONE, slot, 1)
            return None
        if ev == EV_DOUBLE:
            if not self.casino:
                return "double is only in the casino game; buy instead (P4, P10)"
            if f & F_DOUBLED:
                return "a hand may double only once (P10)"
            if total >= 21:
                return "a hand of 21 takes no more cards (P7)"
            if not commit:
                return None
            self.hstake[slot] += self.initial[seat]
            self.hflags[slot] = f | F_DOUBLED | F_ACTED
            self._pend(PEND_ONE, slot, 1)
            return None
        if ev == EV_SPLIT:
            if n != 2 or (f & F_ACTED):
                return "only a two-card hand that has not acted can split (P3)"
            base = slot * MAX_CARDS
            a = self.cards[base]
            b = self.cards[base + 1]
            if self.casino:
                if point(a) != point(b):
                    return "a split needs two cards of equal value (P3)"
            elif a >> 2 != b >> 2:
                return "a split needs two cards of equal rank: %s and %s differ (P3)" % (
                    card_name(a), card_name(b))
            if r.split_aces_only and a >> 2 != 0:
                return "only aces may be split (V1)"
            limit = 3 if self.casino else 4
            if self.seat_hands[seat] >= limit:
                return "a seat may hold at most %d hands (P3)" % limit
            if not commit:
                return None
            new = self.nslots
            self.nslots += 1
            self._clear_slot(new)
            self.hseat[new] = seat
            self.hstake[new] = self.initial[seat]
            self.hflags[new] = F_SPLIT
            self.hflags[slot] = f | F_SPLIT
            self.cards[new * MAX_CARDS] = b
            self.ncards[new] = 1
            self.ncards[slot] = 1
            # P3 ruling: the new hand goes right after the split one.
            for i in range(self.norder, self.cur + 1, -1):
                self.order[i] = self.order[i - 1]
            self.order[self.cur + 1] = new
            self.norder += 1
            self.seat_hands[seat] += 1
            for i in range(self.norder):
                if self.hseat[self.order[i]] == seat:
                    self.hflags[self.order[i]] |= F_SPLIT
            self.pend_slot2 = new
            self._pend(PEND_SPLIT, slot, 2)
            return None
        if ev == EV_BURN:
            if not r.burn:
                return "burning is not played: rules option burn is off (V8)"
            base = slot * MAX_CARDS
            if n != 2 or (f & F_ACTED) or hands.has_ace(self.cards, base, 2) or \
                    hands.hard_total(self.cards, base, 2) != r.burn:
                return "only two cards making a hard %d can be burned (V8)" % r.burn
            if not commit:
                return None
            self._hand_under(slot)
            self.ncards[slot] = 0
            self._pend(PEND_BURN, slot, 2)
            return None
        return "unknown action"

    def _pend(self, kind, slot, count):
        self.pend = kind
        self.pend_slot = slot
        self.pend_left = count
        self._after_accept()

    def _play_card(self, code):
        if self.pend == PEND_SPLIT and self.pend_left == 1:
            slot = self.pend_slot2
        else:
            slot = self.pend_slot
        self._add_card(slot, code)
        self.pend_left -= 1
        if self.pend_left > 0:
            self._after_accept()
            return
        self.pend = PEND_NONE
        self._settle_automatic_then_advance()

    def _settle_automatic_then_advance(self):
        # P2, P7, P8: hands with no choice left end by themselves; then the next hand.
        slot = self.order[self.cur] if self.cur < self.norder else -1
        if slot >= 0 and not self._auto_end(slot):
            self._after_accept()
            return
        self._advance()

    def _auto_end(self, slot):
        """End the hand if it has no choice left; True when it ended."""
        n = self.ncards[slot]
        base = slot * MAX_CARDS
        total = hands.value(self.cards, base, n) & 63
        if total > 21:
            # P8: shown, the banker takes the current stake at once, cards under the pack.
            self.hflags[slot] |= F_BUST | F_DONE
            seat = self.hseat[slot]
            if self.casino:
                self._pay(seat, HOUSE, self.hstake[slot], slot)
            else:
                self._pay(seat, self.banker, self.hstake[slot] * self._single(1), slot)
            if self.hshoot[slot]:
                self.outstanding_shoot -= self.hshoot[slot]
                self._kitty_move(seat, self.hshoot[slot], slot)  # X6
            self._hand_under(slot)
            return True
        if n == 2 and hands.pontoon_grade(self.cards, base, 2, self.rules.pontoon_order) >= 0:
            self.pontoon_dealt = True
            self.hflags[slot] |= F_DONE
            return True
        if total == 21 or n >= MAX_CARDS:
            self.hflags[slot] |= F_DONE
            return True
        return False

    def _advance(self):
        """Move to the next hand that still has choices (P1), or to the banker."""
        self.cur += 1
        while self.cur < self.norder:
            if not self._auto_end(self.order[self.cur]):
                self._after_accept()
                return
            self.cur += 1
        self._banker_turn()

    # ----------------------------------------------------------------- banker (K)
    def _standing(self):
        for i in range(self.norder):
            if not self.hflags[self.order[i]] & F_BUST:
                return True
        return False

    def _banker_turn(self):
        if not self._standing():
            self._end_deal()  # K2: nothing left to settle
            return
        self.phase = PH_BANKER
        if self.casino and self._dealer_stands():
            self._settle()
            return
        self._after_accept()

    def _dealer_stands(self):
        # K1 casino: draw to soft 17 inclusive, stand on hard 17 or more; five cards stop.
        v = hands.value(self.cards, 0, self.ncards[0])
        total = v & 63
        if self.ncards[0] >= MAX_CARDS or total > 21:
            return True
        if total > 17:
            return True
        if total == 17:
            return v < hands.SOFT
        return False

    def _banker_card(self, code):
        self._add_card(0, code)
        total = self.hand_total(0)
        if self.casino:
            if self._dealer_stands():
                self._settle()
            else:
                self._after_accept()
            return
        if total > 21 or self.ncards[0] >= MAX_CARDS:
            self._settle()
            return
        self._after_accept()

    def _stand(self):
        if self.casino:
            return "the dealer stands by itself in the casino game (K1)"
        if self.phase != PH_BANKER:
            return "the banker stands only in his own turn, after every player (K1)"
        self._settle()
        return None

    def _banker_pontoon_at_deal(self):
        # D4 (X3, V4, V7 ruling): the banker's Pontoon collects at once; nobody acts.
        self.pontoon_dealt = True
        self.banker_pontoon = True
        order = self.rules.pontoon_order
        bgrade = hands.pontoon_grade(self.cards, 0, 2, order)
        if self.casino:
            mult = 1
        elif self.rules.banker_pontoon_collects_single:
            mult = self._single(1)
        else:
            mult = self._single(self.rules.pontoon_pays)
        for i in range(self.norder):
            slot = self.order[i]
            seat = self.hseat[slot]
            grade = hands.pontoon_grade(self.cards, slot * MAX_CARDS, 2, order)
            if not self.casino and grade > bgrade:
                self._pay(self.banker, seat, self.hstake[slot] * self._win_mult(hands.KIND_PONTOON), slot)
                self._shoot_settle(slot, True)
            else:
                self._pay(seat, self.banker, self.hstake[slot] * mult, slot)
                self._shoot_settle(slot, False)
        self.hflags[0] |= F_DONE
        self._end_deal()

    def _shoot_settle(self, slot, won):
        amount = self.hshoot[slot]
        if amount:
            self.outstanding_shoot -= amount
            self._kitty_move(self.hseat[slot], -amount if won else amount, slot)  # X7

    def _settle(self):
        # S1-S4 against the banker's final hand; only standing hands take part (K2).
        order = self.rules.pontoon_order
        bn = self.ncards[0]
        btotal = self.hand_total(0)
        bbust = btotal > 21
        bfive = not bbust and bn >= MAX_CARDS
        bstrength = hands.strength(self.cards, 0, bn, order, False)
        banker = self.banker
        for i in range(self.norder):
            slot = self.order[i]
            if self.hflags[slot] & F_BUST:
                continue
            seat = self.hseat[slot]
            royal = self.rules.royal_pontoon
            kind = hands.kind(self.cards, slot * MAX_CARDS, self.ncards[slot], order, royal)
            st = hands.strength(self.cards, slot * MAX_CARDS, self.ncards[slot], order, royal)
            stake = self.hstake[slot]
            if bbust:
                won = True
            elif bfive:
                won = st >= hands.STRENGTH_PONTOON  # S3: only Pontoons are paid
            else:
                won = st > bstrength  # S2, H7: ties to the banker
            if won:
                self._pay(banker, seat, stake * self._win_mult(kind), slot)
            else:
                if self.casino:
                    mult = 1  # S4: every loss single
                elif bfive:
                    mult = 2  # S3
                else:
                    mult = self._single(1)
                self._pay(seat, banker, stake * mult, slot)
            self._shoot_settle(slot, won)
        self.hflags[0] |= F_DONE
        self._end_deal()

    # ----------------------------------------------------------------- between deals (N)
    def _end_deal(self):
        for slot in range(self.nslots):
            if not self.hflags[slot] & F_BUST:
                base = slot * MAX_CARDS
                for i in range(self.ncards[slot]):
                    self._under(self.cards[base + i])
        self._close_layer()
        self.phase = PH_IDLE
        self.deals_ended += 1
        self.last_void = False
        self.last_counted = True
        old_banker = self.banker
        if self.casino:
            # N1 ruling: shuffle when less than a quarter of the shoe is left.
            if self.in_shoe * 4 < self.copies:
                self.want_shuffle = True
        else:
            if self.pontoon_dealt:
                self.want_shuffle = True  # N1
            if not self.banker_pontoon:
                # N2: the unsplit Pontoon nearest the banker's left takes the bank.
                for i in range(self.norder):
                    slot = self.order[i]
                    if self.hflags[slot] & F_SPLIT or self.ncards[slot] != 2:
                        continue
                    if hands.pontoon_grade(self.cards, slot * MAX_CARDS, 2,
                                           self.rules.pontoon_order) >= 0:
                        self._move_bank(self.hseat[slot])
                        break
            if self.rules.shoot and self.kitty == 0 and self.banker == old_banker:
                self.need_kitty = 1  # X8: an empty kitty is put up again
        if self.rules.preset == _TABLE:
            self.counted += 1
            if self.counted >= 8:
                self.phase = PH_OVER  # T1

    def _void(self):
        # N3: every payment of the deal is reverted; not counted; shuffle.
        for s in range(self.seats + 1):
            self.balance[s] -= self.deal_net[s]
            self.deal_net[s] = 0
        self.kitty -= self.deal_kitty
        self.deal_kitty = 0
        for slot in range(self.nslots):
            self.hnet[slot] = 0
        for i in range(self.copies):
            if self.loc[i] == LOC_TABLE:
                self.loc[i] = self.next_layer
                self.in_shoe += 1
        self._find_top()
        self._close_layer()
        self.phase = PH_IDLE
        self.pend = PEND_NONE
        self.want_shuffle = True
        self.deals_ended += 1
        self.last_void = True
        self.last_counted = False

    def _after_accept(self):
        # N3 ruling: a deal that needs a card the shoe no longer holds is void at once.
        if self.card_due() and self.in_deal() and self._runs_out():
            self._void()

    def _waiting(self):
        ph = self.phase
        if ph == PH_IDLE:
            if self.want_shuffle:
                return "the pack must be shuffled"
            return "the next deal has not begun"
        if ph == PH_STAKES or ph == PH_BETS:
            return "seat %d must stake" % self.porder[self.pos]
        if ph == PH_DEAL1 or ph == PH_DEAL2:
            return "the deal is going round"
        if ph == PH_BANKER:
            return "it is the banker's turn"
        return "waiting"
