#!/usr/bin/env python3
"""The golden outputs (FILE.txt.json) of the transcript scenarios: show what would change,
write only what was reviewed.

    python3 host_tests/regen_golden.py [SCENARIO ...]
    python3 host_tests/regen_golden.py --write GOLDEN ...
    python3 host_tests/regen_golden.py --accept LIST

Without --write or --accept it replays every scenario (or the SCENARIO files named) and
prints, for each golden that is missing or differs, a unified diff of the golden against
the replayer's output; it exits 1 if any. A golden pins the engine's full output, so
regenerating one is a decision taken golden by golden: --write writes only the goldens
(or their scenarios) named on the command line, --accept only those listed in LIST (one
path a line, # comments), each after printing its diff; a blanket rewrite (--write with
no file) is refused. Check the hand-computed .expect.json files first.

Every scenario: host_tests/scenarios/<folder>/*.txt of every folder but the refused
input's (bad/, bad_options/).
"""
import difflib
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCEN = os.path.join(HERE, "scenarios")
REPLAY = os.path.join(ROOT, "tools", "replay.py")
REFUSED = ("bad", "bad_options")          # (test_scenarios.py REFUSED)
USAGE = ("usage: regen_golden.py [SCENARIO ...] | --write GOLDEN ... | --accept LIST")


def every_scenario():
    out = []
    for d in sorted(os.listdir(SCEN)):
        if d not in REFUSED and os.path.isdir(os.path.join(SCEN, d)):
            out.extend(sorted(glob.glob(os.path.join(SCEN, d, "*.txt"))))
    return out


def scenario_of(path):
    """The scenario of a golden (NAME.txt.json) or of itself (NAME.txt)."""
    path = os.path.abspath(path)
    return path[:-5] if path.endswith(".txt.json") else path


def diff(path, out=print):
    """(the replayer's output for scenario `path`, its golden's bytes or None); prints the
    diff when they differ. None for the output when the replayer failed."""
    r = subprocess.run([sys.executable, REPLAY, path], capture_output=True, cwd=ROOT)
    rel = os.path.relpath(path, ROOT)
    golden = path + ".json"
    old = None
    if os.path.exists(golden):
        with open(golden, "rb") as f:
            old = f.read()
    if r.returncode != 0:
        out("FAILED %s: exit %d %s" % (rel, r.returncode, r.stderr.decode().strip()))
        return None, old
    if old != r.stdout:
        lines = difflib.unified_diff(
            (old or b"").decode().splitlines(True), r.stdout.decode().splitlines(True),
            fromfile=os.path.relpath(golden, ROOT) + (" (golden)" if old else " (missing)"),
            tofile=rel + " (replayed now)")
        out("".join(lines).rstrip("\n"))
    return r.stdout, old


def main(argv, out=print):
    write = None
    if argv[:1] == ["--write"]:
        write = argv[1:]
        if not write:
            out("regen_golden.py: error: --write takes the goldens you reviewed, by name "
                "(no blanket rewrite); run without it to see every diff")
            return 2
    elif argv[:1] == ["--accept"]:
        if len(argv) != 2:
            out("regen_golden.py: error: " + USAGE)
            return 2
        with open(argv[1]) as f:
            write = [ln.split("#")[0].strip() for ln in f]
        write = [w for w in write if w]
        if not write:
            out("regen_golden.py: error: %s names no golden" % argv[1])
            return 2
    elif any(a.startswith("--") for a in argv):
        out("regen_golden.py: error: " + USAGE)
        return 2
    if write is not None:
        wrote = 0
        for name in write:
            path = scenario_of(name)
            if not os.path.exists(path):
                out("regen_golden.py: error: no scenario %s" % name)
                return 2
            got, old = diff(path, out)
            if got is None:
                return 1
            if got != old:
                with open(path + ".json", "wb") as f:
                    f.write(got)
                out("wrote %s" % os.path.relpath(path + ".json", ROOT))
                wrote += 1
        out("%d golden(s) written, %d named" % (wrote, len(write)))
        return 0
    stale = 0
    for path in ([os.path.abspath(a) for a in argv] or every_scenario()):
        got, old = diff(path, out)
        if got != old:
            stale += 1
    if stale:
        out("%d golden(s) stale; review each diff, then --write GOLDEN ... (or --accept LIST) "
            "the ones that are right" % stale)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
