"""The physical deck (boards/simdev/deck.py) against the engine's shoe: dealt by the
autoplayer through whole sessions of every preset, the physical cards are where the engine
says (table, discard tray, shoe) and the shoe's top card is always in the engine's top layer;
a sticker never changes; a shuffle only reorders."""
import pytest

import autoplay
from game import engine as E
from game.rules import parse_rules
from game.transcript import Header

from boards.simdev.deck import Deck, card_sticker

CASES = [("table", (), 4), ("table", (), 8), ("casino", (), 3),
         ("classic", ("shoot=on", "burn=13", "banker_doubling=on"), 4)]


@pytest.mark.parametrize("preset,options,seats", CASES)
def test_the_deck_follows_the_engines_shoe_through_whole_sessions(preset, options, seats):
    events = 0
    for seed in range(1, 9):
        rules = parse_rules([preset] + list(options))
        h = Header()
        h.rules, h.seats, h.banker = rules, seats, 0 if rules.preset == 2 else 1
        e = h.engine()
        deck = Deck(e.packs, seed=seed)
        uids = [c.tag.uid for c in deck.cards]
        bot = autoplay.Autoplayer(e, seed, deck=deck)
        while not e.finished() and not (rules.preset != 0 and e.deals_ended >= 8
                                        and not e.in_deal()):
            ev = bot.next_event()
            assert e.apply(*ev) is None, ev
            if ev[0] == E.EV_CARD:
                assert deck.deal(ev[3]).code == ev[3]
            deck.follow(e, ev[0] == E.EV_SHUFFLE)
            assert deck.check(e) is None
            events += 1
        assert deck.stacked == 0
        assert [c.tag.uid for c in deck.cards] == uids          # stickers for life
        assert len(deck.shoe) + len(deck.table) + len(deck.discard) == 52 * e.packs
    assert events > 500


def test_a_shuffle_reorders_the_same_cards():
    deck = Deck(2, seed=5)
    before = list(deck.shoe)
    deck.shuffle()
    assert sorted(map(id, deck.shoe)) == sorted(map(id, before)) and deck.shoe != before
    assert len(set(c.tag.uid for c in deck.cards)) == 104   # two stickers per card code
    assert Deck(2, seed=5).shoe[0].tag.uid == before[0].tag.uid   # seeded: the same order


def test_which_copy_comes_out_is_the_shoes_order():
    deck = Deck(2, seed=3)
    first = next(c for c in deck.shoe if c.code == 0)
    assert deck.deal(0) is first                # the test names AC; the shoe picks the copy
    assert deck.stacked == 1
    assert deck.find(0) is not first and deck.find(0).code == 0
    assert card_sticker("AC", first.pack).uid == first.tag.uid
