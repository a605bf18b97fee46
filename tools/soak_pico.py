#!/usr/bin/env python3
"""Soak run on the virtual Pico (not part of `make test`): sessions back to back, each
followed by a tag-mode run and a power cut; every third session also loses power in the
middle of a deal and resumes from its journal. After each session it prints the heap's
low point (lowest gc.mem_free the table saw, garbage included), the heap in use at its
highest after a collection, the largest free block (micropython.mem_info) and the flash
left (os.statvfs).

    .venv/bin/python3 tools/soak_pico.py [--sessions 20] [--seats 8] [--deals 0] [--fill KB]

--fill KB first writes a ballast file so that only about KB of flash stay free: the hand
history then outgrows the flash and the oldest sessions make room (firmware/ledger/journal.py
make_room), which the run reports. Exit status 1 if a session fails or a kept history file
does not replay to the session's ledger."""
import os
import random
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench_pico as B  # noqa: E402
import cli  # noqa: E402
import runner as R  # noqa: E402
import simtable as S  # noqa: E402

STATVFS = "import os\ns = os.statvfs('/')\nprint('flash', s[0] * s[3])"


def flash_left(run):
    out = run.exec(STATVFS)
    return int(out.split()[out.split().index("flash") + 1])



def main(argv):
    ap = cli.ArgumentParser(prog="soak_pico.py", description="Sessions back to back on the virtual Pico.")
    ap.add_argument("--sessions", type=int, default=20, metavar="N")
    ap.add_argument("--seats", type=int, default=8, metavar="N")
    ap.add_argument("--deals", type=int, default=0, help="deals a session (0: the preset's 8)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fill", type=int, default=0, metavar="KB",
                    help="leave only about KB of flash free before the first session")
    try:
        a = ap.parse_args(argv)
    except SystemExit as x:
        return x.code
    if not 2 <= a.seats <= 8 or a.sessions < 1 or a.deals < 0:
        print("%s: error: --seats takes 2..8, --sessions 1 or more, --deals 0 or more"
              % os.path.basename(__file__), file=sys.stderr)
        return 2
    if a.deals < 0 or a.fill < 0:
        print("error: --deals and --fill take a number >= 0", file=sys.stderr)
        return 2
    try:
        return soak(a)
    except (B.BenchError, RuntimeError, B._vpico().VpicoError) as x:
        print("error: %s" % x, file=sys.stderr)
        return 1


def soak(a):
    t0 = time.monotonic()
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="soak-pico-")
    bad = 0
    try:
        flash = os.path.join(tmp, "flash.bin")
        B.deployed_flash(flash)
        run = R.Pico(flash)
        run.boot()
        B.set_files(run, {"settings.txt": S.settings_text("table", a.seats)})
        if a.fill:
            run = R.Pico(flash)
            run.boot()
            run.run(lambda r: r.saw("# heap in use after boot"), max_s=30)
            left = flash_left(run)
            ballast = max(0, left - a.fill * 1024)
            run.exec("f = open('ballast.bin', 'wb')\nb = bytes(4096)\n"
                     "for i in range(%d):\n f.write(b)\nf.close()" % (ballast // 4096),
                     timeout_s=600)
            run.p.power_cut()
        print("%-8s %7s %6s %12s %12s %12s %12s  %s" % (
            "session", "events", "cut", "lowest free", "peak in use", "largest blk",
            "flash left", "notes"), flush=True)
        kept = {}
        for k in range(a.sessions):
            head, events = S.script_session("table", a.seats, a.seed + k, deals=a.deals)
            d = S.Driver(head, events, seed=a.seed + k)
            cut = rng.randrange(5, len(events) - 5) if k % 3 == 2 else None
            run = R.Pico(flash)
            run.boot()
            run.play(d)
            if cut is not None:
                run.run(lambda r: d.acked >= cut)
                run.p.power_cut()
                run = R.Pico(flash)
                run.boot()
                run.play(d)
            n0 = len(run.lines)
            run.run(lambda r: d.done)
            if d.errors:
                raise RuntimeError("session %d: refusals %s" % (k + 1, d.errors[:3]))
            B.tag_mode_run(run)
            run.take_output()
            heap = B.heap_lines(run.halt())
            free, block = run.mem_info()
            left = flash_left(run)
            notes = [x[2:] for x in run.lines[n0:] if x.startswith("# flash")]
            over = [x for x in run.lines[n0:] if x.startswith("# session over")]
            path = over[0].rsplit(" ", 1)[1] if over else "?"
            kept[path] = S.shadow(head, events, len(events))
            print("%-8d %7d %6s %12d %12d %12d %12d  %s" % (
                k + 1, len(events), "#%d" % cut if cut is not None else "-",
                heap.get("lowest_free", -1), heap.get("peak", -1), block, left,
                "kept " + path + ("; " + "; ".join(notes) if notes else "")), flush=True)
            # the history file, read back from the Pico, replays to the session's ledger
            text = run.exec("f = open(%r)\nprint(f.read())\nf.close()" % path)
            bad += check_history(text, kept[path])
            run.p.power_cut()
        print("%d sessions in %.0f s of wall time" % (a.sessions, time.monotonic() - t0))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if bad else 0


def check_history(text, want):
    path = tempfile.mktemp(suffix=".txt")
    with open(path, "w") as f:
        f.write(text.replace("\r\n", "\n").strip() + "\n")
    try:
        led = S.ledger(path)
    finally:
        os.remove(path)
    exp = {str(s): want.balance(s) for s in range(1, want.seats + 1)}
    if led["balances"] != exp or not led["finished"]:
        print("  history does not replay to the session's ledger: %s != %s"
              % (led["balances"], exp))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
