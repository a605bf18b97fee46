"""The reader at the field's edge on the virtual Pico (the shoe's own UF2): the first events
of a `table` session whose cards slide through the field for 30-60 ms while the PN532 model
spoils a seeded share of the READs (CRC, parity, answers cut short; a tag gone before its
answer ended). tools/bench_field_edge.py's dealer deals a card again only when the table asks
(`! reader unread` / `read-failed`); the journal is the script: no card to the wrong hand,
none taken twice, none lost, nothing redone by the scripted players."""
import bench_field_edge as F
from test_vpico_firmware import _frozen_ready
from vpico import table as T

S = T.S
SEATS = 3
SEED = 2
RATE = 0.3
EVENTS = 40
WALL = 1800


def test_a_session_at_the_fields_edge_on_the_pico(tmp_path):
    _frozen_ready()
    flash = str(tmp_path / "settled.bin")
    T.fresh_pico(flash, S.settings_text("table", SEATS))[0].power_cut()
    d, bad = F.pico_session(SEED, RATE, SEATS, flash=flash, events_max=EVENTS,
                            wall_timeout=WALL)
    assert bad == [] and d.done, bad
    assert d.misattributed == 0 and d.counts["lost"] == 0 and d.retries == 0
    failed = sum(v for k, v in d.reads.items() if k != "ok")
    assert failed >= 3 and d.counts["recovered"] >= 1, (d.reads, d.counts)
