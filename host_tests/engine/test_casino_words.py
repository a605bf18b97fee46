"""In `casino` the house deals: every display, serial line and refusal says "dealer", never
"banker" (only the ledger's JSON keeps the house as seat 0, as TRANSCRIPT.md says)."""
import re
import tempfile

import runner as R
import simtable as S
from game.engine import Engine
from game.rules import parse_rules


def test_a_casino_session_never_says_banker():
    head, events = S.script_session("casino", 3, 2, deals=4)
    d = S.Driver(head, events, seed=2)
    screens = S.Screens(3, "Dealer")
    flash = tempfile.mkdtemp()
    S.fresh_flash(flash, S.settings_text("casino", 3))
    runner = R.CPython(flash, d, screens)
    runner.boot()
    runner.run()
    assert d.done
    texts = [" ".join(lines) for _, _, lines in screens.history]
    words = " ".join(texts + d.output)
    assert not re.search(r"banker", words, re.I), [
        t for t in texts + d.output if re.search(r"banker", t, re.I)][:5]
    assert re.search(r"Pay dealer \d+|Dealer pays you \d+", words)   # seats were told
    assert "card to the dealer (face down)" in words
    assert re.search(r"# deal \d+ over: dealer ", words)


def test_casino_refusals_name_the_dealer():
    from game.transcript import parse_event
    e = Engine(parse_rules(["casino"]), 1)
    assert e.apply(*parse_event("stake 1 5".split())) is None
    for card in ("9H", "6D", "7C", "8S"):                 # deal until seat 1 may stick
        assert e.apply(*parse_event(("card " + card).split())) is None
        if e.apply(*parse_event("stick 1".split())) is None:
            break
    else:
        raise AssertionError("seat 1 never got to play")
    why = e.apply(*parse_event("twist 1".split()))        # now the dealer's turn
    assert why and "dealer" in why and "banker" not in why, why
