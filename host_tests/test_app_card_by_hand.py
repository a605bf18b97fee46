"""A card entered by hand (docs/CONTROLLER.md, "A card by hand"): when a card's tag will not
read, the menu's "Enter card by hand" chooses it with MINUS/PLUS (held: the suit), OK gives
it, UNDO gives none. It goes through the same path as a read card (journaled first, then
shown as a read card is), on the simulated board, with the hidden-information checks."""
import copy
import re

from app_support import Bench
from test_app_buttons import CLASSIC_ALL

import engine as E
import simtable as S
import views as V
from cards import card_name
from transcript import parse_event, strip

ENTRY = re.compile(r"^Card +- (\S+) \+ OK$")
ALL_NAMES = [card_name(c) for c in range(52)]


def names_on(lines):
    text = "\n".join(lines)
    return [n for n in ALL_NAMES if re.search(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % n, text)]


def screens(b, seats):
    return {i: b.screen(i) for i in list(range(seats)) + [8]}


def open_entry(b):
    b.press("OK", hold=900)
    assert b.screen(8)[7] == "> Enter card by hand"      # first when a card is due
    b.press("OK")


def test_the_menu_offers_a_card_by_hand_exactly_when_the_engine_takes_one():
    for preset, options in (("classic", CLASSIC_ALL), ("table", ()), ("casino", ())):
        head, events = S.script_session(preset, 4, 1, deals=8, options=options)
        e = S.shadow(head, events, 0)
        offered = 0
        for line in events + [None]:
            takes = any(copy.deepcopy(e).apply(E.EV_CARD, 0, 0, c) is None for c in range(52))
            assert V.card_wanted(e) == takes, (preset, line, e.phase)
            offered += takes
            if line is None:
                break
            assert e.apply(*parse_event(strip(line))) is None
        assert 0 < offered < len(events)


def test_a_face_down_card_by_hand_shows_only_on_its_own_seat(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    b.press("OK", hold=900)
    assert [V.MENU_NAMES[i] for i in b.t.ui.menu][0] == "Enter card by hand"
    b.press("OK")
    assert b.out[-1] == "> Card by hand: seat 1"
    s = screens(b, 3)
    assert s[0][6:] == ["Your card by hand", "Card        - AC + OK"]
    assert s[8][6:] == ["Card by hand: seat 1", "On seat 1's display"]
    assert names_on(s[1]) == names_on(s[2]) == names_on(s[8]) == []
    # MINUS/PLUS: the rank, wrapping; held: the suit (C D H S), wrapping
    seen = []
    for name, hold in (("MINUS", 70), ("MINUS", 70), ("PLUS", 900), ("PLUS", 900),
                       ("PLUS", 900), ("PLUS", 900), ("MINUS", 900), ("PLUS", 70)):
        n = len(b.out)
        b.press(name, hold=hold)
        s = screens(b, 3)
        seen.append(ENTRY.match(s[0][7]).group(1))
        assert names_on(s[1]) == names_on(s[2]) == names_on(s[8]) == []
        assert names_on(b.out[n:]) == []                 # not even a prompt names it
    assert seen == ["KC", "QC", "QD", "QH", "QS", "QC", "QS", "KS"]
    n = len(b.out)
    b.press("OK")
    assert b.journal().endswith("banker 3\ncard KS\n")
    assert b.out[n:] == ["* #1 card to seat 1 (face down, by hand)", "> Deal to seat 2"]
    s = screens(b, 3)
    assert s[0][1] == "KS  10"
    assert names_on(s[1]) == names_on(s[2]) == names_on(s[8]) == []
    assert b.t.ui.kind == V.K_NONE


def test_the_banker_face_down_card_by_hand_reaches_no_seat_display(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    b.card("8H")
    b.card("9C")
    open_entry(b)
    assert b.out[-1] == "> Card by hand: banker"
    b.press("PLUS", hold=900)                            # AD
    s = screens(b, 3)
    assert s[8][6:] == ["Card by hand: banker", "Card        - AD + OK"]
    # no seat display, the banker's own seat display included (D1), shows it
    assert [names_on(s[i]) for i in range(3)] == [["8H"], ["9C"], []]
    n = len(b.out)
    b.press("OK")
    assert b.journal().endswith("card 8H\ncard 9C\ncard AD\n")
    assert b.out[n] == "* #3 card to the banker (face down, by hand)"
    assert names_on(b.out[n:]) == []
    s = screens(b, 3)
    assert s[8][1] == "1 card, face down" and s[2][1] == "1 card, face down"
    assert names_on(s[8]) == [] and names_on(s[2]) == []
    # in the banker's turn his cards are face up: the choice and the event name them
    for _ in range(2):
        b.press("OK")                                    # stakes of 1
    for c in ("TS", "7S", "5D"):
        b.card(c)                                        # 8H TS, 9C 7S, AD 5D
    b.press("STICK")                                     # seat 1 sticks on 18
    b.press("STICK")                                     # seat 2 on 16
    assert b.screen(8)[6] == "Banker: draw or STICK"
    assert b.screen(8)[1] == "AD 5D  soft 16"
    open_entry(b)
    b.press("PLUS")
    b.press("PLUS")
    assert b.screen(8)[6:] == ["Card by hand: banker", "Card        - 3C + OK"]
    b.press("OK")
    assert "* #11 card 3C to the banker: soft 19 (by hand)" in b.out


def test_a_twisted_card_by_hand_is_face_up(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    for c in ("8H", "9C", "AD"):
        b.card(c)
    for _ in range(2):
        b.press("OK")                                    # stakes of 1
    for c in ("TS", "7S", "5D"):
        b.card(c)
    b.press("TWIST")                                     # seat 1 twists on 18
    open_entry(b)
    for _ in range(2):
        b.press("PLUS")                                  # 3C
    s = screens(b, 3)
    assert s[8][7] == s[0][7] == "Card        - 3C + OK"   # a twisted card is face up
    assert sorted(names_on(s[1])) == ["7S", "9C"]
    n = len(b.out)
    b.press("OK")
    assert b.out[n] == "* #10 card 3C to seat 1 (by hand)"
    assert b.screen(0)[1].startswith("8H TS 3C")


def test_a_refused_card_by_hand_says_why_and_stays_open(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    b.card("KC")                                         # seat 1's first card
    open_entry(b)                                        # seat 2's, starting at AC
    b.press("MINUS")                                     # KC: already on the table
    n = len(b.out)
    b.press("OK")
    assert b.out[n:] == ["! that card is already on the table (R2)"]
    assert b.journal().endswith("banker 3\ncard KC\n")
    assert b.screen(8)[6:] == ["that card is already", "on the table (R2)"]
    assert b.screen(1)[6:] == ["that card is already", "on the table (R2)"]
    assert names_on(b.screen(8)) == []
    # the entry is still open: the next press shows it again
    b.press("MINUS")                                     # QC
    assert b.screen(1)[6:] == ["Your card by hand", "Card        - QC + OK"]
    # UNDO gives no card: the prompt is back, nothing was journaled
    b.press("UNDO")
    assert b.t.ui.kind == V.K_NONE and b.out[-1] == "> Deal to seat 2"
    assert b.screen(1)[6:] == ["", ""] and b.journal().endswith("card KC\n")
    # a card the journal cannot keep is not taken, and no display shows it
    open_entry(b)

    def broken(line):
        raise OSError(28, "no space left")
    b.t.journal.append = broken
    b.press("OK")
    assert b.out[-1].startswith("! the journal could not be written")
    assert b.t.nev == 1 and b.screen(1)[1] == ""


def test_no_card_by_hand_when_none_is_due(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    for c in ("8H", "9C", "AD"):
        b.card(c)
    b.press("OK", hold=900)                              # a stake is due, not a card
    assert "Enter card by hand" not in [V.MENU_NAMES[i] for i in b.t.ui.menu]
    b.press("UNDO")
    n = len(b.out)
    assert b.t._open_card().startswith("no card is due now")
    assert b.journal().endswith("card AD\n") and len(b.out) == n


def test_the_cut_by_hand(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = classic\nseats = 3\nbanker = cut\n")
    open_entry(b)
    assert b.out[-1] == "> Card by hand: cut S1"
    assert b.screen(8)[7] == b.screen(0)[7] == "Card        - AC + OK"   # the cut is face up
    b.press("OK")
    assert "* #1 card AC cut for seat 1 (by hand)" in b.out
