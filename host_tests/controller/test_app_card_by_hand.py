"""A card entered by hand (docs/CONTROLLER.md, "A card by hand"): when a card's tag will not
read, the menu's "Enter card by hand" chooses it with MINUS/PLUS (held: the suit), OK gives
it, UNDO gives none. It goes through the same path as a read card (journaled first, then
shown as a read card is), on the simulated board, with the hidden-information checks."""
import copy
import re

from app_support import Bench, ButtonDriver, check_frames, check_serial, hidden_states, \
    no_serial_runner
from test_app_buttons import CLASSIC_ALL

from game import engine as E
import runner as R
import simtable as S
from table import menu as M
from table import views as V
from game.cards import card_name
from game.transcript import parse_event, strip

ENTRY = re.compile(r"^Card +- (\S+) \+ OK$")
ALL_NAMES = [card_name(c) for c in range(52)]


def names_on(lines):
    text = "\n".join(lines)
    return [n for n in ALL_NAMES if re.search(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % n, text)]


def screens(b, seats):
    return {i: b.screen(i) for i in list(range(seats)) + [8]}


def open_entry(b):
    b.press("OK", hold=900)
    assert b.screen(8)[7] == "> Enter card by hand"      # first when a card is due
    b.press("OK")


def test_the_menu_offers_a_card_by_hand_exactly_when_the_engine_takes_one():
    for preset, options in (("classic", CLASSIC_ALL), ("table", ()), ("casino", ())):
        head, events = S.script_session(preset, 4, 1, deals=8, options=options)
        e = S.shadow(head, events, 0)
        offered = 0
        for line in events + [None]:
            takes = any(copy.deepcopy(e).apply(E.EV_CARD, 0, 0, c) is None for c in range(52))
            assert V.card_wanted(e) == takes, (preset, line, e.phase)
            offered += takes
            if line is None:
                break
            assert e.apply(*parse_event(strip(line))) is None
        assert 0 < offered < len(events)


def test_a_face_down_card_by_hand_shows_only_on_its_own_seat(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    b.press("OK", hold=900)
    assert [M.NAMES[i] for i in b.t.ui.mode.items][0] == "Enter card by hand"
    b.press("OK")
    assert b.out[-1] == "> Card by hand: seat 1"
    s = screens(b, 3)
    assert s[0][6:] == ["Your card by hand", "Card        - AC + OK"]
    assert s[8][6:] == ["Card by hand: seat 1", "On seat 1's display"]
    assert names_on(s[1]) == names_on(s[2]) == names_on(s[8]) == []
    # MINUS/PLUS: the rank, wrapping; held: the suit (C D H S), wrapping
    seen = []
    for name, hold in (("MINUS", 70), ("MINUS", 70), ("PLUS", 900), ("PLUS", 900),
                       ("PLUS", 900), ("PLUS", 900), ("MINUS", 900), ("PLUS", 70)):
        n = len(b.out)
        b.press(name, hold=hold)
        s = screens(b, 3)
        seen.append(ENTRY.match(s[0][7]).group(1))
        assert names_on(s[1]) == names_on(s[2]) == names_on(s[8]) == []
        assert names_on(b.out[n:]) == []                 # not even a prompt names it
    assert seen == ["KC", "QC", "QD", "QH", "QS", "QC", "QS", "KS"]
    n = len(b.out)
    b.press("OK")
    assert b.journal().endswith("banker 3\ncard KS\n")
    assert b.out[n:] == ["* #1 card to seat 1 (face down, by hand)", "> Deal to seat 2"]
    s = screens(b, 3)
    assert s[0][1] == "KS  10"
    assert names_on(s[1]) == names_on(s[2]) == names_on(s[8]) == []
    assert b.t.ui.mode.kind == 0


def test_the_banker_face_down_card_by_hand_reaches_no_seat_display(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    b.card("8H")
    b.card("9C")
    open_entry(b)
    assert b.out[-1] == "> Card by hand: banker"
    b.press("PLUS", hold=900)                            # AD
    s = screens(b, 3)
    assert s[8][6:] == ["Card by hand: banker", "Card        - AD + OK"]
    # no seat display, the banker's own seat display included (D1), shows it
    assert [names_on(s[i]) for i in range(3)] == [["8H"], ["9C"], []]
    n = len(b.out)
    b.press("OK")
    assert b.journal().endswith("card 8H\ncard 9C\ncard AD\n")
    assert b.out[n] == "* #3 card to the banker (face down, by hand)"
    assert names_on(b.out[n:]) == []
    s = screens(b, 3)
    assert s[8][1] == "1 card, face down" and s[2][1] == "1 card, face down"
    assert names_on(s[8]) == [] and names_on(s[2]) == []
    # in the banker's turn his cards are face up: the choice and the event name them
    for _ in range(2):
        b.press("OK")                                    # stakes of 1
    for c in ("TS", "7S", "5D"):
        b.card(c)                                        # 8H TS, 9C 7S, AD 5D
    b.press("STICK")                                     # seat 1 sticks on 18
    b.press("STICK")                                     # seat 2 on 16
    assert b.screen(8)[6] == "Banker: draw or STICK"
    assert b.screen(8)[1] == "AD 5D  soft 16"
    open_entry(b)
    b.press("PLUS")
    b.press("PLUS")
    assert b.screen(8)[6:] == ["Card by hand: banker", "Card        - 3C + OK"]
    b.press("OK")
    assert "* #11 card 3C to the banker: soft 19 (by hand)" in b.out


def test_a_twisted_card_by_hand_is_face_up(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    for c in ("8H", "9C", "AD"):
        b.card(c)
    for _ in range(2):
        b.press("OK")                                    # stakes of 1
    for c in ("TS", "7S", "5D"):
        b.card(c)
    b.press("TWIST")                                     # seat 1 twists on 18
    open_entry(b)
    for _ in range(2):
        b.press("PLUS")                                  # 3C
    s = screens(b, 3)
    assert s[8][7] == s[0][7] == "Card        - 3C + OK"   # a twisted card is face up
    assert sorted(names_on(s[1])) == ["7S", "9C"]
    n = len(b.out)
    b.press("OK")
    assert b.out[n] == "* #10 card 3C to seat 1 (by hand)"
    assert b.screen(0)[1].startswith("8H TS 3C")


def test_a_refused_card_by_hand_says_why_and_stays_open(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    b.card("KC")                                         # seat 1's first card
    open_entry(b)                                        # seat 2's, starting at AC
    b.press("MINUS")                                     # KC: already on the table
    n = len(b.out)
    b.press("OK")
    assert b.out[n:] == ["! that card is already on the table (R2)"]
    assert b.journal().endswith("banker 3\ncard KC\n")
    assert b.screen(8)[6:] == ["that card is already", "on the table (R2)"]
    assert b.screen(1)[6:] == ["that card is already", "on the table (R2)"]
    assert names_on(b.screen(8)) == []
    # the entry is still open: the next press shows it again
    b.press("MINUS")                                     # QC
    assert b.screen(1)[6:] == ["Your card by hand", "Card        - QC + OK"]
    # UNDO gives no card: the prompt is back, nothing was journaled
    b.press("UNDO")
    assert b.t.ui.mode.kind == 0 and b.out[-1] == "> Deal to seat 2"
    assert b.screen(1)[6:] == ["", ""] and b.journal().endswith("card KC\n")
    # a card the journal cannot keep is not taken, and no display shows it
    open_entry(b)

    def broken(line):
        raise OSError(28, "no space left")
    b.t.session.journal.append = broken
    b.press("OK")
    assert b.out[-1].startswith("! the journal could not be written")
    assert b.t.nev == 1 and b.screen(1)[1] == ""


def test_no_card_by_hand_when_none_is_due(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = table\nseats = 3\nbanker = 3\n")
    for c in ("8H", "9C", "AD"):
        b.card(c)
    b.press("OK", hold=900)                              # a stake is due, not a card
    assert "Enter card by hand" not in [M.NAMES[i] for i in b.t.ui.mode.items]
    b.press("UNDO")
    n = len(b.out)
    assert b.t.controls.card.open().startswith("no card is due now")
    assert b.journal().endswith("card AD\n") and len(b.out) == n


def test_the_cut_by_hand(tmp_path):
    b = Bench(str(tmp_path / "f"), settings="preset = classic\nseats = 3\nbanker = cut\n")
    open_entry(b)
    assert b.out[-1] == "> Card by hand: cut S1"
    assert b.screen(8)[7] == b.screen(0)[7] == "Card        - AC + OK"   # the cut is face up
    b.press("OK")
    assert "* #1 card AC cut for seat 1 (by hand)" in b.out


class HandDriver(ButtonDriver):
    """A ButtonDriver that enters some cards by hand (the menu, MINUS/PLUS, held for the
    suit, OK) instead of through the reader, and notes when each entry was open."""

    def __init__(self, head, events, by_hand, **kw):
        super().__init__(head, events, **kw)
        self.by_hand = by_hand
        self.entries = []               # [event index, target seat, face up, start ms]

    def _press(self, t, name, hold=None):
        if name.endswith("*"):
            return super()._press(t, name[:-1], hold=self.LONG_HOLD)
        return super()._press(t, name, hold)

    def plan(self, now):
        k = self.acked
        ev, seat, amount, card = parse_event(strip(self.events[k]))
        if ev != E.EV_CARD or k not in self.by_hand:
            return super().plan(now)
        e = self.engine_at(k)
        self.planned = k
        self.action_at = now
        slot = e.expected_card_slot()
        if slot <= -2:
            who, up = -2 - slot, True
        elif slot == -1:
            who, up = e.banker % e.seats + 1, False
        elif slot == 0:
            who, up = 0, e.phase == E.PH_BANKER
        else:
            who = e.hand_seat(slot)
            up = e.phase == E.PH_PLAY and bool(e.hand_flags(slot) & E.F_TWISTED)
        self.entries.append([k, who, up, now])
        r, s = card >> 2, card & 3
        ranks = ["PLUS"] * r if r <= 6 else ["MINUS"] * (13 - r)
        suits = ["PLUS*"] * s if s <= 2 else ["MINUS*"]
        presses = ["OK"] + ranks + suits + ["OK"]        # the menu item, the card, OK

        def end():                      # the retry clock starts after the last press
            self.action_at = self.world.clock.ms()
        t_end = self._press(now, "OK", hold=self.LONG_HOLD)
        self.steps.append((t_end, lambda: self._find_and_enter(presses, end)))

    def _find_and_enter(self, presses, end):
        line = self.banker_line(7)
        assert line == "> Enter card by hand", line
        self.menu_choices.append((self.planned, "Enter card by hand"))
        t = self.world.clock.ms()
        for name in presses:
            t = self._press(t, name)
        self.steps.append((t, end))


LINGER_MS = 50


def test_a_whole_session_with_cards_by_hand_keeps_hidden_what_is_hidden(tmp_path):
    seats, seed = 4, 2
    head, events = S.script_session("classic", seats, seed, deals=5, options=CLASSIC_ALL)
    cards = [k for k, ln in enumerate(events) if ln.startswith("card ")]
    by_hand = set(cards[::3])
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("classic", seats, options=CLASSIC_ALL))
    driver = HandDriver(head, events, by_hand, seed=seed)
    scr = S.Screens(seats)
    run = no_serial_runner(flash, driver, scr)
    run.boot()
    passes = [0]

    def stuck(now):                     # a loop that stays busy without time passing
        passes[0] += 1
        if passes[0] > 3_000_000:
            raise RuntimeError("the table's loop stays busy without time passing")
    run.on_tick = stuck
    run.run(max_ms=3_000_000)
    assert driver.done and driver.acked == len(events), driver.output[-8:]
    assert driver.errors == [], driver.errors[:5]
    assert driver.retries == 0
    assert len(driver.entries) == len(by_hand)
    kinds = set((who == 0, up) for _, who, up, _ in driver.entries)
    assert kinds == {(True, False), (True, True), (False, False), (False, True)}, kinds
    marked = [ln for ln in driver.output if ln.startswith("* #") and "by hand" in ln]
    assert len(marked) == len(by_hand)
    # journal.txt and its tail (folded on a player's turn or a quiet table, not at once)
    assert S.journal_text(flash).decode().splitlines() == head + events
    led = S.ledger(flash + "/journal.txt")
    e = S.shadow(head, events, len(events))
    assert led["events"] == []
    assert led["balances"] == {str(s): e.balance(s) for s in range(1, seats + 1)}
    # while an entry is open its card shows only where that card may be seen: on its own
    # seat's display, and on the banker's display when it is face up or the banker's own
    acks = [driver.ack_at[i] for i in range(len(events))]
    frames = []
    bad = []
    # a display is redrawn a page at a time between reader polls, so an entry's line may
    # outlive its entry by a few passes: within LINGER_MS it still counts as that entry's
    for t, i, lines in scr.history:
        open_now = [x for x in driver.entries
                    if x[3] <= t < driver.ack_at[x[0]] + LINGER_MS]
        lines = list(lines)
        for j, ln in enumerate(lines):
            if not ENTRY.match(ln):
                continue
            if not open_now:
                bad.append("display %d shows an entry at %d ms with none open" % (i, t))
                continue
            _, who, up, _ = open_now[0]
            allowed = (i == who - 1) or (i == 8 and (up or who == 0))
            if not allowed:
                bad.append("display %d shows %r, an entry for %d" % (i, ln, who))
            lines[j] = ""
        frames.append((t, i, lines))
    assert bad == []
    states = hidden_states(head, events)
    assert check_frames(frames, acks, states, seats) == []
    assert check_serial(driver.seen, states) == []


def test_cards_by_hand_on_micropython(tmp_path):
    """The firmware as .mpy files on the MicroPython VM takes the same cards by hand."""
    seats, seed = 4, 2
    head, events = S.script_session("classic", seats, seed, deals=2, options=CLASSIC_ALL)
    cards = [k for k, ln in enumerate(events) if ln.startswith("card ")]
    by_hand = set(cards[::3])
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text("classic", seats, options=CLASSIC_ALL))
    driver = HandDriver(head, events, by_hand, seed=seed)
    vm = R.VM(flash, driver, S.Screens(seats))
    vm.session()
    rc = vm.rc
    assert rc == 0, "\n".join(driver.output[-20:])
    assert driver.done and driver.acked == len(events) and driver.errors == []
    assert driver.retries == 0
    marked = [ln for ln in driver.output if ln.startswith("* #") and "by hand" in ln]
    assert len(marked) == len(by_hand) == len(driver.entries)
    # journal.txt and its tail (folded on a player's turn or a quiet table, not at once)
    assert S.journal_text(flash).decode().splitlines() == head + events
