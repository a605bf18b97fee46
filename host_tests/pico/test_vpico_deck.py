"""The physical deck and the dealer's mistakes on the virtual Pico (the shoe's own UF2):
the first events of a `table` session dealt from boards/simdev/deck.py by tools/dealer.py's
dealer, in which the cut's last card is the first out after the shuffle (the card the shoe
once never read again), with each mistake at a seeded rate; the table's answers are the ones
docs/CONTROLLER.md promises and its journal is the script."""
import pytest

import dealer as D
from test_vpico_firmware import _frozen_ready
from vpico import table as T

S = T.S
SEATS = 3
SEED = 13           # the deck deals 6D last in the cut and first after the shuffle
RATE = 0.06         # a mistake on about two cards in five
EVENTS = 60         # its first 60 events (some 35 cards): the cut, the shuffle, deals
WALL = 1800


@pytest.fixture(scope="module")
def settled(tmp_path_factory):
    _frozen_ready()
    flash = str(tmp_path_factory.mktemp("vpico_deck") / "settled.bin")
    pico, _ = T.fresh_pico(flash, S.settings_text("table", SEATS))
    pico.power_cut()
    return flash


def test_a_session_dealt_with_the_dealers_mistakes_on_the_pico(settled):
    head, events = S.script_session("table", SEATS, SEED)
    cut = events.index("shuffle")
    assert events[cut - 1] == events[cut + 1] == "card 6D"
    d, bad = D.pico_session(SEED, RATE, SEATS, flash=settled, wall_timeout=WALL,
                            events_max=EVENTS)
    assert d.cards[cut - 1] is d.cards[cut + 1]       # one card, its one sticker
    assert bad == [] and d.done, bad                  # nothing lost, nothing misattributed
    assert sum(d.counts.values()) >= 5, d.counts
