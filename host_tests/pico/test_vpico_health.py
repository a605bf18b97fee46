"""The shoe's UF2 on the virtual Pico checks itself and survives a hung loop: a bare Pico
(nothing on I2C0) boots without a reboot loop, answers `health` and `help`, plays events
typed on the serial line and lets mpremote into the raw REPL (Ctrl-C, then Ctrl-A); a
hung loop (`hang`) is reset by the RP2040's watchdog (machine.WDT; its reset is emulated
by tools/vpico) and the session resumes from the journal saying "watchdog". A bare Pico W
(its own UF2, boards/vpico_w.py's phones streaming) plays on the phones: the cards a
dealer types are in every seat's answers."""
import json

import pytest

import simtable as S
from boards import sim
from test_vpico_firmware import _frozen_ready
from vpico.pico import FROZEN, Pico, uf2_for

import bench_pico as B
import runner as R
from game.cards import card_name
from game.transcript import Header, parse_event, strip

WALL = 600      # wall-clock bound of any one wait
BARE = {"n_displays": 0, "reader": False, "switch": False}
WATCHDOG_TIMER = 1   # the watchdog's REASON register: TIMER (it ran out)


@pytest.fixture
def ready():
    _frozen_ready()


def _line(p, prefix, timeout_s=10):
    """The next serial line starting with prefix."""
    p.expect(prefix.encode(), timeout_s, wall_timeout=WALL)
    return prefix + p.expect(b"\r\n", 2, wall_timeout=WALL).decode()[:-2]


def _events(n):
    head, events = S.script_session("table", 4, seed=11, deals=1)
    return events[:n]


def test_bare_pico_answers_plays_and_lets_mpremote_in(ready, tmp_path):
    p = Pico(str(tmp_path / "flash.bin"))
    try:
        p.boot(world=sim.build(**BARE))
        assert "reader missing" in _line(p, "# check: ", 20)
        p.expect(b"# heap in use after boot", 10, wall_timeout=WALL)
        p.write(b"health\r\n")
        line = _line(p, "ok health: ")
        for part in ["reader missing", "switch missing", "banker display missing",
                     "buttons ok", "flash ok", "boot power-on", "firmware 0."] + \
                ["display %d missing" % i for i in range(1, 9)]:
            assert part in line, (part, line)
        p.write(b"help\r\n")
        assert _line(p, "ok events: ")
        for k, ev in enumerate(_events(8)):
            p.write(ev.encode() + b"\r\n")
            assert _line(p, "ok #").startswith("ok #%d " % (k + 1)), ev
        # mpremote: Ctrl-C stops the table (main.py ends at the REPL), Ctrl-A the raw REPL
        out, err = p.exec_raw("import machine; print(machine.reset_cause())")
        assert err == "" and out.strip() == "1"            # rp2's PWRON_RESET
        p.run_for(10)                                      # the REPL: the watchdog stopped
        assert p.resets == []
    finally:
        p.close()


def test_hung_loop_is_reset_by_the_watchdog_and_resumes(ready, tmp_path):
    p = Pico(str(tmp_path / "flash.bin"))
    try:
        p.boot()
        assert "boot power-on" in _line(p, "# check: ", 20)
        p.expect(b"# heap in use after boot", 10, wall_timeout=WALL)
        events = _events(6)
        for k, ev in enumerate(events):
            p.write(ev.encode() + b"\r\n")
            assert _line(p, "ok #").startswith("ok #%d " % (k + 1)), ev
        p.write(b"hang\r\n")
        _line(p, "ok hang")
        hung = p.emulated_now()
        p.expect(b"# boot reason: watchdog", 15, wall_timeout=WALL)
        assert len(p.resets) == 1 and p.resets[0][1] == WATCHDOG_TIMER
        took = p.resets[0][0] / 1e9 - hung
        assert 7.9 <= took <= 8.1, took     # health.WATCHDOG_MS from the last feed
        assert _line(p, "# resume #") == "# resume #%d" % len(events)
        p.expect(b"# heap in use after boot", 10, wall_timeout=WALL)
        p.write(b"health\r\n")
        assert "boot watchdog" in _line(p, "ok health: ")
    finally:
        p.close()


def _hands_after(head, events):
    """{seat: [card names of its hands]} once `events` are played (CPython's engine)."""
    h = Header()
    for line in head:
        h.take(strip(line))
    e = h.engine()
    for line in events:
        assert e.apply(*parse_event(strip(line))) is None, line
    out = {}
    for i in range(e.norder):
        slot = e.slot_at(i)
        out.setdefault(e.hand_seat(slot), []).append(
            [card_name(e.card(slot, k)) for k in range(e.ncards(slot))])
    return out


def test_bare_pico_w_plays_on_the_phones(ready, tmp_path):
    """No reader, no switch, no display: the Pico W's UF2 boots once, says what is
    missing, tells the seats' phone codes on the serial line (no display shows them),
    takes the cards a dealer types and serves them to the phones."""
    seats = 3
    flash = str(tmp_path / "flash_w.bin")
    uf2_for(FROZEN, "RPI_PICO_W")
    run = R.Pico(flash, board="RPI_PICO_W")
    run.boot()
    B.set_files(run, {"settings.txt": S.settings_text("table", seats),
                      "board.mpy": B.phones_board()})
    p = Pico(flash, board="RPI_PICO_W", world=sim.build(**BARE))
    run = R.Pico(pico=p, board="RPI_PICO_W", live_serial=True, wall_timeout=WALL)
    try:
        run.boot()
        run.run(lambda r: r.saw("# web: phones"), max_s=20)
        check = [x for x in run.lines if x.startswith("# check: ")]
        assert len(check) == 1 and "reader missing" in check[0], run.lines
        assert not run.saw("Traceback")
        run.send("health")
        run.run(lambda r: r.saw("ok health: "), max_s=p.emulated_now() + 10)
        line = [x for x in run.lines if x.startswith("ok health: ")][0]
        for part in ("reader missing", "switch missing", "banker display missing"):
            assert part in line, (part, line)
        codes = [x for x in run.lines if x.startswith("# web: seat codes ")]
        assert len(codes) == 1 and codes[0].count(",") == seats - 1, codes
        head, events = S.script_session("table", seats, seed=1)
        # the first deal up to the banker's turn: every seat holds cards then
        k = next(j for j in range(len(events)) if events[j] == "stick 3") + 1
        typed = len(run.lines)
        for j, ev in enumerate(events[:k]):
            run.send(ev)
            run.run(lambda r: r.saw("ok #%d " % (j + 1), typed) or r.saw("! ", typed),
                    max_s=p.emulated_now() + 10)
            assert not run.saw("! ", typed), run.lines[-5:]
        want = _hands_after(head, events[:k])
        seen = {}

        def answered(r):
            for seat, status, body in r.web:
                t = json.loads(body)
                if status == 200 and t["events"] == k:
                    seen[seat] = t
            return set(seen) >= set(range(seats + 1))
        run.run(answered, max_s=p.emulated_now() + 10)
        for seat in range(2, seats + 1):          # seat 1 is the banker: no hand of its own
            assert [m["cards"] for m in seen[seat]["mine"]] == want[seat], seat
        assert seen[0]["phase"] == "banker"
        assert p.resets == [] and not run.saw("Traceback")
    finally:
        run.close()
