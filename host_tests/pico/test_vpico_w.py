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
    last = json.loads([b for s, _, b in answers if s == 0][-1])
    assert last["phase"] == "over" and last["events"] == len(played["events"])


# Not strict: the figure is the most the heap held after any of the table's collections,
# each a sample of the requests under way at that instant, as many as the loop's timing
# leaves. Deterministic for one UF2, but it measures the timing of the bursts of long-poll
# answers more than the shoe's heap (the figures by build: docs/DEVELOPING.md).
@pytest.mark.xfail(strict=False, reason="issue 20: samples of bursts of long-poll answers "
                   "(61-79 KB with unrelated timing changes)")
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
    assert len(api) >= 10 and all(h[1] == 200 for h in api), hist[:3]
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
