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


MODE_MODULES = ("table.controls", "table.entry", "table.menu", "table.bank_sale",
                "table.card_entry", "table.shoot_window")


@pytest.mark.parametrize("module", MODE_MODULES)
def test_mode_kind_copies_match_the_views(module):
    """The kinds of the controls' modes are views.py's private constants, copied."""
    from table import views
    mod = importlib.import_module(module)
    names = [n for n in vars(mod) if n.startswith("_K_")]
    assert names
    for name in names:
        assert getattr(mod, name) == getattr(views, name), "%s.%s" % (module, name)
    assert not hasattr(mod, "_SRC_BUTTON")       # an event's source: table/sources.py's


def test_the_mode_check_can_fail(monkeypatch):
    from table import entry
    monkeypatch.setattr(entry, "_K_BUY", 7)
    with pytest.raises(AssertionError):
        test_mode_kind_copies_match_the_views("table.entry")
