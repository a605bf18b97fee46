"""One seat range per preset (rules.seats_error): table/classic 2 to 8 participants, the
banker included (one seat display each, eight on the multiplexer); casino 1 to 7 player
seats, the house dealing. The engine, the settings file, the tools and the docs agree."""
import os
import re
import subprocess
import sys

import pytest

from ledger import settings
from conftest import ROOT
from game.engine import Engine
from game.rules import PRESETS, SEATS_MAX, SEATS_MIN, parse_rules, seats_error


def tool(*args):
    return subprocess.run([sys.executable] + list(args), cwd=ROOT, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_the_ranges():
    assert (SEATS_MIN, SEATS_MAX) == ((2, 2, 1), (8, 8, 7))


@pytest.mark.parametrize("preset", PRESETS)
def test_engine_settings_and_tools_take_the_same_range(preset):
    lo, hi = SEATS_MIN[PRESETS.index(preset)], SEATS_MAX[PRESETS.index(preset)]
    rules = parse_rules([preset])
    for seats in (lo, hi):
        Engine(rules, seats)                                       # accepted
        assert settings.parse(["preset = %s" % preset, "seats = %d" % seats]).error is None
    for seats in (lo - 1, hi + 1):
        why = seats_error(preset, seats)
        assert why and str(seats) in why
        with pytest.raises(ValueError) as e:
            Engine(rules, seats)
        assert str(e.value) == why
        s = settings.parse(["preset = %s" % preset, "seats = %d" % seats])
        assert s.error == "settings.txt line 2: " + why         # the seats' line
        for cmd in (["tools/sim.py", "--preset", preset, "--seats", str(seats)],
                    ["tools/simulate.py", "--preset", preset, "--seats", str(seats)]):
            p = tool(*cmd)
            assert p.returncode == 2 and why in p.stderr, (cmd, p.stderr)


def test_the_banker_is_a_seat_and_casino_has_none():
    assert seats_error("table", 4, 5) == "banker must be a seat from 1 to 4, not 5"
    assert seats_error("classic", 8, 8) is None
    assert seats_error("casino", 5, 1) == "casino has no banker: the house deals"
    with pytest.raises(ValueError):
        Engine(parse_rules(["casino"]), 5, 1)
    p = tool("tools/sim.py", "--banker", "9")
    assert p.returncode == 2 and "banker must be a seat from 1 to 4, not 9" in p.stderr


def test_the_docs_say_the_same():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    assert "| seats | 2–8, the banker included | 2–8, the banker included | 1–7 players" \
        in readme
    assert "2–10" not in readme and "2 to 10" not in readme
    for doc in ("docs/RULINGS.md", "docs/CONTROLLER.md", "tools/simulate.py",
                "firmware/ledger/settings.py"):
        with open(os.path.join(ROOT, doc)) as f:
            text = f.read()
        assert not re.search(r"2 ?(to|-|–|\.\.) ?10\b", text), doc
        assert re.search(r"2 ?(to|-|–|\.\.) ?8\b", text), doc
