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


def test_the_card_picked_is_the_one_at_the_percentile(monkeypatch):
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import card_timeline as T
    # (put ns, event, seat, last byte ns): times to the display 10, 20, ... 200 ms
    cards = [(0, k, 1, (k + 1) * 10_000_000) for k in range(20)]
    monkeypatch.setattr(T.B, "player_cards", lambda run, driver, events: cards)
    assert T.pick_card(None, None, [], 50)[3] == 110_000_000     # the median of 20
    assert T.pick_card(None, None, [], 95)[3] == 200_000_000     # one of the slow ones
    assert T.pick_card(None, None, [], 100)[3] == 200_000_000    # the slowest
    assert T.pick_card(None, None, [], 0)[3] == 10_000_000
