"""`make vpico` (tools/vpico/session.py) on its shortest setting: the shoe's UF2 on a fresh
virtual Pico, deployed through mpremote, a two-seat session (its eight short deals) played
through the buttons, the reader and the serial line, its hand history pulled and replayed.
(The eight-seat session takes minutes; its figures are bench_pico's, asserted in
test_pico_goals.py.)"""
import os
import re
import subprocess
import sys

from conftest import ROOT


def test_make_vpico_plays_a_short_session_to_its_end(tmp_path):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "vpico", "session.py"),
                        "--seats", "2", "--no-images", "--out", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=900,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-2000:])
    out = p.stdout
    assert out.startswith("vpico: a fresh Pico (the shoe's UF2, "
                          "build/uf2/pontoon-shoe-RPI_PICO.uf2), settings.txt: table, 2 seats\n")
    assert re.search(r"vpico: \d+ events, 8 deals; the Pico's hand history", out), out[-2000:]
    assert "refusals 0; actions redone 0; ledger equal to the scripted session's" in out
    assert (tmp_path / "session.txt").read_text().strip()
    # the seal the Pico said is the one CPython and the MicroPython VM take of the session
    m = re.search(r"seal: the Pico said ([0-9A-F]{4}) ([0-9A-F]{4}); the scripted session's "
                  r"on CPython: \1 \2 \(equal\)", out)
    assert m, out[-2000:]
    vm = subprocess.run([os.path.join(os.path.dirname(sys.executable), "micropython"),
                         os.path.join(ROOT, "tools", "replay.py"), "--seal",
                         m.group(1) + m.group(2), str(tmp_path / "script.txt")],
                        capture_output=True, text=True)
    assert vm.returncode == 0 and "sealed" in vm.stdout, (vm.stdout, vm.stderr)
