#!/usr/bin/env python3
"""Real fingers against the buttons' debounce: seeded taps (boards/simdev/buttons.Finger:
holds of 30-200 ms, 1-10 ms of contact bounce as the contact closes and again as it opens)
through firmware/hardware/buttons.py as the Pico runs it (SampledButtons: a timer sample every 5 ms,
at a random phase of the tap). For each debounce time, the taps lost (no press reported)
per hold band, and the taps taken twice (a bounce made a second press).

    .venv/bin/python3 tools/bench_fingers.py [--taps 20000] [--seed 1]

The firmware's debounce (firmware/ledger/settings.py debounce_ms) is the longest that loses
no tap of 40 ms or more and takes none twice: a longer one would drop real quick taps, a
shorter one would be more easily fooled by a glitch on the line.
"""
import os
import sys

import cli  # noqa: F401  (first: the project's Python; quiet when piped to head)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if p not in sys.path:
        sys.path.insert(0, p)

from boards.simdev.buttons import Finger  # noqa: E402
from hardware.buttons import Buttons, SampledButtons  # noqa: E402
from ledger.settings import Settings  # noqa: E402

BANDS = ((30, 40), (40, 60), (60, 100), (100, 200.001))
KEPT_MS = 40                       # every tap this long or longer must be taken
CANDIDATES = (10, 15, 20, 25, 30, 35, 40, 50)
PERIOD_MS = 5                      # the Pico's button timer (SampledButtons' period)


class _Pin:
    level = 1

    def value(self):
        return self.level


def tap(debounce_ms, release_ms, edges, phase):
    """How many presses one tap (`edges`, Finger.edges) makes, sampled every PERIOD_MS
    from `phase` ms before its first touch."""
    pin = _Pin()
    now = [0.0]
    cbs = []
    sb = SampledButtons(Buttons([pin], debounce_ms=debounce_ms, release_ms=release_ms),
                        lambda period, cb: cbs.append(cb), period_ms=PERIOD_MS,
                        ticks=lambda: int(now[0]))
    sample = cbs[0]
    end = edges[-1][0] + debounce_ms + release_ms + 4 * PERIOD_MS
    t = -phase
    k = 0
    presses = 0
    while t <= end:
        while k < len(edges) and edges[k][0] <= t:
            pin.level = edges[k][1]
            k += 1
        now[0] = t + 1000           # (ticks from 1000: the sampler's first tick is positive)
        sample(None)
        while sb.poll() >= 0:
            presses += 1
        t += PERIOD_MS
    return presses


def measure(taps=20000, seed=1, candidates=CANDIDATES, release_ms=None):
    """{debounce: {"lost": {band: n}, "taps": {band: n}, "doubled": n}} over the same seeded
    taps for every candidate."""
    import random
    release_ms = Settings().release_ms if release_ms is None else release_ms
    finger = Finger(seed)
    rng = random.Random(seed + 1)
    plan = []
    for _ in range(taps):
        hold = finger.hold()
        plan.append((hold, finger.edges(hold), rng.uniform(0, PERIOD_MS)))
    out = {}
    for d in candidates:
        r = {"lost": dict((b, 0) for b in BANDS), "taps": dict((b, 0) for b in BANDS),
             "doubled": 0}
        for hold, edges, phase in plan:
            band = next(b for b in BANDS if b[0] <= hold < b[1])
            r["taps"][band] += 1
            n = tap(d, release_ms, edges, phase)
            if n == 0:
                r["lost"][band] += 1
            elif n > 1:
                r["doubled"] += 1
        out[d] = r
    return out


def chosen(results):
    """The longest debounce that loses no tap of KEPT_MS or more and doubles none."""
    ok = [d for d, r in results.items() if r["doubled"] == 0 and
          all(n == 0 for b, n in r["lost"].items() if b[0] >= KEPT_MS)]
    return max(ok) if ok else None


def _band(b):
    return "%d-%d ms" % (b[0], int(b[1]))


def report(results, taps, out=print):
    firmware = Settings().debounce_ms
    out("fingers: %d taps, holds %d-%d ms, bounce %d-%d ms on press and release, sampled "
        "every %d ms (release_ms %d)" % (taps, Finger.HOLDS_MS[0], Finger.HOLDS_MS[1],
                                         Finger.BOUNCE_MS[0], Finger.BOUNCE_MS[1], PERIOD_MS,
                                         Settings().release_ms))
    out("  debounce   " + "".join("lost %-12s" % _band(b) for b in BANDS) + "doubled")
    for d, r in sorted(results.items()):
        cells = "".join("%-17s" % ("%d/%d %.1f%%" % (r["lost"][b], r["taps"][b],
                                                     100.0 * r["lost"][b] / max(1, r["taps"][b])))
                        for b in BANDS)
        out("  %3d ms%s   %s%d" % (d, " *" if d == firmware else "  ", cells, r["doubled"]))
    best = chosen(results)
    out("longest debounce losing no tap of %d ms or more, doubling none: %s; the firmware's "
        "(*): %d ms" % (KEPT_MS, "%d ms" % best if best else "none", firmware))
    r = results.get(firmware)
    if r is not None:
        short = [b for b in BANDS if b[1] <= KEPT_MS]
        lost = sum(r["lost"][b] for b in short)
        n = sum(r["taps"][b] for b in short)
        kept = sum(r["lost"][b] for b in BANDS if b[0] >= KEPT_MS)
        out("lost taps at the firmware's debounce: under %d ms %d of %d (%.1f%%), %d ms or "
            "more %d of %d" % (KEPT_MS, lost, n, 100.0 * lost / max(1, n), KEPT_MS, kept,
                               taps - n))
    return best


def main(argv):
    ap = cli.ArgumentParser(prog="bench_fingers.py", description="Lost and doubled taps of "
                            "seeded real fingers (holds 30-200 ms, 1-10 ms bounce) for each "
                            "debounce time, on the Pico's 5 ms button sampler.")
    ap.add_argument("--taps", type=cli.count, default=20000, help="taps (default 20000)")
    ap.add_argument("--seed", type=int, default=1, help="the fingers' seed (default 1)")
    a = ap.parse_args(argv[1:])
    report(measure(a.taps, a.seed), a.taps)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
