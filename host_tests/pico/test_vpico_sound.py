"""The buzzer on the virtual Pico: the shoe's own UF2 drives the PWM slice of boards/pico.py's
BUZZER pin (rp2040js emulates the PWM peripheral), tools/vpico/vpico.js works the tone out of
the slice's registers at each write and the piezo model hears it (p.world.buzzer.tones, a
new world at each boot). What it costs the reader and the displays: docs/DEVELOPING.md."""

from hardware import buzzer
from boards.simdev import ntag213
from test_vpico_firmware import _frozen_ready
from vpico.pico import Pico


def test_a_card_ticks_and_two_cards_at_once_buzz(tmp_path):
    _frozen_ready()
    p = Pico(str(tmp_path / "flash.bin"))
    try:
        p.boot()
        p.run_for(3.0)
        assert p.world.buzzer.tones == []                  # silent at boot
        tag = ntag213.text_tag("AS", n=1)
        p.deal(tag)
        p.run_for(0.3)
        p.remove(tag)
        p.run_for(0.5)
        two = ntag213.text_tag("2C", n=2), ntag213.text_tag("9H", n=3)
        for t in two:
            p.deal(t)
        p.run_for(0.3)
        for t in two:
            p.remove(t)
        p.run_for(0.8)
        out = bytes(p.out).decode(errors="replace")
    finally:
        p.close()
    assert "* #1 card AS cut for seat 1" in out and "! reader two-tags" in out, out[-400:]
    assert [k for _, k in p.world.buzzer.tones] == ["tick", "buzz"]
    (t0, tick_hz, t1), (b0, buzz_hz, b1) = p.world.buzzer.played
    # the pitch the emulated PWM makes (its divider's steps) and how long the loop let it
    # sound: from its start to the first pass of the loop after its time
    assert abs(tick_hz - buzzer.TICK_HZ) < 0.01 * buzzer.TICK_HZ
    assert abs(buzz_hz - buzzer.BUZZ_HZ) < 0.01 * buzzer.BUZZ_HZ
    assert buzzer.TICK_MS <= t1 - t0 < buzzer.TICK_MS + 30, t1 - t0
    assert buzzer.BUZZ_MS <= b1 - b0 < buzzer.BUZZ_MS + 30, b1 - b0
    print("\ntick %d Hz for %.1f ms, buzz %d Hz for %.1f ms" % (tick_hz, t1 - t0, buzz_hz,
                                                               b1 - b0))
