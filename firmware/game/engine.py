# The Pontoon engine: a pure state machine fed one event at a time (docs/TRANSCRIPT.md).
# No I/O, no clock, no hardware. `apply` answers None (accepted) or a reason (rejected,
# state unchanged). Hands live in preallocated byte buffers, one byte per card; an
# accepted card allocates nothing. Rule IDs: docs/RULES.md, rulings to docs/RULINGS.md.
# This module holds the state, its layout and the queries; the rules' work is in
# shoe_layers, deal, actions, bank_options and settlement (functions of the engine).
from micropython import const


import sys
from array import array

from . import actions
from . import deal
from . import hands
from . import settlement
from .rules import packs_error, seats_error
from .shoe_layers import shuffle, start_cut_round

if sys.implementation.name != "micropython":  # CPython: no machine code
    from .native_shim import micropython, ptr8  # noqa: F401

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
_PEND_ONE = const(1)  # buy, twist, double: one card to the current hand
_PEND_SPLIT = const(2)  # one card to the current hand, then one to the new hand
_PEND_BURN = const(3)  # two cards to the current hand

# Hand flags.
F_TWISTED = const(1)
F_BUST = const(2)
F_DONE = const(4)
_F_ACTED = const(8)  # bought, twisted, doubled or stuck: no split/burn any more
F_DOUBLED = const(16)
_F_SPLIT = const(32)  # the seat split this hand (it or its ancestor): no bank move (P9)
F_SHOT4 = const(64)  # X4 shoot placed on this three-card hand: its fourth card must follow
_F_X5_CHANCE = const(128)  # X5: split off while the seat had a shoot bet standing

# Shoe locations per physical card copy (C4, R2).
LOC_TABLE = const(255)
_LOC_DISCARD = const(254)  # casino discard tray

MAX_CARDS = const(5)
MAX_AMOUNT = const(1000000)  # for parsing; the rules cap stakes and the kitty
_HOUSE = const(0)
_MAX_SHOOT = const(10000)  # the largest kitty: keeps a hand's amounts in 16 bits

_P_CASINO = const(2)


# State layout. Scalars (the phase, the kitty, the deal's position, ...) are attributes of
# the engine, all made in __init__ (an accepted event only changes their values, which
# allocates nothing). Hands, seats and the shoe live in seven preallocated buffers (no
# per-card or per-hand objects), so the whole state stays small enough to copy into a snapshot.
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
# ... and bytes [hands held, cut card, in this cut round].
_SB = const(3)
_SB_HANDS = const(0)
_SB_CUT = const(1)
_SB_CUT_IN = const(2)



# The scalars in the order snapshot.py saves them (registers()).
_REGISTER_NAMES = (
    "phase", "casino", "seats", "packs", "copies", "max_hands", "banker", "kitty",
    "deal_kitty", "need_kitty", "want_shuffle", "deals", "counted", "deals_ended",
    "last_void", "last_counted", "pontoon_dealt", "banker_pontoon", "doubled", "shoot_pos",
    "outstanding_shoot", "pos", "cur", "pend", "pend_left", "pend_slot", "pend_slot2",
    "norder", "nslots", "nplayers", "top_layer", "top_count", "next_layer",
    "deal_layer_base", "in_shoe",
)


class Engine:
    """The game's state and what the controller, views and tools ask of it. The rules'
    work is done by functions of the engine in shoe_layers (R2, B1), deal (D), actions (P),
    bank_options (V3, X, N4) and settlement (K, S, N)."""

    def __init__(self, rules, seats, banker=0, packs=0):
        """rules: rules.Rules; seats: participants (casino: player seats); banker 0 = cut."""
        casino = rules.preset == _P_CASINO
        why = seats_error(rules.preset, seats, banker)
        if why:
            raise ValueError(why)
        why = packs and packs_error(packs)
        if why:
            raise ValueError(why)
        if not packs:
            packs = 8 if casino else (2 if seats >= 8 else 1)  # C1, C4 ruling
        # Hands: the banker's plus four per player (P3), three in casino.
        maxh = 1 + seats * 3 if casino else 1 + (seats - 1) * 4
        self.rules = rules
        for name in _REGISTER_NAMES:
            setattr(self, name, 0)
        self.hb = bytearray(maxh * _HB)
        self.hw = array("h", bytes(2 * _HW * maxh))
        self.sw = array("i", bytes(4 * _SW * (seats + 1)))
        self.sb = bytearray(_SB * (seats + 1))
        self.order = bytearray(maxh)  # player slots in play order
        self.porder = bytearray(seats)  # players in play order (B2)
        # Shoe: one byte per physical card copy = its layer, LOC_TABLE or _LOC_DISCARD.
        self.loc = bytearray(packs * 52)
        self.casino = 1 if casino else 0
        self.seats = seats
        self.packs = packs
        self.copies = packs * 52
        self.max_hands = maxh
        self.top_count = packs * 52
        self.in_shoe = packs * 52
        self.next_layer = 1
        self.deal_layer_base = 1
        if casino:
            self.banker = _HOUSE
            self.phase = PH_IDLE
        elif banker:
            self.banker = banker
            self.phase = PH_IDLE
        else:
            self.phase = PH_CUT
            start_cut_round(self, True)
        if rules.shoot and self.banker:
            self.need_kitty = 1

    def state(self):
        """The engine's whole state for snapshot.py: the scalars packed in a new array,
        then every buffer (nothing else changes after __init__). A boot that restores it
        (buffers in place, then set_registers) replays only the newest events."""
        return (self.registers(), self.hb, self.hw, self.sw, self.sb, self.order,
                self.porder, self.loc)

    def registers(self):
        return array("i", [getattr(self, name) for name in _REGISTER_NAMES])

    def set_registers(self, regs):
        for i in range(len(_REGISTER_NAMES)):
            setattr(self, _REGISTER_NAMES[i], regs[i])

    def state_bytes(self):
        """Bytes of game state (tools/bench_engine.py prints them against their budget)."""
        return (4 * len(_REGISTER_NAMES) + len(self.hb) + len(self.hw) * 2
                + len(self.sw) * 4 + len(self.sb) + len(self.order) + len(self.porder)
                + len(self.loc))

    # ----------------------------------------------------------------- hands and seats
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

    def shoot_room(self):
        """X2, X4: the most a shoot bet may be now, the kitty not yet covered by them."""
        return self.kitty - self.outstanding_shoot

    def kitty_room(self):
        """X8: the most the banker may add to the kitty now."""
        return self.rules.kitty_max - self.kitty

    def hand_shoot(self, slot):
        return self.hw[slot * _HW + _HW_SHOOT]

    def hand_net(self, slot):
        return self.hw[slot * _HW + _HW_NET]

    def slot_at(self, i):
        """The i-th player hand in play order."""
        return self.order[i]

    def balance(self, seat):
        return self.sw[seat * _SW + _SW_BALANCE]

    def winners(self):
        """The seats with the best balance, in seat order (T3: the session's winners)."""
        best = max(self.balance(s) for s in range(1, self.seats + 1))
        return [s for s in range(1, self.seats + 1) if self.balance(s) == best]

    def deal_net(self, seat):
        return self.sw[seat * _SW + _SW_NET]

    def initial_stake(self, seat):
        return self.sw[seat * _SW + _SW_INITIAL]

    @micropython.viper
    def hand_total(self, slot: int) -> int:
        hb = self.hb
        base = slot * _HB
        return int(hands.value(hb, base, ptr8(hb)[base + _HB_N])) & 63

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

    # The engine's modules write hands through these two.
    @micropython.viper
    def _add_card(self, slot: int, code: int):
        hb = ptr8(self.hb)
        base = slot * _HB
        n = hb[base + _HB_N]
        hb[base + n] = code
        hb[base + _HB_N] = n + 1

    def _clear_slot(self, slot):
        self.hb[slot * _HB + _HB_N] = 0
        self.hb[slot * _HB + _HB_FLAGS] = 0
        base = slot * _HW
        self.hw[base + _HW_STAKE] = 0
        self.hw[base + _HW_LASTBUY] = 0
        self.hw[base + _HW_SHOOT] = 0
        self.hw[base + _HW_NET] = 0

    # ----------------------------------------------------------------- the table
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
            s += self.sw[i * _SW + _SW_BALANCE]
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

    def _deal_slot(self, pos):
        # Round position -> slot: players first in play order, the banker last.
        return pos + 1 if pos < self.nplayers else 0

    def expected_card_slot(self):
        """Slot (hand) the next card goes to, -1 if none (cut: -2 - seat)."""
        ph = self.phase
        if ph == PH_CUT:
            return -2 - self.pos
        if ph == PH_DEAL1 or ph == PH_DEAL2:
            return self._deal_slot(self.pos)
        if ph == PH_PLAY and self.pend != PEND_NONE:
            if self.pend == _PEND_SPLIT and self.pend_left == 1:
                return self.pend_slot2
            return self.pend_slot
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
        if self.phase == PH_IDLE:
            return self.banker % self.seats + 1
        return -1

    def next_stake_seat(self):
        if self.phase == PH_STAKES or self.phase == PH_BETS:
            return self.porder[self.pos]
        return 0

    # ----------------------------------------------------------------- events
    @micropython.native
    def apply(self, ev, seat=0, amount=0, card=0):
        """Apply one event. None when accepted; else the reason, state unchanged."""
        if self.phase == PH_OVER:
            return "the session is over: eight deals were played (T1)"
        if ev == EV_CARD and not 0 <= card < 52:
            return "that is not a card"
        if amount < 0 or amount > MAX_AMOUNT:
            return "amounts must be 0 to %d units" % MAX_AMOUNT
        if ev == EV_CARD:
            return deal.card(self, card)
        if ev == EV_SHUFFLE:
            return shuffle(self)
        if ev == EV_VOID:
            if not self.in_deal():
                return "no deal is in progress to void (N3)"
            settlement.void(self)
            return None
        if self.phase == PH_CUT:
            return ("the cut for the first banker comes first: waiting for a card for seat %d (B1)"
                    % self.pos)
        if EV_BUY <= ev <= EV_BURN:
            return actions.act(self, ev, seat, amount, True)
        if ev == EV_STAKE:
            return deal.stake(self, seat, amount)
        if EV_SHOOT <= ev <= EV_SELL:
            # the banker's options of the classic game: a table that plays none of them
            # never imports them (each function imported is an object on the Pico's heap)
            import game.bank_options as bank_options
            if ev == EV_KITTY:
                return bank_options.kitty(self, amount)
            if ev == EV_SELL:
                return bank_options.sell(self, seat, amount)
            if ev == EV_BANKDOUBLE:
                return bank_options.bankdouble(self)
            return bank_options.shoot(self, seat, amount)
        if ev == EV_STAND:
            return settlement.stand(self)
        return "unknown event"

    def check(self, ev, seat=0, amount=0):
        """Would this player action be accepted now? None, or the reason (nothing changes)."""
        if self.phase == PH_OVER:
            return "the session is over"
        if EV_BUY <= ev <= EV_BURN:
            return actions.act(self, ev, seat, amount, False)
        return "only player actions can be checked"
