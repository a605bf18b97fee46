"""The shoe's Pico at rest (its own UF2 on the virtual Pico): while the reader only lists,
waiting for a card, the CPU sleeps between the loop's passes (hardware/drvtime.idle: WFE,
woken by the button timer's interrupt or after a ms) instead of polling the PN532's IRQ
pin every 0.1 ms. The emulator counts the time the CPU slept (WFI/WFE)."""
import os
import tempfile

import pytest

import bench_pico as B
import runner as R
import simtable as S

SEATS = 4
REST_MS = 300
# the CPU slept 27% of the time (a pass that finds nothing costs about 2.7 ms, then a ms
# asleep); 0% when the loop polled the pin every 0.1 ms
SLEPT_AT_LEAST = 0.2


@pytest.fixture(scope="module")
def resting():
    from vpico import pico
    with tempfile.TemporaryDirectory(prefix="rest-") as tmp:
        flash = os.path.join(tmp, "flash.bin")
        try:
            B.deployed_flash(flash, log=lambda *a: None, firmware=pico.FROZEN)
        except pico.VpicoError as x:
            pytest.fail("the virtual Pico cannot run: %s" % x)
        run = R.Pico(flash, firmware=pico.FROZEN)
        run.boot()
        B.set_files(run, {"settings.txt": S.settings_text("table", SEATS)})
        run = R.Pico(flash, firmware=pico.FROZEN)
        p = run.boot().p
        try:
            run.run(lambda r: r.saw("# heap in use after boot"), max_s=30)
            p.run_for(0.5)                 # the boot's displays drawn: nothing left to do
            slept = 0
            for _ in range(REST_MS):
                p.run_for(0.001)
                slept += p.idle_ns
            yield slept / (REST_MS * 1e6), run.lines
        finally:
            run.close()


def test_the_cpu_sleeps_while_the_table_waits_for_a_card(resting):
    share, lines = resting
    assert any(x.startswith("# heap in use after boot") for x in lines), lines[-5:]
    assert share >= SLEPT_AT_LEAST, share
