#!/usr/bin/env python3
"""A fault campaign: whole scripted sessions dealt from the physical deck
(boards/simdev/deck.py, tools/dealer.py's dealer, here making no mistakes) while the chip
models fail at seeded random instants, the faults a real table meets (issue 42):

  reader   the PN532 wedged: it NACKs its address until RSTPDN pulses (pn532.wedge)
  bus      a target holds SDA low until nine SCL clocks and a STOP (bus.fault_stuck)
  switch   the TCA9548A browned out: every channel off (tca9548a.brown_out)
  display  a display in use lost its power: RAM noise, display and charge pump off,
           page addressing; it ACKs as before (ssd1306.power_cut)

An instant is an event of the script and a few ms after the table asked for it (so a
card is often in the field, being read or shown). Checked for every session: the journal
is the script (the same ledger as without faults: no card lost, none given to the wrong
hand), each reader, bus and display fault is reported once (`! fault reader silent: reset`,
`! fault bus stuck: cleared`, `! fault display N lost power: set again`), a switch reset is reported unless the firmware's next
change of channel wrote the register first (then nothing could fail), and each fault is
recovered within its goal, in emulated ms from the instant it struck:

  reader   listening again (its first InListPassiveTarget after the reset)  300 ms
  bus      SDA free again (the bus clear's STOP)                           50 ms
  switch   its channel register set again                                 before the next deal
  display  every RAM byte and setting written again                       before the next deal

A repowered display is found by its status byte (bit 6: display off, read from one display
every 50 ms when the table has nothing else to do and from every one at a deal's end,
firmware/hardware/faults.py): the time from the fault to its `! fault display` line is
printed as the time it took to find it.

    .venv/bin/python tools/fault_campaign.py [--sessions 100] [--seed 1] [--faults 4]
                                             [--seats 4] [--pico]
"""
import contextlib
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import cli  # noqa: E402,F401  (first: the project's Python; quiet when piped to head)
import dealer as D  # noqa: E402
import simtable as S  # noqa: E402

KINDS = ("reader", "bus", "switch", "display")
REPORT = {"reader": "! fault reader silent", "bus": "! fault bus stuck",
          "switch": "! fault switch reset", "display": "! fault display",
          "segment": "! fault display"}    # (a segment: only in a schedule, not seeded)
GOAL_MS = {"reader": 300, "bus": 50}          # the others: before the next deal starts
NEXT_DEAL = "before the next deal"
OFFSET_MS = 60                # an instant: up to this long after the table asked for event k
SPACING = 3                   # events between two faults
SETTLE_MS = 5000              # the session over: faults still open have this long
GATHER_MS = 1000              # between deals the dealer gathers the cards and the stakes are
#                               paid (the scripted players' 40 ms would be no table's pace)
PH_IDLE = 2                   # engine.PH_IDLE: between deals
REFRESH_MS = 150              # firmware/hardware/faults.py _REFRESH_MS (checked by the tests)
BLIND = "# display %d: its status byte cannot be read"   # faults.py: mended blind
LOOK_MS = 50                  # firmware/hardware/faults.py _LOOK_MS (checked by the tests)


class FaultDealer(D.Dealer):
    """The dealer of tools/dealer.py, no mistakes, and chips that fail at seeded instants."""

    def __init__(self, head, events, faults=4, fault_seed=1, kinds=KINDS, schedule=None,
                 **kw):
        """schedule: [(event index, ms after it was asked for, kind, pick in 0..1)] instead
        of `faults` seeded ones (pick chooses the display)."""
        super().__init__(head, events, rate=0.0, **kw)
        rng = random.Random(fault_seed)
        n = len(events)
        picks = []
        for k in rng.sample(range(4, max(5, n - 2)), min(faults, max(1, (n - 6) // SPACING))):
            if all(abs(k - j) >= SPACING for j in picks):
                picks.append(k)
        self.schedule = sorted(schedule if schedule is not None else
                               ((k, rng.uniform(0, OFFSET_MS), kinds[rng.randrange(len(kinds))],
                                 rng.random()) for k in picks))
        self.asked_at = {}          # event index -> ms the dealer acted for it
        self.pico = None            # the virtual Pico (tools/vpico/pico.py) it plays on
        self.runner = None
        self.deal_ends = set()      # indices of the events that end a deal
        for j in range(n):
            phase = self.engine_at(j).phase
            if self.engine_at(j + 1).phase == PH_IDLE and phase != PH_IDLE:
                self.deal_ends.add(j)
        self._gathered = -1
        self.struck = []            # dicts: kind, k, at (ms), seen (len(self.seen)), ...

    def on_output(self, line):
        super().on_output(line)
        if line.startswith(REPORT["display"]):
            for f in self.struck:
                if f["kind"] == "display" and f.get("found") is None and \
                        line.startswith("%s %d " % (REPORT["display"], f["target"] + 1)):
                    f["found"] = self._models().clock.ns / 1e6
                    break

    def plan(self, now):
        self.asked_at.setdefault(self.acked, now)
        return super().plan(now)

    # ----------------------------------------------------------- the models
    def _models(self):
        """The world whose chip models the firmware talks to (the virtual Pico's, on it)."""
        w = self.world
        run = getattr(w.pn532, "run", None)
        return run.p.world if run is not None else w

    def tick(self, now):
        """Strike what is due, and see what has recovered (the runner calls it each pass)."""
        s = self.schedule
        # (on the virtual Pico a chip fails between two transfers: a read's bytes are
        # handed to the firmware at its address phase, and a chip changed before its stop
        # would answer otherwise than it was seen to)
        held = self.pico is not None and self.pico.transferring()
        while not held and s and s[0][0] in self.asked_at and \
                now >= self.asked_at[s[0][0]] + s[0][1]:
            k, _, kind, pick = s.pop(0)
            self._strike(kind, k, now, pick)
        for f in self.struck:
            if f["done"] is None:
                self._look(f)

    def _strike(self, kind, k, now, pick):
        w = self._models()
        ns = w.clock.ns
        f = {"kind": kind, "k": k, "at": ns / 1e6, "seen": len(self.seen), "done": None,
             "target": None, "found": None}
        if kind == "reader":
            w.pn532.wedge()
        elif kind == "bus":
            w.bus.fault_stuck()
            if self.pico is not None:
                self.pico.sda_follows()    # the virtual Pico's SDA pin reads it low
        elif kind == "switch":
            w.mux.brown_out(ns)
        elif kind == "segment":
            # a seat display's segment (channel i, seat 2's on: channel 0 is the banker's
            # too) that grabs SDA at every transfer to it from now on
            seats = min(self.engine_at(k).seats, 8)
            i = 1 + int(pick * (seats - 1))
            f["target"] = i
            w.bus.fault_sticky(i)
        else:
            seats = min(self.engine_at(k).seats, 8)
            used = list(range(seats)) + [8]
            i = used[int(pick * len(used))]
            f["target"] = i
            w.displays[i].power_cut(ns)
        self.struck.append(f)

    def _look(self, f):
        w = self._models()
        kind = f["kind"]
        if kind == "reader":
            pn = w.pn532
            if pn.listening_ns and not pn.wedged:
                f["done"] = pn.listening_ns / 1e6
        elif kind == "bus":
            if not w.bus.stuck():
                f["done"] = w.bus.cleared_ns / 1e6
        elif kind == "switch":
            if w.mux.browned_ns < 0:
                f["done"] = w.mux.set_again_ns / 1e6
        elif kind == "segment":          # its channel off for good, the bus free
            if w.bus.cleared_ns > f["at"] * 1e6 and not w.bus.stuck() and \
                    not w.mux.mask & 1 << f["target"]:
                f["done"] = w.bus.cleared_ns / 1e6
        else:
            d = w.displays[f["target"]]
            if not d.lost:
                f["done"] = d.right_ns / 1e6

    # ----------------------------------------------------------- the checks
    def _deal_after(self, k):
        """The event index that starts the next deal once the deal under way when event k
        was asked for has ended (the table draws every display whole at a deal's end;
        struck between deals, the deal after the next); None: the session ends first."""
        ended = False
        for j in range(k, len(self.events)):
            e = self.engine_at(j)            # (one engine, moved on: its values first)
            phase, deals = e.phase, e.deals
            e = self.engine_at(j + 1)
            if ended and e.deals > deals:
                return j
            if e.phase == PH_IDLE and phase != PH_IDLE:
                ended = True
        return None

    def poll(self, now):
        k = self.acked - 1
        if k in self.deal_ends and k != self._gathered:
            self._gathered = k          # the deal is over: the cards are gathered first
            self.ready_at = max(self.ready_at, now + GATHER_MS)
        super().poll(now)
        if self.done and any(f["done"] is None for f in self.struck) and \
                now - self.asked_at.get(len(self.events) - 1, now) < SETTLE_MS:
            self.done = False           # the table goes on a while: every fault recovers

    def judge(self):
        """[failures]; fills each struck fault's "ms" (time to recover) and "deadline"."""
        bad = []
        for n, f in enumerate(self.struck):
            kind = f["kind"]
            later = [g["seen"] for g in self.struck[n + 1:] if g["kind"] == kind and
                     g["target"] == f["target"]]
            lines = [ln for _, ln in self.seen[f["seen"]:later[0] if later else None]]
            want = REPORT[kind]
            if kind in ("display", "segment"):      # each display's own line
                want = "%s %d " % (REPORT["display"], f["target"] + 1)
            if kind == "display" and any(ln.startswith(BLIND % (f["target"] + 1))
                                         for _, ln in self.seen):
                want = None             # mended blind: it cannot be told, so not reported
            told = sum(1 for ln in lines if want and ln.startswith(want))
            where = "%s at event %d (%.1f ms)" % (kind, f["k"], f["at"])
            if f["done"] is None:
                bad.append("%s: never recovered" % where)
                continue
            f["ms"] = f["done"] - f["at"]
            if kind in GOAL_MS:
                if f["ms"] > GOAL_MS[kind]:
                    bad.append("%s: recovered in %.1f ms (goal %d)" % (where, f["ms"],
                                                                      GOAL_MS[kind]))
            else:
                j = self._deal_after(f["k"])
                f["deadline"] = self.asked_at.get(j) if j is not None else None
                if f["deadline"] is not None and f["done"] > f["deadline"]:
                    bad.append("%s: right again at %.1f ms, the next deal began at %.1f ms"
                               % (where, f["done"], f["deadline"]))
            f["told"] = told
            if kind == "switch":
                # reported, or set again by the next change of channel before anything
                # failed (nothing to report then): never reported twice
                if told > 1:
                    bad.append("%s: reported %d times" % (where, told))
            elif want is not None and told != 1:
                bad.append("%s: reported %d times, not once: %s" % (where, told, lines[:8]))
        return bad


def session(seed, faults=4, seats=4, preset="table", kinds=KINDS, deals=0, schedule=None,
            events_max=0, on_boot=None):
    """One session on CPython with `faults` faults (or `schedule`: FaultDealer), the first
    `events_max` events when given; on_boot(runner) after the boot. (dealer, [failures])."""
    import runner as R
    head, events = S.script_session(preset, seats, seed, deals=deals)
    events = events[:events_max or len(events)]
    d = FaultDealer(head, events, faults=faults, fault_seed=seed * 104729 + 7, kinds=kinds,
                    schedule=schedule, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "flash")
        S.fresh_flash(path, S.settings_text(preset, seats))
        r = R.CPython(path, d)
        r.on_tick = d.tick
        r.boot()
        d.runner = r
        if on_boot is not None:
            on_boot(r)
        try:
            r.run()
        except RuntimeError as x:
            d.failures.append("silent: %s" % str(x).splitlines()[0])
        d.finish()
        text = S.journal_text(path)
        if text is None:
            with open(S.history_files(path)[-1], "rb") as f:
                text = f.read()
    journal = [ln for ln in text.decode().splitlines() if S.strip(ln)]
    bad = list(d.failures) + d.judge()
    if not d.done:
        bad.append("session %d did not finish" % seed)
    return d, bad + D.against_script(d, journal[len(head):], events)


def pico_session(seed, faults=2, seats=3, events_max=0, kinds=KINDS, wall_timeout=3600,
                 schedule=None, on_boot=None):
    """One session on the virtual Pico (the shoe's own UF2), the first `events_max` events
    when given, `faults` seeded faults or `schedule` (FaultDealer); on_boot(pico) once it
    has booted. (dealer, [failures])."""
    from vpico import table as T
    from vpico.pico import FROZEN, Pico
    head, events = S.script_session("table", seats, seed)
    events = events[:events_max or len(events)]
    d = FaultDealer(head, events, faults=faults, fault_seed=seed * 104729 + 7, kinds=kinds,
                    schedule=schedule, seed=seed, hold_ms=T.HOLD_MS)
    with tempfile.TemporaryDirectory() as tmp:
        flash = os.path.join(tmp, "flash.bin")
        T.fresh_pico(flash, S.settings_text("table", seats))[0].power_cut()
        pico = Pico(flash, firmware=FROZEN)
        pico.boot()
        d.pico = pico
        try:
            run = T.table_run(pico, d, wall_timeout=wall_timeout)
            run.on_tick = d.tick
            run.boot()
            if on_boot is not None:
                on_boot(pico)
            run.run()
            run.halt(settle_s=0.2)
            out, err = pico.exec_raw(
                "import os\nh = sorted(os.listdir('history')) if 'history' in os.listdir() "
                "else []\nif h:\n print(open('history/' + h[0]).read())\nelse:\n"
                " from ledger import session\n session.print_journal()")
            got = [ln for ln in out.replace("\r\n", "\n").split("\n") if ln.strip()]
        except RuntimeError as x:
            got, err = [], ""
            d.failures.append("silent: %s" % str(x).splitlines()[0])
        finally:
            pico.close()
    d.finish()
    bad = list(d.failures) + d.judge()
    if not d.done:
        bad.append("session %d did not finish" % seed)
    if err:
        bad.append("the Pico's REPL: %s" % err.strip())
    return d, bad + D.against_script(d, got[len(head):], events)


def summary(dealers):
    """{kind: [recovery ms, ...]} and the deadline misses, over sessions."""
    times = dict((k, []) for k in KINDS)
    for d in dealers:
        for f in d.struck:
            if "ms" in f:
                times.setdefault(f["kind"], []).append(f["ms"])
    return times


@contextlib.contextmanager
def quiet_table(seats, seed):
    """A table (CPython, the models) dealt a few events and left quiet: (its Table, world)."""
    import runner as R
    head, events = S.script_session("table", seats, seed)
    d = FaultDealer(head, events[:12], faults=0, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "flash")
        S.fresh_flash(path, S.settings_text("table", seats))
        r = R.CPython(path, d)
        r.boot()
        r.run()
        yield r.table, r.world


def refresh_cost(seats=4, seed=1):
    """What one rolling refresh of a display costs on the bus (CPython, the models): a
    table dealt a few events, left quiet, one display refreshed. (bytes, bus ms)."""
    with quiet_table(seats, seed) as (t, w):
        t.screens.faults.refreshed = t.screens.faults.checked = w.clock.ms()   # no refresh of its own
        disp = t.screens.disp
        before = disp.bytes_sent
        wire = w.bus.stats.wire_bytes()
        t.screens.faults._refresh(8)
        while t.screens.dirty:
            t.step()
        sent = disp.bytes_sent - before
        on_wire = w.bus.stats.wire_bytes() - wire
    return sent, on_wire * 9 * 1000.0 / w.bus.freq


def look_cost(seats=4, seed=1):
    """What one look costs on the bus (CPython, the models): a table dealt a few events,
    left quiet, the switch's register read back and one display's status byte read (the
    switch's channel changed first, as when the look moves to the next display). (bytes on
    the wire, bus ms)"""
    with quiet_table(seats, seed) as (t, w):
        f = t.screens.faults
        f.look(0)
        wire = w.bus.stats.wire_bytes()
        f.check_switch()                 # the switch's register first, as every 50 ms
        f.look(1)                        # another channel: the switch is written first
        on_wire = w.bus.stats.wire_bytes() - wire
    return on_wire, on_wire * 9 * 1000.0 / w.bus.freq


def report(dealers, bad, where=""):
    times = summary(dealers)
    lost = sum(1 for b in bad if "journal has" in b or "silent" in b)
    wrong = sum(d.misattributed for d in dealers)
    n = sum(len(d.struck) for d in dealers)
    print("fault campaign%s: %d sessions, %d cards, %d faults (%s)" % (
        where, len(dealers), sum(len(d.cards) for d in dealers), n,
        ", ".join("%s %d" % (k, len(times[k])) for k in KINDS)))
    for k in KINDS:
        ts = sorted(times[k])
        if not ts:
            continue
        goal = ("<= %d ms" % GOAL_MS[k]) if k in GOAL_MS else NEXT_DEAL
        told = sum(f.get("told", 0) for d in dealers for f in d.struck if f["kind"] == k)
        line = "  %-8s recovered in %.1f ms mean, %.1f ms worst (goal %s); reported %d of %d" % (
            k, sum(ts) / len(ts), ts[-1], goal, told, len(ts))
        ahead = [f["deadline"] - f["done"] for d in dealers for f in d.struck
                 if f["kind"] == k and f.get("deadline") is not None and "ms" in f]
        if ahead:
            line += "; right %.0f ms before the next deal at the least" % min(ahead)
        print(line)
        found = sorted(f["found"] - f["at"] for d in dealers for f in d.struck
                       if f["kind"] == k and f.get("found") is not None)
        if found:
            print("  %-8s found in %.1f ms mean, %.1f ms worst (its status byte; goal: right "
                  "again %s)" % (k, sum(found) / len(found), found[-1], NEXT_DEAL))
    print("fault campaign%s: %d lost, %d misattributed, %d failures in all" % (
        where, lost, wrong, len(bad)))
    for line in bad[:20]:
        print("  " + line)


def main(argv):
    ap = cli.ArgumentParser(prog="fault_campaign.py", description="Whole scripted sessions "
                            "while the chip models fail at seeded instants (a wedged reader, "
                            "a stuck bus, a switch reset, a repowered display); prints each "
                            "kind's recovery time against its goal and the cards lost.")
    ap.add_argument("--sessions", type=cli.count, default=100, help="sessions (default 100)")
    ap.add_argument("--seed", type=cli.whole, default=1, help="the first session's seed")
    ap.add_argument("--faults", type=cli.count, default=4, help="faults a session (default 4)")
    ap.add_argument("--seats", type=cli.count, default=4, help="seats (default 4)")
    ap.add_argument("--pico", action="store_true",
                    help="on the virtual Pico (the shoe's UF2: `make uf2`), not CPython")
    ap.add_argument("--events", type=cli.whole, default=0,
                    help="with --pico: the first N events of each session (0: all)")
    a = ap.parse_args(argv[1:])
    cli.check_seats("fault_campaign.py", "table", a.seats)
    dealers = []
    bad = []
    for n in range(a.sessions):
        seed = a.seed + n
        if a.pico:
            d, fails = pico_session(seed, a.faults, a.seats, a.events)
        else:
            d, fails = session(seed, a.faults, a.seats)
        dealers.append(d)
        bad += ["session %d: %s" % (seed, f) for f in fails]
    report(dealers, bad, " on the virtual Pico" if a.pico else "")
    if not a.pico:
        sent, ms = refresh_cost(a.seats)
        print("display refresh (faults.py, one blind display every %d ms while the table "
              "waits, all of them at a deal's end): %d bytes, %.1f ms of the bus at 400 kHz"
              % (REFRESH_MS, sent, ms))
        wire, ms = look_cost(a.seats)
        print("display status look (faults.py, the switch's register and one display's "
              "status every %d ms when the table has nothing else to do): %d bytes on the wire, %.3f ms "
              "of the bus at 400 kHz, %.2f%% of it" % (LOOK_MS, wire, ms, 100 * ms / LOOK_MS))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
