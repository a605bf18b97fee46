"""The shoe reader against a physical deck (boards/simdev/deck.py): every card keeps its one
sticker, so a card that comes out again is the same UID. The card just dealt, waved again
before anything else happens, is one card; any other return of a card (after a shuffle,
after other cards, after a press, an UNDO, in a new session) is read again and judged by
the engine. Each piece of reader state that outlives a card (firmware/hardware/shoe_reader.py's
header: the slot, the last UID, the hold, the release, the stickers known) is played here
for its stated life."""
import pytest

from app_support import Bench

CUT = "preset = table\nseats = 4\nbanker = cut\n"
FIXED = "preset = table\nseats = 4\nbanker = 1\n"


def accepted(lines):
    return [x for x in lines if x.startswith("* #")]


def refused(lines):
    return [x for x in lines if x.startswith("!")]


def cut_then_shuffle(b):
    """The issue's table: the cut 2C 5D 9H KS (seat 4 takes the bank), then the shuffle."""
    for c in ("2C", "5D", "9H", "KS"):
        assert accepted(b.card(c)), b.out[-4:]
    assert b.t.e.banker == 4
    assert b.send("shuffle").startswith("ok #5 shuffle")


def test_the_last_cut_card_first_out_after_the_shuffle_is_dealt(tmp_path):
    # R2, B1: the cut's cards went back and the pack was shuffled: KS is a card like any
    # other, and the shoe must read it (it once said nothing, for ever)
    b = Bench(str(tmp_path / "f"), settings=CUT)
    cut_then_shuffle(b)
    ks = b.deck.card_of("KS")
    out = b.card("KS")
    assert b.deck.table[-1] is ks                     # the same sticker, once more
    assert accepted(out) == ["* #6 card to seat 1 (face down)"], out
    assert not refused(out)
    assert b.t.e.ncards(1) == 1


def test_a_second_wave_of_the_card_just_dealt_is_one_card(tmp_path):
    b = Bench(str(tmp_path / "f"), settings=FIXED)
    assert accepted(b.card("QH"))
    qh = b.deck.card_of("QH")
    out = b.wave(qh.tag)                              # waved over the reader again
    assert out == [] or not (accepted(out) or refused(out)), out
    assert b.t.nev == 1
    assert accepted(b.card("10S")) == ["* #2 card to seat 3 (face down)"]


def test_a_card_that_lies_in_the_field_through_a_shuffle_is_read_once_it_comes_out(tmp_path):
    # the slot's life: a card in the field is one card, a shuffle or not; once it has left,
    # the last UID's life is over (the shuffle) and the card is read again
    b = Bench(str(tmp_path / "f"), settings=CUT)
    for c in ("2C", "5D", "9H"):
        assert accepted(b.card(c))
    b.follow()
    ks = b.deck.deal(b.deck.card_of("KS").code)
    n = len(b.out)
    b.world.pn532.put(ks.tag)                         # the cut's last card stays on the reader
    b.settle(100)
    assert accepted(b.out[n:]), b.out[n:]
    assert b.send("shuffle").startswith("ok #5 shuffle")
    b.settle(200)
    assert b.t.nev == 5, b.out[n:]                    # still in the field: not read again
    b.world.pn532.remove(ks.tag)
    b.settle(60)
    b.follow()
    assert b.deck.check(b.t.e) is None
    assert accepted(b.card("KS")) == ["* #6 card to seat 1 (face down)"]


RETURNS = {
    # how the card comes back -> what the table says
    "after another card": ("after_card", "! card: that card is already on the table (R2)"),
    "after a press": ("after_press", "! card: that card is already on the table (R2)"),
    "after an UNDO": ("after_undo", "! card: that card is already on the table (R2)"),
    "in a new session": ("new_session", None),
}


@pytest.mark.parametrize("how", sorted(RETURNS))
def test_any_other_return_of_a_card_is_judged_by_the_engine(tmp_path, how):
    step, refusal = RETURNS[how]
    b = Bench(str(tmp_path / "f"), settings=FIXED)
    for c in ("QH", "10S", "4C", "9D"):
        assert accepted(b.card(c))
    if step == "after_card":
        b.send("stake 2 1")
        b.send("stake 3 1")
        b.send("stake 4 1")
        assert accepted(b.card("2D"))                 # D1's second round
        back = b.deck.card_of("2D")
        assert accepted(b.card("3D"))
    elif step == "after_press":
        back = b.deck.card_of("9D")
        for seat in (2, 3, 4):
            assert b.send("stake %d 1" % seat).startswith("ok #")
    elif step == "after_undo":
        back = b.deck.card_of("9D")
        for seat in (2, 3, 4):
            assert b.send("stake %d 1" % seat).startswith("ok #")
        assert b.send("undo") == "ok undo: back at #6"
        assert b.send("stake 4 2") == "ok #7 stake 4 2"
    else:
        back = b.deck.card_of("9D")
        assert b.send("void").startswith("ok #")
        assert b.send("new").startswith("ok")
        b.settle(200)
    n = b.t.nev
    out = b.wave(back.tag)
    if refusal is None:                               # a new session's pack: dealt again
        assert accepted(out) == ["* #1 card to seat 2 (face down)"], out
        return
    assert refused(out) == [refusal], out
    assert b.t.nev == n
    # the reason, whole, at the foot of the banker's display (views.message wraps it)
    assert refusal[2:] in " ".join(b.screen(8)[1:]), b.screen(8)


def _step_until(b, prefix, ms=300):
    n = len(b.out)
    for _ in range(ms):
        b.t.step()
        b.world.clock.advance_us(1000)
        if any(x.startswith(prefix) for x in b.out[n:]):
            return b.out[n:]
    raise AssertionError("no %r within %d ms: %s" % (prefix, ms, b.out[n:]))


def test_the_hold_and_the_release_end_with_the_next_card(tmp_path):
    # the hold (settling: the card's display first) and the release after a reported card
    # live till the reader listens again: the next card, put in the field the instant the
    # last is reported, is read; the card just reported, back at once, is still one card
    b = Bench(str(tmp_path / "f"), settings=FIXED)
    b.follow()
    qh, ts = b.deck.deal(b.deck.card_of("QH").code), b.deck.deal(b.deck.card_of("10S").code)
    b.world.pn532.put(qh.tag)
    _step_until(b, "* #1")
    assert b.t.reader.settling() or b.t.reader.urgent()     # its hold or its release
    b.world.pn532.remove(qh.tag)
    b.settle(5)
    b.world.pn532.put(qh.tag)                           # back in at once: the same card
    b.settle(20)
    b.world.pn532.remove(qh.tag)
    assert b.t.nev == 1 and not refused(b.out)
    b.world.pn532.put(ts.tag)
    out = _step_until(b, "* #2", ms=100)
    assert "* #2 card to seat 3 (face down)" in out and not refused(out), out
    b.world.pn532.remove(ts.tag)
    b.settle(100)
    assert b.t.nev == 2 and not refused(b.out)


# --- the stickers known: a card read once is named by its UID (shoe_reader._known_card)
def _reads(b):
    return b.world.pn532.reads["ok"]            # READ exchanges the chip answered


def test_a_card_read_once_comes_out_again_known_by_its_sticker(tmp_path):
    # after the shuffle the cut's KS is named by its sticker's UID, no record read; a
    # card never read before is read
    b = Bench(str(tmp_path / "f"), settings=CUT)
    cut_then_shuffle(b)
    n = _reads(b)
    assert accepted(b.card("KS")) == ["* #6 card to seat 1 (face down)"]
    assert _reads(b) == n
    assert accepted(b.card("QH")) == ["* #7 card to seat 2 (face down)"]
    assert _reads(b) == n + 1


def test_a_known_card_pulled_too_fast_to_read_is_dealt_an_unknown_one_is_unread(tmp_path):
    b = Bench(str(tmp_path / "f"), settings=CUT)
    cut_then_shuffle(b)
    b.follow()
    ks = b.deck.deal(b.deck.card_of("KS").code)
    b.world.pn532.fault_tag_leaves_after(ks.tag, 0)     # gone at the first READ
    assert accepted(b.wave(ks.tag)) == ["* #6 card to seat 1 (face down)"]
    b.follow()
    qh = b.deck.deal(b.deck.card_of("QH").code)
    b.world.pn532.fault_tag_leaves_after(qh.tag, 0)
    out = b.wave(qh.tag)
    assert not accepted(out) and any(x.startswith("! reader unread") for x in out), out


def _filled(reader):
    k = reader._known
    return sum(1 for i in range(0, len(k), 6) if any(k[i:i + 6]))


def test_the_reader_knows_one_sticker_a_card(tmp_path):
    # a place a card code: a second sticker saying the same card (a second pack's copy, a
    # card of another deck) is read each time, never remembered
    from boards.simdev.deck import sticker
    b = Bench(str(tmp_path / "f"), settings=CUT)
    cut_then_shuffle(b)
    rd = b.t.reader
    assert _filled(rd) == 4                           # the cut's 2C 5D 9H KS
    n = _reads(b)
    other = sticker(b.deck.card_of("2C").code, 1)     # 2C of a second deck
    assert accepted(b.wave(other)) == ["* #6 card to seat 1 (face down)"]
    assert _reads(b) == n + 1 and _filled(rd) == 4
    assert len(rd._known) == 6 * 52


def test_the_card_checked_last_in_the_shoes_check_is_dealt_next(tmp_path):
    # the check polls the reader: the card it saw last, dealt next, is a card (it was taken
    # for the card just dealt, waved again: nothing said); the stickers are forgotten at
    # the check's end (ignore_field), so it is read
    b = Bench(str(tmp_path / "f"), settings=CUT)
    cut_then_shuffle(b)
    b.follow()
    ks = b.deck.card_of("KS")
    b.press("OK", hold=900)                           # the menu
    for _ in range(20):
        if any("> Check the shoe" in x for x in b.screen(8)):
            break
        b.press("PLUS")
    b.press("OK")
    assert b.screen(8)[0] == "Check the shoe"
    b.wave(ks.tag)
    b.settle(100)
    assert any(x.startswith("# check: card KS read in ") for x in b.out)
    b.press("UNDO")
    assert b.screen(8)[0] != "Check the shoe" and _filled(b.t.reader) == 0
    n = _reads(b)
    assert accepted(b.card("KS")) == ["* #6 card to seat 1 (face down)"]
    assert _reads(b) == n + 1


def test_a_tag_mode_run_lets_the_stickers_known_go(tmp_path):
    # a run may write records: after it every card is read anew
    b = Bench(str(tmp_path / "f"), settings=CUT)
    for c in ("2C", "5D", "9H", "KS"):
        assert accepted(b.card(c))
    assert b.send("tags check 1") == "ok tags check 1"
    assert b.send("tags stop") == "ok tags stop"
    b.settle(100)
    assert _filled(b.t.reader) == 0
    assert b.send("shuffle").startswith("ok #5 shuffle")
    n = _reads(b)
    assert accepted(b.card("KS")) == ["* #6 card to seat 1 (face down)"]
    assert _reads(b) == n + 1


def test_a_board_serving_phones_knows_the_stickers_too(tmp_path, monkeypatch):
    # the Pico W too (its 312 bytes are worth a READ saved on most cards: issue 43): a card
    # read once is named by its UID when it comes out again
    from boards import sim
    from game.cards import CODES
    monkeypatch.setattr(sim, "make_network", lambda settings: None, raising=False)
    b = Bench(str(tmp_path / "f"), settings=CUT + "web = off\n")
    assert len(b.t.reader._known) == 6 * CODES
    cut_then_shuffle(b)
    n = _reads(b)
    assert accepted(b.card("KS")) == ["* #6 card to seat 1 (face down)"]
    assert _reads(b) == n


def test_a_short_piece_of_other_work_goes_only_while_the_chip_works(tmp_path):
    # ShoeReader.urgent(short): a phone's message (web.Web.turn(True)) may go while the
    # PN532 works on a READ or a release, its answer not ready (IRQ high); never while an
    # answer waits to be read or a card waits to be taken
    b = Bench(str(tmp_path / "f"), settings=FIXED)
    b.follow()
    qh = b.deck.deal(b.deck.card_of("QH").code)
    r = b.t.reader
    b.world.pn532.put(qh.tag)
    seen = set()
    for _ in range(300):
        b.t.step()
        b.world.clock.advance_us(250)
        short = r.urgent(True)
        assert r.urgent() or not short
        if r._qn or r.link.ready():
            assert short, (r._step, r._qn)
        seen.add((r.urgent(), short))
        if b.t.nev:
            break
    assert b.t.nev == 1 and (True, False) in seen and (True, True) in seen, seen
