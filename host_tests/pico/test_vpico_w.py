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
    """Issue 20: at most 64 KB in use while it serves, the phones' code and tasks included.
    The most held after any collection, with the requests under way then; the emulation is
    deterministic (the same UF2 gives the same figure on every run and every machine)."""
    assert 0 < played["heap_peak"] <= B.GOALS["w_heap"], played["heap_peak"]


def test_largest_free_block_after_the_web_session(played):
    assert played["block"] >= B.GOALS["w_block"], played["block"]
