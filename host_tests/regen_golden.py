#!/usr/bin/env python3
"""Write the golden outputs (FILE.txt.json) of the transcript scenarios.

    python3 host_tests/regen_golden.py --write [SCENARIO ...]

Only with --write does it write anything (a golden pins the engine's full output, so
regenerating is a decision: check the hand-computed .expect.json files first). Without
scenario arguments it covers every host_tests/scenarios/<preset>/*.txt and the classic options'
and Shoot Pontoon's (scenarios/classic_options/, shoot/).
Without --write it lists the goldens that are missing or differ, and exits 1 if any.
"""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCEN = os.path.join(HERE, "scenarios")
REPLAY = os.path.join(ROOT, "tools", "replay.py")


def scenarios(args):
    if args:
        return [os.path.abspath(a) for a in args]
    out = []
    for preset in ("table", "classic", "casino", "classic_options", "shoot"):
        out.extend(sorted(glob.glob(os.path.join(SCEN, preset, "*.txt"))))
    return out


def main(argv):
    write = "--write" in argv
    args = [a for a in argv if a != "--write"]
    stale = 0
    for path in scenarios(args):
        r = subprocess.run([sys.executable, REPLAY, path], capture_output=True, cwd=ROOT)
        rel = os.path.relpath(path, ROOT)
        if r.returncode != 0:
            print("FAILED %s: exit %d %s" % (rel, r.returncode, r.stderr.decode().strip()))
            stale += 1
            continue
        golden = path + ".json"
        old = None
        if os.path.exists(golden):
            with open(golden, "rb") as f:
                old = f.read()
        if old == r.stdout:
            continue
        stale += 1
        if write:
            with open(golden, "wb") as f:
                f.write(r.stdout)
            print("wrote %s" % os.path.relpath(golden, ROOT))
        else:
            print("%s %s" % ("differs" if old is not None else "missing", os.path.relpath(golden, ROOT)))
    if not write and stale:
        print("%d golden(s) stale; rerun with --write to regenerate" % stale)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
