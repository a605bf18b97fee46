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


def test_a_cards_timeline_on_the_virtual_pico_w_to_each_phone(tmp_path):
    """Issue 43's picture: the Pico W's card from its tag to its OLED and on to each phone's
    first answer that shows it (3 seats: the public page and three seat phones)."""
    png = tmp_path / "w.png"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "card_timeline.py"),
                        "--board", "pico_w", "--seats", "3", "--events", "30",
                        "--out", str(png)], cwd=ROOT, capture_output=True, text=True,
                       timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    out = p.stdout
    head = re.search(r"(\d+) phones streaming.*: ([\d.]+) ms from the tag to its display's "
                     r"last byte, ([\d.]+) ms to the last phone's answer showing it", out)
    assert head and head[1] == "4", out
    oled, last = float(head[2]), float(head[3])
    at = [float(x) for x in re.findall(r"at +([\d.]+) ms$", out, re.M)]
    assert len(at) == 3 and 0 < at[0] < at[1] < at[2] <= oled, out   # read, journaled, shown
    shares = [float(x) for x in re.findall(r"([\d.]+) ms \( *\d+%\)", out)]
    assert abs(sum(shares) - oled) < 0.2, out          # the lanes and the CPU add up
    phones = re.findall(r"^  (public page /|seat \d's phone)'s first answer showing it at +"
                        r"([\d.]+) ms \( *([\d.]+) ms after the event was accepted\)", out, re.M)
    assert sorted(p[0] for p in phones) == ["public page /", "seat 1's phone",
                                            "seat 2's phone", "seat 3's phone"], out
    for _, t, after in phones:
        # every phone's answer comes after the event was accepted (journaled), by that much
        assert at[1] <= float(t) and abs(float(t) - float(after) - at[1]) < 0.2, out
    assert max(float(t) for _, t, _ in phones) == last, out
    from PIL import Image
    with Image.open(png) as img:
        assert img.size[0] == 1400 and img.size[1] > 420 and len(img.getcolors(1 << 16)) > 5


def test_a_phone_counts_from_its_first_answer_after_the_event_that_shows_it():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import card_timeline as T
    ms = 1_000_000
    answers = {0: [(10 * ms, 4), (90 * ms, 5), (120 * ms, 6)],   # 90: made before event 6
               1: [(20 * ms, 5), (130 * ms, 5), (150 * ms, 7)],  # 130: the table as it was
               2: [(200 * ms, 7)]}                               # not watching at 100 ms yet
    assert T.first_shown(answers, 6, 100 * ms) == {0: 120 * ms, 1: 150 * ms}
    assert T.first_shown(answers, 8, 100 * ms) == {0: None, 1: None}   # never shown
    assert T.nice_step_ms(890) == 100 and T.nice_step_ms(40) == 5
