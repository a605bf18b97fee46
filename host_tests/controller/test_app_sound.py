"""The dealer told without looking up (docs/CONTROLLER.md, "The buzzer"): the shoe ticks
when it takes a card and buzzes when it refuses one, cannot read it or sees two at once;
`sound = off` silences it. The board's piezo model (boards/simdev/piezo.py) hears every
tone: world.buzzer.tones, [(ms, "tick" | "buzz")]."""
import pytest
from app_support import Bench

from hardware import buzzer
from boards.simdev import ntag213
from boards.simdev.piezo import kind_of

CUT = "preset = table\nseats = 4\n"          # the first cards are the cut (B1): face up


def bench_with(tmp_path, extra=""):
    return Bench(str(tmp_path / "flash"), settings=CUT + extra)


def heard(b, since):
    return [k for ms, k in b.world.buzzer.since(since)]


def steps(b, ms):
    for _ in range(ms):
        b.t.step()
        b.world.clock.advance_us(1000)


def wave(b, tag, ms=40):
    """A card over the reader for `ms`, then off it; the output lines meanwhile."""
    n = len(b.out)
    b.world.pn532.put(tag)
    steps(b, ms)
    b.world.pn532.remove(tag)
    steps(b, 100)                                      # (a card gone: gone_polls listings)
    return b.out[n:]


def test_a_card_taken_ticks_and_the_tick_stops_by_itself(tmp_path):
    b = bench_with(tmp_path)
    assert b.world.buzzer.tones == []                  # nothing at boot
    t0 = b.world.clock.ms()
    out = b.card("AS")
    assert any(x.startswith("* #1 card AS") for x in out), out
    assert heard(b, t0) == ["tick"]
    start, hz, end = b.world.buzzer.played[-1]
    assert hz == buzzer.TICK_HZ
    # stopped from the loop once its time was up: the next pass (a millisecond here)
    assert end is not None and buzzer.TICK_MS - 1 <= end - start <= buzzer.TICK_MS + 2
    assert not b.world.buzzer.sounding()


def test_a_card_refused_buzzes_a_duplicate(tmp_path):
    b = bench_with(tmp_path)
    b.card("AS")
    b.card("KD")
    t0 = b.world.clock.ms()
    out = b.card("AS")                                 # its one sticker again, after another
    assert any(x.startswith("! card:") and "(R2)" in x for x in out), out
    assert heard(b, t0) == ["buzz"]
    steps(b, buzzer.BUZZ_MS)
    start, hz, end = b.world.buzzer.played[-1]
    assert hz == buzzer.BUZZ_HZ and buzzer.BUZZ_MS - 1 <= end - start <= buzzer.BUZZ_MS + 2


def test_a_card_when_none_is_expected_buzzes(tmp_path):
    b = bench_with(tmp_path, "banker = 1\n")
    for card in ("7H", "8D", "9C", "TS"):              # a first card each: stakes next
        b.card(card)
    t0 = b.world.clock.ms()
    out = b.card("8D")
    assert any(x.startswith("! card: no card is due") and "(D2)" in x for x in out), out
    assert not any(x.startswith("* #") for x in out)
    assert heard(b, t0) == ["buzz"]


def test_a_card_not_read_buzzes(tmp_path):
    b = bench_with(tmp_path)
    tag = ntag213.text_tag("KD", n=300)
    b.world.pn532.fault_tag_leaves_after(tag, 0)       # gone half-way through its read
    t0 = b.world.clock.ms()
    out = wave(b, tag)
    assert any(x.startswith("! reader ") for x in out), out
    assert not any(x.startswith("* #") for x in out)
    assert heard(b, t0) == ["buzz"]


def test_a_sticker_whose_reads_fail_buzzes(tmp_path):
    # a damaged sticker: it answers the listing, every READ of it is refused (a NAK)
    b = bench_with(tmp_path)
    tag = ntag213.text_tag("KD", n=303)
    tag.command = lambda data: (False, b"") if data[:1] == b"\x30" else \
        ntag213.NTAG213.command(tag, data)
    t0 = b.world.clock.ms()
    out = wave(b, tag, ms=300)
    assert any(x.startswith("! reader read-failed") for x in out), out
    assert not any(x.startswith("* #") for x in out)
    assert heard(b, t0) == ["buzz"]


def test_a_card_too_fast_to_read_buzzes(tmp_path):
    b = bench_with(tmp_path)
    t0 = b.world.clock.ms()
    out = wave(b, ntag213.text_tag("KD", n=301), ms=4)
    assert any(x.startswith("! reader unread") for x in out), out
    assert heard(b, t0) == ["buzz"]


def test_two_cards_at_once_buzz(tmp_path):
    b = bench_with(tmp_path)
    a, c = ntag213.text_tag("2C", n=310), ntag213.text_tag("9H", n=311)
    t0 = b.world.clock.ms()
    n = len(b.out)
    b.world.pn532.put(a)
    b.world.pn532.put(c)
    steps(b, 60)
    b.world.pn532.remove(a)
    b.world.pn532.remove(c)
    steps(b, 40)
    out = b.out[n:]
    assert any(x.startswith("! reader two-tags") for x in out), out
    assert not any(x.startswith("* #") for x in out)
    assert heard(b, t0) == ["buzz"]


def test_a_card_of_another_deck_buzzes(tmp_path):
    b = bench_with(tmp_path)
    t0 = b.world.clock.ms()
    out = wave(b, ntag213.blank_tag(n=320))             # no card record, no UID map
    assert any(x.startswith("! reader unknown-tag") for x in out), out
    assert heard(b, t0) == ["buzz"]


def test_a_card_entered_again_by_hand_buzzes_and_one_taken_by_hand_is_silent(tmp_path):
    # the card that fell on the floor: read, then entered by hand (R2 refuses it)
    b = bench_with(tmp_path)
    b.card("AS")
    t0 = b.world.clock.ms()
    b.press("OK", hold=900)
    assert b.screen(8)[7] == "> Enter card by hand"
    b.press("OK")                                      # the entry shows AC
    b.press("MINUS")                                   # AC -> KC ... back up to AC: AS is
    b.press("PLUS")                                    # the suit held: C D H S
    for _ in range(3):
        b.press("PLUS", hold=900)
    n = len(b.out)
    b.press("OK")
    assert any(x.startswith("! that card is already on the table (R2)") for x in b.out[n:]), \
        b.out[n:]
    assert heard(b, t0) == ["buzz"]
    b.press("MINUS")                                   # AS -> KS: not dealt yet, taken
    t1 = b.world.clock.ms()
    n = len(b.out)
    b.press("OK")
    assert any("by hand)" in x for x in b.out[n:]), b.out[n:]
    assert "tick" not in heard(b, t1)


def test_sound_off_silences_every_tone(tmp_path):
    b = bench_with(tmp_path, "sound = off\n")
    assert b.t.buzzer is None
    b.card("AS")
    b.card("KD")
    b.card("AS")                                       # refused: already on the table (R2)
    wave(b, ntag213.text_tag("QD", n=302), ms=4)       # unread
    assert any(x.startswith("* #1 card AS") for x in b.out)
    assert sum(x.startswith("! ") for x in b.out) == 2
    assert b.world.buzzer.tones == [] and b.world.buzzer.played == []


@pytest.mark.parametrize("value,ok", [("on", True), ("off", True), ("loud", False)])
def test_the_sound_setting(value, ok):
    from ledger import settings
    s = settings.parse(["sound = %s" % value])
    assert (s.error is None) == ok, s.error
    if ok:
        assert s.sound == (value == "on")
    else:
        assert "sound must be on or off" in s.error


def test_the_model_tells_the_two_tones_apart_by_pitch():
    assert buzzer.TICK_HZ != buzzer.BUZZ_HZ and buzzer.TICK_MS < buzzer.BUZZ_MS
    assert kind_of(buzzer.TICK_HZ) == "tick" and kind_of(buzzer.BUZZ_HZ) == "buzz"
    # a PWM's frequency a few hertz off (its divider's steps) is still the same tone
    assert kind_of(buzzer.TICK_HZ - 7) == "tick" and kind_of(buzzer.BUZZ_HZ + 3) == "buzz"
