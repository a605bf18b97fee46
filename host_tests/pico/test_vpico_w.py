"""The Pico W's own UF2 on the virtual Pico, its web part serving a table full of phones
(boards/vpico_w.py: the public page and every seat's page polling as the real pages do,
through microdot's own request handling): a whole 8-seat, 8-deal session, every answer
checked for hidden information, and the Pico W's heap goals (issue 20) asserted at the
goal (README "Measured on the virtual Pico")."""
import json

import pytest
from app_support import hidden_states, hidden_violations

import bench_pico as B

SEATS = 8
# Issue 43's speed goals, on this same session (the nine phones long-polling, the seat
# OLEDs on): each asserted at its goal as a strict xfail while missed, and beside it the
# figure held at a limit with at least 10% room so that it cannot grow unseen.
HELD_CARD_AVG_MS = 44.0
HELD_CARD_P95_MS = 66.0
HELD_CARD_MAX_MS = 88.0
# (a finger's contact bounce is no longer measured as a press's end: 62 ms, 162 before;
# 56 to 58 ms since an amount's banker display goes right after its seat's)
HELD_BUTTON_MS = 80.0
HELD_BUTTON_P99_MS = 73.0
# (up to 49 ms while the phones loaded their pages, microdot parsing a request's whole head
# in one slice; 39 to 40 ms since each line of it is a slice)
HELD_READER_GAP_MS = 48
# (the phones follow the table with what it leaves: a round of messages, one table version
# each, a phone's message going while the reader waits for its chip; docs/DEVELOPING.md)
HELD_PHONE_P95_MS = 380.0
HELD_PHONE_MAX_MS = 800.0


@pytest.fixture(scope="module")
def played():
    from vpico import pico
    try:
        return B.measure_w(seats=SEATS, seed=1, log=lambda *a: None)
    except pico.VpicoError as x:
        pytest.fail("the virtual Pico W cannot run: %s" % x)


def test_the_session_was_played_to_its_end_with_the_phones_served(played):
    assert len(played["events"]) > 300
    assert played["refusals"] == [] and played["retries"] == 0
    lines = played["lines"]
    assert any(x.startswith("# session over") for x in lines), lines[-10:]
    assert not any("Traceback" in x or "MemoryError" in x for x in lines)
    web = [x for x in lines if x.startswith("# web: ") and "requests" in x]
    assert web and " 0 refused" in web[0] and " 0 timed out, 0 bad" in web[0], web


def test_every_answer_is_right_and_shows_no_hidden_card(played):
    answers = played["answers"]
    assert {status for _, status, _ in answers} == {200}
    seen = {seat for seat, _, _ in answers}
    assert seen == set(range(SEATS + 1))          # the public page and every seat's
    checked = []
    for seat, _, body in answers:
        t = json.loads(body)
        if "events" not in t:
            assert list(t) == ["v"], body          # a long poll that ended unchanged
            continue
        checked.append((t["events"], seat - 1 if seat else 8, body))
        if seat:
            assert t["seat"] == seat
    states = hidden_states(played["head"], played["events"])
    bad = hidden_violations(checked, states)
    assert bad == [], "\n".join(bad[:10])
    last = [t for t in (json.loads(b) for s, _, b in answers if s == 0) if "events" in t][-1]
    assert last["phase"] == "over" and last["events"] == len(played["events"])


# The figure is the most the heap held after any of the table's collections, each a
# sample of the requests under way at that instant, as many as the loop's timing leaves:
# deterministic for one UF2, moved by timing changes (the figures by build:
# docs/DEVELOPING.md). Asserted since microdot is loaded only while a page is served
# (web.Front) and the phones hold what sockets would (boards/vpico_w.py).
def test_heap_in_use_with_the_web_part(played):
    """At most GOALS["w_heap"] in use while it serves (issue 41's budget), the phones' code
    and tasks included.
    The most held after any collection, with the requests under way then; the emulation is
    deterministic (the same UF2 gives the same figure on every run and every machine)."""
    assert 0 < played["heap_peak"] <= B.GOALS["w_heap"], played["heap_peak"]


def test_largest_free_block_after_the_web_session(played):
    assert played["block"] >= B.GOALS["w_block"], played["block"]


def _standings_of_the_kept_session(played, tmp_path):
    """What CPython's web_history streams for the file kept on the Pico W's flash."""
    from webui import web_history
    path = tmp_path / "0001.txt"
    path.write_text(played["kept"])
    return b"".join(web_history.standings(str(path)))


def test_last_nights_standings_are_served_while_the_table_plays(played, tmp_path):
    """A tenth phone opens /history and then asks for a kept session's standings every
    few seconds all through the session: every answer whole and the same bytes as
    CPython's (its length and SHA-256 on the serial line: boards/vpico_w.py)."""
    import hashlib
    hist = played["history"]
    assert hist[0][:2] == ("/history", 200) and hist[0][2] > 0
    api = [h for h in hist if h[0] == "/api/history/0001"]
    # one every HISTORY_PAUSE_MS (5 s) after the last one ended, all through the session
    assert len(api) >= played["emulated_s"] / 10 and all(h[1] == 200 for h in api), hist[:3]
    want = _standings_of_the_kept_session(played, tmp_path)
    assert {(h[2], h[3]) for h in api} == {(len(want), hashlib.sha256(want).hexdigest())}


def test_heap_of_one_standings_answer(played, tmp_path):
    """The standings' answer costs the Pico W's heap an engine and a deal's row at a time,
    never the history file nor the whole answer (measured alone on the REPL after the
    session, a collection at each piece)."""
    most, n, longest = played["history_alone"]
    print("\nstandings alone on the Pico W: heap %d bytes at most, longest piece %d us"
          % (most, longest))
    assert n == len(_standings_of_the_kept_session(played, tmp_path))
    assert 0 < most <= B.GOALS["w_history"], most
    print("serving heap sample: %d bytes" % played["heap_peak"])


def _cards(played):
    c = played["cards"]
    assert len(c) >= 100, c                      # every player card of the session nearly
    return sum(c) / len(c), B.percentile(c, 0.95), max(c)


def test_cards_reach_their_seat_displays_within_the_held_limits(played):
    avg, p95, most = _cards(played)
    assert avg <= HELD_CARD_AVG_MS and p95 <= HELD_CARD_P95_MS and most <= HELD_CARD_MAX_MS, (
        avg, p95, most)


@pytest.mark.xfail(strict=True, reason="issue 43: a card reaches its seat's OLED in about "
                   "39 / 55 / 83 ms (avg / p95 / max) with nine phones served")
def test_cards_reach_their_seat_displays_within_the_goals(played):
    avg, p95, most = _cards(played)
    assert avg <= B.GOALS["card_avg"] and p95 <= B.GOALS["card_p95"] and \
        most <= B.GOALS["card_max"], (avg, p95, most)


def test_a_button_release_shows_within_the_held_limit(played):
    b = played["buttons"]
    assert len(b) >= 100, b
    # a few presses wait far longer than the rest (p99 55 to 72 ms across builds): both
    # bounds held, the worst moves with where code sits in flash
    assert max(b) <= HELD_BUTTON_MS and B.percentile(b, 0.99) <= HELD_BUTTON_P99_MS, (
        max(b), B.percentile(b, 0.99))


@pytest.mark.xfail(strict=True, reason="issue 43: a button's display is drawn up to about "
                   "58 ms after its release with nine phones served (a few presses: p99 51 ms; a "
                   "phone's slice under way when the press comes, ~20 ms, then the display)")
def test_a_button_release_shows_within_its_goal(played):
    assert max(played["buttons"]) <= B.GOALS["button_max"], max(played["buttons"])


def test_the_reader_is_polled_within_the_held_limit(played):
    assert 0 <= played["poll_gap_ms"] <= HELD_READER_GAP_MS, played["poll_gap_ms"]


@pytest.mark.xfail(strict=True, reason="issue 43: the reader goes up to 39 to 40 ms without a "
                   "poll, inside its goal (40 ms) by a hair at best: the pass that takes a card, "
                   "draws its display and says the prompt, or a round's sections with a seat's keys")
def test_the_reader_is_polled_within_its_goal(played):
    """At the goal with its 10% room: a gap met by a hair moves with any edit."""
    assert 0 <= played["poll_gap_ms"] <= B.GOALS["reader_gap"] * (1 - B.ROOM), \
        played["poll_gap_ms"]


def _phones(played):
    ph = played["phones"]
    assert len(ph) >= 8 * len(played["events"]), len(ph)   # every phone, nearly every event
    return B.percentile(ph, 0.95), max(ph)


def test_every_phone_sees_each_event_within_the_held_limits(played):
    p95, most = _phones(played)
    assert p95 <= HELD_PHONE_P95_MS and most <= HELD_PHONE_MAX_MS, (p95, most)


@pytest.mark.xfail(strict=True, reason="issue 43: an event reaches every phone in about "
                   "290 ms at the 95th percentile, 600 ms at most (a round of nine messages "
                   "and the version's sections cost ~55 ms, and wait their turn after the "
                   "table's: a card every ~70 ms in the deal's first round)")
def test_every_phone_sees_each_event_within_the_goals(played):
    p95, most = _phones(played)
    assert p95 <= B.GOALS["w_phone_p95"] and most <= B.GOALS["w_phone_max"], (p95, most)


def test_the_largest_free_block_keeps_its_room(played):
    """Issue 41's room: the block after the session at least 10% over its goal."""
    assert played["block"] >= B.GOALS["w_block"] * (1 + B.ROOM), played["block"]


def test_the_bench_prints_the_pico_w_rows_of_these_figures(played, monkeypatch, capsys):
    """`make bench`'s bench_pico.py on the figures measured above (one emulation for both):
    every row of issue 43 with its goal, and the probe of a request's parts."""
    import re
    monkeypatch.setattr(B, "measure_w", lambda **kw: played)
    assert B.main(["--only", "pico_w", "--check"]) == 1         # (goals missed: see above)
    out = capsys.readouterr().out
    for want in ("tag in the field -> its seat's display", "button released -> its display",
                 "longest stretch without a reader poll",
                 "an accepted event -> each phone's answer showing it",
                 "Pico W: largest free block after the session", "a whole seat long poll"):
        assert want in out, (want, out)
    assert re.search(r"pico_w: emulated \d+ s in \d+ s of wall time", out), out
