"""Helpers for the controller tests (test_app_*.py): hidden-information checks over
every frame and serial line of a simulated session."""
import bisect
import re

import engine as E
from cards import card_name
from transcript import Header, parse_event, strip


def hidden_states(head, events):
    """For k = 0..len(events): (banker's hidden card names, {seat: face-down names}) after
    k events. The banker's cards are hidden until his turn (or the deal's end); a player's
    cards are face down except twisted ones (and the cut, which is face up)."""
    h = Header()
    for line in head:
        h.take(strip(line))
    e = h.engine()
    up = {}
    deals = 0
    out = [(frozenset(), {}, {}, frozenset())]
    for line in events:
        ev, seat, amount, card = parse_event(strip(line))
        slot = e.expected_card_slot() if ev == E.EV_CARD else -1
        twisted = ev == E.EV_CARD and e.phase == E.PH_PLAY and slot > 0 and \
            bool(e.hand_flags(slot) & E.F_TWISTED)
        cur = e.current_slot()
        nslots = e.nslots
        assert e.apply(ev, seat, amount, card) is None, line
        if e.deals != deals:
            deals = e.deals
            up = {}
        if ev == E.EV_CARD and slot != -1 and slot > -2:
            up.setdefault(slot, []).append(twisted)
        elif ev == E.EV_CARD and slot == -1 and e.in_deal():
            up.setdefault(1, []).append(False)           # the first card of a deal
        if ev == E.EV_SPLIT:
            new = nslots
            up[new] = [up[cur][1]]
            up[cur] = [up[cur][0]]
        if ev == E.EV_BURN:
            up[cur] = []
        hole = set()
        down = {}
        held = {}                  # seat -> every card name of its hands (two packs)
        public = set()             # face up somewhere: a same-named card may be shown
        if e.in_deal():
            names = set(card_name(e.card(0, i)) for i in range(e.ncards(0)))
            if e.phase < E.PH_BANKER:
                hole = names
            else:
                public |= names
            for i in range(e.norder):
                s = e.slot_at(i)
                flags = up.get(s, [])
                for j in range(e.ncards(s)):
                    n = card_name(e.card(s, j))
                    held.setdefault(e.hand_seat(s), set()).add(n)
                    if j >= len(flags) or not flags[j]:
                        down.setdefault(e.hand_seat(s), set()).add(n)
                    else:
                        public.add(n)
        out.append((frozenset(hole), down, held, frozenset(public)))
    return out


def named(text, names):
    """The card names of `names` that appear in text as words."""
    found = []
    for n in names:
        if re.search(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % n, text):
            found.append(n)
    return found


def check_frames(history, ack_times, states, n_seats):
    """history: (ms, display index, lines); ack_times: sorted ms at which the state became
    1, 2, ... events. Returns a list of violations (empty = fine)."""
    bad = []
    for t, i, lines in history:
        k = bisect.bisect_right(ack_times, t)
        hole, down, held, public = states[k]
        own = held.get(i + 1, set()) if i < 8 else set()
        text = "\n".join(lines)
        for n in named(text, hole - public - own):
            bad.append("display %d at event %d shows the banker's hidden %s" % (i, k, n))
        for seat, names in down.items():
            if i == seat - 1:
                continue
            for n in named(text, names - public - own):
                bad.append("display %d at event %d shows seat %d's face-down %s"
                           % (i, k, seat, n))
    return bad


def check_serial(seen, states):
    bad = []
    for k, line in seen:
        if k < 0 or k >= len(states):
            continue
        hole, down, held, public = states[k]
        names = set(hole)
        for v in down.values():
            names |= v
        names -= public
        for n in named(line, names):
            bad.append("serial line at event %d names hidden %s: %s" % (k, n, line))
    return bad


class Bench:
    """The firmware on CPython with the simulated board, driven by hand."""

    def __init__(self, flash, settings=None, journal=None, boot=True):
        import os

        import simtable as S
        from boards import sim
        if settings is not None or journal is not None or not os.path.isdir(flash):
            S.fresh_flash(flash, settings)
        if journal is not None:
            with open(os.path.join(flash, "journal.txt"), "wb") as f:
                f.write(journal.encode() if isinstance(journal, str) else journal)
        self.S = S
        self.sim = sim
        self.flash = flash.rstrip("/") + "/"
        self.out = []
        self.tags = {}
        if boot:
            self.boot()

    def boot(self):
        import app
        from serial_lines import QueueLines

        import simtable as S
        self.world = w = self.sim.build(n_displays=9)
        w.serial = QueueLines()
        self.t = app.Table(self.sim, self.flash, out=S._LineOut(self.out.append))
        self.t.boot()
        self.settle()
        return self.t

    def settle(self, ms=60):
        for _ in range(ms):
            self.t.step()
            self.world.clock.advance_us(1000)
        while self.t.redraw_one():
            pass

    def send(self, line):
        """Type a serial line; returns the one answer line ("ok ..." / "error: ...")."""
        n = len(self.out)
        self.world.serial.push(line)
        for _ in range(20):
            self.t.step()
            ans = [x for x in self.out[n:] if x.startswith("ok") or x.startswith("error:")]
            if ans:
                assert len(ans) == 1, ans
                self.settle(5)
                return ans[0]
        raise AssertionError("no answer to %r: %s" % (line, self.out[n:]))

    def press(self, name, hold=70):
        import simtable as S
        pin = self.world.buttons[S.B[name]]
        pin.press()
        self.settle(hold)
        pin.release()
        self.settle(80)

    def card(self, text):
        """Deal a card through the reader; returns the new output lines."""
        from cards import parse_card

        from boards.simdev import ntag213
        n = len(self.out)
        code = parse_card(text)
        k = self.tags.get(code, 0)
        self.tags[code] = k + 1
        tag = ntag213.text_tag(text, n=code + 52 * k)
        self.world.pn532.put(tag)
        for _ in range(300):
            self.t.step()
            self.world.clock.advance_us(1000)
            if any(x.startswith("* #") or x.startswith("!") for x in self.out[n:]):
                break
        self.world.pn532.remove(tag)
        self.settle(40)
        return self.out[n:]

    def screen(self, i):
        return self.world.displays[i].text_rows(__import__("font5x7").FONT)[0]

    def journal(self):
        text = self.S.journal_text(self.flash)
        if text is None:
            raise FileNotFoundError(self.flash + "journal.txt")
        return text.decode()
