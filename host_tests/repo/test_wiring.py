"""The wiring diagrams in docs/ are drawn from the board files (tools/wiring.py): a pin
changed in boards/pico.py without the picture redrawn fails here, and so does a wiring the
RP2040 cannot do; so does a power wiring the supplies cannot carry (docs/BUILD.md, 3)."""
import os
import re

import pytest

from conftest import ROOT

import wiring as W


@pytest.mark.parametrize("name", sorted(W.BOARDS))
def test_the_picture_in_docs_is_the_board_files_wiring(name):
    assert W.stale(name) is None


@pytest.mark.parametrize("name", sorted(W.BOARDS))
def test_every_pin_of_the_board_file_is_in_the_diagram(name):
    c = W.board_constants(name)
    rows = W.connections(c)
    by_gpio = {r[0]: r for r in rows if r[0] is not None}
    for button, gpio in zip(c["BUTTONS"], c["BUTTON_PINS"]):
        assert by_gpio[gpio][3] == "button " + button
        assert by_gpio[gpio][1] == W.HEADER[gpio]
    assert by_gpio[c["SDA"]][4] == "SDA" and by_gpio[c["SCL"]][4] == "SCL"
    assert by_gpio[c["PN532_IRQ"]][4] == "IRQ" and by_gpio[c["PN532_RESET"]][4] == "RSTPDN"
    assert by_gpio[c["BUZZER"]][3] == "buzzer" and by_gpio[c["BUZZER"]][2] == "PWM output"
    assert len(by_gpio) == 5 + len(c["BUTTONS"])
    assert [x[2:] for x in W.displays(c)] == [tuple(s) for s in c["SLOTS"]]


@pytest.mark.parametrize("name", sorted(W.BOARDS))
def test_every_power_feed_and_ground_of_the_board_file_is_in_the_diagram(name):
    c = W.board_constants(name)
    rows = W.connections(c)
    for source, part in c["POWER"]:
        feed = [r for r in rows if r[2] == source and r[3] == part]
        assert len(feed) == 1, (source, part)
        assert feed[0][1] == W.SUPPLY_PINS.get(source), feed     # a Pico pin, or a part's OUT
        if source not in W.SUPPLY_PINS:
            out = [r for r in rows if r[3] == source and r[4] == "OUT"]
            assert len(out) == 1 and part in out[0][5]
    grounds = [r[3] for r in rows if r[2] == "GND"]
    assert grounds == list(c["GROUND"])
    assert {r[1] for r in rows if r[2] == "GND"} == {W.GND_PIN}
    assert W.OTHER[W.GND_PIN] == "GND" and all(W.OTHER[p] == s for s, p in
                                                W.SUPPLY_PINS.items())


def power_budget():
    """docs/BUILD.md, 3: the worst current of each part, what 3V3(OUT) may carry, and what
    the separate regulator of the parts list is rated for."""
    with open(os.path.join(ROOT, "docs", "BUILD.md"), encoding="utf-8") as f:
        text = f.read()
    power = text[text.index("## 3. Power"):text.index("## 4.")]
    worst = {}
    for row in power.splitlines():
        cells = [x.strip() for x in row.strip("|").split("|")]
        if len(cells) == 3 and cells[2].endswith("mA") and not cells[0].startswith("**"):
            worst[cells[0].split()[0]] = int(re.findall(r"\d+", cells[2])[-1])
    pico_out = int(re.search(r"3V3\(OUT\) pin 36\) is specified for about (\d+) mA", power)
                   .group(1))
    regulator = int(re.search(r"regulator board of (\d+) mA or more", text).group(1))
    return worst, pico_out, regulator


def test_no_supply_of_the_board_file_carries_more_than_it_gives():
    c = W.board_constants("pico")
    worst, pico_out, regulator = power_budget()
    per_part = {"PN532": worst["PN532"], "TCA9548A": worst["TCA9548A"],
                "displays": worst["SSD1306"] * len(c["SLOTS"]), "I2C pull-ups": 2,
                "3.3 V regulator": 0}
    def load(source):
        return sum(per_part[p] for p in W.load_on(c, source))
    assert set(W.load_on(c, "VBUS")) | set(W.load_on(c, "3V3(OUT)")) >= set(W.POWERED)
    assert load("3V3(OUT)") <= pico_out
    assert load("3.3 V regulator") <= regulator
    # the wiring the picture once showed, everything on 3V3(OUT), is over it (the test
    # can fail)
    everything = dict(c, POWER=tuple(("3V3(OUT)", p) for p in W.POWERED))
    assert sum(per_part[p] for p in W.load_on(everything, "3V3(OUT)")) > pico_out


@pytest.mark.parametrize("name", sorted(W.BOARDS))
def test_the_two_displays_on_channel_0_are_both_drawn(name):
    c = W.board_constants(name)
    on = dict(W.channels(c))
    assert [(who, addr) for _, who, addr in on[0]] == [("seat 1", 0x3C), ("banker", 0x3D)]
    assert sum(len(v) for v in on.values()) == len(c["SLOTS"])


def test_the_pico_ws_board_is_the_picos_wiring():
    assert W.board_constants("pico_w")["SLOTS"] == W.board_constants("pico")["SLOTS"]
    assert "Wi-Fi chip" in W.listing("pico_w")


@pytest.mark.parametrize("change,why", [
    ({"SDA": 5}, "cannot use GP5 as SDA"),            # GP5 is an SCL pin of I2C0
    ({"I2C_ID": 1}, "I2C1 cannot use GP4"),
    ({"PN532_IRQ": 10}, "GP10 wired twice"),          # a button's pin
    ({"BUTTON_PINS": (10, 11, 12, 13, 14, 15, 16, 23)}, "GP23 has no header pin"),
    ({"BUTTONS": ("STICK",)}, "differ in length"),
    ({"BUZZER": 17}, "GP17 wired twice"),
    ({"POWER": (("VBUS", "PN532"), ("3V3(OUT)", "PN532"), ("3V3(OUT)", "TCA9548A"),
                ("3V3(OUT)", "displays"))}, "PN532 fed twice"),
    ({"POWER": (("VBUS", "3.3 V regulator"), ("3.3 V regulator", "PN532"),
                ("3V3(OUT)", "TCA9548A"))}, "displays fed by nothing"),
    ({"POWER": (("5V", "PN532"), ("3V3(OUT)", "TCA9548A"), ("3V3(OUT)", "displays"))},
     "5V feeds PN532"),
    ({"GROUND": ("PN532", "TCA9548A", "displays")}, "3.3 V regulator has no GND"),
])
def test_a_wiring_the_rp2040_cannot_do_is_refused(change, why):
    c = dict(W.board_constants("pico"), **change)
    with pytest.raises(W.WiringError) as e:
        W.connections(c)
    assert why in str(e.value)


def test_a_pin_moved_in_the_board_file_makes_the_picture_stale(monkeypatch):
    real = W.board_constants

    def moved(name):
        c = real(name)
        pins = list(c["BUTTON_PINS"])
        pins[0], pins[1] = pins[1], pins[0]          # STICK and TWIST swapped
        return dict(c, BUTTON_PINS=tuple(pins))
    monkeypatch.setattr(W, "board_constants", moved)
    assert "differs from boards/pico.py" in W.stale("pico")


def test_a_power_feed_moved_in_the_board_file_makes_the_picture_stale(monkeypatch):
    real = W.board_constants

    def moved(name):
        c = real(name)
        return dict(c, POWER=tuple(("3V3(OUT)", p) if p == "PN532" else (s, p)
                                   for s, p in c["POWER"]))
    monkeypatch.setattr(W, "board_constants", moved)
    assert "differs from boards/pico.py" in W.stale("pico")
