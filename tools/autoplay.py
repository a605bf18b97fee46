"""Scripted players and a physical shoe, for benchmarks, the simulator and property tests.

Runs on CPython and MicroPython. `Autoplayer(engine, seed).next_event()` answers the next
transcript event a sensible table would produce: cards are drawn from the top layer of
the engine's own shoe model (the physical shoe: the rest of the pack above the cards that
went under it), players stick on 16 or more (never on three cards after a shoot bet for the
fourth, X4), split aces and eights, buy small hands and twist the rest; the banker draws
below 17. `play_session(...)` returns transcript lines.
"""
import sys

try:
    from game import engine as E
except ImportError:
    _here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.insert(0, _here + "/../firmware")
    from game import engine as E

import random

from game.cards import card_name
from game.transcript import event_text


class Autoplayer:
    def __init__(self, engine, seed=1, stick_on=16, banker_stands_on=17, deck=None):
        self.e = engine
        self.deck = deck            # boards/simdev/deck.Deck: the cards come from it
        self.rng = random.Random(seed) if hasattr(random, "Random") else None
        if self.rng is None:
            random.seed(seed)
            self.rng = random
        self.stick_on = stick_on
        self.banker_stands_on = banker_stands_on

    def _pick(self, n):
        return self.rng.randrange(n) if n > 1 else 0

    def draw(self):
        """The card on top of the physical shoe: the deck's (without one: any card of the
        engine's top layer, at random)."""
        e = self.e
        if self.deck is not None:
            top = self.deck.top()
            return top.code if top is not None and e.top_count else -1
        top = e.top_layer
        choices = [i for i in range(e.copies) if e.loc[i] == top] if e.top_count else []
        if not choices:
            return -1
        return choices[self._pick(len(choices))] % 52

    def next_event(self):
        """(event, seat, amount, card) or None when the table has nothing left to do."""
        e = self.e
        r = e.rules
        if e.finished():
            return None
        if e.want_shuffle and not e.in_deal():
            return (E.EV_SHUFFLE, 0, 0, 0)
        ph = e.phase
        rng = self.rng
        if ph == E.PH_IDLE and r.preset == 1 and e.banker and rng.randrange(20) == 0:
            buyer = e.banker % e.seats + 1
            return (E.EV_SELL, buyer, rng.randrange(4), 0)
        if ph == E.PH_DEAL2 and e.pos == 0 and not e.casino:
            # The window after the stakes: banker doubling (V3), shoot bets (X2).
            if r.banker_doubling and not e.doubled and rng.randrange(3) == 0:
                return (E.EV_BANKDOUBLE, 0, 0, 0)
            if r.shoot and e.shoot_pos < e.nplayers and rng.randrange(2) == 0:
                amount = 1 + rng.randrange(3)
                if amount <= e.shoot_room():
                    return (E.EV_SHOOT, e.porder[e.shoot_pos + rng.randrange(
                        e.nplayers - e.shoot_pos)], amount, 0)
        if ph == E.PH_IDLE:
            if r.shoot and not e.need_kitty and e.kitty_room() > 0 and rng.randrange(8) == 0:
                return (E.EV_KITTY, 0, 1, 0)
            if e.need_kitty:
                return (E.EV_KITTY, 0, max(r.kitty_min, min(r.kitty_max, 4 * r.stake_max)), 0)
            if e.casino:
                return (E.EV_STAKE, 1, self._stake(), 0)
        if ph in (E.PH_STAKES, E.PH_BETS):
            return (E.EV_STAKE, e.next_stake_seat(), self._stake(), 0)
        slot = e.current_slot()
        if slot >= 0 and e.pend == E.PEND_NONE:
            return self._player(slot)
        if ph == E.PH_BANKER and not e.casino:
            if e.hand_total(0) >= self.banker_stands_on:
                return (E.EV_STAND, 0, 0, 0)
        card = self.draw()
        if card < 0:
            return (E.EV_VOID, 0, 0, 0)
        return (E.EV_CARD, 0, 0, card)

    def _stake(self):
        r = self.e.rules
        hi = min(r.stake_max, r.stake_min + 4)
        return r.stake_min + self._pick(hi - r.stake_min + 1)

    def _player(self, slot):
        e = self.e
        seat = e.hand_seat(slot)
        total = e.hand_total(slot)
        n = e.ncards(slot)
        if n == 2 and e.card(slot, 0) >> 2 == e.card(slot, 1) >> 2 and e.card(slot, 0) >> 2 in (0, 7):
            if e.check(E.EV_SPLIT, seat) is None:
                return (E.EV_SPLIT, seat, 0, 0)
        r = e.rules
        if r.burn and n == 2 and e.check(E.EV_BURN, seat) is None and self.rng.randrange(2):
            return (E.EV_BURN, seat, 0, 0)
        if r.shoot and n == 3 and total < 21 and not e.hand_flags(slot) & E.F_SHOT4 \
                and e.outstanding_shoot + 1 <= e.kitty and self.rng.randrange(3) == 0:
            return (E.EV_SHOOT, seat, 1, 0)
        shot4 = n == 3 and e.hand_flags(slot) & E.F_SHOT4  # X4: the fourth card must follow
        if total >= max(self.stick_on, e.rules.stick_min) and not shot4:
            return (E.EV_STICK, seat, 0, 0)
        if e.casino:
            if n == 2 and 9 <= total <= 11 and not e.hand_flags(slot) & E.F_DOUBLED:
                return (E.EV_DOUBLE, seat, 0, 0)
            return (E.EV_TWIST, seat, 0, 0)
        if total <= 11 and not e.hand_flags(slot) & E.F_TWISTED:
            amount = e.initial_stake(seat)
            if amount <= e.buy_max(seat, slot):
                why = e.check(E.EV_BUY, seat, amount)
                if why is None:
                    return (E.EV_BUY, seat, amount, 0)
        return (E.EV_TWIST, seat, 0, 0)


def play_session(rules, seats, seed=1, banker=1, max_events=20000, deals=0, deck=None):
    """Transcript lines of a session played by scripted players.

    `table` plays its eight counted deals; other presets play `deals` deals (default 8).
    `deck` (boards/simdev/deck.Deck, as many packs as the engine's shoe): the cards are
    dealt from it, so the session is what that physical pack deals.
    """
    from game.transcript import Header

    h = Header()
    h.rules = rules
    h.seats = seats
    h.banker = 0 if rules.preset == 2 else banker
    eng = h.engine()
    if deck is not None and deck.packs != eng.packs:
        raise ValueError("a deck of %d packs for a shoe of %d" % (deck.packs, eng.packs))
    bot = Autoplayer(eng, seed, deck=deck)
    lines = h.lines()
    want = deals or 8
    for _ in range(max_events):
        if eng.finished() or (rules.preset != 0 and eng.deals_ended >= want and not eng.in_deal()):
            break
        ev = bot.next_event()
        if ev is None:
            break
        why = eng.apply(ev[0], ev[1], ev[2], ev[3])
        if why is not None:
            raise RuntimeError("autoplay produced a rejected event %s: %s" % (
                event_text(ev[0], ev[1], ev[2], ev[3]), why))
        if deck is not None:
            if ev[0] == E.EV_CARD:
                deck.deal(ev[3])
            deck.follow(eng, ev[0] == E.EV_SHUFFLE)
        lines.append(event_text(ev[0], ev[1], ev[2], ev[3]))
    return lines


def main(argv):
    import cli  # CPython only: the command line, not the players
    from game.rules import RulesError, parse_rules

    ap = cli.ArgumentParser(prog="autoplay.py", description="Print the transcript of a "
                            "session the scripted players decide (eight deals of table).")
    ap.add_argument("seats", type=cli.count, help="participants (casino: player seats)")
    ap.add_argument("seed", type=cli.whole, help="random seed")
    ap.add_argument("rules", nargs="*", default=[], metavar="PRESET/OPTION",
                    help="the rules line's words (default: table)")
    a = ap.parse_args(argv[1:])
    try:
        rules = parse_rules(a.rules or ["table"])
    except RulesError as e:
        cli.fail("autoplay.py", e)
    cli.check_seats("autoplay.py", rules.preset, a.seats)
    for line in play_session(rules, a.seats, a.seed):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

_ = card_name  # re-exported for callers that print cards
