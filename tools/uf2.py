#!/usr/bin/env python3
"""`make uf2`: the shoe's own MicroPython firmware, one UF2 per board, with the firmware
frozen in (boards/uf2/RPI_PICO*/: MicroPython's out-of-tree board definitions).

    .venv/bin/python3 tools/uf2.py [--board RPI_PICO] [--board RPI_PICO_W] [--jobs N]

Writes build/uf2/pontoon-shoe-RPI_PICO.uf2 and build/uf2/pontoon-shoe-RPI_PICO_W.uf2.
Stages, each with a progress line: the ARM toolchain (checked first), the MicroPython
source, picotool, mpy-cross, then each board. Everything is built under build/uf2/ and
incrementally: after a change in firmware/ only the frozen content is compiled again.

The MicroPython source: $MICROPY_SRC (a source tree with the rp2 port's submodules, or the
tarball), else ../shared/pico/micropython-v1.28.0-rp2-src.tar.xz beside the repository.
A full log of each board's build is kept in build/uf2/BOARD.log.
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import cli  # noqa: E402

OUT = os.path.join(ROOT, "build", "uf2")
BOARDS = ("RPI_PICO", "RPI_PICO_W")
BOARD_DEFS = os.path.join(ROOT, "boards", "uf2")
TARBALL = "micropython-v1.28.0-rp2-src.tar.xz"
MICROPY_VERSION = "1.28.0"
TOOLCHAIN_HELP = ("the ARM toolchain is missing (%s): install Debian/Ubuntu's "
                  "gcc-arm-none-eabi and libnewlib-arm-none-eabi "
                  "(sudo apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi)")
SOURCE_HELP = ("no MicroPython source: set MICROPY_SRC to a v1.28.0 tree with the rp2 port's "
               "submodules (git clone --depth 1 -b v1.28.0 "
               "https://github.com/micropython/micropython && make -C micropython/ports/rp2 "
               "BOARD=RPI_PICO_W submodules && export MICROPY_SRC=$PWD/micropython) or to %s; "
               "looked in: %%s" % TARBALL)
# what each board needs of the source tree beyond the port itself
SUBMODULES = {"RPI_PICO": ("lib/pico-sdk/src", "lib/tinyusb/src"),
              "RPI_PICO_W": ("lib/pico-sdk/src", "lib/tinyusb/src",
                             "lib/cyw43-driver/src", "lib/lwip/src", "lib/btstack/src",
                             "lib/mbedtls/library")}


class BuildError(Exception):
    pass


def uf2_path(board):
    """Where `make uf2` leaves a board's UF2 (other tools look for it there)."""
    return os.path.join(OUT, "pontoon-shoe-%s.uf2" % board)


def version():
    with open(os.path.join(ROOT, "VERSION")) as f:
        return f.read().strip()


def say(text):
    print("uf2: " + text, flush=True)


# --------------------------------------------------------------------------- stages
def check_toolchain():
    """'arm-none-eabi-gcc VERSION' or BuildError naming the packages to install."""
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        raise BuildError(TOOLCHAIN_HELP % "no arm-none-eabi-gcc on PATH")
    p = subprocess.run([gcc, "-print-file-name=libc.a"], capture_output=True, text=True)
    if p.returncode or not os.path.isabs(p.stdout.strip()):
        raise BuildError(TOOLCHAIN_HELP % "arm-none-eabi-gcc finds no newlib libc.a")
    for tool in ("cmake", "make", "g++"):
        if shutil.which(tool) is None:
            raise BuildError("%s is missing: install Debian/Ubuntu's cmake, make and g++ "
                             "(sudo apt-get install cmake build-essential)" % tool)
    v = subprocess.run([gcc, "-dumpversion"], capture_output=True, text=True).stdout.strip()
    return "arm-none-eabi-gcc " + v


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def find_source():
    """(source tree, picotool source or None, how it was found)."""
    tried = []
    env = os.environ.get("MICROPY_SRC")
    shared = os.path.join(os.path.dirname(ROOT), "shared", "pico", TARBALL)
    for cand in ([env] if env else []) + [shared]:
        tried.append(cand)
        if os.path.isdir(cand):
            if not os.path.isdir(os.path.join(cand, "ports", "rp2")):
                raise BuildError("MICROPY_SRC=%s is not a MicroPython source tree (no "
                                 "ports/rp2)" % cand)
            pt = os.path.join(os.path.dirname(os.path.abspath(cand)), "picotool")
            return os.path.abspath(cand), (pt if os.path.isdir(pt) else None), cand
        if os.path.isfile(cand):
            return unpack(cand) + ("%s (unpacked in build/uf2/src)" % cand,)
    raise BuildError(SOURCE_HELP % ", ".join(tried))


def unpack(tarball):
    """The tarball unpacked under build/uf2/src (once per tarball)."""
    dest = os.path.join(OUT, "src")
    stamp = os.path.join(dest, ".from")
    want = "%s %s\n" % (os.path.basename(tarball), _sha256(tarball))
    if not (os.path.exists(stamp) and open(stamp).read() == want):
        say("  unpacking %s ..." % os.path.basename(tarball))
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        try:
            with tarfile.open(tarball) as t:
                t.extractall(dest, filter="tar") if hasattr(tarfile, "data_filter") \
                    else t.extractall(dest)
        except (tarfile.TarError, OSError) as x:
            shutil.rmtree(dest, ignore_errors=True)
            raise BuildError("cannot unpack %s: %s" % (tarball, x))
        with open(stamp, "w") as f:
            f.write(want)
    tops = [d for d in os.listdir(dest) if os.path.isdir(os.path.join(dest, d, "ports", "rp2"))]
    if not tops:
        raise BuildError("%s holds no MicroPython source tree (no */ports/rp2)" % tarball)
    src = os.path.join(dest, tops[0])
    align_frozen_native_code(src)
    intern_module_names(src)
    pt = os.path.join(dest, "picotool")
    return src, (pt if os.path.isdir(pt) else None)


# MicroPython's mpy-tool.py freezes ARMv6-M machine code (viper, native) 2-byte aligned, but
# the ARMv6-M emitter loads a constant it cannot build from immediates (and the target of a
# jump over 2 KB) with `ldr rN, [pc, #]` from a word it aligned as if the code were 4-byte
# aligned (py/asmthumb.c asserts it). Code that lands on an odd halfword reads the word 2
# bytes off: Engine.apply read its 1,000,000 as -1,035,931,648 on the Pico W build.
_ARMV6_ALIGN4 = """        if config.native_arch in (
            MP_NATIVE_ARCH_ARMV6,
"""


def align_frozen_native_code(src):
    """Make the unpacked tree's mpy-tool.py align ARMv6-M code to 4 bytes, as the emitter
    assumes. True when the file changed (False: already so, or not the expected text)."""
    path = os.path.join(src, "tools", "mpy-tool.py")
    with open(path) as f:
        text = f.read()
    fixed = _ARMV6_ALIGN4 + "            MP_NATIVE_ARCH_ARMV6M,\n"
    if fixed in text or _ARMV6_ALIGN4 not in text:
        return False
    with open(path, "w") as f:
        f.write(text.replace(_ARMV6_ALIGN4, fixed, 1))
    return True


def frozen_machine_code(bdir):
    """{name: address} of a build's frozen machine-code functions: the fun_data arrays
    mpy-tool puts in a code section (frozen_content.c), placed by arm-none-eabi-nm."""
    with open(os.path.join(bdir, "frozen_content.c")) as f:
        native = set(re.findall(r"static const byte (fun_data_\w+)\[\d+\] __attribute__"
                                r"\(\(section\(\".text", f.read()))
    if not native:
        return {}
    out = subprocess.run(["arm-none-eabi-nm", os.path.join(bdir, "firmware.elf")],
                         capture_output=True, text=True, check=True).stdout
    return {p[2]: int(p[0], 16) for p in (x.split() for x in out.splitlines())
            if len(p) == 3 and p[2] in native}


def misaligned_native_code(bdir):
    """The frozen machine-code functions of a build that do not start on a 4-byte boundary
    (their constants would be read 2 bytes off)."""
    return sorted(n for n, a in frozen_machine_code(bdir).items() if a % 4)


FLASH_BYTES = 2 * 1024 * 1024     # the Pico's and the Pico W's W25Q16JV


def storage_bytes(board):
    """MICROPY_HW_FLASH_STORAGE_BYTES of a board definition here (its filesystem and the
    journal's raw region below it, boards/uf2/modules/shoe_flash.py)."""
    with open(os.path.join(BOARD_DEFS, board, "mpconfigboard.h")) as f:
        m = re.search(r"#define MICROPY_HW_FLASH_STORAGE_BYTES\s+\(([\d\s*+]+)\)", f.read())
    if m is None:
        raise BuildError("%s/mpconfigboard.h sets no MICROPY_HW_FLASH_STORAGE_BYTES" % board)
    return sum(eval_product(t) for t in m.group(1).split("+"))


def eval_product(text):
    n = 1
    for factor in text.split("*"):
        n *= int(factor)
    return n


def binary_end(bdir):
    """Flash offset where a build's image ends (__flash_binary_end)."""
    out = subprocess.run(["arm-none-eabi-nm", os.path.join(bdir, "firmware.elf")],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[2] == "__flash_binary_end":
            return int(p[0], 16) - 0x10000000
    raise BuildError("no __flash_binary_end in %s/firmware.elf" % bdir)


def source_version(src):
    text = open(os.path.join(src, "py", "mpconfig.h")).read()
    parts = [re.search(r"#define MICROPY_VERSION_%s \(?(\d+)" % k, text)
             for k in ("MAJOR", "MINOR", "MICRO")]
    return ".".join(m.group(1) for m in parts) if all(parts) else "?"


def source_date_epoch():
    """The shoe's last commit time (seconds, as text): the build date MicroPython prints
    (`MICROPY_BUILD_DATE`) and the SDK's binary info carries; the VERSION file's time
    outside a git checkout (or without git)."""
    try:
        p = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"],
                           capture_output=True, text=True)
        stamp = p.stdout.strip()
        if p.returncode == 0 and stamp.isdigit():
            return stamp
    except OSError:
        pass
    return str(int(os.path.getmtime(os.path.join(ROOT, "VERSION"))))


def check_submodules(src, board):
    missing = [p for p in SUBMODULES[board] if not os.path.exists(os.path.join(src, p))]
    if missing:
        raise BuildError("the source lacks %s's submodules (%s): run `make -C %s/ports/rp2 "
                         "BOARD=%s submodules`" % (board, ", ".join(missing), src, board))


def run_logged(cmd, log, env=None, cwd=None, progress=None):
    """Run cmd, its output appended to `log`; BuildError with the log's tail if it fails.
    progress(line) sees every output line."""
    with open(log, "a") as f:
        f.write("\n$ %s\n" % " ".join(cmd))
        f.flush()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                             cwd=cwd, text=True, errors="replace")
        for line in p.stdout:
            f.write(line)
            if progress:
                progress(line)
        rc = p.wait()
    if rc:
        with open(log) as f:
            tail = f.read().splitlines()[-25:]
        raise BuildError("%s failed (status %d); the end of %s:\n%s"
                         % (" ".join(cmd[:4]), rc, os.path.relpath(log, ROOT), "\n".join(tail)))


def build_picotool(pt_src, src, jobs):
    """picotool installed under build/uf2/picotool (pico-sdk 2.2 needs it to write a UF2;
    without it the SDK would fetch it from the network). Returns the folder to give the
    SDK as PICOTOOL_FETCH_FROM_GIT_PATH."""
    prefix = os.path.join(OUT, "picotool")
    exe = os.path.join(prefix, "picotool", "picotool")
    if os.path.exists(exe):
        return prefix, "up to date"
    bdir = os.path.join(OUT, "picotool-build")
    log = os.path.join(OUT, "picotool.log")
    open(log, "w").close()
    t0 = time.monotonic()
    run_logged(["cmake", "-S", pt_src, "-B", bdir, "-DPICO_SDK_PATH=%s/lib/pico-sdk" % src,
                "-DPICOTOOL_NO_LIBUSB=1", "-DPICOTOOL_FLAT_INSTALL=1",
                "-DCMAKE_INSTALL_PREFIX=%s" % prefix], log)
    run_logged(["cmake", "--build", bdir, "-j%d" % jobs], log)
    run_logged(["cmake", "--install", bdir], log)
    if not os.path.exists(exe):
        raise BuildError("picotool built but %s is missing (see %s)" % (exe, log))
    return prefix, "built in %.0f s" % (time.monotonic() - t0)


def build_mpy_cross(src, jobs):
    exe = os.path.join(src, "mpy-cross", "build", "mpy-cross")
    log = os.path.join(OUT, "mpy-cross.log")
    open(log, "w").close()
    t0 = time.monotonic()
    had = os.path.exists(exe)
    run_logged(["make", "-C", os.path.join(src, "mpy-cross"), "-j%d" % jobs], log)
    return "up to date" if had else "built in %.0f s" % (time.monotonic() - t0)


class _Progress:
    """A line every 10 s while a board builds: how many files compiled so far."""

    def __init__(self, board):
        self.board = board
        self.compiled = 0
        self.t0 = self.shown = time.monotonic()

    def __call__(self, line):
        if "Building C object" in line or "Building ASM object" in line or \
                "MPY " in line:
            self.compiled += 1
        now = time.monotonic()
        if now - self.shown >= 10:
            self.shown = now
            say("  %s: %d files compiled, %.0f s" % (self.board, self.compiled, now - self.t0))


# Importing a module of a package interns its dotted name ("ledger.snapshot") in RAM: the
# names are no identifier in any frozen code, so they are not among the frozen strings.
# Listed in the port's qstrdefsport.h (of the tree make uf2 unpacks), they are built into
# the firmware's own strings and the heap keeps none of them.
_QSTRDEFS_MARK = "// the frozen modules' dotted names (tools/uf2.py)"


def frozen_module_names(src, boards=BOARDS):
    """The dotted names of the modules every board's manifest freezes in a package, sorted
    (MicroPython's own manifest reader, so the names are the build's; one list serves the
    boards' shared source tree, so a name only the Pico W freezes stays out of the Pico's
    firmware)."""
    sys.path.insert(0, os.path.join(src, "tools"))
    try:
        import manifestfile
    finally:
        sys.path.pop(0)
    import mpy_build
    os.environ.setdefault("SHOE_SITE_PACKAGES", mpy_build.site_packages())
    names = None
    for board in boards:
        m = manifestfile.ManifestFile(manifestfile.MODE_FREEZE, {
            "MPY_DIR": src, "PORT_DIR": os.path.join(src, "ports", "rp2"),
            "BOARD_DIR": os.path.join(BOARD_DEFS, board),
            "MPY_LIB_DIR": os.path.join(src, "lib", "micropython-lib")})
        here = os.getcwd()
        os.chdir(ROOT)                  # (the shoe's manifest stages under build/)
        try:
            m.execute(os.path.join(BOARD_DEFS, board, "manifest.py"))
        finally:
            os.chdir(here)
        here = set()
        for f in m.files():
            mod = f.target_path[:-3] if f.target_path.endswith(".py") else ""
            if "/" in mod:
                here.add(mod[:-len("/__init__")] if mod.endswith("/__init__") else mod)
        names = here if names is None else names & here
    return sorted(n.replace("/", ".") for n in names if "/" in n)


def intern_module_names(src, names=None):
    """The frozen modules' dotted names listed in the unpacked tree's qstrdefsport.h (the
    port's own lines kept). True when the file changed (the build then makes its strings
    again)."""
    path = os.path.join(src, "ports", "rp2", "qstrdefsport.h")
    with open(path) as f:
        text = f.read()
    names = frozen_module_names(src) if names is None else names
    port = text.split("\n" + _QSTRDEFS_MARK + "\n")[0].rstrip("\n") + "\n"
    want = port + "\n" + _QSTRDEFS_MARK + "\n" + "".join("Q(%s)\n" % n for n in names)
    if want == text:
        return False
    with open(path, "w") as f:
        f.write(want)
    return True


def build_board(board, src, picotool_dir, jobs):
    """make -C ports/rp2 BOARD_DIR=boards/uf2/BOARD, build dir under build/uf2/. Returns
    (uf2 path, seconds)."""
    check_submodules(src, board)
    bdir = os.path.join(OUT, "build-" + board)
    mark = os.path.join(bdir, ".source")
    # a build directory's cmake cache names its source tree: a new tree, a new directory
    if os.path.exists(mark) and open(mark).read() != src:
        shutil.rmtree(bdir)
    os.makedirs(bdir, exist_ok=True)
    with open(mark, "w") as f:
        f.write(src)
    env = dict(os.environ)
    if picotool_dir:
        env["PICOTOOL_FETCH_FROM_GIT_PATH"] = picotool_dir
    # the drivers to freeze: this venv's (requirements.txt's versions)
    import mpy_build
    env.setdefault("SHOE_SITE_PACKAGES", mpy_build.site_packages())
    env.pop("CMAKE_ARGS", None)      # would replace the port Makefile's own (BOARD, manifest)
    # MicroPython names its version by `git describe`: a tree unpacked under this repository
    # would take this repository's commit; git is kept from looking above the tree
    env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(src)
    # ... and dates itself by the calendar, so a build across midnight would recompile the
    # files that print the date and the UF2 would differ by day: date it by the shoe's commit
    env.setdefault("SOURCE_DATE_EPOCH", source_date_epoch())
    # the frozen content is made again when mpy-tool.py (its alignment) changes too
    with open(os.path.join(src, "tools", "mpy-tool.py"), "rb") as f:
        tool = hashlib.sha256(f.read()).hexdigest()
    inputs = forget_stale_frozen(bdir, _freeze_inputs() + "\nmpy-tool " + tool)
    config = forget_stale_config(bdir, board)
    log = os.path.join(OUT, board + ".log")
    open(log, "w").close()
    t0 = time.monotonic()
    run_logged(["make", "-C", os.path.join(src, "ports", "rp2"),
                "BOARD_DIR=%s" % os.path.join(BOARD_DEFS, board), "BUILD=%s" % bdir,
                "-j%d" % jobs], log, env=env, progress=_Progress(board))
    made = os.path.join(bdir, "firmware.uf2")
    if not os.path.exists(made):
        raise BuildError("the %s build made no firmware.uf2 (see %s)" % (board, log))
    bad = misaligned_native_code(bdir)
    if bad:
        raise BuildError("the %s build has machine code frozen off a 4-byte boundary, which "
                         "the ARMv6-M emitter's constants need: %s. The MicroPython tree's "
                         "tools/mpy-tool.py must align MP_NATIVE_ARCH_ARMV6M code to 4 bytes "
                         "(make uf2 does so in a tree it unpacks)" % (board, ", ".join(bad)))
    end, base = binary_end(bdir), FLASH_BYTES - storage_bytes(board)
    if end > base:
        raise BuildError("the %s image ends at flash offset %d, over the journal's raw region "
                         "and the filesystem from %d: make the firmware smaller or "
                         "MICROPY_HW_FLASH_STORAGE_BYTES in boards/uf2/%s/mpconfigboard.h"
                         % (board, end, base, board))
    with open(os.path.join(bdir, FROZEN_INPUTS), "w") as f:
        f.write(inputs)
    with open(os.path.join(bdir, CONFIG_INPUTS), "w") as f:
        f.write(config)
    dest = uf2_path(board)
    tmp = dest + ".tmp"
    shutil.copyfile(made, tmp)
    os.replace(tmp, dest)
    return dest, time.monotonic() - t0


FROZEN_INPUTS = ".frozen-inputs"


def forget_stale_frozen(bdir, inputs=None):
    """MicroPython's makemanifest rewrites the frozen content only when a frozen file is
    newer than it: a module removed or renamed, or a manifest changed, would stay frozen.
    When what decides the frozen set differs from the last build's, the frozen content goes
    (the build makes it again). Returns what decides it now (written after the build)."""
    inputs = _freeze_inputs() if inputs is None else inputs
    if _mark_differs(bdir, FROZEN_INPUTS, inputs):
        stale = os.path.join(bdir, "frozen_content.c")
        if os.path.exists(stale):
            os.remove(stale)
    return inputs


CONFIG_INPUTS = ".config-inputs"


def forget_stale_config(bdir, board, config=None):
    """The port's make collects the interned strings and module tables (genhdr) file by
    file as sources change, not when the board's configuration turns a feature on or off
    (a build then fails on a missing MP_QSTR_...): when the board's C configuration differs
    from the last build's, they go and are made again. Returns the configuration now."""
    if config is None:
        parts = []
        for path in sorted(glob.glob(os.path.join(BOARD_DEFS, board, "*"))
                           + glob.glob(os.path.join(BOARD_DEFS, "*.cmake"))
                           + glob.glob(os.path.join(BOARD_DEFS, "*.h"))):
            if not path.endswith("manifest.py"):
                with open(path) as f:
                    parts.append(f.read())
        config = "\n".join(parts)
    if _mark_differs(bdir, CONFIG_INPUTS, config):
        shutil.rmtree(os.path.join(bdir, "genhdr"), ignore_errors=True)
    return config


def _mark_differs(bdir, name, now):
    """Whether the last build's mark file `name` (written after it) says other than `now`."""
    mark = os.path.join(bdir, name)
    if not os.path.exists(mark):
        return True
    with open(mark) as f:
        return f.read() != now


def _freeze_inputs():
    """What decides which modules are frozen: the manifests' text and the names of the
    files they may freeze (their contents are makemanifest's own business)."""
    parts = []
    for path in [os.path.join(ROOT, "manifest.py")] + sorted(
            os.path.join(BOARD_DEFS, b, "manifest.py") for b in BOARDS):
        with open(path) as f:
            parts.append(f.read())
    for d in ("firmware", "boards", os.path.join("boards", "uf2", "modules")):
        parts.append(" ".join(sorted(os.listdir(os.path.join(ROOT, d)))))
    return "\n".join(parts)


def build(boards=BOARDS, jobs=None):
    """Every stage; returns {board: uf2 path}."""
    jobs = jobs or max(1, os.cpu_count() or 1)
    os.makedirs(OUT, exist_ok=True)
    n = 3 + len(boards)
    say("[1/%d] toolchain: %s" % (n, check_toolchain()))
    src, pt_src, how = find_source()
    v = source_version(src)
    say("[2/%d] MicroPython %s source: %s" % (n, v, how))
    if v != MICROPY_VERSION:
        say("  note: the board definitions follow v%s's stock boards; this is v%s"
            % (MICROPY_VERSION, v))
    if pt_src:
        pt_dir, what = build_picotool(pt_src, src, jobs)
        say("[3/%d] picotool: %s" % (n, what))
    else:
        pt_dir = None
        say("[3/%d] picotool: no source beside the tree; pico-sdk fetches it (network)" % n)
    say("     mpy-cross: %s" % build_mpy_cross(src, jobs))
    out = {}
    for k, board in enumerate(boards):
        first = not os.path.exists(os.path.join(OUT, "build-" + board, "firmware.uf2"))
        say("[%d/%d] %s: building%s (log in %s)"
            % (4 + k, n, board, ", the first time takes minutes" if first else "",
               os.path.relpath(os.path.join(OUT, board + ".log"), ROOT)))
        path, secs = build_board(board, src, pt_dir, jobs)
        out[board] = path
        say("  %s: %s, %s bytes, %.0f s" % (board, os.path.relpath(path, ROOT),
                                            format(os.path.getsize(path), ","), secs))
    return out


def main(argv=None):
    ap = cli.ArgumentParser(prog="uf2.py", description="Build the shoe's UF2 for each board "
                            "(MicroPython with the firmware frozen in).")
    ap.add_argument("--board", action="append", choices=BOARDS,
                    help="build only this board (repeatable; default: all)")
    ap.add_argument("--jobs", type=cli.count, help="parallel jobs (default: every core)")
    a = ap.parse_args(argv)
    try:
        build(tuple(a.board or BOARDS), a.jobs)
    except BuildError as x:
        lines = str(x).splitlines()
        print("uf2: error: " + lines[0], file=sys.stderr)
        for line in lines[1:]:
            print(line, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
