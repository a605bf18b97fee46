#!/usr/bin/env python3
"""Where the XIP cache misses of a session fall in the shoe's UF2: the interpreter's
sources (and the frozen bytecode) ranked by the misses they cost, with their sizes, to
choose what boards/uf2/*/mpconfigboard.cmake keeps in SRAM (PONTOON_RAM_OBJECTS).

    .venv/bin/python3 tools/xip_profile.py [--board RPI_PICO] [--seats N] [--events N] [--top N]

Plays the scripted `table` session on the virtual Pico (XIP cache model on) with
vpico.js counting misses per 64 bytes of flash (VPICO_XIP_PROFILE), then maps them to the
link map of that board's last `make uf2` (build/uf2/build-BOARD/firmware.elf.map).
"""
import bisect
import collections
import os
import re
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_pico as B  # noqa: E402
import cli  # noqa: E402
import runner as R  # noqa: E402
import uf2  # noqa: E402

S = B.S
FLASH = 0x10000000
BUCKET = 64                      # bytes of flash per count (vpico.js)
_ONE_LINE = re.compile(r"^ (\.\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
_NAME_ONLY = re.compile(r"^ (\.\S+)\s*$")
_REST = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")


def flash_sections(map_path):
    """(address, size, object file, section) of every input section placed in flash."""
    with open(map_path) as f:
        lines = f.read().split("\n")
    start = next(i for i, x in enumerate(lines) if x.startswith("Linker script and memory map"))
    out = []
    pending = None
    for x in lines[start:]:
        m = _ONE_LINE.match(x)
        if m:
            out.append((int(m.group(2), 16), int(m.group(3), 16), m.group(4), m.group(1)))
            pending = None
            continue
        m = _NAME_ONLY.match(x)
        if m:
            pending = m.group(1)
            continue
        if pending:
            m = _REST.match(x)
            if m:
                out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3), pending))
            pending = None
    return sorted(s for s in out if FLASH <= s[0] < FLASH + (16 << 20) and s[1] > 0)


def attribute(sections, counts):
    """Misses per object file and per section; the objects' sizes in flash."""
    starts = [s[0] for s in sections]
    by_obj, by_section, size = collections.Counter(), collections.Counter(), collections.Counter()
    for a, n, obj, _ in sections:
        size[os.path.basename(obj)] += n
    for b, c in enumerate(counts):
        if not c:
            continue
        a = FLASH + b * BUCKET
        i = bisect.bisect_right(starts, a + BUCKET - 1) - 1
        if i < 0 or a >= sections[i][0] + sections[i][1]:
            by_obj["(between sections)"] += c
            continue
        obj = os.path.basename(sections[i][2])
        by_obj[obj] += c
        by_section[sections[i][3] + "  " + obj] += c
    return by_obj, by_section, size


def main(argv=None):
    ap = cli.ArgumentParser(prog="xip_profile.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default="RPI_PICO", choices=("RPI_PICO",),
                    help="the UF2 to profile (default RPI_PICO)")
    ap.add_argument("--seats", type=int, default=8, help="seats at the table (default 8)")
    ap.add_argument("--events", type=cli.count, default=120,
                    help="events of the session to play (default 120)")
    ap.add_argument("--top", type=cli.count, default=30, help="rows to print (default 30)")
    a = ap.parse_args(argv)
    cli.check_seats("xip_profile.py", "table", a.seats)
    map_path = os.path.join(uf2.OUT, "build-" + a.board, "firmware.elf.map")
    if not os.path.isfile(map_path):
        cli.fail("xip_profile.py", "no %s: run `make uf2` first" % os.path.relpath(map_path, ROOT))
    tmp = tempfile.mkdtemp(prefix="xip-profile-")
    prof = os.path.join(tmp, "misses.u32")
    os.environ["VPICO_XIP_PROFILE"] = prof       # the vpico.js processes started below
    try:
        flash = os.path.join(tmp, "flash.bin")
        print("xip_profile: deploying the settings, then %d events of an %d-seat session ..."
              % (a.events, a.seats), flush=True)
        B.deployed_flash(flash, log=lambda *x: None)
        run = R.Pico(flash)
        run.boot()
        B.set_files(run, {"settings.txt": S.settings_text("table", a.seats)})
        run.close()
        if os.path.exists(prof):
            os.remove(prof)                       # only the session's misses count
        run = R.Pico(flash)
        run.boot()
        head, events = S.script_session("table", a.seats, 1)
        events = events[:a.events]
        d = S.Driver(head, events, seed=1)
        run.play(d)
        run.run(lambda r: d.done)
        run.close()
    except B.BenchError as e:
        cli.fail("xip_profile.py", e)
    finally:
        os.environ.pop("VPICO_XIP_PROFILE", None)
    with open(prof, "rb") as f:
        data = f.read()
    counts = struct.unpack("<%dI" % (len(data) // 4), data)
    by_obj, by_section, size = attribute(flash_sections(map_path), counts)
    total = sum(by_obj.values()) or 1
    print("XIP cache misses of the session: %d (%s)" % (total, a.board))
    print("  %7s %7s %9s  %s" % ("share", "cumul.", "bytes", "object (flash)"))
    cum = 0
    for obj, c in by_obj.most_common(a.top):
        cum += c
        print("  %6.2f%% %6.2f%% %9d  %s" % (100 * c / total, 100 * cum / total, size[obj], obj))
    print("  the hottest sections:")
    for sec, c in by_section.most_common(a.top // 2):
        print("  %6.2f%%  %s" % (100 * c / total, sec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
