"""Every file that runs on the Pico must compile with mpy-cross (MicroPython's syntax)."""
import glob
import os
import subprocess

import pytest

from conftest import MPY_CROSS, ROOT

DEVICE_FILES = sorted(
    glob.glob(os.path.join(ROOT, "firmware", "**", "*.py"), recursive=True)
    + glob.glob(os.path.join(ROOT, "boards", "**", "*.py"), recursive=True)
)


def test_there_are_device_files():
    names = [os.path.basename(p) for p in DEVICE_FILES]
    for required in ("engine.py", "hands.py", "cards.py", "rules.py", "transcript.py"):
        assert required in names


@pytest.mark.parametrize("path", DEVICE_FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_compiles_with_mpy_cross(path, tmp_path):
    out = tmp_path / "x.mpy"
    # the Pico's instruction set: @micropython.viper functions are compiled to it
    result = subprocess.run([MPY_CROSS, "-march=armv6m", "-o", str(out), path],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0


def test_mpy_cross_rejects_cpython_only_syntax(tmp_path):
    # The check can fail: a construct MicroPython lacks is refused.
    bad = tmp_path / "bad.py"
    bad.write_text("def f[T](x: T) -> T:\n    return x\n")
    result = subprocess.run([MPY_CROSS, "-o", str(tmp_path / "b.mpy"), str(bad)],
                            capture_output=True, text=True)
    assert result.returncode != 0
