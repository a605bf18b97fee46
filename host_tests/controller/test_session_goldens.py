"""Session payouts against hand-computed figures, not the engine's own shadow: transcript
scenarios (host_tests/scenarios/*/NAME.txt) played on the simulated table by the scripted
players (the cards through the reader from the physical deck, the plays from the buttons
and the serial line), then the firmware's journal replayed and held to the scenario's
hand-written NAME.expect.json: balances, kitty, bank, winners and each deal's hands and
nets. (The whole-session tests compare the firmware's ledger with the shadow engine's:
the same code on both sides; these figures were worked out by hand from docs/RULES.md.)

A scenario's `# REJECTED` lines are left out: they change nothing, and the players would
not be let to make them."""
import json
import os

import pytest

import runner as R
import simtable as S
from conftest import ROOT
from game.transcript import Header, strip

SCEN = os.path.join(ROOT, "host_tests", "scenarios")
# a few of each preset and option family, together every kind of event the buttons and
# the serial line give (split, buy, kitty, shoot, sale, burn, banker doubling, void, casino)
PLAYED = ("table/basic_stand", "table/aces_soft_hard", "table/bank_moves_two_pontoons",
          "table/eight_seats_two_packs", "classic/split_then_buy", "classic/sell_the_bank",
          "classic/void_in_banker_turn", "casino/dealer_17_with_an_ace",
          "casino/double_down", "shoot/x4_x2_both_bets", "shoot/n4_sale_with_kitty",
          "classic_options/v8_burn_then_split", "classic_options/v3_doubling_buy",
          "classic_options/v1_resplit_aces")


def _existing(names):
    out = []
    for name in names:
        if os.path.exists(os.path.join(SCEN, name + ".txt")):
            out.append(name)
    return out


def script(path):
    """(header lines, accepted event lines, settings.txt) of a scenario."""
    head, events = [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "# REJECTED" in line or not strip(line):
                continue
            words = strip(line)
            (head if words[0] in ("rules", "seats", "banker", "packs") else events).append(
                " ".join(words))
    h = Header()
    for line in head:
        h.take(strip(line))
    rules = [w for ln in head if ln.startswith("rules ") for w in ln.split()[1:]]
    settings = S.settings_text(rules[0], h.seats, h.banker, options=rules[1:])
    if h.packs:
        settings += "packs = %d\n" % h.packs
    return head, events, settings


def _scenario_checks():
    """host_tests/engine/test_scenarios.py, whose comparison with an .expect.json is the
    one the scenarios' own tests use."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "scenario_checks", os.path.join(ROOT, "host_tests", "engine", "test_scenarios.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _journal(flash):
    files = S.history_files(flash)
    return files[-1] if files else os.path.join(flash, "journal.txt")


@pytest.mark.parametrize("name", _existing(PLAYED))
def test_a_scenario_played_on_the_table_pays_what_was_worked_out_by_hand(tmp_path, name):
    check_expectations = _scenario_checks().check_expectations
    path = os.path.join(SCEN, name + ".txt")
    head, events, settings = script(path)
    with open(path[:-4] + ".expect.json") as f:
        expect = json.load(f)
    expect.pop("rejected_lines")
    assert expect.get("balances"), "no hand-computed balances in " + name
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, settings)
    driver = S.Driver(head, events, seed=3)
    run = R.CPython(flash, driver)
    run.boot()
    run.run()
    assert driver.done and driver.acked == len(events)
    assert driver.errors == [] and driver.retries == 0, driver.errors
    led = S.ledger(_journal(flash))
    diffs = check_expectations(expect, led)
    assert not diffs, "%s played on the table:\n  %s" % (name, "\n  ".join(diffs))


def test_the_played_scenarios_exist():
    assert _existing(PLAYED) == list(PLAYED)
