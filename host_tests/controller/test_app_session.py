"""A whole `table` session played by the firmware on the simulated board: under the
MicroPython VM (.mpy files, devices in CPython through tools/hwbridge.py) and on CPython.
The ledger must be what tools/replay.py says of the journal, and no frame or serial line
may show hidden cards."""
import hashlib
import os

import pytest
from app_support import check_frames, check_serial, hidden_states

import runner as R
import simtable as S


def play(tmp_path, runner_cls, preset="table", seats=4, seed=5, deals=0, **kw):
    head, events = S.script_session(preset, seats, seed, deals=deals)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text(preset, seats))
    driver = S.Driver(head, events, seed=seed)
    screens = S.Screens(seats)
    runner = runner_cls(flash, driver, screens, **kw)
    runner.boot()
    runner.run()
    if runner_cls is R.VM:
        runner.halt()
        assert runner.rc == 0, "\n".join(driver.output[-20:])
    return head, events, flash, driver, screens, runner


def expected_ledger(head, events):
    e = S.shadow(head, events, len(events))
    return {str(s): e.balance(s) for s in range(1, e.seats + 1)}, e


def check_session(head, events, flash, driver, screens, runner):
    assert driver.done and driver.acked == len(events)
    assert driver.errors == []
    assert driver.retries == 0          # no card dealt again, no press made again
    want, e = expected_ledger(head, events)
    files = S.history_files(flash)
    assert len(files) == 1 and not os.path.exists(os.path.join(flash, "journal.txt"))
    with open(files[0]) as f:
        assert [ln.rstrip("\n") for ln in f][len(head):] == events
    led = S.ledger(files[0])
    assert led["balances"] == want and led["finished"] and led["events"] == []
    over = [ln for ln in driver.output if ln.startswith("# session over")][0]
    # the seal: the history file's SHA-256, on the serial line and the banker's display
    with open(files[0], "rb") as f:
        digits = hashlib.sha256(f.read()).hexdigest()[:8].upper()
    sealed = "seal %s %s" % (digits[:4], digits[4:])
    said = [ln for ln in driver.output if ln.startswith("# seal")]
    assert len(said) == 1 and said[0].startswith("# %s (" % sealed), said
    assert said[0].endswith("history/0001.txt)")
    assert "0001 " + sealed in screens.text[8]
    for s, bal in want.items():
        assert ("%s %+d" % (s, bal) if bal else "%s 0" % s) in over
    # every frame and serial line against the hidden cards of its moment
    states = hidden_states(head, events)
    acks = [driver.ack_at[i] for i in range(len(events))]
    assert acks == sorted(acks)
    bad = check_frames(screens.history, acks, states, e.seats)
    bad += check_serial(driver.seen, states)
    assert bad == [], "\n".join(bad[:10])
    assert len(screens.history) > len(events)
    assert runner.world.violations() == []
    # the final screens: payouts and the winner
    for s in led["winners"]:
        assert "WINNER" in screens.text[s - 1]


def test_table_session_on_micropython(tmp_path):
    r = play(tmp_path, R.VM, heap=R.VM_HEAP)
    check_session(*r)


@pytest.mark.parametrize("seats,seed", [(4, 11), (8, 2)])
def test_table_session_on_cpython(tmp_path, seats, seed):
    r = play(tmp_path, R.CPython, seats=seats, seed=seed)
    check_session(*r)


def test_hidden_check_can_fail():
    states = [(frozenset(["QH"]), {2: {"7C"}}, {2: {"7C"}}, frozenset())]
    assert check_frames([(0, 8, ["Deal to seat 3", "QH 9C"])], [], states, 4)
    assert check_frames([(0, 0, ["7C 8D   15"])], [], states, 4)     # seat 1 shows seat 2's
    assert not check_frames([(0, 1, ["7C 8D   15"])], [], states, 4)  # seat 2's own display
    assert check_serial([(0, "* #3 card 7C to seat 2")], states)
    assert not check_serial([(0, "> Seat 2 to play: STICK TWIST")], states)


def test_the_seal_is_the_same_on_cpython_and_micropython(tmp_path):
    said = []
    for name, cls, kw in (("cp", R.CPython, {}), ("vm", R.VM, {"heap": R.VM_HEAP})):
        (tmp_path / name).mkdir()
        r = play(tmp_path / name, cls, seats=3, seed=8, **kw)
        said.append([ln.split(" (")[0] for ln in r[3].output if ln.startswith("# seal")])
    assert said[0] == said[1] and len(said[0]) == 1, said
