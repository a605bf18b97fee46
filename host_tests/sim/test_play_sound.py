"""`make play` sounds the shoe's buzzer: the firmware on the MicroPython VM drives the
piezo model through the bridge ("Z hz duty": boards/simdev/remote_io.py), and the page is
told of each tone it heard (LiveTable.tones(): the count and the last few), which it plays
with WebAudio at the firmware's pitch and length (tools/play_page/play.js)."""
import functools

import pytest

from hardware import buzzer
import livetable as L
import play
import test_play_terminal

# test_play_terminal's wait, with more patience (a browser starts beside the table)
wait_for = functools.partial(test_play_terminal.wait_for, timeout=60)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    t = L.LiveTable(str(tmp_path_factory.mktemp("sound") / "flash"), seats=3, speed=4.0,
                    seed=4)
    t.start()
    try:
        wait_for(lambda: (t.prompt or "").startswith("Cut"), "the first prompt")
        yield t
    finally:
        t.close()


def kinds(t, since):
    return [k for ms, k in t.world.buzzer.tones[since:]]


def test_a_card_taken_ticks_and_the_page_is_told(table):
    t = table
    n = t.tones()["seq"]
    t.command("deal", "QH")
    wait_for(lambda: t.tones()["seq"] > n, "a tone")
    assert kinds(t, n) == ["tick"]
    st = t.state(full=False)["tones"]
    assert st["seq"] == n + 1 and st["last"][-1][1] == "tick" and st["boots"] == t.boots


def test_two_cards_at_once_buzz(table):
    t = table
    n = t.tones()["seq"]
    assert t.command("anomaly", "two") is None
    wait_for(lambda: t.tones()["seq"] > n, "a tone")
    wait_for(lambda: any(ln.startswith("! reader two-tags") for ln in t.log_since(0)[0]),
             "the '!' line")
    assert kinds(t, n) == ["buzz"]


def test_the_page_gets_the_firmwares_tones():
    st = play.Server(None)
    kinds = {"tick": [buzzer.TICK_HZ, buzzer.TICK_MS], "buzz": [buzzer.BUZZ_HZ, buzzer.BUZZ_MS]}

    class Fake:
        def state(self):
            return {}
    st.table = Fake()
    full = st._full()
    assert full["tone_kinds"] == kinds


def test_the_page_plays_each_tone(tmp_path):
    # the page in a browser: a card dealt by its button ticks, two cards at once buzz; each
    # new tone makes one WebAudio oscillator at the firmware's pitch
    import browser
    from test_play_browser import Page, Site
    site = Site(str(tmp_path / "flash"))
    site.start()
    driver = browser.chromium(1280, 1100)
    try:
        driver.get(site.url)
        page = Page(site, driver)
        wait_for(lambda: page.js("return document.body.dataset.boots") == "1"
                 and "Cut" in (page.table.prompt or ""), "the firmware's first prompt")
        page.js("window.pitches = [];"
                "const make = AudioContext.prototype.createOscillator;"
                "AudioContext.prototype.createOscillator = function () {"
                "  const o = make.call(this);"
                "  setTimeout(() => window.pitches.push(o.frequency.value), 0);"
                "  return o; };")
        page.act(lambda: page.click("deal"))               # a click: the page may sound
        wait_for(lambda: page.js("return document.body.dataset.lastTone") == "tick",
                 "the tick on the page")
        page.act(lambda: page.d.find_element("css selector", "[data-anomaly=two]").click())
        wait_for(lambda: page.js("return document.body.dataset.lastTone") == "buzz",
                 "the buzz on the page")
        wait_for(lambda: len(page.js("return window.pitches")) == 2, "two oscillators")
        assert page.js("return window.pitches") == [buzzer.TICK_HZ, buzzer.BUZZ_HZ]
        assert page.js("return +document.body.dataset.tones") == \
            len(site.table.world.buzzer.tones) == 2
    finally:
        driver.quit()
        site.stop()
