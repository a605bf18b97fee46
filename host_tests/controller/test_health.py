"""The shoe's account of itself (firmware/health.py, health_report.py) and its watchdog, on
CPython with the simulated board: the loop feeds the watchdog each pass, a hung loop is
reset by it and the session resumes saying why; a bare board (no reader, no switch, no
display) boots, answers `health` and `help` and plays a session typed on the serial line;
the power-on report on the banker's display; `health` names every part."""
import pytest

import runner as R
import simtable as S
from boards.simdev.watchdog import WatchdogReset
from table.health_report import WATCHDOG_MS

BARE = {"n_displays": 0, "reader": False, "switch": False}


def _table(tmp_path, world_kw=None, settings=None):
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, settings or S.settings_text("table", 3, banker=1))
    return flash, R.CPython(flash, world_kw=world_kw)


def _ask(r, line, prefix, max_ms=20000):
    n = len(r.lines)
    r.send(line)
    r.run(until=lambda r: r.saw(prefix, n), max_ms=r.now_ms() + max_ms)
    return [x for x in r.lines[n:] if x.startswith(prefix)][-1]


def test_watchdog_fed_every_pass_of_a_whole_session(tmp_path):
    head, events = S.script_session("table", 3, seed=5, banker=1, deals=2)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("table", 3, banker=1))
    d = S.Driver(head, events, seed=5)
    r = R.CPython(flash, d)
    r.boot()
    r.run()
    assert d.done and d.errors == []
    wd = r.world.watchdog
    assert wd.feeds > len(events)
    # the longest pass of a whole session (boot, cards, presses, folds) is far inside the
    # watchdog's timeout: 10% of it here
    assert wd.max_gap_ns < WATCHDOG_MS * 1000000 // 10, wd.max_gap_ns


def test_hung_loop_is_reset_by_the_watchdog_and_resumes(tmp_path):
    flash, r = _table(tmp_path)
    head, events = S.script_session("table", 3, seed=3, banker=1, deals=1)
    r.boot()
    for line in events[:6]:
        assert _ask(r, line, "ok ").startswith("ok #")
    nev = r.table.nev
    r.send("hang")
    t0 = r.now_ms()
    with pytest.raises(WatchdogReset):
        r.run(until=lambda r: False, max_ms=t0 + 60000)
    assert r.saw("ok hang")
    assert WATCHDOG_MS <= r.now_ms() - t0 <= WATCHDOG_MS + 100
    # the chip resets: a new table on the same flash, the board saying why
    r2 = R.CPython(flash, world_kw={"reset_cause": "watchdog"})
    r2.boot()
    assert "# boot reason: watchdog" in r2.lines
    assert "# resume #%d" % nev in r2.lines
    assert "boot watchdog" in _ask(r2, "health", "ok health:")


def test_bare_board_answers_and_plays_on_the_serial_line(tmp_path):
    flash, r = _table(tmp_path, BARE)
    r.boot()
    assert r.saw("! fault reader: missing")
    line = _ask(r, "health", "ok health:")
    for part in ["reader missing", "switch missing", "banker display missing",
                 "buttons ok", "flash ok", "boot power-on", "faults none"] + \
            ["display %d missing" % i for i in range(1, 9)]:
        assert part in line, (part, line)
    assert _ask(r, "help", "ok ").startswith("ok events:")
    head, events = S.script_session("table", 3, seed=3, banker=1, deals=1)
    for k, ev in enumerate(events):
        assert _ask(r, ev, "ok #").startswith("ok #%d " % (k + 1)), ev
    assert r.table.nev == len(events)
    n = len(r.lines)
    r.send("\x03")                       # Ctrl-C: the loop ends (main.py: the REPL)
    r.run(until=lambda r: r.table.stop, max_ms=r.now_ms() + 1000)
    assert r.saw("# stopped from the serial line", n)


def test_health_names_every_part_and_counts_faults(tmp_path):
    from hardware import health
    flash, r = _table(tmp_path)
    r.boot()
    check = [x for x in r.lines if x.startswith("# check: ")]
    assert len(check) == 1
    health.fault("reader")
    health.fault("display 3")
    health.fault("reader")
    line = _ask(r, "health", "ok health:")
    assert line.startswith("ok health: reader ok PN532 v1.6, switch ok, display 1 ok, ")
    for part in ["banker display ok", "buttons ok", "flash ok", "boot power-on",
                 "firmware dev (", "up ", "faults display 3 1 reader 2"]:
        assert part in line, (part, line)
    assert check[0][len("# check: "):].split(", up ")[0] == \
        line[len("ok health: "):].split(", up ")[0]


def test_buttons_held_at_power_on_are_reported(tmp_path):
    flash, r = _table(tmp_path)
    import boards.sim as sim
    orig = sim.build

    def build(**kw):
        w = orig(**kw)
        w.buttons[2].level = 0             # BUY stuck down
        return w
    sim.build = build
    try:
        r.boot()
    finally:
        sim.build = orig
    assert "buttons BUY held down" in _ask(r, "health", "ok health:")


def test_power_on_report_on_the_banker_display(tmp_path, monkeypatch):
    import boards.sim as sim
    from table.health_report import REPORT_MS
    monkeypatch.setattr(sim, "CHECK_MS", REPORT_MS)
    flash, r = _table(tmp_path)
    r.boot()
    r.run(until=lambda r: r.now_ms() >= 500)
    lines = S.display_text(r.world.displays[8])[0]
    assert lines[0] == "Shoe check: power-on", lines
    assert lines[1] == "Reader ok PN532 v1.6"
    assert lines[2] == "Switch ok" and lines[3] == "Seats ok"
    assert lines[7].startswith("Pontoon ")
    end = r.now_ms() + 9000
    r.run(until=lambda r: r.now_ms() >= end)
    assert S.display_text(r.world.displays[8])[0][0] != "Shoe check: power-on"


def test_bare_board_on_the_micropython_vm(tmp_path):
    """The .mpy firmware on the unix VM, its board without reader, switch or displays:
    no reboot loop, `health` and `help` answered, a deal typed on the serial line."""
    from boards import sim
    flash = tmp_path / "flash"
    S.fresh_flash(str(flash), S.settings_text("table", 3, banker=1))
    r = R.VM(str(flash))
    r.boot(world=sim.build(**BARE))
    try:
        assert r.run(until=lambda r: r.saw("# check: ")), r.lines
        assert r.saw("! fault reader: missing")
        line = _ask_vm(r, "health", "ok health:")
        for part in ("reader missing", "switch missing", "display 1 missing",
                     "banker display missing", "buttons ok", "boot power-on"):
            assert part in line, (part, line)
        assert _ask_vm(r, "help", "ok ").startswith("ok events:")
        head, events = S.script_session("table", 3, seed=3, banker=1, deals=1)
        for k, ev in enumerate(events[:12]):
            assert _ask_vm(r, ev, "ok #").startswith("ok #%d " % (k + 1)), ev
        assert "ok halted" in r.halt()
        assert r.rc == 0
    finally:
        r.power_cut()


def _ask_vm(r, line, prefix):
    n = len(r.lines)
    r.send(line)
    assert r.run(until=lambda r: r.saw(prefix, n)), r.lines[n:]
    return [x for x in r.lines[n:] if x.startswith(prefix)][-1]


def test_check_the_shoe_from_the_menu(tmp_path):
    from app_support import Bench
    b = Bench(str(tmp_path / "flash"), settings=S.settings_text("table", 3, banker=1))
    b.press("OK", hold=900)                       # the menu
    for _ in range(20):
        if any("> Check the shoe" in x for x in b.screen(8)):
            break
        b.press("PLUS")
    assert any("> Check the shoe" in x for x in b.screen(8)), b.screen(8)
    b.press("OK")
    assert b.screen(8)[0] == "Check the shoe"
    assert b.screen(8)[1:4] == ["STICK TWIST BUY", "SPLIT MINUS PLUS", "OK"]
    for i in range(3):                            # each seat display its number, large
        s = b.screen(i)
        assert s[7] == "Seat %d display" % (i + 1)
        assert sum(x.count("#") for x in s[:7]) > 10
    b.press("STICK")
    b.press("BUY")
    assert b.screen(8)[1] == "STICK+ TWIST BUY+"
    for name in ("TWIST", "SPLIT", "MINUS", "PLUS", "OK"):
        b.press(name)
    assert b.screen(8)[4] == "Buttons all ok"
    from boards.simdev.deck import Deck
    tag = Deck(1, seed=1).deal().tag
    n = len(b.out)
    b.world.pn532.put(tag)
    for _ in range(300):
        b.t.step()
        b.world.clock.advance_us(1000)
        if any(x.startswith("# check: card") for x in b.out[n:]):
            break
    b.world.pn532.remove(tag)
    b.settle(40)
    said = [x for x in b.out[n:] if x.startswith("# check: card")]
    assert said and not any(x.startswith("* #") for x in b.out[n:]), b.out[n:]
    ms = int(said[0].split(" read in ")[1].split()[0])
    assert 0 < ms < 100, said
    assert b.screen(8)[5].startswith("Card ") and b.screen(8)[5].endswith(" ms")
    from boards.simdev import ntag213
    blank = ntag213.blank_tag(n=77)              # no card record, not in a UID map
    b.world.pn532.put(blank)
    for _ in range(300):
        b.t.step()
        b.world.clock.advance_us(1000)
        if b.screen(8)[5].startswith("Reader "):
            break
    b.world.pn532.remove(blank)
    b.settle(40)
    assert b.screen(8)[5] == "Reader unknown-tag: t"     # the reader's anomaly, cut to a line
    nev = b.t.nev
    b.press("UNDO")                               # leaves: the table as it was
    assert b.t.nev == nev
    assert b.screen(8)[0] != "Check the shoe"
    assert b.out[-1] != "" and any(x == "# check the shoe: done" for x in b.out)
    assert all(not any("#" * 4 in x for x in b.screen(i)) for i in range(3))
