"""Power cuts that tear the flash operation in flight (tools/vpico/vpico.js: a page half
programmed, a sector half erased; seeded), a few at seeded instants across the first events
of a `table` session, on both firmwares (tools/bench_torn.py: `make bench` makes more, across
whole sessions and their keeping): the shoe's own UF2 (the journal's raw flash tail and
snapshots) and the stock UF2 with the .mpy files (littlefs). After each cut the shoe boots,
resumes with every event it had acknowledged on the serial line, and the journal at the end
is the script."""
import pytest

import bench_torn as B
from test_vpico_firmware import _frozen_ready

SEATS = 3


@pytest.mark.parametrize("firmware,seed,cuts,events", [
    ("frozen", 3, 3, 30),
    ("stock", 1, 4, 40),        # seed 1: two of its cuts tear littlefs erases
])
def test_torn_power_cuts_lose_nothing_acknowledged(firmware, seed, cuts, events, tmp_path):
    _frozen_ready()
    flash = B.settled_flash(str(tmp_path / "settled.bin"), firmware, SEATS)
    rep, bad = B.torn_session(flash, firmware, seed, cuts, SEATS, events_max=events,
                              wall_timeout=1200)
    assert bad == [], bad
    assert rep["lost"] == 0 and rep["boots_failed"] == 0, rep
    assert rep["cuts"] >= cuts, rep                   # every cut tore an operation
    assert rep["p"] >= 1 and rep["-"] == 0, rep
    if firmware == "stock":
        assert rep["e"] >= 1, rep
