#!/usr/bin/env python3
"""The dealer's hands: whole scripted sessions dealt from a physical deck
(boards/simdev/deck.py) by a dealer who makes, at seeded rates, the mistakes real hands
make, and corrects each as the table's prompt asks. What the table must answer is
docs/CONTROLLER.md's "The dealer's mistakes":

  twice        the card just dealt waved over the reader again: one card, nothing said
  two          two cards pulled together (both stickers in the field): `! reader two-tags`;
               the dealer deals them again one at a time
  fast         pulled so fast it is found but not read: `! reader unread`; dealt again.
               A card whose sticker the shoe has read before (since power-on) is known
               by its UID alone: it is taken, quietly, as a card dealt well
  pushed_back  read, then pushed back into the shoe and pulled again at once: one card
  floor        read, fell on the floor, and the dealer (unsure) enters it by hand: `! that
               card is already on the table (R2)` (or went under the pack, when its hand
               was over); UNDO closes the entry
  dead         a sticker that no longer answers (for ever): nothing is read, the prompt
               still asks for the card; the dealer enters it by hand
  other_deck   a card of another deck (its sticker blank, named by that deck's UID map):
               `! reader unknown-tag`; the dealer takes it away and deals the right card

Checked for every session: each mistake got the table's answer (its `!` line and the
banker display's message where one is promised, none where none is); no card was lost in
silence (a card out that the table neither took nor refused, nor still asks for) and none
went to the wrong hand: the journal's events are the script's, so its ledger is the
scripted one.

    .venv/bin/python tools/dealer.py [--sessions 40] [--seed 1] [--rate 0.04] [--pico]

What the dealer hears is checked too (the buzzer, firmware/hardware/buzzer.py, through the piezo
model's tones): a buzz for every mistake the table refuses, none for the ones it rightly
takes quietly (SOUNDS).
"""
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import cli  # noqa: E402,F401  (first: the project's Python; quiet when piped to head)
from game import engine as E  # noqa: E402
import simtable as S  # noqa: E402
from boards.simdev.deck import other_deck_card  # noqa: E402
from game.transcript import parse_event, strip  # noqa: E402

MISTAKES = ("twice", "two", "fast", "pushed_back", "floor", "dead", "other_deck")
# the `!` line each mistake must bring (None: the table rightly says nothing)
REFUSAL = {"twice": None, "two": "! reader two-tags", "fast": "! reader unread",
           "fast_known": None,
           "pushed_back": None, "floor": "! that card ",     # ... is already on the table / went
           # under the pack (R2): the engine's reason
           "dead": None, "other_deck": "! reader unknown-tag"}
# what the dealer must hear between the mistake and its judging (Dealer.hear): a buzz, or
# no buzz and the card's tick, or (a dead sticker: the shoe cannot know) no buzz
SOUNDS = {"twice": "tick", "two": "buzz", "fast": "buzz", "fast_known": "tick",
          "pushed_back": "tick",
          "floor": "buzz", "dead": None, "other_deck": "buzz"}
DWELL_MS = 40                 # a card pulled through the field
LOOK_MS = 150                 # the dealer glances at the banker's display after a `!`
LONG_HOLD = 900               # > long_ms (800): the menu


class Dealer(S.Driver):
    """A simtable.Driver whose cards come out of the shoe with the dealer's mistakes."""

    def __init__(self, head, events, rate=0.04, mistake_seed=1, kinds=MISTAKES, **kw):
        super().__init__(head, events, **kw)
        self.rate = rate
        self.kinds = kinds
        self.mrng = random.Random(mistake_seed)
        self.made = []              # [kind, event index, len(seen) at its start, the banker
        #                             display's message after it, emulated ms at its start],
        #                             judged by _close()
        self.failures = []          # what went wrong, in words
        self.counts = dict((k, 0) for k in MISTAKES)
        self.counts["fast_known"] = 0       # of the fast ones: a sticker read before

    # ----------------------------------------------------------- the chip
    def _chip(self):
        """The PN532 model itself (the virtual Pico's driver world wraps it)."""
        pn = self.world.pn532
        run = getattr(pn, "run", None)
        return run.p.world.pn532 if run is not None else pn

    def _banker_prompt(self):
        """The banker display's lines under its heading (a message is wrapped over as many
        of them as it needs, up to the last: views.message)."""
        if not hasattr(self.world, "displays"):
            return None
        rows = S.display_text(self.world.displays[8])[0]
        return " ".join(rows[1:8])

    # ----------------------------------------------------------- the mistakes
    def _choose(self, k):
        if self.mrng.random() >= self.rate * len(self.kinds):
            return None
        kind = self.kinds[self.mrng.randrange(len(self.kinds))]
        nxt = self._next_card(k)
        if kind == "two" and nxt is None:
            return None
        if kind == "floor" and (k + 1 >= len(self.events) or
                                not self.events[k + 1].startswith("card")):
            return None             # the menu's card by hand is offered while a card is due
        if kind in ("floor", "dead") and self.engine_at(k).phase == E.PH_CUT:
            return None             # (the cut by hand: the same path, kept simple here)
        return kind

    def _next_card(self, k):
        for j in range(k + 1, len(self.events)):
            if j in self.cards:
                return self.cards[j]
            if not self.events[j].startswith("card"):
                return None         # not the next card out before something else
        return None

    def plan(self, now):
        k = self.acked
        ev = parse_event(strip(self.events[k]))
        self._close(k)
        if ev[0] != E.EV_CARD or self.deal_ms:
            return super().plan(now)
        card = self.cards[k]
        kind = "dead" if card.dead else self._choose(k)
        if kind is None:
            return super().plan(now)
        self.planned = k
        self.action_at = now
        if self.on_action:
            self.on_action(k)
        self.counts[kind] += 1
        self.made.append([kind, k, len(self.seen), None, self.world.clock.ms()])
        getattr(self, "_" + kind)(now, k, card)

    def _wave(self, t, tag, dwell=DWELL_MS):
        self.steps.append((t, lambda: self.world.pn532.put(tag)))
        self.steps.append((t + dwell, lambda: self.world.pn532.remove(tag)))
        return t + dwell

    def _deal_normally(self, t, k, card):
        def put():
            self._remove_tag()
            self.world.pn532.put(card.tag)
            self.in_field = card.tag
            self.put_at[k] = self.world.clock.ms()
            self.action_at = self.world.clock.ms()
        self.steps.append((t, put))

    def _look(self, t):
        """The dealer reads the banker's display after the `!` (the table's prompt)."""
        def look():
            self.made[-1][3] = self._banker_prompt()
        self.steps.append((t, look))

    def _twice(self, now, k, card):
        self._deal_normally(now, k, card)
        self._after_taken(k, lambda t: self._wave(t + 20, card.tag))

    def _pushed_back(self, now, k, card):
        self._deal_normally(now, k, card)

        def back(t):
            # on top of the shoe again (the deal plan's order is kept: the next card out
            # is this one) and pulled out again at once
            self._wave(t + 60, card.tag)
        self._after_taken(k, back)

    def _after_taken(self, k, fn):
        """fn(now) once the table has taken event k's card (and it left the field)."""
        def wait():
            now = self.world.clock.ms()
            if self.acked > k and self.in_field is None:
                fn(now + DWELL_MS)
            else:
                self.steps.insert(0, (now + 5, wait))
        self.steps.append((self.world.clock.ms() + 5, wait))

    def _two(self, now, k, card):
        other = self._next_card(k)
        t = self._wave(now, card.tag, 60)
        self.steps.insert(1, (now, lambda: self.world.pn532.put(other.tag)))
        self.steps.append((now + 60, lambda: self.world.pn532.remove(other.tag)))
        self._look(t + LOOK_MS)
        self._deal_normally(t + LOOK_MS + 100, k, card)     # one at a time, as asked

    def _read_before(self, k, card):
        """The shoe knows this sticker by its UID: it is the first sticker of its card the
        shoe took from the reader (not by hand) before event k; a second pack's copy, or a
        card never read, is read (shoe_reader.py: one place a card code)."""
        taken = set(ln.split()[1][1:] for _, ln in self.seen
                    if ln.startswith("* #") and "by hand)" not in ln)
        for j in sorted(self.cards):
            c = self.cards[j]
            if j < k and c.code == card.code and str(j + 1) in taken:
                return c.tag.uid == card.tag.uid
        return False

    def _fast(self, now, k, card):
        if self._read_before(k, card):
            self.made[-1][0] = "fast_known"
            self.counts["fast_known"] += 1
        def fault():
            self._chip().fault_tag_leaves_after(card.tag, 0)   # found, never read
        self.steps.append((now, fault))
        t = self._wave(now, card.tag, 300)
        self._look(t + LOOK_MS)
        self._deal_normally(t + LOOK_MS + 100, k, card)

    def _other_deck(self, now, k, card):
        stranger = other_deck_card(card.code)
        t = self._wave(now, stranger.tag)
        self._look(t + LOOK_MS)
        self._deal_normally(t + LOOK_MS + 100, k, card)

    def _floor(self, now, k, card):
        self._deal_normally(now, k, card)

        def by_hand(t):
            # he enters the card by hand: the table refuses it (already on the table, R2);
            # its entry stays open and UNDO closes it
            t = self._enter_by_hand(t + 100, card.code)
            self._look(t + LOOK_MS)
            t = self._press(t + LOOK_MS + 50, "UNDO")
            self.steps.append((t, lambda: setattr(self, "ready_at", self.world.clock.ms())))
        self._after_taken(k, by_hand)

    def _dead(self, now, k, card):
        card.dead = True                            # the sticker is dead for good
        # pulled through: nothing answers, the table still asks for the card; the dealer
        # sees no card taken and enters it by hand
        t = self._enter_by_hand(now + 400, card.code)

        def end():
            self.action_at = self.world.clock.ms()
        self.steps.append((t, end))

    def _enter_by_hand(self, t, code):
        """Long OK, the menu's first item (Enter card by hand), the card, OK."""
        r, s = code >> 2, code & 3
        ranks = ["PLUS"] * r if r <= 6 else ["MINUS"] * (13 - r)
        suits = [("PLUS", LONG_HOLD)] * s if s <= 2 else [("MINUS", LONG_HOLD)]
        t = self._press(t, "OK", hold=LONG_HOLD)
        for name in ["OK"] + ranks:
            t = self._press(t, name)
        for name, hold in suits:
            t = self._press(t, name, hold=hold)
        return self._press(t, "OK")

    # ----------------------------------------------------------- the checks
    def _close(self, upto):
        """Judge each mistake whose card the table has taken (event index < upto)."""
        while self.made and self.made[0][1] < upto:
            kind, k, start, prompt, start_ms = self.made.pop(0)
            failed = len(self.failures)
            lines = [ln for _, ln in self.seen[start:]]
            bangs = [ln for ln in lines if ln.startswith("!")]
            want = REFUSAL[kind]
            if want is None and bangs:
                self.failures.append("%s at event %d: the table said %s" % (kind, k, bangs))
            elif want is not None and not any(b.startswith(want) for b in bangs):
                self.failures.append("%s at event %d: silent (no %r): %s"
                                     % (kind, k, want, lines[:6]))
            elif want is not None and prompt is not None and want[2:].strip() not in prompt:
                self.failures.append("%s at event %d: the banker's display says %r"
                                     % (kind, k, prompt))
            elif kind == "dead" and not any(
                    ln.startswith("* #%d " % (k + 1)) and "by hand)" in ln
                    for ln in lines):
                # nothing read, the table kept asking: the card is the one entered by hand
                self.failures.append("dead at event %d: silent (not taken by hand): %s"
                                     % (k, lines[:6]))
            if len(self.failures) == failed:        # (one failure a mistake)
                self.hear(kind, k, start_ms, SOUNDS[kind])

    def _ear(self):
        """The piezo model (boards/simdev/piezo.py) of the board the firmware runs on."""
        w = self.world
        run = getattr(w.pn532, "run", None)
        return getattr(run.p.world if run is not None else w, "buzzer", None)

    def hear(self, kind, k, start_ms, sound):
        """What sounded since the mistake began against `sound`: "buzz" (a buzz), "tick"
        (no buzz, the card's tick) or None (no buzz)."""
        ear = self._ear()
        if ear is None:
            self.failures.append("%s at event %d: the board has no buzzer to hear" % (kind, k))
            return
        heard = [t for _, t in ear.since(int(start_ms))]
        if sound == "buzz" and "buzz" not in heard:
            self.failures.append("%s at event %d: no buzz, heard %s" % (kind, k, heard))
        elif sound != "buzz" and "buzz" in heard:
            self.failures.append("%s at event %d: a buzz for a card rightly taken" % (kind, k))
        elif sound == "tick" and "tick" not in heard:
            self.failures.append("%s at event %d: the card taken without a tick" % (kind, k))

    def finish(self):
        self._close(len(self.events) + 1)


def soak_session(seed, rate, seats=4, preset="table", flash=None, backend=None, kinds=MISTAKES):
    """One session with the dealer's mistakes; returns (dealer, [failures])."""
    head, events = S.script_session(preset, seats, seed)
    d = Dealer(head, events, rate=rate, mistake_seed=seed * 7919 + 1, kinds=kinds, seed=seed)
    import runner as R
    with tempfile.TemporaryDirectory() as tmp:
        path = flash or os.path.join(tmp, "flash")
        S.fresh_flash(path, S.settings_text(preset, seats))
        r = (backend or R.CPython)(path, d)
        r.boot()
        try:
            r.run()
        except RuntimeError as x:       # the Driver gave up: a card the table never took
            d.failures.append("silent: %s" % str(x).splitlines()[0])
        d.finish()
        bad = list(d.failures)
        if not d.done:
            bad.append("session %d did not finish" % seed)
        text = S.journal_text(path)
        if text is None:                            # the session over: kept in history/
            with open(S.history_files(path)[-1], "rb") as f:
                text = f.read()
        journal = [ln for ln in text.decode().splitlines() if strip(ln)]
        if hasattr(r, "close"):
            r.close()
    return d, bad + against_script(d, journal[len(head):], events)


def against_script(d, got, events):
    """The journal's events against the script: a different event is a card (or a play)
    misattributed (counted in d.misattributed); a journal that stops short lost the rest."""
    wrong = [(k, a, b) for k, (a, b) in enumerate(zip(got, events)) if a != b]
    d.misattributed = len(wrong)
    bad = []
    if wrong:
        bad.append("misattributed: the journal is not the script: %s" % wrong[:3])
    if len(got) != len(events):
        bad.append("the journal has %d events, the script %d" % (len(got), len(events)))
    return bad


def pico_session(seed, rate, seats=3, flash=None, wall_timeout=3600, events_max=0):
    """One session with the dealer's mistakes on the virtual Pico (the shoe's own UF2, a
    fresh flash given its settings, or the flash image `flash` already set up; the first
    `events_max` events only, when given); returns (dealer, [failures])."""
    from vpico import table as T
    head, events = S.script_session("table", seats, seed)
    events = events[:events_max or len(events)]
    d = Dealer(head, events, rate=rate, mistake_seed=seed * 7919 + 1, seed=seed,
               hold_ms=T.HOLD_MS)
    got, err = T.dealt_on_pico(d, seats, flash, wall_timeout, stopped="silent")
    d.finish()
    bad = list(d.failures)
    if not d.done:
        bad.append("session %d did not finish" % seed)
    if err:
        bad.append("the Pico's REPL: %s" % err.strip())
    return d, bad + against_script(d, got[len(head):], events)


def main(argv):
    ap = cli.ArgumentParser(prog="dealer.py", description="Scripted sessions dealt from a "
                            "physical deck by a dealer who makes mistakes at seeded rates; "
                            "prints each mistake's count and what the table missed.")
    ap.add_argument("--sessions", type=cli.count, default=40, help="sessions (default 40)")
    ap.add_argument("--seed", type=cli.whole, default=1, help="the first session's seed")
    ap.add_argument("--seats", type=cli.count, default=4, help="seats (default 4: one pack)")
    ap.add_argument("--rate", type=float, default=0.04,
                    help="chance of each mistake on a card (default 0.04)")
    ap.add_argument("--pico", action="store_true",
                    help="on the virtual Pico (the shoe's UF2: `make uf2`), not CPython")
    a = ap.parse_args(argv[1:])
    cli.check_seats("dealer.py", "table", a.seats)
    if not 0 <= a.rate <= 1.0 / len(MISTAKES):
        cli.fail("dealer.py", "--rate must be 0 to %.3f" % (1.0 / len(MISTAKES)))
    totals = dict((k, 0) for k in MISTAKES + ("fast_known",))
    cards = silent = wrong = 0
    bad = []
    for n in range(a.sessions):
        seed = a.seed + n
        d, fails = (pico_session if a.pico else soak_session)(seed, a.rate, a.seats)
        for k in totals:
            totals[k] += d.counts[k]
        cards += len(d.cards)
        silent += sum(1 for f in d.failures if "silent" in f)
        wrong += d.misattributed
        bad += ["session %d: %s" % (seed, f) for f in fails]
        print("session %d/%d (seed %d): %d cards, %d mistakes%s" % (
            n + 1, a.sessions, seed, len(d.cards), sum(d.counts[k] for k in MISTAKES),
            ", %d failures" % len(fails) if fails else ""), flush=True)
    print("dealer soak%s: %d sessions, %d cards; %s (%d of the fast ones known by UID)" % (
        " on the virtual Pico" if a.pico else "", a.sessions, cards,
        ", ".join("%s %d" % (k, totals[k]) for k in MISTAKES), totals["fast_known"]))
    print("dealer soak: %d silent, %d misattributed, %d failures in all" % (
        silent, wrong, len(bad)))
    for line in bad[:20]:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
