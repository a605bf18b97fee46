"""Every event of the transcript language from the buttons and the menu (docs/CONTROLLER.md,
"Every event from the buttons"), on the simulated board: the sale of the bank (N4), passing
in the shoot window (X2), the casino's "same bets", and a whole `classic` session with every
option on played from the buttons and the reader alone, with no serial line."""
import os
import re

from app_support import Bench, ButtonDriver, check_frames, hidden_states, no_serial_runner

from game import engine as E
from table import menu as M
import runner as R
import simtable as S

CLASSIC_ALL = ("shoot=on", "burn=13", "banker_doubling=on")


def test_a_whole_classic_session_with_every_option_from_the_buttons_alone(tmp_path):
    seats, seed = 4, 51           # a session of the deck with every option in it
    head, events = S.script_session("classic", seats, seed, deals=8, options=CLASSIC_ALL)
    words = [ln.split()[0] for ln in events]
    for w in ("sell", "bankdouble", "burn", "shoot", "kitty", "split", "buy", "twist",
              "stick", "stand", "shuffle"):
        assert w in words, "the scripted session has no %s" % w
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("classic", seats, options=CLASSIC_ALL))
    driver = ButtonDriver(head, events, seed=seed)
    screens = S.Screens(seats)
    run = no_serial_runner(flash, driver, screens)
    run.boot()
    run.run()
    assert driver.done and driver.acked == len(events)
    assert driver.errors == [], driver.errors[:5]
    assert driver.retries == 0          # no press made again
    # every event came from the buttons or the reader: "* #N", never "ok #N"
    accepted = [ln for ln in driver.output if re.match(r"^(\*|ok) #\d+ ", ln)]
    assert len(accepted) == len(events)
    assert all(ln.startswith("* #") for ln in accepted)
    # the menu paths and the shoot window's passes were used
    chosen = set(item for _, item in driver.menu_choices)
    for item in ("Sell the bank", "Banker doubles", "Burn (V8)", "Shoot bet", "Kitty",
                 "Shuffle done"):
        assert item in chosen, (item, chosen)
    assert driver.pass_presses > 0
    assert sum(1 for ln in driver.output if ln.startswith("# seat ") and "passes" in ln) \
        == driver.pass_presses
    # what the displays show at the end is the ledger
    e = S.shadow(head, events, len(events))
    shown = {}
    for s in range(1, seats + 1):
        top = screens.text[s - 1][0]
        shown[str(s)] = int(top.split()[-1])
    # the journal, kept as the hand history by the menu's "New session"
    driver.new_session(run)
    files = S.history_files(flash)
    assert len(files) == 1
    with open(files[0]) as f:
        kept = [ln.rstrip("\n") for ln in f]
    assert kept == head + events
    led = S.ledger(files[0])
    assert led["events"] == []
    want = {str(s): e.balance(s) for s in range(1, seats + 1)}
    assert led["balances"] == want == shown
    assert led["kitty"] == e.kitty and led["banker"] == e.banker
    assert sum(led["balances"].values()) + led["kitty"] == 0            # R1
    # each deal's result line on the table is the replayer's deal net
    over = [ln for ln in driver.output if ln.startswith("# deal ")]
    deals = [d for d in led["deals"] if "net" in d]
    assert len(over) == len(deals) >= 8
    for line, d in zip(over, deals):
        for s, net in d["net"].items():
            assert " %s %s" % (s, "%+d" % net if net else "0") in line, (line, d["net"])
    # nothing hidden was shown on the way
    states = hidden_states(head, events)
    acks = [driver.ack_at[i] for i in range(len(events))]
    assert check_frames(screens.history, acks, states, seats) == []


def menu_to(b, item):
    """Long OK, then PLUS until the banker's display shows the item; returns the items seen."""
    b.press("OK", hold=900)
    seen = []
    for _ in range(20):
        line = b.screen(8)[7]
        seen.append(line)
        if line == "> " + item:
            return seen
        b.press("PLUS")
    raise AssertionError("menu item %r not offered: %s" % (item, seen))


def menu_items(b):
    from table import views as V
    b.press("OK", hold=900)
    items = [M.NAMES[i] for i in b.t.ui.mode.items]
    b.press("UNDO")
    return items


def test_sell_the_bank_from_the_buttons(tmp_path):
    b = Bench(str(tmp_path / "f"), settings=(
        "preset = classic\nseats = 4\nbanker = 2\nshoot = on\n"))
    assert b.screen(8)[6] == "Banker: put up kitty"
    for _ in range(10):
        b.press("PLUS")
    b.press("OK")
    assert b.journal().endswith("kitty 20\n")
    menu_to(b, "Sell the bank")
    b.press("OK")
    # step 1: the buyer, starting at the banker's left
    assert b.screen(8)[6] == "Sell bank to seat 3?"
    assert b.screen(8)[7] == "Sell to seat - 3 + OK"
    assert b.screen(1)[6:] == ["Selling the bank", "Sell to seat - 3 + OK"]
    assert b.screen(2)[6] == "Bank offered to you"
    assert "> Sell bank to seat 3?" in b.out
    b.press("MINUS")
    b.press("MINUS")                                  # 3 -> 1: the seller's seat is skipped
    assert b.screen(8)[6] == "Sell bank to seat 1?"
    assert b.screen(0)[6] == "Bank offered to you" and b.screen(2)[6] == ""
    b.press("PLUS")                                   # 1 -> 3
    b.press("PLUS")                                   # 3 -> 4
    assert b.screen(3)[6] == "Bank offered to you"
    b.press("OK")
    # step 2: the price
    assert b.screen(8)[6] == "Sell to 4: price?"
    assert b.screen(8)[7] == b.screen(3)[7] == "Price 0-100  - 0 + OK"
    for _ in range(5):
        b.press("PLUS")
    b.press("OK")
    # step 3: the buyer confirms
    assert b.screen(8)[6] == "Seat 4: buy for 5?"
    assert b.screen(3)[6:] == ["Buy the bank for 5?", "OK: buy  UNDO: no"]
    assert b.screen(1)[7] == "to 4 for 5: wait"
    b.press("UNDO")                                   # the buyer says no
    assert b.journal().endswith("kitty 20\n")
    assert b.screen(8)[6] == "Deal to seat 3" and b.out[-1] == "> Deal to seat 3"
    assert b.screen(3)[6] == ""
    menu_to(b, "Sell the bank")
    b.press("OK")
    b.press("PLUS")                                   # 3 -> 4
    b.press("OK")
    for _ in range(5):
        b.press("PLUS")
    b.press("OK")
    b.press("OK")
    assert b.journal().endswith("kitty 20\nsell 4 5\n")
    assert "* #2 sell 4 5" in b.out
    e = b.t.e
    # N4: the buyer pays the seller; X8: the old banker takes the kitty back
    assert [e.balance(s) for s in (1, 2, 3, 4)] == [0, 5, 0, -5] and e.kitty == 0
    assert b.screen(8)[0].startswith("BANK seat 4")
    assert b.screen(3)[0].startswith("Seat 4 BANKER")
    assert b.screen(8)[6] == "Banker: put up kitty"   # X8: the new banker's kitty
    # UNDO takes the sale back like any other between-deal event
    b.press("UNDO")
    assert b.journal().endswith("kitty 20\n") and b.t.e.banker == 2


def test_the_sale_is_offered_only_between_classic_deals(tmp_path):
    b = Bench(str(tmp_path / "c"), settings="preset = classic\nseats = 3\nbanker = 1\n")
    assert "Sell the bank" in menu_items(b)
    b.card("8H")                                      # a deal has begun
    assert "Sell the bank" not in menu_items(b)
    t = Bench(str(tmp_path / "t"), settings="preset = table\nseats = 3\nbanker = 1\n")
    assert "Sell the bank" not in menu_items(t)


def deal_to_window(b):
    b.press("OK")                                     # kitty 10 (X1)
    for c in ("8H", "TS", "4C", "9D"):
        b.card(c)
    for _ in range(3):
        b.press("PLUS")                               # stake 2 each
        b.press("OK")
    assert b.journal().endswith("stake 2 2\nstake 3 2\nstake 4 2\n")


def test_passing_in_the_shoot_window_from_the_buttons(tmp_path):
    b = Bench(str(tmp_path / "f"), settings=(
        "preset = classic\nseats = 4\nbanker = 1\nshoot = on\nbanker_doubling = on\n"))
    deal_to_window(b)
    # X2: the window opens by itself for the first seat in play order
    assert b.screen(8)[6] == "Seat 2: shoot or pass"
    assert b.screen(1)[6:] == ["Shoot bet? 0 = pass", "Shoot 0-10   - 0 + OK"]
    b.press("OK")                                     # seat 2 passes
    assert "# seat 2 passes: no shoot bet (X2)" in b.out
    assert b.screen(8)[6] == "Seat 3: shoot or pass" and b.screen(1)[6] == ""
    assert b.screen(2)[6] == "Shoot bet? 0 = pass"
    b.press("UNDO")                                   # takes the pass back, not a stake
    assert b.screen(8)[6] == "Seat 2: shoot or pass"
    assert b.journal().endswith("stake 4 2\n")
    b.press("OK")                                     # seat 2 passes again
    b.press("PLUS")
    b.press("PLUS")
    b.press("OK")                                     # seat 3 shoots 2
    assert b.journal().endswith("stake 4 2\nshoot 3 2\n")
    assert b.screen(3)[7] == "Shoot 0-8    - 0 + OK"   # the rest of the kitty
    # banker doubling in the same window, from the menu; the window stays open
    menu_to(b, "Banker doubles")
    b.press("OK")
    assert b.journal().endswith("shoot 3 2\nbankdouble\n")
    assert b.screen(8)[6] == "Seat 4: shoot or pass"
    b.press("OK")                                     # seat 4 passes: the window is done
    assert b.screen(8)[6] == "Deal to seat 2" and b.screen(8)[7] == ""
    out = b.card("4H")                                # kitty, 4 cards, 3 stakes, shoot, double
    assert "* #11 card to seat 2 (face down)" in out
    assert b.t.controls.shoot.skip == 0                     # passes end with their window


def test_casino_same_bets_in_one_press(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = casino\nseats = 3\n")
    b.press("STICK")                                  # no previous round yet
    assert any(x.startswith("! no bets of a previous round to repeat") for x in b.out[-2:])
    assert b.screen(8)[2] == ""
    for bet in (2, 3, 4):
        for _ in range(bet - 1):
            b.press("PLUS")
        b.press("OK")
    for c in ("8H", "9S", "TC", "7D", "9H", "8S", "7C", "TD"):
        b.card(c)
    for _ in range(3):
        b.press("STICK")                              # 17 each; the dealer stands on 17
    assert b.t.e.deals_ended == 1 and not b.t.e.in_deal()
    assert b.screen(8)[2] == "STICK: same bets"
    assert "Same bets" in menu_items(b)
    n = len(b.journal())
    b.press("STICK")                                  # one press: every seat's bet again
    assert b.journal()[n:] == "stake 1 2\nstake 2 3\nstake 3 4\n"
    assert [x for x in b.out if x.startswith("* #")][-3:] == [
        "* #15 stake 1 2", "* #16 stake 2 3", "* #17 stake 3 4"]
    assert b.screen(8)[6] == "Deal to seat 1"
    assert b.screen(8)[3] == "S1:2  S2:3  S3:4"
    assert "Same bets" not in menu_items(b)           # the round has begun


def test_every_event_has_a_button_path_in_the_controller_doc():
    from conftest import ROOT
    with open(os.path.join(ROOT, "docs", "CONTROLLER.md"), encoding="utf-8") as f:
        text = f.read()
    table = text.split("## Every event from the buttons", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z]+)[ `]", table, re.M)
    assert sorted(rows) == sorted(E.EVENT_WORDS[1:])
    assert "serial" not in table.lower().replace("serial line only", "")


def test_the_same_session_from_the_buttons_on_micropython(tmp_path):
    """The firmware as .mpy files on the MicroPython VM plays the same session from the
    buttons; the only line it is sent is the runner's final `halt`."""
    seats, seed = 4, 51           # a session of the deck with every option in it
    head, events = S.script_session("classic", seats, seed, deals=8, options=CLASSIC_ALL)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("classic", seats, options=CLASSIC_ALL))
    driver = ButtonDriver(head, events, seed=seed)
    screens = S.Screens(seats)
    vm = R.VM(flash, driver, screens)
    vm.session()
    rc = vm.rc
    assert rc == 0, "\n".join(driver.output[-20:])
    assert driver.done and driver.acked == len(events) and driver.errors == []
    assert driver.retries == 0
    accepted = [ln for ln in driver.output if re.match(r"^(\*|ok) #\d+ ", ln)]
    assert len(accepted) == len(events) and all(ln.startswith("* #") for ln in accepted)
    journal = os.path.join(flash, "journal.txt")
    with open(journal) as f:
        assert [ln.rstrip("\n") for ln in f] == head + events
    led = S.ledger(journal)
    e = S.shadow(head, events, len(events))
    want = {str(s): e.balance(s) for s in range(1, seats + 1)}
    shown = {str(s): int(screens.text[s - 1][0].split()[-1]) for s in range(1, seats + 1)}
    assert led["events"] == [] and led["balances"] == want == shown
