"""Helpers for the controller tests (test_app_*.py): hidden-information checks over
every frame and serial line of a simulated session."""
import bisect
import re

from game import engine as E
from game.cards import card_name
from game.transcript import Header, parse_event, strip


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


def hidden_violations(answers, states):
    """answers: (events k, display index: seat-1, or 8 for public, text) of the web part's
    answers. Uses the same check as the OLED frames: the public answers as the banker's
    display."""
    acks = list(range(1, len(states)))
    return check_frames([(k, i, [text]) for k, i, text in answers], acks, states, 8)


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
        import runner
        self.S = S
        self.sim = sim
        self.flash = flash.rstrip("/") + "/"
        self.run = runner.CPython(self.flash)
        self.out = self.run.lines        # every line the firmware printed, all boots
        self.deck = None                 # the physical deck (boards/simdev/deck.py), made
        #                                  for the session's shoe at the first card
        if boot:
            self.boot()

    def boot(self):
        self.run.boot()
        self.world = self.run.world
        self.t = self.run.table
        self.settle()
        return self.t

    def settle(self, ms=60):
        for _ in range(ms):
            self.t.step()
            self.world.clock.advance_us(1000)
        while self.t.screens.redraw_one():
            pass

    def send(self, line):
        """Type a serial line; returns the one answer line ("ok ..." / "error: ...")."""
        n = len(self.out)
        self.run.send(line)
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

    def follow(self):
        """The deck mirrors what the table's engine did with the cards since the last look
        (under the pack, the discard tray; a shuffle reorders them)."""
        e = self.t.e
        if self.deck is None or self.deck.packs != e.packs:
            from boards.simdev.deck import Deck
            self.deck = Deck(e.packs)
            self.looked = len(self.out)
        for line in self.out[self.looked:]:
            if re.match(r"^(?:ok|\*) #\d+ shuffle$", line):
                self.deck.follow(e, True)
        self.looked = len(self.out)
        self.deck.follow(e)

    def card(self, text):
        """Deal `text` from the deck through the reader (the test stacked the shoe so that
        it comes out now; a card already dealt is picked up again: the same sticker);
        returns the new output lines."""
        from game.cards import parse_card
        self.follow()
        return self.wave(self.deck.deal(parse_card(text)).tag)

    def wave(self, tag):
        """A sticker through the reader's field; returns the new output lines."""
        n = len(self.out)
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
        return self.world.displays[i].text_rows(__import__("hardware.font5x7").font5x7.FONT)[0]

    def journal(self):
        text = self.S.journal_text(self.flash)
        if text is None:
            raise FileNotFoundError(self.flash + "journal.txt")
        return text.decode()


def _driver_base():
    import simtable as S
    return S.Driver


class ButtonDriver(_driver_base()):
    """A simtable.Driver that gives every event through the buttons (and cards through the
    reader): never a serial line. Menu items are found as a person finds them, by reading
    the banker's display after each PLUS."""

    LONG_HOLD = 900                   # > long_ms (800)

    def __init__(self, head, events, **kw):
        super().__init__(head, events, serial_share=0.0, **kw)
        self.menu_choices = []          # (event index, menu item) as chosen
        self.pass_presses = 0

    def banker_line(self, k):
        import simtable as S
        return S.display_text(self.world.displays[8])[0][k]

    def _choose(self, t, item, after=()):
        import simtable as S
        t = self._press(t, "OK", hold=self.LONG_HOLD)
        tries = [0]
        shown = [None]              # the item shown before the last PLUS
        k = self.planned

        def look():
            now = self.world.clock.ms()
            line = self.banker_line(7)
            if line == shown[0]:
                # the PLUS moved nothing: a lost press, which the next PLUS would redo
                self.retries += 1
                if not self.retry:
                    raise S.LostAction("a PLUS in the menu was lost (event %d %s): the "
                                       "banker display still shows %r" % (k, self.events[k],
                                                                          line))
            shown[0] = line
            if line == "> " + item:
                self.menu_choices.append((k, item))
                t2 = self._press(now, "OK")
                for name in after:
                    t2 = self._press(t2, name)
                return
            tries[0] += 1
            if tries[0] > 30:
                raise RuntimeError("menu item %r never offered (event %d %s); banker "
                                   "display line 8: %r" % (item, k, self.events[k], line))
            self.steps.append((self._press(now, "PLUS"), look))
        self.steps.append((t, look))

    def plan(self, now):
        from game import engine as E
        k = self.acked
        line = self.events[k]
        ev, seat, amount, card = parse_event(strip(line))
        if ev == E.EV_CARD:
            return super().plan(now)
        e = self.engine_at(k)
        r = e.rules
        self.planned = k
        self.action_at = now
        if self.on_action:
            self.on_action(k)
        t = now
        kitty_open = e.phase == E.PH_IDLE and e.need_kitty
        window = e.phase == E.PH_DEAL2 and e.pos == 0 and not e.casino
        menu = None
        presses = []
        if ev == E.EV_STAKE:
            presses = ["PLUS"] * (amount - r.stake_min) + ["OK"]
        elif ev == E.EV_BUY:
            presses = ["BUY"] + ["PLUS"] * (amount - e.initial_stake(seat)) + ["OK"]
        elif ev == E.EV_TWIST:
            presses = ["TWIST"]
        elif ev == E.EV_STICK or ev == E.EV_STAND:
            presses = ["STICK"]
        elif ev == E.EV_SPLIT:
            presses = ["SPLIT"]
        elif ev == E.EV_DOUBLE:
            presses = ["BUY"]
        elif ev == E.EV_SHUFFLE:
            if kitty_open:
                menu = "Shuffle done"   # OK would put up the kitty that is open
            else:
                presses = ["OK"]
        elif ev == E.EV_KITTY:
            if kitty_open:
                presses = ["PLUS"] * (amount - r.kitty_min) + ["OK"]
            else:
                lo = 1 if e.kitty else r.kitty_min
                menu, presses = "Kitty", ["PLUS"] * (amount - lo) + ["OK"]
        elif ev == E.EV_SHOOT and window:
            # X2: the seats before this one pass (OK on 0), then this one's amount
            target = list(e.porder[:e.nplayers]).index(seat)
            passes = target - e.shoot_pos
            self.pass_presses += passes
            presses = ["OK"] * passes + ["PLUS"] * amount + ["OK"]
        elif ev == E.EV_SHOOT:
            menu, presses = "Shoot bet", ["PLUS"] * (amount - 1) + ["OK"]
        elif ev == E.EV_BANKDOUBLE:
            menu = "Banker doubles"
        elif ev == E.EV_BURN:
            menu = "Burn (V8)"
        elif ev == E.EV_VOID:
            menu = "Void this deal"
        elif ev == E.EV_SELL:
            left = e.banker % e.seats + 1
            if seat >= left:
                moves = ["PLUS"] * (seat - left)
            else:                       # MINUS skips the banker's own seat
                moves = ["MINUS"] * (left - seat - (1 if seat < e.banker else 0))
            menu, presses = "Sell the bank", moves + ["OK"] + ["PLUS"] * amount + ["OK", "OK"]
        else:
            raise RuntimeError("no button path for %s" % line)
        if menu:
            self._choose(t, menu, presses)
            return
        for name in presses:
            t = self._press(t, name)

    def new_session(self, run):
        """Long OK, "New session": the journal is kept as history/NNNN.txt."""
        self.planned = self.acked
        self._choose(self.world.clock.ms(), "New session")
        for _ in range(20000):
            run.table.step()
            self.poll(self.world.clock.ms())
            run.world.clock.advance_us(1000)
            if not self.steps and run.table.nev == 0:
                return
        raise RuntimeError("no new session: " + "\n".join(self.output[-5:]))


class NoSerial:
    """A serial line on which nothing ever arrives."""

    def poll(self):
        return None


def no_serial_runner(flash, driver, screens):
    """The CPython runner with no serial input at all: the firmware's lines come out (the
    test reads them like a log) but nothing can be typed."""
    import runner
    return runner.CPython(flash, driver, screens, serial_in=NoSerial())
