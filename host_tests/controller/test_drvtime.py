"""firmware/hardware/drvtime.py in real time (no simulated clock), as on the Pico: the reader's
rebase() moves monotonic()'s origin only; ticks_ms() keeps counting (found on the
virtual Pico: button presses were never debounced because ticks_ms() restarted at 0)."""

SCRIPT = b"""
import time
from hardware import drvtime
a = drvtime.ticks_ms()
time.sleep_ms(40)
drvtime.rebase()
m0 = drvtime.monotonic()
time.sleep_ms(20)
b = drvtime.ticks_ms()
print(b - a >= 60, b - a < 1000, m0 < 0.01, drvtime.monotonic() >= 0.019)
"""


def test_ticks_ms_keeps_counting_across_rebase(micropython, tmp_path):
    p = tmp_path / "t.py"
    p.write_bytes(SCRIPT)
    r = micropython([str(p)])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [b"True"] * 4
