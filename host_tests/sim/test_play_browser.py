"""`make play` in a real browser (headless Chromium, host_tests/browser.py): a deal played by
clicking and typing, the canvases against the SSD1306 models, the reader anomalies, the
panel states, the plug; and nothing hidden on a seat's display before its time."""
import asyncio
import json
import os
import re
import threading
import time

import pytest

import browser
import livetable as L
import play
from table import app
from table import menu as M
from game.cards import card_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CARD = re.compile(r"(?<![0-9A-Z])(10|[2-9TAJQK])([CDHS])(?![A-Za-z0-9])")
WAIT_S = 30


def wait_for(cond, what, timeout=WAIT_S):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


class Site:
    """A LiveTable and its page served from a thread of this process."""

    def __init__(self, flash, seats=3, preset="table"):
        self.table = L.LiveTable(flash, seats=seats, preset=preset, speed=2.0, seed=11)
        self.server = play.Server(self.table)
        self.table.on_change = self.server.notify
        self.url = None
        self.loop = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        self.loop = asyncio.new_event_loop()

        def ready(url):
            self.url = url
            self.ready.set()
        self.task = self.loop.create_task(self.server.serve(0, ready))
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass

    def start(self):
        self.table.start()
        self.thread.start()
        assert self.ready.wait(WAIT_S), "the page's server did not start"

    def stop(self):
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(WAIT_S)
        self.table.close()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    site = Site(str(tmp_path_factory.mktemp("play") / "flash"))
    site.start()
    driver = browser.chromium(1280, 1100)
    try:
        driver.get(site.url)
        page = Page(site, driver)
        wait_for(lambda: page.js("return document.body.dataset.boots") == "1"
                 and "Cut" in (page.table.prompt or ""), "the firmware's first prompt")
        yield page
    finally:
        driver.quit()
        site.stop()


class Page:
    def __init__(self, site, driver):
        self.site = site
        self.table = site.table
        self.d = driver
        self.face_down = {}       # card name -> holder ("seat N" / "banker") dealt face down
        self.public = set()       # cards named on the serial line (face up)
        self.revealed = set()     # holders whose face-down cards may now be shown

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def click(self, element_id):
        self.d.find_element("id", element_id).click()

    def keys(self, text):
        from selenium.webdriver.common.action_chains import ActionChains
        self.d.find_element("tag name", "body")
        ActionChains(self.d).send_keys(text).perform()

    def settle(self):
        """Wait until the firmware is idle and the page shows the server's latest state."""
        t = self.table
        t.sync()
        # the firmware answers within 250 ms of its own clock: wait for that clock, not the
        # wall's (on a busy machine the simulated clock falls behind it)
        if t.powered:                 # (unplugged, nothing runs: nothing to wait for)
            since = t.world.clock.ms()
            wait_for(lambda: not t.powered or t.world.clock.ms() - since >= 500,
                     "the table's clock")
        t.sync()

        def shown():
            seq = t.log_seq
            vers = {str(i): p.version for i, p in t.panels.items()}
            got = self.js("const v = {}; for (const c of document.querySelectorAll('canvas.oled'))"
                          " v[c.id.slice(4)] = +c.dataset.version;"
                          " return [+document.body.dataset.logSeq, v];")
            return got[0] == seq and got[1] == vers
        wait_for(shown, "the page to show the table's state")

    def act(self, fn):
        """Do something on the page, wait for its effect, check every canvas and what is
        hidden; returns the serial lines it caused."""
        seq = self.table.log_seq
        fn()
        self.settle()
        lines, _ = self.table.log_since(seq)
        self.learn(lines)
        self.check_canvases()
        self.check_hidden()
        return lines

    # ------------------------------------------------------------------ checks
    def canvas_levels(self, i):
        bits = self.js("return window.canvasBits(arguments[0])", i)
        h = len(bits) // 128
        return [[int(bits[y * 128 + x]) for x in range(128)] for y in range(h)]

    def check_canvases(self):
        """Each canvas lights exactly the pixels the display model's memory and state
        light, and the snapshot it was drawn from is the model's current state."""
        t = self.table
        for i in t.indices:
            snap = t.panels[i]
            if t.world is not None and t.powered:
                live = L.Panel(t.world.displays[i], True)
                assert live.key() == snap.key(), "display %d changed after its snapshot" % i
            want = L.panel_levels(snap)
            got = self.canvas_levels(i)
            assert got == want, "canvas %d differs from display %d's model" % (i, i)

    def canvas_text(self, i):
        rows = self.canvas_levels(i)
        p = L.Panel()
        ram = bytearray(1024)
        for y, row in enumerate(rows):
            for x, v in enumerate(row):
                if v:
                    ram[(y >> 3) * 128 + x] |= 1 << (y & 7)
        p.ram = bytes(ram)
        p.powered = p.on = True
        p.height = len(rows)
        p.contrast = 255
        return L.text_of(p)

    def learn(self, lines):
        for ln in lines:
            m = re.match(r"^(?:ok|\*) #\d+ card (\S+) ", ln)
            if m and m.group(1) not in ("to",):
                self.public.add(m.group(1))
            m = re.match(r"^(?:ok|\*) #\d+ card to (seat \d+|the banker) \(face down\)", ln)
            if m:
                holder = m.group(1).replace("the ", "")
                self.face_down[self.last_pick] = holder
            if ln.startswith("# deal ") or ln.startswith("> Banker"):
                self.revealed.add("banker")
            if ln.startswith("# deal "):
                self.revealed.update("seat %d" % s for s in range(1, 9))

    def check_hidden(self):
        """No display shows a face-down card before its time: a seat's display only its own,
        no display the banker's before his turn; no other part of the page names one."""
        t = self.table
        for k, i in enumerate(t.indices):
            viewer = "banker" if i == 8 else "seat %d" % (i + 1)
            text = " ".join(self.canvas_text(i))
            for rank, suit in CARD.findall(text):
                name = card_name_of(rank, suit)
                holder = self.face_down.get(name)
                if holder is None or name in self.public or holder in self.revealed:
                    continue
                assert holder == viewer and holder != "banker", (
                    "%s's display shows %s, dealt face down to %s: %r"
                    % (t.labels[k], name, holder, text))
        # the card picker looks the same for every card: it does not tell what was dealt
        looks = self.js("return Array.from(document.querySelectorAll('#picker button'),"
                        " (b) => b.className.replace('red', '') + b.disabled)")
        assert len(looks) == 52 and len(set(looks)) == 1, set(looks)
        assert self.js("return document.activeElement.closest('#picker') === null"), \
            "the last picked card keeps the focus ring"
        shown = self.js("return ['log', 'events', 'prompt', 'ledger', 'note'].map("
                        "(id) => document.getElementById(id).innerText).join('\\n')")
        # nor does what the server sends the page (all but the display memory)
        sent = self.site.server._full()
        for k in ("panels", "cards", "keys", "casino_keys"):
            sent.pop(k)
        shown += "\n" + json.dumps(sent)
        for name, holder in self.face_down.items():
            if name in self.public or holder in self.revealed:
                continue
            assert not re.search(r"(?<![0-9A-Z])%s(?![A-Za-z0-9])" % name, shown), (
                "the page names %s, dealt face down to %s" % (name, holder))

    # ------------------------------------------------------------------ moves
    def pick(self):
        """A card from the top of the shoe (as the picker shows it), by its button."""
        top = self.table.top_cards()
        code = sorted(top)[len(self.face_down) * 7 % len(top)]
        self.last_pick = card_name(code)
        return "card-" + self.last_pick


def card_name_of(rank, suit):
    return ("T" if rank == "10" else rank) + suit


def test_a_deal_played_by_clicking_and_typing(page):
    t = page.table
    # the cut: the shoe's button, one card a seat (ties cut again)
    for _ in range(10):
        if not t.prompt.startswith("Cut"):
            break
        page.act(lambda: page.click("deal"))
    assert t.prompt.startswith("Shuffle"), t.prompt
    lines = page.act(lambda: page.keys("\ue007"))          # Enter: OK, "shuffled"
    assert any(re.match(r"^\* #\d+ shuffle", ln) for ln in lines), lines
    staked = twisted = False
    shot = False
    for _ in range(60):
        p = t.prompt
        if p.startswith("Deal to") or t.shoe()["due"] and not p.startswith("Banker"):
            lines = page.act(lambda: page.click(page.pick()))
            assert any(" card " in ln for ln in lines), (p, lines)
        elif "to stake" in p:
            page.act(lambda: page.keys("+"))                   # the stake entry: min + 1
            lines = page.act(lambda: page.keys("\ue007"))
            assert any(re.match(r"^\* #\d+ stake \d \d+$", ln) for ln in lines), lines
            staked = True
        elif "to play" in p:
            if twisted and not shot:            # mid-deal: a face-up card on the table
                shot = screenshot(page)
            if not twisted and "TWIST" in p:
                lines = page.act(lambda: page.keys("t"))
                assert any(re.search(r"^\* #\d+ twist \d", ln) for ln in lines), lines
                twisted = True
            else:
                seat = int(re.search(r"Seat (\d)", p).group(1))
                lines = page.act(lambda: type_line(page, "stick %d" % seat))
                if any(ln.startswith("error:") for ln in lines):
                    twisted = False
        elif p.startswith("Banker"):
            shot = shot or screenshot(page)
            lines = page.act(lambda: page.click("btn-STICK"))
            if any(ln.startswith("!") for ln in lines):
                page.act(lambda: page.click(page.pick()))
        elif p.startswith("Shuffle"):
            page.act(lambda: page.keys("\ue007"))
        if any(ln.startswith("# deal 1 over") for ln in t.log_since(0)[0]):
            break
    log = t.log_since(0)[0]
    assert any(ln.startswith("# deal 1 over") for ln in log), log[-10:]
    assert staked and shot and page.face_down, (staked, shot, page.face_down)
    # the deal's events and the ledger are on the page
    events = page.js("return document.getElementById('events').innerText")
    assert "deal 1 over" in events
    led = page.js("return document.getElementById('ledger').innerText")
    assert "balance" in led and re.search(r"\n1 B\d", led), led
    assert sum(t.ledger["balances"].values()) + t.ledger["kitty"] == 0


def screenshot(page):
    """The page mid-deal, for the README (docs/play.png is a copy)."""
    from selenium.webdriver.common.action_chains import ActionChains
    os.makedirs(os.path.join(ROOT, "out"), exist_ok=True)
    ActionChains(page.d).move_to_element(page.d.find_element("tag name", "h1")).perform()
    page.d.save_screenshot(os.path.join(ROOT, "out", "play.png"))
    return True


def type_line(page, line):
    page.click("line")
    box = page.d.find_element("id", "line")
    box.send_keys(line + "\n")
    box.send_keys("\ue00c")                    # Esc: the keys are the table's again


def test_serial_line_answers_commands(page):
    lines = page.act(lambda: type_line(page, "status"))
    assert lines[0] == "< status"
    assert any(ln.startswith("ok status:") for ln in lines), lines
    shown = page.js("return document.getElementById('log').innerText")
    assert "ok status:" in shown


def test_reader_anomalies_from_the_page(page):
    t = page.table
    n = len(t.jlines)
    lines = page.act(lambda: page.click_anomaly("two"))
    assert any(ln.startswith("! reader two-tags") for ln in lines), lines
    lines = page.act(lambda: page.click_anomaly("fast"))
    assert any(ln.startswith("! reader unread") for ln in lines), lines
    lines = page.act(lambda: page.click_anomaly("again"))
    assert not any(re.match(r"^\* #", ln) for ln in lines), lines
    assert len(t.jlines) == n                # nothing was accepted from any of them
    assert "again" in page.js("return document.getElementById('note').innerText")


def _click_anomaly(self, kind):
    self.d.find_element("css selector", "[data-anomaly=%s]" % kind).click()


Page.click_anomaly = _click_anomaly


def test_canvas_follows_inversion_contrast_and_display_off(page):
    t = page.table
    i = 8

    def set_state(**kw):
        d = t.world.displays[i]
        if kw == was:
            d.pinned = {}
        else:
            d.pinned.update(kw)          # (the firmware's refresh sends its settings again)
        t.do(lambda: [setattr(d, k, v) for k, v in kw.items()])
    colour = ("const c = document.getElementById('oled8').getContext('2d');"
              " const d = c.getImageData(0, 0, 128, 64).data; let m = 0;"
              " for (let n = 0; n < d.length; n += 4) m = Math.max(m, d[n + 2]); return m;")
    # a reader message from the test before leaves the banker's display after MSG_MS of
    # the table's clock: let it go first, or the picture changes between two looks at it
    since = t.world.clock.ms()
    wait_for(lambda: t.world.clock.ms() - since > app.MSG_MS + 500, "messages to expire")
    page.act(lambda: None)
    d = t.world.displays[i]
    was = {k: getattr(d, k) for k in ("on", "inverse", "entire_on", "contrast",
                                      "start_line", "seg_remap", "com_flip")}
    bright = page.js(colour)
    try:
        _panel_states(page, t, i, set_state, colour, bright)
    finally:                                  # the tests after this one see it as it was
        page.act(lambda: set_state(**was))


def _panel_states(page, t, i, set_state, colour, bright):
    page.act(lambda: set_state(inverse=True, contrast=0x10))
    assert t.panels[i].inverse
    lit = sum(map(sum, page.canvas_levels(i)))
    assert lit > 128 * 64 // 2               # inverted: mostly lit
    dim = page.js(colour)
    assert dim < bright                       # a low contrast lights pixels less
    page.act(lambda: set_state(on=False))
    assert sum(map(sum, page.canvas_levels(i))) == 0
    page.act(lambda: set_state(on=True, inverse=False, contrast=0xCF))
    upright = page.canvas_levels(i)
    assert sum(map(sum, upright)) < 128 * 64 // 2
    # without segment remap and COM flip the panel shows the picture turned by 180 degrees
    page.act(lambda: set_state(seg_remap=False, com_flip=False))
    assert page.canvas_levels(i) == [row[::-1] for row in reversed(upright)]
    page.act(lambda: set_state(seg_remap=True, com_flip=True, start_line=8))
    assert page.canvas_levels(i) == upright[8:] + upright[:8]
    page.act(lambda: set_state(start_line=0, entire_on=True))
    assert sum(map(sum, page.canvas_levels(i))) == 128 * 64
    page.act(lambda: set_state(entire_on=False))
    assert page.canvas_levels(i) == upright


def test_holding_a_button_is_a_long_press(page):
    """OK held (the mouse down for more than long_ms) opens the menu; UNDO closes it."""
    from selenium.webdriver.common.action_chains import ActionChains
    t = page.table
    ok = page.d.find_element("id", "btn-OK")

    def hold():
        ActionChains(page.d).click_and_hold(ok).perform()
        t.sync()
        down = t.world.clock.ms()
        # held until the simulated clock passes long_ms (800) with room to spare
        wait_for(lambda: t.world.clock.ms() - down > 1200, "the simulated clock")
        ActionChains(page.d).release(ok).perform()
    def menu_line():
        return [ln for ln in page.canvas_text(8) if ln.startswith("> ")]
    assert menu_line() == []
    page.act(hold)
    menu = menu_line()                       # the menu's item, on the banker's display
    assert len(menu) == 1 and menu[0][2:] in M.NAMES, page.canvas_text(8)
    page.act(lambda: page.click("btn-UNDO"))
    assert menu_line() == [], page.canvas_text(8)


def test_pull_the_plug_and_power_on_resume_the_same_table(page):
    t = page.table
    before = {i: page.canvas_text(i) for i in t.indices}
    events = sum(1 for ln in t.jlines if ln.split()[0] not in ("rules", "seats", "banker", "packs"))
    assert page.js("return document.getElementById('poweron').disabled")
    page.act(lambda: page.click("plug"))
    assert not t.powered
    assert page.js("return document.body.dataset.powered") == "0"
    for i in t.indices:
        assert sum(map(sum, page.canvas_levels(i))) == 0, "display %d still lit" % i
    seq = t.log_seq
    page.click("poweron")
    wait_for(lambda: any(ln.startswith("# resume #") for ln in t.log_since(seq)[0]),
             "the firmware to resume")
    page.settle()
    resumed = [ln for ln in t.log_since(seq)[0] if ln.startswith("# resume #")]
    assert resumed == ["# resume #%d" % events], resumed
    try:
        wait_for(lambda: all(page.canvas_text(i) == before[i] for i in t.indices),
                 "the displays to show the table as before the cut", 10)
    except AssertionError:
        raise AssertionError("after power on:\n" + "\n".join(
            "display %d: %r, was %r" % (i, page.canvas_text(i), before[i])
            for i in t.indices if before[i] != page.canvas_text(i))
            + "\nlast lines:\n" + "\n".join(t.log_since(0)[0][-8:]))
    page.check_canvases()
    assert page.js("return document.body.dataset.boots") == "2"


def test_make_play_serves_the_page_and_stops_cleanly(tmp_path):
    """tools/play.py itself: a free port, the address printed, the page and its state
    served, Ctrl-C (SIGINT) stops it with the journal kept; bad arguments: one line, 2."""
    import signal
    import subprocess
    import sys
    import urllib.request
    bad = subprocess.run([sys.executable, "tools/play.py", "--seats", "12"], cwd=ROOT,
                         capture_output=True, text=True, timeout=WAIT_S)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "play.py: error: --seats 12: table takes 2 to 8 seats (see --help)\n"
    p = subprocess.Popen([sys.executable, "tools/play.py", "--no-browser", "--seats", "2",
                          "--flash", str(tmp_path / "flash")], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        import select
        assert select.select([p.stdout], [], [], WAIT_S)[0], "play.py printed no address"
        first = p.stdout.readline()
        m = re.match(r"^play: the table is at (http://127\.0\.0\.1:(\d+)/) ", first)
        assert m and int(m.group(2)) > 0, first
        with urllib.request.urlopen(m.group(1), timeout=WAIT_S) as r:
            assert r.status == 200 and b"<title>Pontoon shoe" in r.read()
        with urllib.request.urlopen(m.group(1) + "static/play.js", timeout=WAIT_S) as r:
            assert b"panelLevels" in r.read()

        def booted():
            with urllib.request.urlopen(m.group(1) + "state", timeout=WAIT_S) as r:
                st = json.loads(r.read())
            return st["boots"] == 1 and st["prompt"].startswith("Cut")
        wait_for(booted, "the firmware's first prompt over /state")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=WAIT_S)
    finally:
        p.kill()
    assert p.returncode == 0, err
    assert "Traceback" not in err, err
    assert "play: stopped; the journal is kept in" in out
    assert os.path.exists(tmp_path / "flash" / "settings.txt")


def test_casino_keys_on_the_page(tmp_path):
    """casino: digits and Enter place the bet of the seat whose stake is due, Space asks
    for the last round's bets (none yet), Esc leaves the table ('new')."""
    site = Site(str(tmp_path / "flash"), seats=2, preset="casino")
    site.start()
    driver = browser.chromium(1280, 1100)
    try:
        driver.get(site.url)
        page = Page(site, driver)
        t = page.table
        wait_for(lambda: t.prompt == "Seat 1 to bet" and
                 page.js("return document.body.dataset.boots") == "1", "the first bet")
        assert "Space" in page.js("return document.getElementById('keyhelp').innerText")
        page.act(lambda: page.keys(" "))
        assert page.js("return document.getElementById('note').innerText") == \
            "no earlier round to repeat: type the bets"
        page.keys("12")
        assert page.js("return document.getElementById('bet').innerText").startswith("12")
        lines = page.act(lambda: page.keys("\ue003\ue007"))   # Backspace: 1; Enter
        assert lines[:2] == ["< stake 1 1", "ok #1 stake 1 1"], lines
        assert t.prompt == "Seat 2 to stake"
        lines = page.act(lambda: page.keys("\ue00c"))          # Esc: leave the table
        assert lines[0] == "< new" and lines[1].startswith(("ok new", "error:")), lines
    finally:
        driver.quit()
        site.stop()
