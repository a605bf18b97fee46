#!/usr/bin/env python3
"""Shuffle quality from a history file (firmware/game/shuffle_check.py, the statistic the shoe
itself says with `shuffle_check = on`): after each shuffle, how many of the pairs of cards
that came out one right after the other in the pass before it come out side by side again
(either order) in the first cards of the new pass, against what a fair shuffle keeps.

    .venv/bin/python3 tools/shuffles.py history/0001.txt      a table, a row a shuffle
    .venv/bin/python3 tools/shuffles.py --calibrate [--trials 1000] [--seed 1]

--calibrate: seeded shuffles of the physical deck model (boards/simdev/deck.py) -- fair ones,
a cut, one riffle, two riffles, an overhand -- with the share of each the check flags, the
pairs a single riffle keeps (dealt one after another, and the cards of one hand), and the
power against the cards seen (what chose shuffle_check.WINDOW).

For tools/night.py: shuffle_report(path) -> [{"pass", "cards", "kept", "expected",
"spread", "p_value", "weak"}, ...], one dict a shuffle (pass 2 is the first one checked).
"""
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import cli  # noqa: E402
from game import engine as E  # noqa: E402
from game import shuffle_check as C  # noqa: E402
from game.transcript import Header, read_events  # noqa: E402


def _row(number, check, packs):
    kept, mean, spread, p, weak = check.verdict(packs)
    return {"pass": number, "cards": check.checked + 1, "kept": kept,
            "expected": round(mean, 3), "spread": round(spread, 3), "p_value": p,
            "weak": bool(weak)}


def shuffle_report(history_path, window=C.WINDOW, hands=True):
    """One dict a shuffle of the session in `history_path` (a journal or history file).
    hands=False: the pairs of a hand left out (what the calibration compares)."""
    header = Header()
    check = None
    e = None
    out = []
    number = 1
    with open(history_path, "rb") as f:
        for _, _, _, ev in read_events(f, header):
            if check is None:
                e = header.engine()
                check = C.ShuffleCheck(window)
            if ev[0] == E.EV_SHUFFLE and check.known and check.checked:
                out.append(_row(number, check, e.packs))
            mate = check.mate(e) if ev[0] == E.EV_CARD and hands else C.NONE
            if e.apply(ev[0], ev[1], ev[2], ev[3]) is None:      # as the shoe took it
                number += ev[0] == E.EV_SHUFFLE
                check.event(ev[0], ev[3], e.packs, mate)
    if check is not None and check.known and check.checked:
        out.append(_row(number, check, e.packs))
    return out


def table(rows):
    lines = ["pass  cards  kept  expected  spread  p-value  verdict"]
    for r in rows:
        lines.append("%4d  %5d  %4d  %8.2f  %6.2f  %7.4f  %s" % (
            r["pass"], r["cards"], r["kept"], r["expected"], r["spread"], r["p_value"],
            "WEAK" if r["weak"] else "fair"))
    if not rows:
        lines.append("(no shuffle in this session)")
    return "\n".join(lines)


# ------------------------------------------------------------------ the physical model
def _riffle(cards, rng):
    from boards.simdev.deck import Deck
    d = Deck(1, seed=rng.randrange(1 << 30), shuffled=False)
    return d._riffle(cards)          # Gilbert-Shannon-Reeds, as the deck model riffles


def _cut(cards, rng):
    k = rng.randrange(1, len(cards))
    return cards[k:] + cards[:k]


def _overhand(cards, rng):
    """Packets of 1-8 cards off the top onto a new pile: each packet's order kept, the
    packets' order reversed."""
    out = []
    i = 0
    while i < len(cards):
        k = rng.randint(1, 8)
        out = cards[i:i + k] + out
        i += k
    return out


SHUFFLES = {
    "fair": lambda c, rng: rng.sample(c, len(c)),
    "cut": _cut,
    "riffle": lambda c, rng: _cut(_riffle(c, rng), rng),
    "two riffles": lambda c, rng: _cut(_riffle(_riffle(c, rng), rng), rng),
    "overhand": _overhand,
}


def flagged(kind, trials, seed=1, window=C.WINDOW, packs=1):
    """The share of `trials` shuffles of this kind the check flags: the last pass dealt
    the whole pack in order (collected under the pack in that order), the shuffle, then
    the new pass's first cards."""
    rng = random.Random(seed)
    shuffle = SHUFFLES[kind]
    weak = 0
    for _ in range(trials):
        pack = rng.sample(range(52 * packs), 52 * packs)
        check = C.ShuffleCheck(window)
        for c in pack:
            check.card(c % 52)
        check.event(E.EV_SHUFFLE, 0, packs)
        for c in shuffle(pack, rng)[:window]:
            check.card(c % 52)
        weak += check.verdict(packs)[4]
        assert check.weak() == check.verdict(packs)[4]
    return weak / trials


def pairs_kept(kind, trials, seed=1, hands=5, per_hand=3):
    """The share of (dealt one after another, same hand) pairs that lie side by side (either
    order) after a shuffle of this kind: hands dealt round the table, a card each a round,
    collected under the pack in the order dealt (deck.py)."""
    rng = random.Random(seed)
    got = [0, 0]
    seen = [0, 0]
    for _ in range(trials):
        pack = rng.sample(range(52), 52)
        dealt = pack[:hands * per_hand]          # card r*hands+h: round r to hand h
        after = SHUFFLES[kind](pack, rng)
        pos = {c: i for i, c in enumerate(after)}
        for i in range(len(dealt) - 1):
            seen[0] += 1
            got[0] += abs(pos[dealt[i]] - pos[dealt[i + 1]]) == 1
        for i in range(len(dealt) - hands):
            seen[1] += 1
            got[1] += abs(pos[dealt[i]] - pos[dealt[i + hands]]) == 1
    return got[0] / seen[0], got[1] / seen[1]


def sessions_flagged(seeds, tables=(("table", 4), ("classic", 3), ("table", 6),
                                     ("classic", 5))):
    """Whole sessions of the autoplayer dealt from a deck whose later shuffles are a cut:
    (shuffles checked, flagged by dealt pairs alone, flagged with a hand's pairs too)."""
    import tempfile
    import simtable as S
    from boards.simdev.deck import Deck

    class CutDeck(Deck):
        def shuffle(self):
            if self.shuffles == 0:
                return Deck.shuffle(self)
            cards = self.shoe + self.discard
            self.discard = []
            k = 1 + self.rng.below(len(cards) - 1)
            self.shoe = cards[k:] + cards[:k]
            self.shuffles += 1

    fair_deck = S.Deck
    S.Deck = CutDeck
    got = [0, 0, 0]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "h.txt")
            for preset, seats in tables:
                for seed in range(1, seeds + 1):
                    head, events = S.script_session(preset, seats, seed)
                    with open(path, "w") as f:
                        f.write("".join(x + "\n" for x in head + events))
                    alone = shuffle_report(path, hands=False)
                    both = shuffle_report(path)
                    got[0] += len(both)
                    got[1] += sum(r["weak"] for r in alone)
                    got[2] += sum(r["weak"] for r in both)
    finally:
        S.Deck = fair_deck
    return tuple(got)


def calibrate(trials=1000, seed=1, out=print):
    out("shuffle check (firmware/game/shuffle_check.py): the first %d cards of a pass, weak at "
        "p < %g; %d seeded shuffles each (deck.py's riffle)" % (C.WINDOW, C.LEVEL, trials))
    for kind in SHUFFLES:
        out("  %-12s flagged %5.1f%%" % (kind, 100 * flagged(kind, trials, seed)))
    dealt, hand = pairs_kept("riffle", max(50, trials // 10), seed)
    out("  pairs side by side after one riffle, hands dealt round a table and collected in "
        "the order dealt: dealt one after another %.0f%%, two cards of one hand %.0f%% (a "
        "fair shuffle: %.0f%%)" % (100 * dealt, 100 * hand, 100 * 2 / 52))
    flags = sessions_flagged(max(1, trials // 250))
    out("  scripted sessions whose dealer only cuts (simtable, deck.py, %d shuffles): flagged "
        "%d with the pairs dealt one after another alone, %d with the pairs of a hand too"
        % flags)
    power = []
    for w in (5, 10, 15, 20, 26, 35):
        power.append("%d cards %.0f%% / %.0f%% / %.1f%%" % (
            w, 100 * flagged("riffle", trials // 4, seed, w),
            100 * flagged("two riffles", trials // 4, seed, w),
            100 * flagged("fair", trials // 4, seed, w)))
    out("  power against cards seen (one riffle / two riffles / fair): " + ", ".join(power))


def main(argv):
    ap = cli.ArgumentParser(prog="shuffles.py", description="Each shuffle's quality from a "
                            "history file, or the check's calibration.")
    ap.add_argument("history", nargs="?", help="a history file (history/NNNN.txt)")
    ap.add_argument("--calibrate", action="store_true",
                    help="seeded shuffles of the deck model: the share the check flags")
    ap.add_argument("--trials", type=cli.count if hasattr(cli, "count") else int,
                    default=1000, help="shuffles of each kind (--calibrate)")
    ap.add_argument("--seed", type=int, default=1)
    try:
        a = ap.parse_args(argv)
    except SystemExit as x:
        return x.code
    if a.calibrate:
        calibrate(a.trials, a.seed)
        return 0
    if not a.history:
        return cli.fail("shuffles.py", "give a history file or --calibrate "
                        "(see shuffles.py --help)")
    try:
        rows = shuffle_report(a.history)
    except OSError as e:
        return cli.fail("shuffles.py", "cannot read %s: %s (see shuffles.py --help)"
                        % (a.history, e.strerror or e))
    except Exception as e:               # a transcript line that does not parse
        if type(e).__name__ != "ParseError":
            raise
        return cli.fail("shuffles.py", "%s: %s (see shuffles.py --help)" % (a.history, e))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
