"""What `make sim` shows a person: the first frame is the whole table, text keeps clear of
each panel's border, the GIF is as large and readable as the PNG frames, and the banker
display explains the `x` of a bust stake where it shows one."""
import os
import re
import subprocess
import sys
import tempfile

from conftest import ROOT

import runner as R
import simtable as S

PAD = 4          # scale 2: two display pixels of margin inside each border


def run_sim(out):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sim.py"), "--speed", "0",
                        "--preset", "classic", "--seats", "3", "--deals", "1", "--out", out],
                       cwd=ROOT, capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return p


def panels(img, n):
    """(x0, y0) of each panel's content area in a scale-2 table image."""
    tw, th = 128 * 2 + 2 * PAD + 10, 64 * 2 + 2 * PAD + 20
    return [(8 + (k % 3) * tw + PAD, 8 + (k // 3) * th + 12 + PAD) for k in range(n)]


def lit_rows(img, x0, y0):
    px = img.load()
    return [y for y in range(64 * 2) if any(px[x0 + x, y0 + y] == 1 for x in range(256))]


def test_frames_and_gif(tmp_path):
    from PIL import Image
    out = str(tmp_path / "out")
    said = run_sim(out).stdout.splitlines()
    # what happened, a line a deal (the replayer's ledger of the kept session), and where
    # the pictures went, last
    deals = [ln for ln in said if re.match(r"^deal \d+", ln)]
    assert len(deals) == 1, said[-30:]
    assert re.match(r"^deal 1: bank seat \d has [2-9TJQKA][SHDC] .*= .*; seat \d [2-9TJQKA]"
                    r"[SHDC] .*, (wins \d+|pays \d+|stands off).*; the bank (takes \d+|pays out \d+|is even)",
                    deals[0]), deals[0]
    rel = os.path.relpath(out, ROOT)
    assert said[-1] == "sim: the pictures are in %s/ (a PNG an event), %s and %s" % (
        os.path.join(rel, "frames"), os.path.join(rel, "table.gif"),
        os.path.join(rel, "table_final.png")), said[-1]
    frames = sorted(os.listdir(os.path.join(out, "frames")))
    first = Image.open(os.path.join(out, "frames", frames[0]))
    assert first.mode == "P"
    for k, (x0, y0) in enumerate(panels(first, 4)):      # three seats and the banker
        rows = lit_rows(first, x0, y0)
        # every panel shows its header and at least one more line (not "Seat 1 0" alone)
        assert rows and rows[0] < 16 and rows[-1] > 40, (k, rows[:3], rows[-3:])
    px = first.load()
    for x0, y0 in panels(first, 4):                      # the margin under the top border
        assert px[x0 - PAD - 1, y0 - PAD - 1] == 2        # the border itself
        for y in range(y0 - PAD, y0):
            assert all(px[x, y] == 0 for x in range(x0 - PAD, x0 + 256 + PAD))
    gif = Image.open(os.path.join(out, "table.gif"))
    assert gif.size == first.size and gif.size[0] >= 800
    assert gif.n_frames == len(frames) + 1               # every frame, then the final table


def test_the_banker_display_explains_a_bust_x():
    head, events = S.script_session("table", 4, 1)
    d = S.Driver(head, events, seed=1)
    screens = S.Screens(4)
    flash = tempfile.mkdtemp()
    S.fresh_flash(flash, S.settings_text("table", 4))
    runner = R.CPython(flash, d, screens)
    runner.boot()
    runner.run()
    # the banker display's states; a redraw goes out a page at a time (a card read may come
    # between two pages), so a stakes line with an x may show one state before its key
    states = [lines for _, i, lines in screens.history if i == 8]
    shown = 0
    for k, lines in enumerate(states):
        if any(re.search(r"S\d+:\d+x", ln) for ln in lines):
            shown += 1
            nxt = states[k + 1] if k + 1 < len(states) else lines
            assert "x: bust, stake lost" in lines or "x: bust, stake lost" in nxt, lines
    assert shown > 0                                     # the session has busts to explain


def test_a_stopped_table_ends_the_run_with_its_error_instead_of_hanging():
    import pytest
    head, events = S.script_session("table", 4, 1)
    d = S.Driver(head, events, seed=1)
    flash = tempfile.mkdtemp()
    S.fresh_flash(flash, "seats = 9\n")                  # what --seats 9 used to write
    runner = R.CPython(flash, d)
    runner.boot()
    with pytest.raises(S.TableStopped) as e:
        runner.run()
    assert "settings.txt line 1: seats must be 2 to 8, the banker included, not 9" in str(e.value)


def test_a_deals_line_says_where_the_bank_went_and_why():
    import sim
    pontoon = {"seat": 2, "cards": ["AC", "JH"], "total": 21, "kind": "pontoon", "stake": 1,
               "net": 2}
    d = {"number": 3, "counted": True, "void": False, "banker": 1,
         "banker_hand": {"cards": ["5S", "6S", "9S"], "total": 20, "kind": "ordinary"},
         "hands": [pontoon, {"seat": 3, "cards": ["QC", "TH", "5D"], "total": 25,
                             "kind": "bust", "stake": 2, "net": -2}],
         "net": {"1": 0, "2": 2, "3": -2}}
    assert sim.deal_line(d, 2, False) == (
        "deal 3: bank seat 1 has 5S 6S 9S = 20; seat 2 AC JH = Pontoon, wins 2; seat 3 QC TH "
        "5D = bust 25, pays 2; the bank is even; the bank goes to seat 2 (his Pontoon, N2)")
    assert sim.deal_line(d, 1, False).endswith("the bank is even")
    assert sim.deal_line(dict(d, void=True), 1, False) == "deal 3, bank seat 1: void, no pay (N3)"


def test_the_pictures_of_playing_md_are_make_sims_frames_of_one_deal(tmp_path):
    """docs/PLAYING.md's frames are `make sim`'s (four seats, seed 1) byte for byte, and
    those of its deal are all of the one deal it follows (the session's second)."""
    doc = os.path.join(ROOT, "docs", "PLAYING.md")
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    named = re.findall(r"\(playing/(frame_(\d{4})\.png)\)", text)
    on_disk = sorted(n for n in os.listdir(os.path.join(ROOT, "docs", "playing"))
                     if n.startswith("frame_"))
    assert sorted(n for n, _ in named) == on_disk
    out = str(tmp_path / "out")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sim.py"), "--speed", "0",
                        "--seats", "4", "--seed", "1", "--out", out], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    for name, _ in named:
        with open(os.path.join(ROOT, "docs", "playing", name), "rb") as a, \
                open(os.path.join(out, "frames", name), "rb") as b:
            assert a.read() == b.read(), "docs/playing/%s is not make sim's: copy it again" % name
    # the deal followed: frame k is the table before event k; its events are first..last-1
    first, last = re.search(r"`make sim`'s frames (\d+) to (\d+)", text).groups()
    deal = text[text.index("## One deal"):text.index("## The session's end")]
    ks = [int(k) for k in re.findall(r"playing/frame_(\d{4})\.png", deal)]
    assert ks and int(first) <= min(ks) and max(ks) <= int(last), ks
    from replay import replay_lines
    head, events = S.script_session("table", 4, 1)
    before = replay_lines(head + events[:int(first)])
    after = replay_lines(head + events[:int(last)])
    assert before.deals_ended == 1 and not before.in_deal()
    assert after.deals_ended == 2 and after.deals == 2 and not after.in_deal()
