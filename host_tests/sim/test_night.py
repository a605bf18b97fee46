"""`make night` (tools/night.py) on the history file of a short `make sim` session: the
page and its PNG charts are written, self-contained (no address a browser would fetch), its
ledger is the replayer's (tools/replay.py, the engine's), the CSV and JSON exports agree,
and headless Chromium draws it: the screenshot is docs/night.png, which docs/PLAYING.md
shows ("The morning after")."""
import csv
import io
import json
import os
import re
import subprocess
import sys

import pytest

import browser
from conftest import ROOT

import replay

SHOT = os.path.join(ROOT, "docs", "night.png")


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    """A `make sim` session (table, 4 seats: its eight deals) and `make night` on it."""
    base = tmp_path_factory.mktemp("night")
    sim_out = str(base / "sim")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sim.py"), "--speed", "0",
                        "--seed", "3", "--seats", "4", "--no-images", "--out", sim_out],
                       cwd=ROOT, capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = str(base / "night")
    # the recipe of `make night`, with the shoe's directory and the exports
    cmd = [sys.executable, os.path.join(ROOT, "tools", "night.py"),
           os.path.join(sim_out, "flash"), "--out", out, "--csv", "--json"]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    history = os.path.join(sim_out, "flash", "history", "0001.txt")
    return {"out": out, "history": history, "said": p.stdout}


def test_the_page_and_charts_are_written_and_self_contained(night):
    out = night["out"]
    names = set(os.listdir(out))
    assert {"0001.html", "0001_standings.png", "0001_costs.png", "0001.json",
            "0001_ledger.csv", "0001_decisions.csv"} <= names, names
    assert re.search(r"night: 0001: 8 deals, \d+ decisions scored in [\d.]+ s -> ",
                     night["said"]), night["said"]
    with open(os.path.join(out, "0001.html"), encoding="utf-8") as f:
        page = f.read()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert not re.search(r"<(script|link|img|iframe)\b", page, re.I)   # nothing to fetch
    assert "@import" not in page and "url(" not in page
    assert page.count("<svg") == 2
    for heading in ("Standings", "Settle-up", "Per seat", "Every decision scored"):
        assert ">%s</h2>" % heading in page
    assert "draw-below-17" in page                           # the banker policy, named
    import shuffles                                          # each shuffle judged, as
    judged = shuffles.shuffle_report(night["history"])       # tools/shuffles.py says
    assert judged and page.count("</td><td>fair</td>") + page.count("<b>weak</b>") == \
        len(judged), judged
    from PIL import Image
    for name in ("0001_standings.png", "0001_costs.png"):
        with Image.open(os.path.join(out, name)) as img:
            assert img.size[0] >= 760 and len(img.getcolors(1 << 16) or [0] * 99) > 4


def test_the_numbers_are_the_replayers(night):
    buf = io.StringIO()
    assert replay.main(["replay.py", night["history"]], out=buf) == 0
    want = json.loads(buf.getvalue())
    with open(os.path.join(night["out"], "0001.json"), encoding="utf-8") as f:
        got = json.load(f)
    assert got["balances"] == want["balances"]
    assert got["winners"] == want["winners"]
    assert got["rules"] == want["rules"] == "table"
    assert [d["deal"] for d in got["deals"]] == [d["number"] for d in want["deals"]]
    for mine, theirs in zip(got["deals"], want["deals"]):
        assert mine["banker"] == theirs["banker"]
        for s, net in theirs["net"].items():
            assert mine["net " + s] == net
    # every deal's balances are the sums of the nets before it
    run = {s: 0 for s in want["balances"]}
    for d in got["deals"]:
        for s in run:
            run[s] += d["net " + s]
            assert d["balance " + s] == run[s]
    # the settle-up pays every balance to 0
    left = {int(s): b for s, b in got["balances"].items()}
    for pay in got["settle_up"]:
        left[pay["from"]] += pay["amount"]
        left[pay["to"]] -= pay["amount"]
    assert not any(left.values())
    # decisions: costs never negative, each seat's total their sum, the CSV the same rows
    assert got["decisions"]
    for d in got["decisions"]:
        assert d["cost"] >= 0 and d["best"] in d["values"] and d["choice"] in d["values"]
        assert d["cost"] == pytest.approx(d["values"][d["best"]] - d["values"][d["choice"]],
                                          abs=1e-3)
    for s, cost in got["cost_of_choices"].items():
        assert cost == pytest.approx(sum(d["cost"] for d in got["decisions"]
                                         if d["seat"] == int(s)), abs=1e-3)
    with open(os.path.join(night["out"], "0001_decisions.csv"), encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == len(got["decisions"])
    with open(os.path.join(night["out"], "0001_ledger.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["balance 1"]) for r in rows][-1] == want["balances"]["1"]
    # the banker's draws are scored too (table: he draws at will)
    assert any(d["banker"] for d in got["decisions"])


def test_headless_chromium_draws_the_page_for_the_docs(night):
    """docs/night.png is this screenshot (the page's top: standings, ledger, settle-up, the
    seats)."""
    driver = browser.chromium(1000, 1500)
    try:
        driver.get("file://" + os.path.join(night["out"], "0001.html"))
        assert driver.find_element("css selector", "h1").text.startswith("The night of")
        svg = driver.find_element("css selector", "svg")
        assert svg.size["width"] >= 700 and svg.size["height"] >= 300
        lines = driver.find_elements("css selector", "svg polyline")
        assert len(lines) == 4                                   # one line a seat
        shot = driver.get_screenshot_as_png()
    finally:
        driver.quit()
    # written only when it changed: the same page draws the same bytes, so a suite run
    # leaves the checkout clean
    old = open(SHOT, "rb").read() if os.path.exists(SHOT) else b""
    if shot != old:
        with open(SHOT, "wb") as f:
            f.write(shot)
    from PIL import Image
    with Image.open(SHOT) as img:
        assert img.size[0] >= 1000 and img.size[1] >= 1000
    with open(os.path.join(ROOT, "docs", "PLAYING.md"), encoding="utf-8") as f:
        assert "](night.png)" in f.read()


def test_pull_copies_the_shoes_history_with_mpremote_first(night, tmp_path, monkeypatch):
    """--pull: `mpremote connect PORT fs cp -r :history DEST/` (deploy.py's port and
    runner), then the pages of what came."""
    import shutil

    import deploy
    import night as N
    calls = []

    def fake_mpremote(port, *args):
        calls.append((port,) + args)
        shutil.copytree(os.path.dirname(night["history"]), os.path.join(args[-1], "history"))
        return ""

    monkeypatch.setattr(deploy, "find_port", lambda: "/dev/ttyACM7")
    monkeypatch.setattr(deploy, "mpremote", fake_mpremote)
    out = str(tmp_path / "pulled_night")
    assert N.main(["--pull", "--out", out, "--no-decisions", "--no-png"]) == 0
    assert calls == [("/dev/ttyACM7", "fs", "cp", "-r", ":history",
                      os.path.join(out, "pulled") + "/")]
    assert os.path.exists(os.path.join(out, "0001.html"))
