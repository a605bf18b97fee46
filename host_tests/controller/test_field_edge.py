"""The reader at the field's edge (boards/simdev/pn532.py, field_edge(); tools/bench_field_edge.py):
READs that come back with a CRC or parity error or cut short while the tag lies in the field,
and a tag that leaves before its READ answer has ended on the air. The shoe reader
(firmware/hardware/shoe_reader.py) never uses a spoiled answer: it reads again while the card is
there, and says `! reader read-failed` / `! reader unread` when it could not; the card is
then dealt again and taken once, by the hand it was for."""
from app_support import Bench

import bench_field_edge as F
from boards.simdev import ntag213

CUT = "preset = table\nseats = 4\n"          # the first cards are the cut (B1): face up


def steps(b, ms):
    for _ in range(ms):
        b.t.step()
        b.world.clock.advance_us(1000)


def test_a_tag_that_leaves_while_its_read_answer_is_on_the_air_is_not_read(tmp_path):
    b = Bench(str(tmp_path / "flash"), settings=CUT)
    pn = b.world.pn532
    tag = ntag213.text_tag("KD", n=400)
    n = len(b.out)
    pn.put(tag)
    for _ in range(3000):                  # till the READ is on its way (listed, then READ)
        b.t.step()
        b.world.clock.advance_us(20)
        if pn.in_air is not None:
            break
    assert pn.in_air is not None and pn.in_air[0] > pn.now()
    pn.remove(tag)                         # gone before the tag's answer ended
    steps(b, 150)
    out = b.out[n:]
    assert pn.reads["left"] == 1 and pn.reads["ok"] == 0, pn.reads
    assert not any(x.startswith("* #") for x in out), out      # its data never used
    assert any(x.startswith("! reader unread") for x in out), out
    again = b.wave(tag)                    # asked for again: dealt again, taken once
    assert [x.split()[:4] for x in again if x.startswith("* #")] == [["*", "#1", "card", "KD"]]


def test_reads_spoiled_at_the_fields_edge_are_read_again_while_the_card_lies_there(tmp_path):
    b = Bench(str(tmp_path / "flash"), settings=CUT)
    pn = b.world.pn532
    pn.field_edge(0.5, seed=3)             # every other READ spoilt
    taken = []
    for text in ("7H", "8D", "9C", "TS"):     # the cut (B1): a card for each seat
        out = b.card(text)
        taken += [x for x in out if x.startswith("* #")]
        assert not any(x.startswith("!") for x in out), out
    failed = pn.reads["crc"] + pn.reads["parity"] + pn.reads["partial"]
    assert failed >= 2 and pn.reads["ok"] == 4, pn.reads   # (the kinds: the sessions below)
    # each card once, in order, none taken twice and none lost
    assert [x.split()[3] for x in taken] == ["7H", "8D", "9C", "TS"], taken


def test_a_card_whose_every_read_fails_is_asked_for_again_and_then_taken(tmp_path):
    b = Bench(str(tmp_path / "flash"), settings=CUT)
    pn = b.world.pn532
    pn.field_edge(0.999, seed=5)           # at the very edge: nothing comes through
    out = b.card("AS")
    assert any(x.startswith("! reader read-failed") for x in out), out
    assert not any(x.startswith("* #") for x in out), out
    pn.field_edge(0.0)
    steps(b, 200)
    out = b.card("AS")                     # the same card, dealt again as asked
    assert [x.split()[3] for x in out if x.startswith("* #")] == ["AS"], out
    assert not any(x.startswith("!") for x in out), out


def test_whole_sessions_at_the_fields_edge_deal_every_card_to_its_hand_once():
    # the short share of `make bench`'s tools/bench_field_edge.py: seeded, two sessions
    dealt_again = recovered = 0
    for seed in (1, 2):
        d, bad = F.cpython_session(seed, 0.2)
        assert bad == [], bad              # the journal is the script; nothing redone
        assert d.misattributed == 0 and d.counts["lost"] == 0 and d.retries == 0
        dealt_again += d.counts["again unread"] + d.counts["again read-failed"]
        recovered += d.counts["recovered"]
        assert d.reads["crc"] and d.reads["parity"] and d.reads["partial"], d.reads
    assert recovered >= 10 and dealt_again >= 1, (recovered, dealt_again)
