"""Real fingers (boards/simdev/buttons.Finger: holds of 30-200 ms, 1-10 ms of contact
bounce on press and release) against the firmware's debounce, as `make bench` measures
them (tools/bench_fingers.py) on a seeded few thousand taps: no tap of 40 ms or more is
lost, none is taken twice, and the debounce is the one that measurement chooses."""
import bench_fingers as F

from boards.simdev.buttons import Finger
from ledger.settings import Settings

TAPS = 3000


def test_no_real_tap_of_40_ms_or_more_is_lost_and_the_debounce_is_the_measured_one(capsys):
    firmware = Settings().debounce_ms
    results = F.measure(TAPS, seed=7, candidates=(firmware, firmware + 5, firmware + 10))
    r = results[firmware]
    kept = [b for b in F.BANDS if b[0] >= F.KEPT_MS]
    assert sum(r["taps"][b] for b in kept) > TAPS * 3 // 4
    assert [r["lost"][b] for b in kept] == [0] * len(kept)
    assert r["doubled"] == 0
    # the longest such debounce: 5 ms more loses real taps of 40 ms or more
    assert F.chosen(results) == firmware
    F.report(results, TAPS)
    out = capsys.readouterr().out
    assert "lost taps at the firmware's debounce: under 40 ms " in out
    print(out)


def test_the_fingers_bounce_within_their_limits():
    f = Finger(3)
    bounced = 0
    for _ in range(500):
        hold = f.hold()
        assert 30 <= hold <= 200
        edges = f.edges(hold)
        assert edges == sorted(edges) and edges[0] == (0.0, 0) and edges[-1][1] == 1
        closing = [(t, v) for t, v in edges if t < hold]
        opening = [(t, v) for t, v in edges if t >= hold]
        assert closing[-1][1] == 0 and all(t <= 10 for t, _ in closing)
        assert opening[0] == (hold, 1) and all(t <= hold + 10 for t, _ in opening)
        bounced += len(edges) > 4
    assert bounced > 250                        # most presses do bounce
