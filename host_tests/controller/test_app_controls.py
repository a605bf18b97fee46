"""Serial lines, buttons, UNDO and settings of the table controller (CPython, simulated
board): one answer per line, clear errors, nothing hidden revealed."""
import os

import pytest
from app_support import Bench

import simtable as S

TABLE4 = "preset = table\nseats = 4\nbanker = 1\n"


@pytest.fixture
def bench(tmp_path):
    return Bench(str(tmp_path / "flash"), settings=TABLE4)


def deal_round(b, cards):
    for c in cards:
        out = b.card(c)
        assert any(x.startswith("* #") for x in out), out


@pytest.mark.parametrize("line,answer", [
    ("frobnicate", "error: unknown keyword 'frobnicate'"),
    ("stake 2", "error: 'stake' takes a seat number, an amount"),
    ("card ZZ", "error: 'ZZ' is not a card code"),
    ("stake two 3", "error: a seat must be a whole number, not 'two'"),
    ("rules casino", "error: 'rules' is a header line"),
    ("stick 2", "error: no player acts now"),
    ("stake 2 3", "error: stakes come after the first card of a deal"),
    ("shuffle", "error: nothing asked for a shuffle now"),
    ("press NOPE", "error: press takes a button"),
    ("defaults", "error: the settings are fine"),
    ("undo", "error: nothing to undo"),
])
def test_bad_serial_lines_get_one_clear_error(bench, line, answer):
    before = bench.journal()
    got = bench.send(line)
    assert got.startswith(answer), got
    assert bench.journal() == before


def test_serial_commands_and_events(bench):
    assert bench.send("help").startswith("ok events: card C")
    assert bench.send("status").startswith("ok status: 0 events, deal 0, banker 1")
    assert bench.send("card QH") == "ok #1 card to seat 2 (face down)"
    assert bench.send("card 10s") == "ok #2 card to seat 3 (face down)"
    assert bench.send("card qh").startswith("error: that card is already on the table")
    assert bench.send("card 4C") == "ok #3 card to seat 4 (face down)"
    assert bench.send("card 9D") == "ok #4 card to the banker (face down)"
    assert bench.send("stake 3 2").startswith("error: it is seat 2's turn to stake")
    assert bench.send("stake 2 9").startswith("error: a stake must be 1 to 5 units")
    assert bench.send("stake 2 4") == "ok #5 stake 2 4"
    # nothing hidden on the serial line: no card of the deal named
    text = "\n".join(bench.out)
    for name in ("QH", "TS", "4C", "9D"):
        assert name not in text.replace("card QH", "").replace("card qh", "")
    assert "Seat 3 to stake" in bench.screen(8)[6]


def test_stake_by_buttons_and_undo(bench):
    deal_round(bench, ["QH", "TS", "4C", "9D"])
    assert bench.screen(1)[7].startswith("Stake 1-5")
    for _ in range(2):
        bench.press("PLUS")
    assert "- 3 +" in bench.screen(1)[7]
    bench.press("OK")
    assert bench.journal().endswith("stake 2 3\n")
    assert bench.t.nev == 5
    # the next seat's entry is open; UNDO takes the stake back (a mistyped amount)
    bench.press("UNDO")
    assert bench.journal().endswith("card 9D\n") and bench.t.nev == 4
    assert any(x == "* undo: back at #4" for x in bench.out)
    assert bench.screen(1)[7].startswith("Stake 1-5")
    bench.press("PLUS")
    bench.press("OK")
    assert bench.journal().endswith("stake 2 2\n")
    # serial undo of a stake too
    assert bench.send("undo") == "ok undo: back at #4"
    assert bench.send("stake 2 5") == "ok #5 stake 2 5"


def test_undo_refused_after_a_card(bench):
    deal_round(bench, ["QH", "TS", "4C"])
    assert bench.send("undo") == "error: UNDO cannot take back a dealt card"
    bench.press("UNDO")
    assert bench.out[-1].startswith("! UNDO cannot take back a dealt card") or \
        any(x.startswith("! UNDO cannot take back a dealt card") for x in bench.out[-3:])
    assert " ".join(bench.screen(8)[6:]) == "UNDO cannot take back a dealt card"   # whole
    assert bench.t.nev == 3


def play_to_turn(b):
    deal_round(b, ["8H", "TS", "4C", "9D"])
    for seat in (2, 3, 4):
        assert b.send("stake %d 2" % seat).startswith("ok #")
    deal_round(b, ["4H", "9S", "7C", "8D"])          # seat 2: 8+4 = 12, banker 9+8


def test_turn_buttons_buy_twist_stick_and_undo_limits(bench):
    play_to_turn(bench)
    assert bench.screen(1)[6] == "Your turn"
    assert bench.screen(1)[7] == "TWIST BUY 2-4"          # 12: no stick (P6)
    # other seats see no cards but their own
    assert "8H" not in "".join(bench.screen(2)) and "8H" not in "".join(bench.screen(8))
    assert "9D" not in "".join(bench.screen(0)) and "face down" in bench.screen(8)[1]
    bench.press("STICK")                                  # 12: refused (P6)
    assert any(x.startswith("! stick needs a total of 15") for x in bench.out[-3:])
    for i in (1, 8):                     # whole on the seat's display and the banker's
        assert bench.screen(i)[6:] == ["stick needs a total", "of 15 or more (P6)"], \
            bench.screen(i)
    bench.press("BUY")
    bench.press("PLUS")
    bench.press("PLUS")
    bench.press("PLUS")                                    # capped at 4
    assert "- 4 +" in bench.screen(1)[7]
    bench.press("OK")
    assert bench.journal().endswith("buy 2 4\n")
    out = bench.card("3D")                                 # bought: face down
    assert "* #13 card to seat 2 (face down)" in out
    assert "3D" in bench.screen(1)[1] and "15" in bench.screen(1)[1]
    assert bench.send("undo") == "error: UNDO cannot take back a dealt card"
    bench.press("TWIST")
    assert bench.send("card 2S") == "ok #15 card 2S to seat 2"   # twisted: face up
    assert "17" in bench.screen(1)[1]
    bench.press("STICK")
    assert bench.journal().endswith("stick 2\n")
    assert bench.screen(2)[6].startswith("Your turn")        # seat 3: 10+9 = 19


def test_soft_total_and_long_press_menu(bench):
    deal_round(bench, ["AH", "TS", "4C", "9D"])
    for seat in (2, 3, 4):
        bench.send("stake %d 1" % seat)
    deal_round(bench, ["6H", "9S", "7C", "8D"])          # seat 2: A+6 = soft 17
    assert bench.screen(1)[1].endswith("soft 17")
    bench.press("OK", hold=900)                           # long press: the menu
    assert bench.screen(8)[7] == "> Void this deal"
    bench.press("UNDO")                                   # closes the menu
    assert bench.screen(8)[7] == ""
    bench.press("OK", hold=900)
    bench.press("OK")                                     # void
    assert bench.journal().endswith("void\n")
    assert "Shuffle, then OK" in bench.screen(8)[6]
    bench.press("OK")
    assert bench.journal().endswith("shuffle\n")


def test_debounce_ignores_a_glitch(bench):
    deal_round(bench, ["QH", "TS", "4C", "9D"])
    pin = bench.world.buttons[S.B["OK"]]
    for _ in range(5):                                     # 20 ms bounces
        pin.press()
        bench.settle(20)
        pin.release()
        bench.settle(20)
    assert bench.t.nev == 4
    bench.press("OK")
    assert bench.t.nev == 5


@pytest.mark.parametrize("text,message", [
    ("seats = 12\n", "settings.txt line 1: seats must be 2 to 8, the banker included, not 12"),
    ("seats = 9\n", "settings.txt line 1: seats must be 2 to 8, the banker included, not 9"),
    ("preset = poker\n", "settings.txt line 1: preset must be table, classic or casino"),
    ("seats 4\n", "settings.txt line 1: 'seats 4' is not a 'key = value' line"),
    ("preset = table\nshoot = on\n", "settings.txt line 2: option 'shoot' does not apply"),
    ("banker = 7\n", "settings.txt line 1: banker must be a seat from 1 to 4"),
    ("height = 48\n", "settings.txt line 1: height must be 32 or 64"),
    # every bad line at once, each with its number (not one a boot)
    ("preset = poker\nseats 4\n\nheight = 48\n", "settings.txt line 1: preset must be "
     "table, classic or casino, not 'poker'; line 2: 'seats 4' is not a 'key = value' line; "
     "line 4: height must be 32 or 64"),
])
def test_bad_settings_stop_the_table_with_a_clear_message(tmp_path, text, message):
    b = Bench(str(tmp_path / "f"), settings=text)
    assert any(x.startswith("error: " + message) for x in b.out), b.out
    for i in (0, 3, 8):
        assert b.screen(i)[0] == "** TABLE STOPPED **"
        assert "settings.txt" in " ".join(b.screen(i))
    assert not os.path.exists(b.flash + "journal.txt")
    assert b.send("card QH").startswith("error: the table is stopped: settings.txt")
    b.press("OK")                                          # OK: play with the defaults
    assert b.journal() == "rules table\nseats 4\n"
    assert "Cut" in b.screen(8)[6]
    b.settle(100)
    for i in range(4):                                     # the four seats of the defaults
        assert b.screen(i)[0].startswith("Seat %d" % (i + 1)), b.screen(i)
    for i in range(4, 8):                                  # displays no seat uses: cleared
        assert b.screen(i) == [""] * 8, (i, b.screen(i))


def test_defaults_and_settings_file(tmp_path):
    b = Bench(str(tmp_path / "none"), settings=None)      # no settings.txt
    assert b.journal() == "rules table\nseats 4\n"
    assert b.screen(8)[0].startswith("CUT FOR BANK")
    c = Bench(str(tmp_path / "classic"), settings=(
        "# a classic table\npreset = classic\nseats = 5\nbanker = 2\npacks = 2\n"
        "stake_max = 10  # comments too\nshoot = on\nheight = 32\n"))
    assert c.journal() == "rules classic stake_max=10 shoot=on\nseats 5\nbanker 2\npacks 2\n"
    assert c.t.screens.pages == 4
    assert c.screen(8)[6] == "" and "kitty" in c.screen(8)[2].lower()   # 4-line layout
    assert c.send("kitty 40") == "ok #1 kitty 40"


def test_reader_anomaly_is_reported(bench):
    from boards.simdev import ntag213
    tag = ntag213.text_tag("hello", n=99)
    bench.world.pn532.put(tag)
    bench.settle(200)
    assert any(x.startswith("! reader not-a-card") for x in bench.out), bench.out[-5:]
    said = [x[2:] for x in bench.out if x.startswith("! reader not-a-card")][-1]
    assert " ".join(bench.screen(8)).endswith(said), (said, bench.screen(8))   # whole
    assert bench.t.nev == 0


def test_no_stake_is_shown_before_the_seat_has_staked(bench):
    # a seat's display said "Stake 0" from its first card until it staked
    deal_round(bench, ["QH", "TS", "4C", "9D"])
    assert not any(line.startswith("Stake") for line in bench.screen(2)[:7]), bench.screen(2)
    bench.send("stake 2 4")
    assert "Stake 4" in bench.screen(1), bench.screen(1)


def test_a_fourth_card_shoot_takes_stick_away_until_undone(tmp_path):
    # X4: a shoot bet before the fourth card asks for that card: STICK is no longer offered
    # nor taken; UNDO of the bet (the journal replayed without it) offers it again.
    b = Bench(str(tmp_path / "flash"),
              settings="preset = classic\nseats = 3\nbanker = 3\nshoot = on\n")
    assert b.send("kitty 50").startswith("ok #")
    deal_round(b, ["5C", "2C", "TC"])
    for seat in (1, 2):
        assert b.send("stake %d 1" % seat).startswith("ok #")
    deal_round(b, ["4C", "3C", "7C"])                     # seat 1: 9
    b.press("TWIST")
    deal_round(b, ["TD"])                                  # 19 in three cards
    assert b.screen(0)[7] == "STICK TWIST"
    assert b.send("shoot 1 5").startswith("ok #")
    assert b.screen(0)[7] == "TWIST"
    b.press("STICK")
    assert any(x.startswith("! a shoot bet before the fourth card asks for it: twist or "
                            "buy, not stick (X4)") for x in b.out[-3:]), b.out[-3:]
    assert b.journal().endswith("shoot 1 5\n")
    b.press("UNDO")
    assert b.journal().endswith("card TD\n")
    assert b.screen(0)[7] == "STICK TWIST"
    b.press("STICK")
    assert b.journal().endswith("stick 1\n")
