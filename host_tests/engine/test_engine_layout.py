"""The engine's modules (and the transcript parser, and the controls' modes) each carry their own copy of the state layout's constants (a
MicroPython const() is inlined only in the module that defines it): every copy must equal
engine.py's (presets: rules.py's)."""
import importlib

import pytest

from game import engine
from game import rules

MODULES = ("game.shoe_layers", "game.deal", "game.actions", "game.bank_options",
           "game.settlement", "game.transcript")
OWN = {"_LAYER_LIMIT"}  # used by one module only, no copy


def _source(name):
    if hasattr(engine, name):
        return getattr(engine, name)
    if hasattr(engine, name[1:]):
        return getattr(engine, name[1:])         # _PH_PLAY mirrors the public PH_PLAY
    if name.startswith("_P_"):
        return getattr(rules, name[3:])          # _P_TABLE mirrors rules.TABLE
    if name.startswith("_STRENGTH_"):
        from game import hands                             # settlement's copies of the strengths
        return getattr(hands, name, None) or getattr(hands, name[1:])
    raise AssertionError("%s has no original in engine.py or rules.py" % name)


@pytest.mark.parametrize("module", MODULES)
def test_layout_copies_match_the_engine(module):
    mod = importlib.import_module(module)
    names = [n for n, x in vars(mod).items()
             if n.startswith("_") and n[1:2].isupper() and isinstance(x, int) and n not in OWN]
    assert names
    for name in names:
        assert getattr(mod, name) == _source(name), "%s.%s" % (module, name)


def test_the_check_can_fail(monkeypatch):
    from game import settlement
    monkeypatch.setattr(settlement, "_HW_NET", 99)
    with pytest.raises(AssertionError):
        test_layout_copies_match_the_engine("game.settlement")


MODE_MODULES = ("table.entry", "table.menu", "table.bank_sale", "table.card_entry")


def test_each_mode_keeps_its_kinds_to_itself():
    """A mode's kind is private to the mode's module (no view or controller branches on
    it); no two modes share a kind, so that the web part sees a change of mode (its
    `kind` and `value`)."""
    import os
    import re
    seen = {}
    for module in MODE_MODULES:
        mod = importlib.import_module(module)
        names = [n for n in vars(mod) if n.startswith("_K_")]
        assert names, module
        for name in names:
            value = getattr(mod, name)
            assert value not in seen, "%s.%s = %s.%s" % (module, name, seen[value], value)
            seen[value] = "%s.%s" % (module, name)
    root = os.path.join(os.path.dirname(__file__), "..", "..", "firmware")
    owners = {m.replace(".", os.sep) + ".py" for m in MODE_MODULES}
    for folder, _, files in os.walk(root):
        for f in files:
            path = os.path.relpath(os.path.join(folder, f), root)
            if f.endswith(".py") and path not in owners:
                text = open(os.path.join(folder, f)).read()
                assert "_K_" not in text, path
                assert not re.search(r"\.kind\s*[<>=!]=?\s*\d", text), path


def test_an_event_source_is_defined_once():
    for module in MODE_MODULES + ("table.controls",):
        mod = importlib.import_module(module)
        assert not hasattr(mod, "_SRC_BUTTON")       # an event's source: table/sources.py's
