"""Shuffle quality (firmware/game/shuffle_check.py, tools/shuffles.py): calibrated on seeded
shuffles of the deck model -- fair ones flagged in about 1% of cases, a cut, a riffle or an
overhand nearly always --, the same counts on the MicroPython VM, no allocation for a card,
and the table saying it with `shuffle_check = on`."""
import os

import pytest

from game import engine as E
import runner as R
from game import shuffle_check as C
import shuffles as T
import simtable as S
from boards.simdev.deck import Deck
from conftest import FIRMWARE, ROOT


def test_fair_shuffles_are_flagged_in_about_one_percent_of_cases():
    rate = T.flagged("fair", 1000, seed=7)
    assert 0.002 <= rate <= 0.025, rate


@pytest.mark.parametrize("kind", ["cut", "riffle", "overhand"])
def test_a_weak_shuffle_is_flagged_nearly_always(kind):
    assert T.flagged(kind, 200, seed=3) >= 0.95


def test_the_threshold_agrees_with_the_p_value():
    # the firmware's integer test (weak()) and the host's p-value say the same, every count
    import random
    rng = random.Random(5)
    for _ in range(50):
        pack = rng.sample(range(52), 52)
        c = C.ShuffleCheck()
        for x in pack[:rng.randrange(10, 52)]:
            c.card(x)
        c.event(E.EV_SHUFFLE, 0, 1)
        after = T.SHUFFLES[rng.choice(list(T.SHUFFLES))](pack, rng)
        due = [c.card(x) for x in after[:C.WINDOW]]
        assert due.index(True) == C.WINDOW - 1
        assert c.weak() == c.verdict(1)[4]


def test_poisson_tail():
    assert C.poisson_tail(0, 2.0) == 1.0
    assert abs(C.poisson_tail(1, 2.0) - (1 - 2.718281828459045 ** -2)) < 1e-12
    assert 0 < C.poisson_tail(30, 0.5) < 1e-20


def _cut_only_deck(cls=Deck):
    class CutDeck(cls):
        """The dealer only cuts after the session's first shuffle (a weak shuffle)."""
        def shuffle(self):
            if self.shuffles == 0:
                return cls.shuffle(self)
            cards = self.shoe + self.discard
            self.discard = []
            k = 1 + self.rng.below(len(cards) - 1)
            self.shoe = cards[k:] + cards[:k]
            self.shuffles += 1
    return CutDeck


def test_report_of_a_history_flags_only_the_cut(tmp_path, monkeypatch):
    head, events = S.script_session("table", 8, 1)
    fair = tmp_path / "fair.txt"
    fair.write_text("".join(x + "\n" for x in head + events))
    rows = T.shuffle_report(str(fair))
    assert [r["pass"] for r in rows] == [2, 3, 4, 5] and not any(r["weak"] for r in rows)
    assert set(rows[0]) == {"pass", "cards", "kept", "expected", "spread", "p_value", "weak"}
    monkeypatch.setattr(S, "Deck", _cut_only_deck())
    head, events = S.script_session("table", 6, 1)        # (one pack)
    cut = tmp_path / "cut.txt"
    cut.write_text("".join(x + "\n" for x in head + events))
    rows = T.shuffle_report(str(cut))
    assert len(rows) == 3 and all(r["weak"] for r in rows), rows
    assert T.main([str(cut)]) == 0


VM_SCRIPT = """
import gc, micropython, sys
sys.path.insert(0, %r)
from game import shuffle_check as C
c = C.ShuffleCheck()
pack = %r
for x in pack:
    c.card(x)
c.event(14, 0, 1)
after = %r
gc.collect()
for x in after:
    micropython.heap_lock()
    c.card(x)
    micropython.heap_unlock()
print(c.kept, c.checked, c.weak(), C.said(c, 1))
"""


def test_the_micropython_vm_counts_alike_and_a_card_allocates_nothing(micropython, tmp_path):
    import random
    rng = random.Random(11)
    pack = rng.sample(range(52), 52)
    after = T.SHUFFLES["riffle"](pack, rng)[:C.WINDOW]
    c = C.ShuffleCheck()
    for x in pack:
        c.card(x)
    c.event(E.EV_SHUFFLE, 0, 1)
    for x in after:
        c.card(x)
    script = tmp_path / "s.py"
    script.write_text(VM_SCRIPT % (FIRMWARE, pack, after))
    p = micropython([str(script)], micropypath=FIRMWARE)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout.decode().strip() == "%d %d %s %s" % (c.kept, c.checked, c.weak(),
                                                         C.said(c, 1))
    assert c.weak()


def test_the_table_says_a_weak_shuffle(tmp_path, monkeypatch):
    monkeypatch.setattr(S, "Deck", _cut_only_deck())
    head, events = S.script_session("classic", 3, 1)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("classic", 3) + "shuffle_check = on\n")
    driver = S.Driver(head, events, seed=1)          # (its deck cuts too)
    screens = S.Screens(3)
    run = R.CPython(flash, driver, screens)
    run.boot()
    run.run()
    said = [ln for ln in driver.output if "shuffle:" in ln]
    assert said and all(ln.startswith("# weak shuffle: ") for ln in said), said
    kept = int(said[0].split()[3])
    assert ("%d neighbours kept in %d cards" % (kept, C.WINDOW)) in said[0]
    assert any(i == 8 and "Weak shuffle: %d kept" % kept in lines
               for _, i, lines in screens.history)


def test_the_setting_is_a_switch_off_by_default():
    from ledger import settings
    from ledger.settings import Settings
    assert Settings().shuffle_check is False
    path = os.path.join(ROOT, "build", "test_shuffle_setting.txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("shuffle_check = on\n")
    assert settings.load(path).shuffle_check is True
    with open(path, "w") as f:
        f.write("shuffle_check = maybe\n")
    st = settings.load(path)
    os.remove(path)
    assert st.error and "shuffle_check" in st.error
