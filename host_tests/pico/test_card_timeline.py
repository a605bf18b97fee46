"""tools/card_timeline.py (issue 21's timeline): one card on the virtual Pico, its moments in
order and a picture of them. Emulated, so the figures are the same on every run."""
import os
import re
import subprocess
import sys

from conftest import ROOT


def test_a_cards_timeline_on_the_virtual_pico(tmp_path):
    png = tmp_path / "t.png"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "card_timeline.py"),
                        "--seats", "4", "--events", "30", "--out", str(png)], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    out = p.stdout
    total = float(re.search(r"([\d.]+) ms from the tag to its display's last byte", out)[1])
    at = [float(x) for x in re.findall(r"at +([\d.]+) ms", out)]
    assert len(at) == 3 and 0 < at[0] < at[1] < at[2] <= total, out   # read, journaled, shown
    shares = [float(x) for x in re.findall(r"([\d.]+) ms \( *\d+%\)", out)]
    assert abs(sum(shares) - total) < 0.2, out          # the lanes and the CPU add up
    from PIL import Image
    with Image.open(png) as img:
        assert img.size == (1400, 420) and len(img.getcolors(1 << 16)) > 5
