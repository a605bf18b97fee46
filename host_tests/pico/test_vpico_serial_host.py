"""A host that keeps the USB serial port open but stops reading it (a paused terminal) while
the table deals, on the virtual Pico (the shoe's own UF2): vpico.js holds the Pico's IN
transfers back, so MicroPython's CDC transmit buffer fills as on a real Pico (its write then
waits up to 500 ms each time: shared/tinyusb/mp_usbd_cdc.c). The firmware writes only while
the port takes bytes (firmware/hardware/serial_out.py): the cards dealt meanwhile are taken and shown,
and when the host reads again the lines come (or, past the queue, a line saying how many
were dropped) and the session goes on to the script's end."""
from test_vpico_firmware import _frozen_ready
from vpico import table as T
from vpico.pico import FROZEN, Pico

S = T.S
SEATS = 3
SEED = 2
PAUSE_CARDS = 3                # cards dealt while the host does not read
STATUS_LINES = 30             # typed meanwhile: their answers overflow every buffer
GAP_MS = 40                    # the reader's goal (tools/bench_pico.py GOALS["reader_gap"])
# the line that fills the USB buffer as the host stops reading waits MicroPython's 500 ms
# twice (taken in part, asked again: py/stream.c), once per pause (firmware/hardware/serial_out.py)
ONSET_MS = 2 * 500


def card_run(events, n):
    """The first index k after the cut and the shuffle from which n events are cards."""
    start = events.index("shuffle") + 1
    for k in range(start, len(events) - n):
        if all(e.startswith("card") for e in events[k:k + n]):
            return k
    raise AssertionError("no %d cards in a row" % n)


def test_a_host_that_stops_reading_does_not_stop_the_table(tmp_path):
    _frozen_ready()
    flash = str(tmp_path / "flash.bin")
    T.fresh_pico(flash, S.settings_text("table", SEATS))[0].power_cut()
    head, events = S.script_session("table", SEATS, SEED)
    k0 = card_run(events, PAUSE_CARDS)
    events = events[:k0 + PAUSE_CARDS + 6]
    driver = T.driver(head, events, SEED)
    pico = Pico(flash, firmware=FROZEN)
    try:
        run = T.table_run(pico, driver, wall_timeout=1200)
        run.boot()
        run.run(until=lambda r: driver.acked >= k0)
        run.driver = None                      # the dealer deals on without looking
        pico.host_reads(False)
        n_lines = len(run.lines)
        for _ in range(STATUS_LINES):          # it still sends: more answers than fit
            run.send("status")
        end = pico.emulated_now() + 1.0
        run.run(until=lambda r: r.p.emulated_now() >= end)
        shown = []
        for k in range(k0, k0 + PAUSE_CARDS):
            tag = driver.tag_for(k)
            t0 = pico.world.clock.ns
            pico.deal(tag)
            end = pico.emulated_now() + 0.5
            run.run(until=lambda r: r.p.emulated_now() >= end)
            pico.remove(tag)
            end = pico.emulated_now() + 0.3
            run.run(until=lambda r: r.p.emulated_now() >= end)
            # its seat's display (or the banker's) was written to after the card came
            shown.append(any(t > t0 for ws in run.writes.values() for t in ws))
        end = pico.emulated_now() + 3.0        # seconds more of a host not reading
        run.run(until=lambda r: r.p.emulated_now() >= end)
        assert len(run.lines) - n_lines <= 8, run.lines[n_lines:]   # hardly a line came
        pico.host_reads(True)
        driver.planned = k0 + PAUSE_CARDS - 1  # (what he dealt by hand)
        run.driver = driver
        run.run(until=lambda r: driver.acked >= k0 + PAUSE_CARDS)
        said = run.lines[n_lines:]
        run.run()                              # the rest of the script, read as ever
        tail = run.halt(settle_s=0.2)
        journal, err = pico.exec_raw("from ledger import session\nsession.print_journal()")
    finally:
        pico.close()
    assert all(shown), shown
    print("\n".join(said))
    dropped = [ln for ln in said if ln.startswith("# serial: ")]
    assert len(dropped) == 1, said             # said once, when the host reads again
    got = [ln for ln in journal.replace("\r\n", "\n").split("\n") if ln.strip()]
    assert err == "" and got == head + events
    gap = [ln for ln in tail if ln.startswith("# reader polled")]
    assert gap, tail
    ms = int(gap[0].rsplit(" ", 2)[1])
    print("longest gap between two reader polls: %d ms" % ms)
    assert ms <= ONSET_MS + GAP_MS, gap
