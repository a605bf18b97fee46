"""The same card after a shuffle, and its class, on the MicroPython VM (the .mpy firmware
against the simulated board): the deck's stickers (boards/simdev/deck.py) never change, so
a card that comes out again is the same UID (test_app_deck.py plays it on CPython)."""
from vm_table import VMTable

from boards.simdev.deck import card_sticker

CUT = "preset = table\nseats = 4\nbanker = cut\n"


def test_a_card_out_again_after_a_shuffle_or_other_cards_is_read_and_judged(tmp_path):
    vm = VMTable(str(tmp_path / "flash"), CUT)
    tags = dict((c, card_sticker(c)) for c in ("2C", "5D", "9H", "KS"))

    def wave(ms, card):
        t = tags[card]
        vm.at(ms, lambda: vm.world.pn532.put(t))
        vm.at(ms + 40, lambda: vm.world.pn532.remove(t))

    for i, c in enumerate(("2C", "5D", "9H", "KS")):   # the cut: seat 4 takes the bank
        wave(500 + 300 * i, c)
    vm.type(1800, "shuffle")
    wave(2200, "KS")        # the cut's last card, first out after the shuffle: dealt
    wave(2500, "KS")        # waved again at once: the card just dealt, one card
    wave(2800, "9H")        # another of the cut's cards: dealt
    wave(3100, "KS")        # KS again, after another card: judged, already on the table
    vm.until = lambda v: v.now() > 3600
    assert vm.run() == 0
    said = [x for x in vm.out if x[:2] in ("* ", "ok", "! ") and x != "ok halted"]
    assert said == [
        "* #1 card 2C cut for seat 1", "* #2 card 5D cut for seat 2",
        "* #3 card 9H cut for seat 3", "* #4 card KS cut for seat 4",
        "ok #5 shuffle",
        "* #6 card to seat 1 (face down)",
        "* #7 card to seat 2 (face down)",
        "! card: that card is already on the table (R2)",
    ], vm.out
