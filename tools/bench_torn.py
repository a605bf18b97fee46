#!/usr/bin/env python3
"""Power cuts that tear the flash operation in flight, on the virtual Pico: a scripted
`table` session is played and, at seeded instants across it, the power goes part-way
through an erase or a page program (tools/vpico/vpico.js: a page left with some bytes
programmed and the rest old, a sector with some bytes FF and the others old or half
erased). After each cut the Pico is powered on again from its flash as the cut left it.

Checked after each cut: the shoe boots and resumes (`# resume #N`), and every event it had
acknowledged on the serial line before the cut is in the resumed session (N at least the
events acknowledged); at the end the journal is the script. Both firmwares: the shoe's own
UF2 (its journal's tail in raw flash, its snapshots there too) and the stock MicroPython
UF2 with the .mpy files (littlefs: the journal's tail file, the fold into journal.txt,
snapshots, the finished session's rename into history/).

    .venv/bin/python tools/bench_torn.py [--cuts 12] [--seed 1] [--seats 3]
                                         [--events 0] [--only frozen|stock]

Printed per firmware: cuts made, which operation each tore (erases, programs, none), cuts
whose resumed session lacked an acknowledged event (must be 0), boots that failed (0).
"""
import os
import random
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import cli  # noqa: E402,F401  (first: the project's Python; quiet when piped to head)
import simtable as S  # noqa: E402

SPACING = (2, 9)             # events acknowledged between two cuts (seeded)
OPS_AHEAD = (1, 6)           # the cut tears the k-th flash operation from then (seeded)


def settled_flash(dest, firmware, seats):
    """A flash image of `firmware` ("frozen" / "stock") given settings for a `seats` table
    and no session, powered off."""
    import bench_pico as B
    import runner as R
    B.deployed_flash(dest, log=lambda *a: None, firmware=firmware)
    run = R.Pico(dest, firmware=firmware)
    run.boot()
    B.set_files(run, {"settings.txt": S.settings_text("table", seats)})
    run.close()
    return dest


def cut_and_resume(run, pico, driver, rep, bad, c):
    """The power went (pico.cut says in what): count it, power on again and check that the
    session resumed with every event acknowledged before the cut. False if it did not boot."""
    run.take_output()
    acked = driver.acked                     # acknowledged on the serial line by then
    rep["cuts"] += 1
    rep[pico.cut[0]] += 1
    n = len(run.lines)
    run.boot()
    try:
        run.run(until=lambda r: driver.acked >= 0, max_s=pico.emulated_now() + 30)
    except Exception as x:                   # noqa: BLE001 (the runner's or the Pico's)
        rep["boots_failed"] += 1
        bad.append("cut %d (%s): the shoe did not resume: %s" % (
            c, pico.cut, str(x).splitlines()[0]))
        return False
    said = [ln for ln in run.lines[n:] if ln.startswith("# resume #") or
            ln.startswith("# new session")]
    kept = said and said[0].startswith("# new session") and acked >= len(driver.events)
    if driver.acked < acked and not kept:        # (kept: history/ is read at the end)
        rep["lost"] += 1
        bad.append("cut %d (%s): %d events acknowledged before it, %d resumed (%s)"
                   % (c, pico.cut, acked, driver.acked, said[:1]))
    return True


def torn_session(flash, firmware, seed, cuts, seats=3, events_max=0, wall_timeout=3600,
                 end_cut=True):
    """One session on a copy of `flash` with up to `cuts` torn power cuts across it (and,
    with end_cut, one more as the finished session is kept); returns (report dict,
    [failures])."""
    from vpico import table as T
    from vpico.pico import Pico
    head, events = S.script_session("table", seats, seed)
    events = events[:events_max or len(events)]
    rng = random.Random(seed * 7 + (1 if firmware == "stock" else 0))
    driver = T.driver(head, events, seed)
    tmp = tempfile.mkdtemp(prefix="torn-")
    copy = os.path.join(tmp, "flash.bin")
    shutil.copyfile(flash, copy)
    pico = Pico(copy, firmware=firmware)
    rep = {"cuts": 0, "e": 0, "p": 0, "-": 0, "lost": 0, "boots_failed": 0, "events": len(events)}
    bad = []
    try:
        run = T.table_run(pico, driver, wall_timeout=wall_timeout)
        run.boot()
        for c in range(cuts):
            target = driver.acked + rng.randint(*SPACING)
            run.run(until=lambda r: driver.acked >= min(target, len(events)) or driver.done)
            if driver.done:
                break
            # on littlefs every other cut tears the next erase (a block every few events; the
            # raw tail erases only when a session is kept: the end's cut), the others any of
            # the next few operations
            kind = "e" if c % 2 and firmware == "stock" else ""
            pico.power_cut_in_op(1 if kind else rng.randint(*OPS_AHEAD), rng.random(),
                                 seed * 1000 + c, kind)
            run.run(until=lambda r: pico.proc is None or driver.done or
                    driver.acked >= target + SPACING[1])
            if pico.proc is not None:            # no such operation came in time: no cut
                pico.no_power_cut()
                continue
            if not cut_and_resume(run, pico, driver, rep, bad, c + 1):
                return rep, bad
        run.run()
        if end_cut and pico.proc is not None:
            # the session's end: the last event, then the finished session kept (the fold,
            # the rename into history/ or the raw region's erase)
            pico.power_cut_in_op(1, rng.random(), seed * 1000 + cuts, "e")
            pico.run_for(5.0)
            if pico.proc is None and not cut_and_resume(run, pico, driver, rep, bad,
                                                        cuts + 1):
                return rep, bad
            pico.no_power_cut()
        run.halt(settle_s=0.2)
        journal, err = pico.exec_raw(
            "import os\nh = sorted(os.listdir('history')) if 'history' in os.listdir() "
            "else []\nif h:\n print(open('history/' + h[0]).read())\nelse:\n"
            " from ledger import session\n session.print_journal()")
        got = [ln for ln in journal.replace("\r\n", "\n").split("\n") if ln.strip()]
        if err.strip():
            bad.append("the Pico's REPL: %s" % err.strip()[-300:])
        if got != head + events:
            k = next((i for i, (a, b) in enumerate(zip(got, head + events)) if a != b),
                     min(len(got), len(head + events)))
            bad.append("the journal is not the script from line %d: %r (%d lines, %d wanted)"
                       % (k, got[k:k + 2], len(got), len(head + events)))
        errors = [ln for ln in run.lines if ln.startswith("Traceback") or "Error" in ln]
        if errors:
            bad.append("the Pico said: %s" % errors[:3])
    finally:
        pico.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return rep, bad


def main(argv):
    ap = cli.ArgumentParser(prog="bench_torn.py", description="Power cuts that tear the flash "
                            "operation in flight across a session on the virtual Pico; prints "
                            "the cuts made and any acknowledged event lost.")
    ap.add_argument("--cuts", type=cli.count, default=12, help="cuts a session (default 12)")
    ap.add_argument("--seed", type=cli.whole, default=1)
    ap.add_argument("--seats", type=cli.count, default=3, help="seats (default 3)")
    ap.add_argument("--events", type=cli.whole, default=0,
                    help="only the session's first EVENTS events (default: all)")
    ap.add_argument("--only", choices=("frozen", "stock"), action="append",
                    help="one firmware only (default both)")
    a = ap.parse_args(argv[1:])
    cli.check_seats("bench_torn.py", "table", a.seats)
    status = 0
    for fw in a.only or ("frozen", "stock"):
        tmp = tempfile.mkdtemp(prefix="torn-settled-")
        try:
            flash = settled_flash(os.path.join(tmp, "settled.bin"), fw, a.seats)
            rep, bad = torn_session(flash, fw, a.seed, a.cuts, a.seats, a.events)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print("torn power cuts (%s UF2, %d-seat session of %d events, seed %d): %d cuts, "
              "tearing %d erases, %d page programs, %d between operations; acknowledged "
              "events lost %d, boots failed %d"
              % ("the shoe's" if fw == "frozen" else "the stock", a.seats, rep["events"],
                 a.seed, rep["cuts"], rep["e"], rep["p"], rep["-"], rep["lost"],
                 rep["boots_failed"]), flush=True)
        for line in bad[:10]:
            print("  " + line)
        if bad:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
