#!/usr/bin/env python3
"""Where the virtual Pico's time goes in a session: the firmware's functions (the
interpreter's C, the SDK's, the frozen machine code) ranked by the emulated time spent
running them, and the same time in groups (the bytecode interpreter, name lookups, the
garbage collector, interned-string lookups, waits on the I2C bus, ...), to see what a
speed goal has to cut.

    .venv/bin/python3 tools/cycle_profile.py [--board RPI_PICO|RPI_PICO_W] [--seats N]
                                             [--events N] [--top N]

Plays the scripted `table` session on the shoe's UF2 on the virtual Pico (on RPI_PICO_W
with the nine phones of boards/vpico_w.py, as tools/bench_pico.py --only pico_w does),
vpico.js adding each instruction's cycles, its XIP stalls included, to its address
(VPICO_PC_PROFILE), then maps them to the symbols of that board's last `make uf2`
(arm-none-eabi-nm on build/uf2/build-BOARD/firmware.elf). The time the core sleeps
(waiting for an interrupt) is not any function's: it is printed as idle.
"""
import array
import bisect
import collections
import os
import subprocess
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
NM = "arm-none-eabi-nm"
FLASH, FLASH_BYTES = 0x10000000, 2 << 20       # vpico.js's two arrays, one after the other
SRAM, SRAM_BYTES = 0x20000000, 264 << 10
CYCLE_NS = 8                                   # 125 MHz
# name prefixes (first match wins) -> the group a function's time is counted in
GROUPS = (
    ("garbage collector", ("gc_",)),
    ("interned-string lookups (qstr)", ("qstr_", "find_qstr", "strncmp")),
    ("name and attribute lookups", ("mp_map_lookup", "mp_load_", "mp_obj_class_lookup",
                                    "mp_obj_instance_attr", "mp_convert_member_lookup",
                                    "mp_store_", "mp_obj_get_type")),
    ("bytecode interpreter and calls", ("mp_execute_bytecode", "mp_setup_code_state",
                                        "fun_bc_call", "mp_call_", "mp_obj_call")),
    ("frozen machine code (native, viper)", ("fun_data_",)),
    ("I2C transfers (busy-waiting on the bus)", ("i2c_", "check_single_timeout_us",
                                                 "check_timeout_fn")),
    ("division (the SDK's divider routines)", ("__aeabi_", "____wrap___aeabi",
                                               "__wrap___aeabi", "divmod_", "div_s", "div_u")),
    ("USB serial", ("tud_", "dcd_", "usbd_", "mp_usbd", "tu_fifo", "cdc")),
)


def symbols(elf):
    """[(address, size, name)] of the code symbols, sorted."""
    out = subprocess.run([NM, "-n", "-S", "--defined-only", elf], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        w = line.split()
        if len(w) == 3:
            w[1:1] = ["0"]                 # (no size: hand-written assembly)
        if len(w) == 4 and w[2] in "tTwW":
            syms.append((int(w[0], 16) & ~1, int(w[1], 16), w[3]))
    return sorted(syms)


def attribute(syms, data):
    """{function: cycles} from vpico.js's profile (flash words, then SRAM words)."""
    starts = [s[0] for s in syms]
    by = collections.Counter()
    for base, n, off in ((FLASH, FLASH_BYTES, 0), (SRAM, SRAM_BYTES, FLASH_BYTES)):
        words = array.array("I")
        words.frombytes(data[off:off + n])
        if sys.byteorder != "little":
            words.byteswap()
        for i, c in enumerate(words):
            if not c:
                continue
            a = base + 4 * i
            j = bisect.bisect_right(starts, a) - 1
            # (a symbol of no size, hand-written assembly: up to the next one)
            end = syms[j][0] + syms[j][1] if j >= 0 and syms[j][1] else (
                starts[j + 1] if 0 <= j < len(starts) - 1 else 0)
            if j >= 0 and a < end:
                by[syms[j][2]] += c
            else:
                by["(no symbol) %s" % ("flash" if base == FLASH else "SRAM")] += c
    return by


def group_of(name):
    for group, prefixes in GROUPS:
        if name.startswith(prefixes):
            return group
    return "everything else"


def play(board, seats, events, prof):
    """The session on the virtual Pico, profiled from its boot on (the settings written
    before, on a boot of its own); the emulated seconds it took."""
    pico = B._vpico()
    tmp = tempfile.mkdtemp(prefix="cycle-profile-")
    try:
        flash = os.path.join(tmp, "flash.bin")
        pico.uf2_for(pico.FROZEN, board)
        run = R.Pico(flash, board=board)
        run.boot()
        files = {"settings.txt": S.settings_text("table", seats)}
        if board == "RPI_PICO_W":
            files["board.mpy"] = B.phones_board()
            files["history/0001.txt"] = B.kept_session(seats, 1)
        B.set_files(run, files)
        os.environ["VPICO_PC_PROFILE"] = prof        # the vpico.js started below
        try:
            run = R.Pico(flash, board=board)
            run.boot()
        finally:
            os.environ.pop("VPICO_PC_PROFILE", None)
        head, script = S.script_session("table", seats, 1)
        d = S.Driver(head, script[:events], seed=1)
        run.play(d)
        run.run(lambda r: d.done)
        emulated = run.p.emulated_now()
        run.close()
        return emulated
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def report(by, emulated_s, top, out=print):
    busy = sum(by.values())
    out("emulated %.1f s: running %.1f s, idle %.1f s" % (
        emulated_s, busy * CYCLE_NS / 1e9, max(0.0, emulated_s - busy * CYCLE_NS / 1e9)))
    groups = collections.Counter()
    for name, c in by.items():
        groups[group_of(name)] += c
    out("  %7s %9s  %s" % ("share", "ms", "group (of the running time)"))
    for g, c in groups.most_common():
        out("  %6.2f%% %9.1f  %s" % (100 * c / busy, c * CYCLE_NS / 1e6, g))
    out("  %7s %9s  %s" % ("share", "ms", "function"))
    for name, c in by.most_common(top):
        out("  %6.2f%% %9.1f  %s" % (100 * c / busy, c * CYCLE_NS / 1e6, name))


def main(argv=None):
    ap = cli.ArgumentParser(prog="cycle_profile.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default="RPI_PICO_W", choices=("RPI_PICO", "RPI_PICO_W"),
                    help="the shoe's UF2 to profile (default RPI_PICO_W, with its phones)")
    ap.add_argument("--seats", type=int, default=8, help="seats at the table (default 8)")
    ap.add_argument("--events", type=cli.count, default=400,
                    help="events of the session to play (default 400: all of it)")
    ap.add_argument("--top", type=cli.count, default=30, help="functions to print (default 30)")
    a = ap.parse_args(argv)
    cli.check_seats("cycle_profile.py", "table", a.seats)
    elf = os.path.join(uf2.OUT, "build-" + a.board, "firmware.elf")
    if not os.path.isfile(elf):
        cli.fail("cycle_profile.py", "no %s: run `make uf2` first" % os.path.relpath(elf, ROOT))
    prof = os.path.join(tempfile.mkdtemp(prefix="cycle-profile-"), "cycles.u32")
    print("cycle_profile: %d events of an %d-seat session on the %s UF2 ..."
          % (a.events, a.seats, a.board), flush=True)
    try:
        emulated = play(a.board, a.seats, a.events, prof)
    except B.BenchError as e:
        cli.fail("cycle_profile.py", e)
    with open(prof, "rb") as f:
        data = f.read()
    os.remove(prof)
    if len(data) != FLASH_BYTES + SRAM_BYTES:
        cli.fail("cycle_profile.py", "vpico.js wrote no profile (%d bytes)" % len(data))
    report(attribute(symbols(elf), data), emulated, a.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
