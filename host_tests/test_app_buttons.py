"""Every event of the transcript language from the buttons and the menu (docs/CONTROLLER.md,
"Every event from the buttons"), on the simulated board: the sale of the bank (N4), passing
in the shoot window (X2), the casino's "same bets", and a whole `classic` session with every
option on played from the buttons and the reader alone, with no serial line."""
import json
import os
import re

import pytest
from app_support import Bench, ButtonDriver, check_frames, hidden_states, no_serial_runner

import engine as E
import simtable as S

CLASSIC_ALL = ("shoot=on", "burn=13", "banker_doubling=on")


def test_a_whole_classic_session_with_every_option_from_the_buttons_alone(tmp_path):
    seats, seed = 4, 1
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
