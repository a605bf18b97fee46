"""The simulated Pico W: the firmware and its web server (firmware/web.py, microdot) on the
MicroPython VM, on 127.0.0.1 at a port chosen at run time, with the chip models and the
scripted players in this process (web_support.py). Every page and API answer of whole
sessions is checked for hidden cards; bad, big, slow and many requests must neither stop
the table nor slow it past its latency budget; seat codes refuse guessing."""
import json
import re
import socket
import threading
import time

import web_support as W
from app_support import check_frames, hidden_states

import engine as E
import simtable as S
import views as V

LATENCY_BUDGET_MS = 50      # tag in the field -> its display written (README budget)
CODE = re.compile(r"Phone code (\d{6})")


def seat_codes(wt, seats):
    """The codes the seat displays show (line 8 whenever it is free)."""
    codes = {}

    def found():
        for s in range(1, seats + 1):
            m = CODE.search("\n".join(wt.screen(s - 1)[0]))
            if m:
                codes[s] = m.group(1)
        return len(codes) == seats
    wt.wait(found, "a phone code on every seat display", 60)
    return codes


def login_all(wt, codes):
    cookies = {}
    for s, code in codes.items():
        status, cookie, _ = wt.login(s, code)
        assert status == 303 and cookie and cookie.startswith("seat%d=" % s), (s, status)
        cookies[s] = cookie
    return cookies


def hidden_violations(answers, states):
    """answers: (events k, display index: seat-1, or 8 for public, text). Uses the same
    check as the OLED frames: the public answers as the banker's display."""
    acks = list(range(1, len(states)))
    return check_frames([(k, i, [text]) for k, i, text in answers], acks, states, 8)


def check_public(t, e, k):
    """A public answer against the engine after k events."""
    assert t["events"] == k
    assert [x["balance"] for x in t["seats"]] == [e.balance(s) for s in range(1, e.seats + 1)]
    assert t["deal"] == V.deal_number(e)
    if e.in_deal() and e.phase != E.PH_CUT:
        players = [h for h in t["hands"] if h["seat"]]
        assert [h["seat"] for h in players] == [e.hand_seat(e.slot_at(i))
                                                 for i in range(e.norder)]
        assert [h["stake"] for h in players] == [e.hand_stake(e.slot_at(i))
                                                  for i in range(e.norder)]
        for h, i in zip(players, range(e.norder)):
            assert len(h["up"]) + h["down"] == e.ncards(e.slot_at(i))


def test_pages_and_answers_never_show_hidden_cards(tmp_path):
    wt = W.WebTable(tmp_path, seats=4, seed=5)
    with wt:
        wt.hold(0)
        codes = seat_codes(wt, 4)
        cookies = login_all(wt, codes)
        answers = []
        stop = threading.Event()
        n = len(wt.events)

        def fetch():
            i = 0
            while not stop.is_set() and i < 5000:
                i += 1
                s = i % 5
                if s == 0:
                    status, _, body = wt.get("/api/table")
                    who = 8
                else:
                    status, _, body = wt.get("/api/seat/%d" % s, {"Cookie": cookies[s]})
                    who = s - 1
                assert status == 200, (status, body[:200])
                text = body.decode()
                answers.append((json.loads(text)["events"], who, text))
        th = threading.Thread(target=fetch, daemon=True)
        wt.release()
        th.start()
        wt.hold(n)
        wt.wait_acked(n)
        time.sleep(0.5)
        stop.set()
        th.join(60)
        final = wt.json("/api/table")
        pages = [wt.get("/")[2], wt.get("/seat/1", {"Cookie": cookies[1]})[2],
                 wt.get("/seat/2")[2]]
    states = hidden_states(wt.head, wt.events)
    bad = hidden_violations(answers, states)
    for page in pages:
        bad += hidden_violations([(0, 8, page.decode())], states)
    assert bad == [], "\n".join(bad[:10])
    seen = sorted(set(k for k, _, _ in answers))
    assert len(seen) > n // 4, "answers at only %d of %d moments" % (len(seen), n)
    # what the answers say, against the engine at their moment
    for k, who, text in answers[::7]:
        t = json.loads(text)
        e = wt.engine_at(k)
        check_public(t, e, k)
        if who < 8:
            mine = [[h for h in t["mine"]]]
            slots = [e.slot_at(i) for i in range(e.norder) if e.hand_seat(e.slot_at(i)) == who + 1]
            if e.deals and e.phase != E.PH_CUT and who + 1 != V.deal_banker(e):
                assert [m["cards"] for m in mine[0]] == [
                    [S.card_name(e.card(sl, j)) for j in range(e.ncards(sl))] for sl in slots]
    e = wt.engine_at(n)
    assert final["phase"] == "over"
    best = max(e.balance(s) for s in range(1, 5))
    assert final["winners"] == [s for s in range(1, 5) if e.balance(s) == best]
    assert final["history"].startswith("history/")


def test_hidden_check_of_answers_can_fail():
    states = [(frozenset(["QH"]), {2: {"7C"}}, {2: {"7C"}}, frozenset())]
    assert hidden_violations([(0, 8, '{"up": ["QH"]}')], states)       # banker's hole card
    assert hidden_violations([(0, 0, '{"mine": ["7C"]}')], states)     # seat 2's, to seat 1
    assert not hidden_violations([(0, 1, '{"mine": ["7C"]}')], states)  # seat 2's own
