"""Heap and allocation on the MicroPython VM: the drivers + firmware in a small heap (device
models in CPython via tools/hwbridge.py), and our own hot paths allocation-free."""
import glob
import os
import subprocess
import sys

from conftest import MPY_CROSS, ROOT, run_micropython

sys.path.insert(0, os.path.join(ROOT, "tools"))
import hwbridge  # noqa: E402
import mpy_build  # noqa: E402

# A heap that passes on the 64-bit unix port from 110k up (bench_hw.py). Below it, down to
# 96k, a run passes or fails by where the VM's qstr pool finds its next chunk: the dotted
# names of the firmware's packages are interned on this VM (they are in flash on a Pico).
SMALLEST_HEAP = "112k"
DECK = os.path.join(ROOT, "host_tests", "mp", "hw_remote_deck.py")


def _kv(lines):
    out = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def test_deck_and_eight_displays_in_a_small_heap():
    rc, out, w = hwbridge.serve(DECK, heap=SMALLEST_HEAP)
    assert rc == 0, "\n".join(out)
    kv = _kv(out)
    assert kv["cards"] == 52 and kv["deck_ok"] == 1 and kv["shown"] == 52
    assert w.violations() == []
    assert all(d.stats.transactions > 0 for d in w.displays)
    print("\nheap (unix 64-bit, -X heapsize=%s): %s" % (SMALLEST_HEAP, kv))


def test_the_same_run_fails_in_a_heap_too_small():
    rc, out, w = hwbridge.serve(DECK, heap="48k")
    assert rc != 0                      # MemoryError: the heap size really is exercised
    assert "cards" not in _kv(out)


def test_reader_hot_paths_allocate_nothing(micropython):
    p = micropython([os.path.join(ROOT, "host_tests", "mp", "hw_alloc.py")],
                    heapsize="1m", micropypath=mpy_build.micropypath())
    assert p.returncode == 0, p.stderr.decode()
    lines = p.stdout.decode().splitlines()
    assert lines[0] == "lookup 17 -1"
    assert lines[1] == "walk 2 True 10S"
    assert lines[2] == "waiting_poll None None"
    print("\n" + lines[3] + " bytes (driver + busio + simulated models, upper bound)")


def test_heap_lock_check_can_fail(micropython, tmp_path):
    script = tmp_path / "alloc.py"
    script.write_text("import micropython\nmicropython.heap_lock()\ntry:\n"
                      "    x = [1, 2, 3]\n    print('no')\nexcept MemoryError:\n"
                      "    print('yes')\nmicropython.heap_unlock()\n")
    p = micropython([str(script)])
    assert p.stdout.decode().strip() == "yes"


def test_firmware_and_boards_compile_with_mpy_cross(tmp_path):
    files = [os.path.join(ROOT, "firmware", n) for n in (
        "busio.py", "digitalio.py", "hardware/drvtime.py", "hardware/drivers.py",
        "hardware/tca9548a.py", "hardware/shoe_reader.py", "hardware/seat_displays.py",
        "hardware/font5x7.py")]
    files += glob.glob(os.path.join(ROOT, "boards", "**", "*.py"), recursive=True)
    assert len(files) > 15
    for f in files:
        p = subprocess.run([MPY_CROSS, "-march=armv6m", "-o", str(tmp_path / "x.mpy"), f],
                           capture_output=True)
        assert p.returncode == 0, (f, p.stderr)
