#!/usr/bin/env python3
"""The reader at the field's edge: whole scripted sessions whose cards slide through the
PN532's field for 30-60 ms (a real dealer's pull), while the PN532 model
(boards/simdev/pn532.py, field_edge()) spoils a seeded share of the READs of a tag in the
field with a CRC error, a parity error or an answer cut short, and a tag that leaves before
its READ answer has ended on the air gets a timeout instead of its data.

The dealer does what the table asks: a card the table took goes to the next; after
`! reader unread` or `! reader read-failed` (the shoe asks for the card again) he deals the
same card again. A card that left the field with neither its acknowledgement nor a `!` line
is lost in silence. Checked per session: the journal is the script (no card to the wrong
hand, none taken twice, none lost) and the scripted players redid nothing on their own
(simtable.Driver.retries == 0).

    .venv/bin/python tools/bench_field_edge.py [--sessions 20] [--seed 1] [--rate 0.2]
                                               [--pico]

Printed: READs tried, failed by kind, cards recovered by the reader's own retry (a READ
failed, the card taken in the same pass), cards dealt again (by the table's `!` line),
lost in silence and misattributed (both must be 0).
"""
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import cli  # noqa: E402,F401  (first: the project's Python; quiet when piped to head)
from game import engine as E  # noqa: E402
import simtable as S  # noqa: E402
from boards.simdev.pn532 import READ_OUTCOMES  # noqa: E402
from game.transcript import parse_event, strip  # noqa: E402

DWELL_MS = (30, 60)           # a card pulled through the field (a real dealer's hand)
LOOK_MS = 150                 # the dealer reads the `!` line before dealing again
QUIET_MS = 1000               # no answer this long after the card left: lost in silence
ASKED_AGAIN = ("! reader unread", "! reader read-failed")


def chip_of(world):
    """The PN532 model itself (the virtual Pico's driver world wraps it)."""
    pn = world.pn532
    run = getattr(pn, "run", None)
    return run.p.world.pn532 if run is not None else pn


class EdgeDealer(S.Driver):
    """A simtable.Driver whose cards slide through the field for a moment and are dealt
    again only when the table asks for them."""

    def __init__(self, head, events, rate, edge_seed=1, **kw):
        super().__init__(head, events, **kw)
        self.rate = rate
        self.edge_seed = edge_seed
        self.hand = random.Random(edge_seed)
        self.chip = None
        self.reads = dict((k, 0) for k in READ_OUTCOMES)   # over every chip of the session
        self.counts = {"cards": 0, "passes": 0, "recovered": 0, "again unread": 0,
                       "again read-failed": 0, "lost": 0}
        self.failures = []
        self.misattributed = 0
        self._pass = None           # [k, len(seen) at the put, ms it left, failed reads then]

    def _chip(self):
        chip = chip_of(self.world)
        if chip is not self.chip:             # a new board (a boot): the same hand, again
            self._fold()
            self.chip = chip
            chip.field_edge(self.rate, self.edge_seed + self.counts["passes"])
        return chip

    def _fold(self):
        if self.chip is not None:
            for k in READ_OUTCOMES:
                self.reads[k] += self.chip.reads[k]
                self.chip.reads[k] = 0

    def failed_reads(self):
        c = self.chip.reads if self.chip is not None else {}
        return sum(self.reads[k] + c.get(k, 0) for k in READ_OUTCOMES if k != "ok")

    def plan(self, now):
        k = self.acked
        if parse_event(strip(self.events[k]))[0] != E.EV_CARD:
            return super().plan(now)
        self.planned = k
        self.action_at = now
        if self.on_action:
            self.on_action(k)
        self.counts["cards"] += 1
        self._slide(now, k)

    def _slide(self, t, k):
        tag = self.tag_for(k)
        out = t + self.hand.randint(*DWELL_MS)
        chip = self._chip()

        def put():
            chip.put(tag)
            self.put_at.setdefault(k, self.world.clock.ms())
        self.steps.append((t, put))
        self.steps.append((out, lambda: self.world.pn532.remove(tag)))
        self.counts["passes"] += 1
        self._pass = [k, len(self.seen), out, self.failed_reads()]

    def poll(self, now):
        p = self._pass
        if p is not None and not self.steps and self.world is not None:
            k, seen, out, failed = p
            if self.acked > k:
                self._pass = None
                if self.failed_reads() > failed:
                    self.counts["recovered"] += 1
            elif self.acked == k and now >= out:
                asked = [ln for _, ln in self.seen[seen:] if ln.startswith(ASKED_AGAIN)]
                if asked or now - out > QUIET_MS:
                    if asked:
                        self.counts["again " + asked[0].split()[2].rstrip(":")] += 1
                    else:
                        self.counts["lost"] += 1
                        self.failures.append("event %d (%s): the card left the field and "
                                             "the table said nothing" % (k, self.events[k]))
                    self.action_at = now
                    self._slide(now + LOOK_MS, k)
        super().poll(now)

    def finish(self):
        self._fold()
        self.chip = None


def check(d, got, events):
    """The journal against the script, and no action redone by the scripted players."""
    import dealer as D
    bad = list(d.failures) + D.against_script(d, got, events)
    if d.retries:
        bad.append("the scripted players redid %d actions on their own" % d.retries)
    if not d.done:
        bad.append("the session did not finish")
    return bad


def cpython_session(seed, rate, seats=4):
    """One session on CPython; returns (dealer, [failures])."""
    import runner as R
    head, events = S.script_session("table", seats, seed)
    d = EdgeDealer(head, events, rate, edge_seed=seed * 31 + 7, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "flash")
        S.fresh_flash(path, S.settings_text("table", seats))
        r = R.CPython(path, d)
        r.boot()
        try:
            r.run()
        except RuntimeError as x:
            d.failures.append("stopped: %s" % str(x).splitlines()[0])
        d.finish()
        text = S.journal_text(path)
        if text is None:                            # the session over: kept in history/
            with open(S.history_files(path)[-1], "rb") as f:
                text = f.read()
    journal = [ln for ln in text.decode().splitlines() if strip(ln)]
    return d, check(d, journal[len(head):], events)


def pico_session(seed, rate, seats=3, flash=None, events_max=0, wall_timeout=3600):
    """One session (its first `events_max` events, when given) on the virtual Pico (the
    shoe's UF2; `flash`: an image already given its settings); returns (dealer, [failures])."""
    from vpico import table as T
    head, events = S.script_session("table", seats, seed)
    events = events[:events_max or len(events)]
    d = EdgeDealer(head, events, rate, edge_seed=seed * 31 + 7, seed=seed, hold_ms=T.HOLD_MS)
    got, err = T.dealt_on_pico(d, seats, flash, wall_timeout, stopped="stopped")
    d.finish()
    bad = check(d, got[len(head):], events)
    if err:
        bad.append("the Pico's REPL: %s" % err.strip())
    return d, bad


def main(argv):
    ap = cli.ArgumentParser(prog="bench_field_edge.py", description="Scripted sessions "
                            "whose cards slide through the reader's field while the PN532 "
                            "model spoils a seeded share of the READs; prints the field-edge "
                            "read counts.")
    ap.add_argument("--sessions", type=cli.count, default=20, help="sessions (default 20)")
    ap.add_argument("--seed", type=cli.whole, default=1, help="the first session's seed")
    ap.add_argument("--seats", type=cli.count, default=4, help="seats (default 4)")
    ap.add_argument("--rate", type=float, default=0.2,
                    help="chance that a READ of a tag in the field fails (default 0.2)")
    ap.add_argument("--events", type=cli.whole, default=0,
                    help="only each session's first EVENTS events (default: all)")
    ap.add_argument("--pico", action="store_true",
                    help="on the virtual Pico (the shoe's UF2: `make uf2`), not CPython")
    a = ap.parse_args(argv[1:])
    cli.check_seats("bench_field_edge.py", "table", a.seats)
    if not 0 <= a.rate < 1:
        cli.fail("bench_field_edge.py", "--rate must be 0 to below 1, not %s" % a.rate)
    reads = dict((k, 0) for k in READ_OUTCOMES)
    counts = {}
    bad = []
    wrong = 0
    for n in range(a.sessions):
        seed = a.seed + n
        if a.pico:
            d, fails = pico_session(seed, a.rate, a.seats, events_max=a.events)
        else:
            d, fails = cpython_session(seed, a.rate, a.seats)
        for k in READ_OUTCOMES:
            reads[k] += d.reads[k]
        for k, v in d.counts.items():
            counts[k] = counts.get(k, 0) + v
        wrong += d.misattributed
        bad += ["session %d: %s" % (seed, f) for f in fails]
    where = "the virtual Pico" if a.pico else "CPython"
    tried = sum(reads.values())
    print("field edge (%s, %d sessions, READ failure rate %.2f): %d cards, %d passes "
          "through the field" % (where, a.sessions, a.rate, counts["cards"], counts["passes"]))
    print("field edge: READs tried %d: ok %d, failed crc %d, parity %d, partial %d, "
          "tag left mid-READ %d, nak %d" % (tried, reads["ok"], reads["crc"], reads["parity"],
                                           reads["partial"], reads["left"], reads["nak"]))
    print("field edge: cards recovered by the reader's retry %d, dealt again after "
          "'unread' %d, after 'read-failed' %d; lost in silence %d, misattributed %d"
          % (counts["recovered"], counts["again unread"], counts["again read-failed"],
             counts["lost"], wrong))
    for line in bad[:20]:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
