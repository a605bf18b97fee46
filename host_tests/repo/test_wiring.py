"""The wiring diagrams in docs/ are drawn from the board files (tools/wiring.py): a pin
changed in boards/pico.py without the picture redrawn fails here, and so does a wiring the
RP2040 cannot do."""
import pytest

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
    assert len(by_gpio) == 4 + len(c["BUTTONS"])
    assert [x[2:] for x in W.displays(c)] == [tuple(s) for s in c["SLOTS"]]


def test_the_pico_ws_board_is_the_picos_wiring():
    assert W.board_constants("pico_w")["SLOTS"] == W.board_constants("pico")["SLOTS"]
    assert "Wi-Fi chip" in W.listing("pico_w")


@pytest.mark.parametrize("change,why", [
    ({"SDA": 5}, "cannot use GP5 as SDA"),            # GP5 is an SCL pin of I2C0
    ({"I2C_ID": 1}, "I2C1 cannot use GP4"),
    ({"PN532_IRQ": 10}, "GP10 wired twice"),          # a button's pin
    ({"BUTTON_PINS": (10, 11, 12, 13, 14, 15, 16, 23)}, "GP23 has no header pin"),
    ({"BUTTONS": ("STICK",)}, "differ in length"),
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
