"""A kept session on a Pico W's pages (firmware/webui/web_history.py, web.py's /history routes,
web_pages.HISTORY): the JSON the shoe streams (every seat's balance after every deal, the
deal's banker, the final ledger, the winners) against tools/replay.py, on CPython and the
MicroPython VM; the routes through microdot's test client; the settle-up's JavaScript
against a brute-force search of every partition of the ledger (node); the page drawn in
headless Chromium from a session the simulated Pico W played and kept."""
import itertools
import json
import os
import random
import subprocess

import pytest
import web_support as W
from conftest import run_micropython

import simtable as S

CASES = [("table", 4, 1, ()), ("table", 8, 2, ()), ("classic", 6, 3, ("shoot=on",)),
         ("casino", 5, 4, ())]


def _history(tmp_path, preset, seats, seed, options=(), name="0001"):
    head, events = S.script_session(preset, seats, seed, options=options)
    d = tmp_path / "history"
    d.mkdir(exist_ok=True)
    path = d / (name + ".txt")
    path.write_text("\n".join(head + events) + "\n")
    return str(path)


def _expected(path):
    """What the page's JSON must say: each deal's banker, void flag and the balances after
    it, from an engine fed the file's events (balances move between deals too: kitty
    put-ups); the rest from the replayer's document, whose deal nets are checked against
    the balances' steps where nothing but deals moves them."""
    from game.transcript import Header, parse_event, strip
    led = S.ledger(path)
    seats = sorted(int(s) for s in led["balances"])
    h = Header()
    e = None
    deals = []
    for line in open(path).read().splitlines():
        words = strip(line)
        if h.take(words):
            continue
        e = e or h.engine()
        ended = e.deals_ended
        assert e.apply(*parse_event(words)) is None
        if e.deals_ended != ended:
            deals.append([e.hand_seat(0), 1 if e.last_void else 0] + [
                e.balance(s) for s in seats])
    assert [d[:2] for d in deals] == [[d["banker"], int(d["void"])] for d in led["deals"]]
    if not any(led["kitty"] or d[0] == 0 and seats[0] == 1 for d in deals):
        before = [0] * len(seats)
        for row, d in zip(deals, led["deals"]):
            assert [a - b for a, b in zip(row[2:], before)] == [
                d.get("net", {}).get(str(s), 0) for s in seats]
            before = row[2:]
    return {"deals": deals, "first": seats[0], "seats": seats[-1],
            "balances": [led["balances"][str(s)] for s in seats], "kitty": led["kitty"],
            "finished": led["finished"], "winners": led["winners"], "rules": led["rules"],
            "error": ""}


@pytest.mark.parametrize("preset,seats,seed,options", CASES)
def test_the_standings_json_is_the_replayers_ledger(tmp_path, preset, seats, seed, options):
    from webui import web_history as H
    path = _history(tmp_path, preset, seats, seed, options)
    pieces = list(H.standings(path))
    got = json.loads(b"".join(pieces))
    want = _expected(path)
    assert got == want
    assert len(got["deals"]) >= 4 and got["deals"][-1][2:] == got["balances"]
    # a piece per ended deal or per few lines: never the whole answer at once
    assert len(pieces) > len(got["deals"]) and max(map(len, pieces)) < 200
    # the MicroPython VM streams the same bytes
    script = tmp_path / "s.py"
    script.write_text("import sys\nfrom webui import web_history as H\nfor p in H.standings(%r):\n"
                      "    sys.stdout.buffer.write(p)\n" % path)
    p = run_micropython([str(script)])
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout == b"".join(pieces)


def test_a_file_that_cannot_be_read_to_its_end_says_where(tmp_path):
    from webui import web_history as H
    path = _history(tmp_path, "table", 4, 1)
    lines = open(path).read().splitlines()
    cut = len(lines) // 2
    with open(path, "w") as f:
        f.write("\n".join(lines[:cut] + ["twist banana"] + lines[cut:]) + "\n")
    got = json.loads(b"".join(H.standings(path)))
    assert got["error"].startswith("line %d: " % (cut + 1)) and not got["finished"]
    assert 0 < len(got["deals"]) < 8
    assert len(got["balances"]) == 4      # where the engine was, mid-deal
    with open(path, "w") as f:
        f.write("not a transcript\n")
    got = json.loads(b"".join(H.standings(path)))
    assert got["deals"] == [] and "unknown keyword" in got["error"] and "balances" not in got
    with pytest.raises(OSError):
        H.standings(str(tmp_path / "history" / "0009.txt"))


# ------------------------------------------------------------- standings made once, kept
def _replayed(path):
    from webui import web_history as H
    return b"".join(H._pieces(open(path, "rb")))


def test_standings_made_once_are_the_replayed_ones_and_served_from_their_file(tmp_path):
    from webui import web_history as H
    path = _history(tmp_path, "table", 8, 2)
    want = _replayed(path)
    assert b"".join(H.standings(path)) == want          # none made yet: replayed
    steps = list(H.make(path))
    deals = len(json.loads(want)["deals"])
    assert len(steps) > deals                           # a deal or a few lines a step
    made = path[:-4] + H.MADE
    assert open(made, "rb").read() == want
    assert sorted(os.listdir(tmp_path / "history")) == ["0001" + H.MADE, "0001.txt"]
    # served from the made file: a history file no longer readable does not matter ...
    with open(path, "w") as f:
        f.write("not a transcript\n")
    pieces = list(H.standings(path))
    assert b"".join(pieces) == want and max(map(len, pieces)) <= 512
    assert len(pieces) == -(-len(want) // 512)
    # ... but one gone is no session, made file or not
    os.remove(path)
    with pytest.raises(OSError):
        H.standings(path)


def test_a_cut_while_making_leaves_the_replay_and_the_next_boot_makes_them(tmp_path):
    from webui import web_history as H
    a = _history(tmp_path, "table", 4, 1, name="0001")
    b = _history(tmp_path, "classic", 5, 2, name="0002")
    c = _history(tmp_path, "casino", 5, 4, name="0003")
    list(H.make(c))
    folder = str(tmp_path / "history")
    steps = H.make(a)
    for _ in range(5):
        next(steps)
    del steps                                          # the power cut: never renamed
    assert os.path.exists(folder + "/0001.tmp") and not os.path.exists(a[:-4] + H.MADE)
    assert b"".join(H.standings(a)) == _replayed(a)    # the phone still gets them
    with open(folder + "/0002.s0.json", "w") as f:     # made by an older firmware
        f.write('{"deals": "an older form"}')
    assert H.make_missing(folder, most=1) == ["0002"]  # newest first, at most `most`
    assert not os.path.exists(folder + "/0002.s0.json")
    made = H.make_missing(folder)
    assert made == ["0001"]                            # 0003 was made already
    assert sorted(os.listdir(folder)) == [n + x for n in ("0001", "0002", "0003")
                                          for x in (H.MADE, ".txt")]
    for path in (a, b, c):
        assert open(path[:-4] + H.MADE, "rb").read() == _replayed(path)
    assert H.make_missing(folder) == []
    assert H.make_missing(str(tmp_path / "nowhere")) == []
    # the MicroPython VM makes the same bytes (its os.rename, its listdir)
    for path in (a, b, c):
        os.remove(path[:-4] + H.MADE)
    script = tmp_path / "m.py"
    script.write_text("from webui import web_history as H\nprint(H.make_missing(%r))\n" % folder)
    p = run_micropython([str(script)])
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout.split() == [b"['0003',", b"'0002',", b"'0001']"]
    for path in (a, b, c):
        assert open(path[:-4] + H.MADE, "rb").read() == _replayed(path)


def test_the_oldest_session_pruned_takes_its_standings_with_it(tmp_path):
    from ledger.journal_files import JournalFiles
    from webui import web_history as H
    paths = [_history(tmp_path, "table", 4, 1, name="%04d" % n) for n in (1, 2)]
    for path in paths:
        list(H.make(path))
    j = JournalFiles(str(tmp_path) + "/", 1024)
    assert j.prune_oldest().endswith("0001.txt")
    assert sorted(os.listdir(tmp_path / "history")) == ["0002" + H.MADE, "0002.txt"]


def test_a_flash_that_refuses_the_standings_still_keeps_the_session(tmp_path):
    from ledger import session as SS
    said = []
    root = str(tmp_path) + "/"
    s = SS.Session(root, say=said.append)
    head, events = S.script_session("table", 4, 3, deals=2)
    assert s.start(head) is None
    for line in events:
        from game.transcript import parse_event, strip
        assert s.feed(*parse_event(strip(line))) is None
        assert s.record(line) is None

    def refusing(path):
        yield
        raise OSError(28, "no space left")
    s.standings = refusing
    name = s.archive()
    assert name.endswith("history/0001.txt") and os.path.exists(name)
    assert said == ["! could not keep the standings of %s: [Errno 28] no space left" % name]
    assert s.making is None and not s.keeping


# --------------------------------------------------------------------------- the routes
class _Table:
    def __init__(self, root):
        from table import views as V
        self.e = None
        self.nev = 0
        self.ui = V.UI()
        self.stop = False
        self.root = root


def _client(root):
    from webui import web
    from microdot.test_client import TestClient
    return TestClient(web.make_app(web.Web(_Table(root))))


def _get(client, path):
    import asyncio
    return asyncio.run(client.get(path))


def test_the_history_routes(tmp_path):
    paths = [_history(tmp_path, "table", 4, 1, name="0001"),
             _history(tmp_path, "classic", 5, 2, name="0002")]
    (tmp_path / "history" / "notes.txt").write_text("not a session")
    c = _client(str(tmp_path) + "/")
    for index in ("/history", "/history/"):
        r = _get(c, index)
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
        text = r.body.decode()
        assert text.index('href="/history/0002"') < text.index('href="/history/0001"')
        assert "notes" not in text and int(r.headers["Content-Length"]) == len(r.body)
    r = _get(c, "/history/0002")
    assert r.status_code == 200 and b"var NAME='0002'" in r.body and b"function settle" in r.body
    r = _get(c, "/api/history/0001")
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert json.loads(r.body) == _expected(paths[0])
    r = _get(c, "/history/0001.txt")
    assert r.status_code == 200 and r.body == open(paths[0], "rb").read()
    from webui import web_history as H
    list(H.make(paths[0]))                 # made: the same answer, from its file
    r = _get(c, "/api/history/0001")
    assert r.status_code == 200 and json.loads(r.body) == _expected(paths[0])
    for bad in ("/history/0003", "/api/history/0003", "/history/12a4", "/api/history/..",
                "/api/history/0001.txt", "/history/notes.txt", "/history/../settings.txt",
                "/history/0001.s1.json", "/history/0001.tmp"):
        assert _get(c, bad).status_code == 404, bad
    empty = tmp_path / "none"
    empty.mkdir()
    r = _get(_client(str(empty) + "/"), "/history")
    assert r.status_code == 200 and b"No session kept yet" in r.body


# --------------------------------------------------------------------------- settle-up
def brute_force_payments(balances):
    """The fewest payments that settle `balances` (summing to 0), by trying every way of
    splitting the parties owed or owing into groups: a group whose balances sum to 0 can
    settle within itself in (its size - 1) payments and no fewer, and every set of payments
    splits the parties so (each connected part of it sums to 0, and a connected part of k
    parties needs k - 1 payments at least)."""
    parties = [b for b in balances if b]
    best = 0

    def partitions(items):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for sub in partitions(rest):
            for i in range(len(sub)):
                yield sub[:i] + [[first] + sub[i]] + sub[i + 1:]
            yield [[first]] + sub
    for p in partitions(parties):
        if all(sum(g) == 0 for g in p):
            best = max(best, len(p))
    return len(parties) - best


def test_brute_force_reference_on_known_ledgers():
    assert brute_force_payments([]) == 0
    assert brute_force_payments([5, -5]) == 1
    assert brute_force_payments([3, -1, -2]) == 2
    assert brute_force_payments([4, -4, 7, -7]) == 2              # two pairs, not three
    assert brute_force_payments([1, 2, 3, -6]) == 3
    assert brute_force_payments([5, 5, -3, -7]) == 3
    assert brute_force_payments([2, -2, 0, 3, -1, -2]) == 3
    # the greedy largest-pays-largest alone needs 3 here: 7-5 and -3,-4 mix
    assert brute_force_payments([7, -3, -4, 5, -5]) == 3


def _ledgers(n, seed):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        k = rng.randint(0, 9)
        if i % 3 == 0:                # pairs and small groups that cancel: the hard case
            vals = []
            while len(vals) < k - 1:
                a = rng.randint(1, 6)
                vals += [a, -a] if rng.random() < 0.5 else [a, rng.randint(1, 4), -a]
                if len(vals) % 3 == 0:
                    vals[-1] = -(vals[-2] + vals[-3])
            vals = vals[:max(0, k - 1)]
        else:
            vals = [rng.randint(-30, 30) for _ in range(max(0, k - 1))]
        if vals or k:
            vals.append(-sum(vals))
        rng.shuffle(vals)
        out.append(vals)
    return out


def run_settle_js(ledgers):
    """web_pages.SETTLE's settle() on node, for each ledger: its payments."""
    from webui import web_pages as P
    js = P.SETTLE.decode().replace("<script>", "").replace("</script>", "")
    driver = js + """
var input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
var out = input.map(function (b) {
  return settle(b.map(function (v, i) { return ['s' + i, v]; }));
});
process.stdout.write(JSON.stringify(out));
"""
    p = subprocess.run(["node", "-e", driver], input=json.dumps(ledgers), text=True,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_pages_settle_up_is_the_fewest_payments_brute_force_finds():
    ledgers = _ledgers(400, 44) + [[7, -3, -4, 5, -5], [4, -4, 7, -7], [0, 0, 0]]
    ledgers += [list(v) for v in itertools.permutations([6, -6, 2, 3, -5, 1, -1, -3, 3])][:40]
    results = run_settle_js(ledgers)
    assert max(len(b) for b in ledgers) == 9          # 8 seats and the kitty
    for balances, payments in zip(ledgers, results):
        left = dict(("s%d" % i, v) for i, v in enumerate(balances))
        for payer, payee, amount in payments:
            assert amount > 0 and left[payer] < 0 < left[payee]
            left[payer] += amount
            left[payee] -= amount
        assert set(left.values()) <= {0}, (balances, payments)
        assert len(payments) == brute_force_payments(balances), (balances, payments)


# --------------------------------------------------------------------------- in the browser
def test_a_kept_session_drawn_on_the_phone(tmp_path):
    """The simulated Pico W plays a session and keeps it; its page in headless Chromium
    draws every seat's line through its balance after each deal, the banks held as bands,
    the final ledger with its winners, and the fewest payments."""
    import browser
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    wt = W.WebTable(tmp_path, seats=5, seed=7)
    with wt:
        n = len(wt.events)
        wt.hold(n)
        wt.wait_acked(n)
        wt.wait(lambda: wt.json("/api/table").get("history"), "the session kept")
        kept = wt.json("/api/table")["history"]
        name = kept[len("history/"):-len(".txt")]
        path = os.path.join(wt.flash, kept)
        want = _expected(path)
        assert wt.json("/api/history/" + name) == want
        status, _, index = wt.get("/history")
        assert status == 200 and ('href="/history/%s"' % name).encode() in index
        driver = browser.chromium(412, 900)
        try:
            base = "http://127.0.0.1:%d" % wt.port
            driver.get(base + "/")
            WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.ID, "kept"))
            driver.find_element(By.ID, "kept").click()
            WebDriverWait(driver, 60).until(
                lambda d: d.execute_script("return document.body.dataset.ready") == "1")
            assert driver.current_url == base + "/history/" + name
            _check_drawn(driver, want)
            os.makedirs(os.path.join(W.ROOT, "out", "web"), exist_ok=True)
            driver.save_screenshot(os.path.join(W.ROOT, "out", "web", "history.png"))
        finally:
            driver.quit()


def _check_drawn(driver, want):
    from selenium.webdriver.common.by import By
    _check_drawn_lines(driver, want)
    deals = want["deals"]
    first = want["first"]
    bands = driver.find_elements(By.CSS_SELECTOR, "#chart rect.band")
    assert [int(b.get_attribute("data-banker")) for b in bands] == [d[0] for d in deals]
    rows = driver.find_elements(By.CSS_SELECTOR, "#ledger tr")[1:]
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows] == [
        ("+%d" % b if b > 0 else "%d" % b) for b in want["balances"]]
    winners = [r.text.split()[1] for r in driver.find_elements(By.CSS_SELECTOR, "#ledger .w")]
    assert winners == [str(s) for s in want["winners"]]
    payments = driver.find_elements(By.CSS_SELECTOR, "#settle tr")
    left = dict(("Seat %d" % (first + k), b) for k, b in enumerate(want["balances"]))
    for p in payments:
        payer, _, payee, amount = [td.text for td in p.find_elements(By.TAG_NAME, "td")]
        left[payer] += int(amount)
        left[payee] -= int(amount)
    assert set(left.values()) == {0}
    assert len(payments) == brute_force_payments(want["balances"])


def _check_drawn_lines(driver, want):
    """Each seat's line goes through its balance after every deal, on one scale."""
    from selenium.webdriver.common.by import By
    deals = want["deals"]
    first, seats = want["first"], want["seats"]
    lines = driver.find_elements(By.CSS_SELECTOR, "#chart polyline.seat")
    assert [int(x.get_attribute("data-seat")) for x in lines] == list(range(first, seats + 1))
    pairs = []
    for k, line in enumerate(lines):
        values = [0] + [d[2 + k] for d in deals]
        assert [int(v) for v in line.get_attribute("data-balances").split(",")] == values
        pts = [tuple(map(float, p.split(","))) for p in line.get_attribute("points").split()]
        assert len(pts) == len(deals) + 1
        xs = [p[0] for p in pts]
        assert xs == sorted(xs) and len(set(xs)) == len(xs)
        pairs += [(v, p[1]) for v, p in zip(values, pts)]
    # the drawn heights are the balances, on one scale for every line (up is more)
    (v0, y0), (v1, y1) = min(pairs), max(pairs)
    assert v1 > v0 and y1 < y0
    per_unit = (y0 - y1) / (v1 - v0)
    for v, y in pairs:
        assert abs(y - (y0 - per_unit * (v - v0))) < 0.2, (v, y)


def _serve_pages(root):
    """The history routes of web.py on CPython (microdot's own server) in a thread; its
    base URL and a stop function."""
    import asyncio
    import threading

    from webui import web
    app = web.make_app(web.Web(_Table(root)))
    port = W.free_port()
    loop = asyncio.new_event_loop()
    th = threading.Thread(target=lambda: loop.run_until_complete(
        app.start_server("127.0.0.1", port)), daemon=True)
    th.start()

    def up():
        try:
            return _http_status("http://127.0.0.1:%d/history" % port) == 200
        except OSError:
            return False
    import time
    for _ in range(500):
        if up():
            break
        time.sleep(0.02)

    def stop():
        app.shutdown()
        th.join(10)
    return "http://127.0.0.1:%d" % port, stop


def _http_status(url):
    import urllib.request
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status


@pytest.mark.parametrize("preset,seats,seed,options", CASES[2:])
def test_kitty_and_house_drawn_and_settled(tmp_path, preset, seats, seed, options):
    """The classic table with shoot bets (money left in the kitty settles as a party of
    its own) and the casino (the house is a party, no bands: it always deals)."""
    import browser
    from selenium.webdriver.support.ui import WebDriverWait
    path = _history(tmp_path, preset, seats, seed, options)
    want = _expected(path)
    base, stop = _serve_pages(str(tmp_path) + "/")
    driver = browser.chromium(412, 900)
    try:
        driver.get(base + "/history/0001")
        WebDriverWait(driver, 60).until(
            lambda d: d.execute_script("return document.body.dataset.ready") == "1")
        if preset == "casino":
            assert want["first"] == 0 and not driver.find_elements("css selector", "rect.band")
        _check_drawn_lines(driver, want)
        rows = driver.find_elements("css selector", "#ledger tr")[1:]
        assert len(rows) == seats + 1 - want["first"]
        left = dict(("Seat %d" % s if s else "House", b) for s, b in zip(
            range(want["first"], seats + 1), want["balances"]))
        if sum(left.values()):
            left["Kitty"] = -sum(left.values())
        payments = driver.find_elements("css selector", "#settle tr")
        for p in payments:
            payer, _, payee, amount = [td.text for td in p.find_elements("tag name", "td")]
            left[payer] += int(amount)
            left[payee] -= int(amount)
        assert set(left.values()) <= {0}
        assert len(payments) == brute_force_payments(
            want["balances"] + [-sum(want["balances"])])
    finally:
        driver.quit()
        stop()
