"""Every reason the engine, the reader and the controller can put on a display fits it whole
(21 columns; issue 40: `stick needs a total o` on the seat's display).

The reasons are collected from the firmware's source, not listed by hand: every string that
a function of a reason-giving module returns, that is assigned to `why`, or that is passed
to `refuse()` / `_anomaly()`. Each is filled at its widest (a number of four digits, a
14-character UID or word for %s, a 21-character prompt for a joined text), given the prefix
the controller adds ("card: ", "reader KIND: "), and word-wrapped as the views do
(views.message): it must take no more lines than a display has below its heading, and lose
no character. A reason added later is checked without touching this file."""
import ast
import importlib
import os
import re

import pytest

from conftest import firmware_file
from table import views as V
from game.engine import EVENT_WORDS

ENGINE = ["actions", "bank_options", "bank_sale", "deal", "engine", "settlement",
          "shoe_layers", "shoot_window"]
CONTROLLER = ["app", "card_entry", "controls", "entry", "menu", "session", "tag_run"]
READER = ["shoe_reader"]
CALLS = {"refuse", "_refuse", "_anomaly"}
COLS = 21
LINES = 7                 # below the heading (views.message)
# the widest value a placeholder takes: numbers are seats, stakes, limits and counts; %s a
# card (or "that card"), a seat's word, an event word, an OSError's text or a 7-byte UID
WIDEST = {"d": "1000", "s": "04A1B2C3D4E5F6", "r": repr("x" * 12)}
JOINED = "x" * COLS       # a text joined on: the prompt (one display line)
# strings of these modules' functions that are not reasons shown on a display, and why
NOT_SHOWN = {
    ("menu", "> {}"): "a menu line, not a reason",
    ("menu", "> Seat %d code %s"): "a menu line, not a reason",
    ("app", "the table is stopped: {}"): "the displays show the stop itself (fatal_view)",
    ("tag_run", "the table is stopped: {}"): "the displays show the stop itself (fatal_view)",
    ("session", ""): "no reason",
    ("actions", "waiting"): "a prompt piece (_waiting), joined to a reason below",
}


def _strings(node):
    """The texts an expression can make: 'a %d' % x, 'a' + x ({} for the unknown part)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _strings(node.left)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [a + b for a in (_strings(node.left) or ["{}"])
                for b in (_strings(node.right) or ["{}"])]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    return []


def collected(module):
    with open(firmware_file(module), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Return) and n.value is not None:
            out.update(_strings(n.value))
        elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "why"
                                                for t in n.targets):
            out.update(_strings(n.value))
        elif isinstance(n, ast.Call):
            name = getattr(n.func, "attr", getattr(n.func, "id", ""))
            if name in CALLS:
                for a in n.args:
                    out.update(_strings(a))
    return sorted(t for t in out if (module, t) not in NOT_SHOWN
                  and t.replace("{}", "").strip())


def widest(template):
    text = re.sub(r"%[-\d.]*([dsr])", lambda m: WIDEST[m.group(1)], template)
    return text.replace("{}", JOINED).replace("%%", "%")


def shown(reason):
    """The display lines views.message makes of `reason` (None where it leaves a line)."""
    out = [None] * 8
    V.message(reason, out, False)
    return [x for x in out if x is not None]


def reasons():
    kinds = [v for k, v in vars(importlib.import_module("hardware.shoe_reader")).items()
             if k.isupper() and isinstance(v, str) and re.fullmatch(r"[a-z-]+", v)]
    for m in ENGINE:
        for t in collected(m):
            yield m, "card: " + widest(t)         # a card refused: the longest prefix
    for m in CONTROLLER:
        for t in collected(m):
            yield m, widest(t)
    for m in READER:
        for t in collected(m):
            if not t.startswith("{}"):
                yield m, "reader %s: %s" % (max(kinds, key=len), widest(t))


def test_the_reasons_are_found():
    found = {m: len(collected(m)) for m in ENGINE + CONTROLLER + READER}
    assert sum(found.values()) > 100, found
    texts = [r for _, r in reasons()]
    assert any("stick needs a total of 1000 or more (P6)" in r for r in texts)
    assert any("two new cards in the field at once" in r for r in texts)
    assert any("two buttons at once" in r for r in texts)
    assert max(len(w) for w in EVENT_WORDS) <= len(WIDEST["s"])


@pytest.mark.parametrize("module,reason", list(reasons()))
def test_every_reason_fits_a_display_whole(module, reason):
    lines = shown(reason)
    assert len(lines) <= LINES and all(len(x) <= COLS for x in lines), (reason, lines)
    assert "".join(lines).replace(" ", "") == reason.replace(" ", ""), (reason, lines)


def test_a_short_reason_keeps_the_lines_above_it():
    out = ["heading", "hand", "", "", "", "", "Your turn", "TWIST BUY 2-4"]
    V.message("stick needs a total of 15 or more (P6)", out, False)
    assert out == ["heading", "hand", "", "", "", "", "stick needs a total", "of 15 or more (P6)"]
    out = ["h"] * 8
    V.message("nothing to undo", out, True)             # a card by hand: its entry stays
    assert out[6:] == ["nothing to undo", "h"]

