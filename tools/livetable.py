"""The simulated table, live: the firmware on the MicroPython VM with the simulated board
(as in `make sim`), driven by a person through `tools/play.py` (the web page) or
`tools/sim.py --interactive` (the terminal).

A `LiveTable` runs the VM (tools/runner.py's VM backend) in a thread of its own; every
other thread talks to it through `do(...)`, which queues an action that the VM's thread
runs between two of the VM's device requests, so the chip models are only ever touched by
that thread. What the page and the
terminal show are snapshots (`Panel`, the log, the ledger) taken in that thread and
announced through `on_change(kind)`.

The dealer: "deal" puts the next card's NTAG213 sticker into the PN532's field (the top
card of the physical deck, boards/simdev/deck.py, or one you pick: the same sticker
whenever that card comes again; the deck follows the journal: cards go under the pack,
to the discard tray, and a shuffle reorders them); the sticker passes the reader and
leaves the field `DWELL_MS` later, as a card pulled through the shoe does. The anomalies a
dealer can cause are the PN532 model's field and fault controls: the last card's tag read
again, two new cards in the field at once, a card pulled through before it could be read.
"Pull the plug" kills the VM (its flash, the folder with the journal, stays); "power on"
boots a new VM on new chips and the firmware resumes from its journal.
"""
import collections
import os
import random
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if p not in sys.path:
        sys.path.insert(0, p)

import autoplay  # noqa: E402
from game import engine as E  # noqa: E402
import runner as R  # noqa: E402
import simtable as S  # noqa: E402
from panel import Panel, panel_levels  # noqa: E402,F401 - the one decoder
from table import views as V  # noqa: E402
from boards import sim  # noqa: E402
from boards.simdev.deck import Deck  # noqa: E402
from game.cards import card_name, parse_card  # noqa: E402,F401 - (play.py: L.card_name)
from game.transcript import parse_event, strip  # noqa: E402

BUTTONS = sim.BUTTONS
HEAP = R.VM_HEAP          # the VM's heap (tools/runner.py)
HOLD_MS = 120            # a click or a key is held at least this long (beyond debounce_ms)
LONG_MS = 1000           # a long press (the firmware's long_ms is 800)
AUTO_WAIT_MS = 400       # the dealer who deals by himself waits this long for a card
DWELL_MS = 250           # a dealt card's tag stays this long in the reader's field
LOG_KEEP = 2000          # serial lines kept for the page and the terminal
HEADER_WORDS = ("rules", "seats", "banker", "packs")

# One key map for the page and the terminal: key -> (action, argument, what it does).
KEYS = (
    ("s", "press", "STICK", "STICK"),
    ("t", "press", "TWIST", "TWIST"),
    ("b", "press", "BUY", "BUY (casino: double)"),
    ("p", "press", "SPLIT", "SPLIT"),
    ("-", "press", "MINUS", "MINUS"),
    ("+", "press", "PLUS", "PLUS (also =)"),
    ("o", "press", "OK", "OK (also Enter)"),
    ("u", "press", "UNDO", "UNDO"),
    ("m", "long", "OK", "the menu (OK held)"),
    ("c", "deal", "", "deal the next card"),
    ("a", "auto", "", "the dealer deals by himself: on / off"),
)
KEY_ALIASES = {"=": "+", "\r": "o", "\n": "o", "Enter": "o"}
CASINO_KEYS = (
    ("Space", "new round with the same bets"),
    ("0-9", "type the bet, Enter places it"),
    ("Esc", "leave the table (the session is kept in the history)"),
)


def key_action(key):
    """(action, argument) for a key of KEYS (aliases and capitals = long press), or None."""
    key = KEY_ALIASES.get(key, key)
    long_ = False
    if len(key) == 1 and key.isupper():
        key = key.lower()
        long_ = True
    for k, action, arg, _ in KEYS:
        if k == key:
            if long_ and action == "press":
                return ("long", arg)
            return (action, arg)
    return None


class LiveTable:
    def __init__(self, flash, seats=4, preset="table", heap=HEAP, speed=1.0, seed=None,
                 auto_deal=False, banker=0, fresh=True, on_change=None):
        self.flash = flash
        self.seats = seats
        self.preset = preset
        self.casino = preset == "casino"
        self.heap = heap
        self.speed = speed
        self.rng = random.Random(seed)
        self.auto_deal = auto_deal
        self.on_change = on_change or (lambda kind: None)
        if fresh:
            S.fresh_flash(flash, S.settings_text(preset, seats, banker))
        self.labels = ["Seat %d" % (i + 1) for i in range(min(seats, 8))] + [
            "Dealer" if self.casino else "Banker"]
        self.indices = list(range(min(seats, 8))) + [8]
        self.panels = {i: Panel() for i in self.indices}
        self.log = collections.deque(maxlen=LOG_KEEP)
        self.log_seq = 0                 # serial lines seen so far (the deque keeps the last)
        self.deal_lines = []             # the current deal's accepted events, as the
        self.last_deal_lines = []        # firmware said them (face-down cards unnamed)
        self.ledger = None
        self.powered = False
        self.boots = 0
        self.note = ""                   # the dealer's last action, for the page
        self.prompt = ""
        self.lock = threading.Lock()
        self.actions = collections.deque()
        self.wake = threading.Event()
        self.closed = False
        self.thread = None
        self.world = None
        self.heard = 0                   # tones the page was told of (tones())
        self.vm = None                   # the runner while the VM runs
        self.steps = []                  # [(sim ms, fn)] sorted: button releases, tags
        self.down = {}                   # button -> sim ms pressed
        self.engine = None               # the journal replayed: the dealer's shoe
        self.jlines = []
        self.deal_from = 0               # jlines[deal_from]: the deal in progress's first
        self.session_head = []           # header lines of the session the firmware began
        self.deck = None                 # the dealer's physical deck, made with the engine
        self.deck_seed = self.rng.randrange(1 << 30)
        self.last_tag = None
        self.pending_deal = False
        self.due_since = None
        self.acked = 0
        self.tx = {}                     # display -> bus transactions when last looked

    # ------------------------------------------------------------------ outside API
    def start(self):
        self.powered = True
        self.thread = threading.Thread(target=self._run, name="livetable", daemon=True)
        self.thread.start()

    def close(self):
        self.closed = True
        self.do(lambda: self._cut("closed"))
        self.wake.set()
        if self.thread is not None:
            self.thread.join(10)

    def do(self, fn):
        """Run fn() in the VM's thread at its next device request (or now, when off)."""
        with self.lock:
            self.actions.append(fn)
        self.wake.set()

    def sync(self, timeout=10):
        """Wait until every action asked for so far has run (tests, the terminal)."""
        done = threading.Event()
        self.do(done.set)
        return done.wait(timeout)

    def settle(self, ms=500, timeout=10):
        """Wait until every action asked for has run and then the table's own clock has
        moved on `ms` (what they caused has been said); on a busy machine that clock falls
        behind the wall's. Nothing to wait for while it is unplugged."""
        self.sync(timeout)
        if not self.powered or self.world is None:
            return
        since = self.world.clock.ms()
        end = time.monotonic() + timeout
        while self.powered and self.world.clock.ms() - since < ms and time.monotonic() < end:
            time.sleep(0.01)

    def command(self, name, arg=""):
        """The page's and the terminal's actions by name (see KEYS and the page's controls).
        Returns None or a one-line reason it cannot be done."""
        if name in ("press", "long", "down", "up"):
            if arg not in BUTTONS:
                return "no button %r (buttons: %s)" % (arg, " ".join(BUTTONS))
            if name == "press":
                self.do(lambda: self._press(arg, HOLD_MS))
            elif name == "long":
                self.do(lambda: self._press(arg, LONG_MS))
            elif name == "down":
                self.do(lambda: self._down(arg))
            else:
                self.do(lambda: self._up(arg))
            return None
        if name == "deal":
            if arg:
                code = parse_card(arg)
                if code < 0:
                    return "no card %r: write it as AS, TH, QD" % arg
                self.do(lambda: self._deal(code))
            else:
                self.do(lambda: self._deal(None))
            return None
        if name == "anomaly":
            if arg not in ("again", "two", "fast"):
                return "anomalies: again, two, fast"
            self.do(lambda: self._anomaly(arg))
            return None
        if name == "line":
            line = arg.strip()
            if line.startswith("."):
                return self._local(line[1:].split())
            if line:
                self.do(lambda: self._line(line))
            return None
        if name == "plug":
            self.do(lambda: self._cut("the plug was pulled"))
            return None
        if name == "power":
            self.do(self._power_on)
            return None
        if name == "auto":
            self.auto_deal = (not self.auto_deal) if not arg else arg in ("1", "on", "true")
            self.note = "the dealer deals by himself" if self.auto_deal else \
                "you deal: 'deal the next card' or pick one"
            self.on_change("shoe")
            return None
        if name == "same":
            self.do(self._same_bets)
            return None
        if name == "bet":
            if not arg.isdigit():
                return "a bet is a whole number"
            self.do(lambda: self._bet(int(arg)))
            return None
        if name == "leave":
            self.do(lambda: self._line("new"))
            return None
        return "no action %r" % name

    def _local(self, words):
        """The shoe and the plug from an input line: '.deal [CARD]', '.again', '.two',
        '.fast', '.auto', '.plug', '.power' (the page's controls, for the terminal)."""
        names = {"deal": "deal", "again": "anomaly", "two": "anomaly", "fast": "anomaly",
                 "auto": "auto", "plug": "plug", "power": "power"}
        if not words or words[0] not in names:
            return "table commands: " + ", ".join("." + n for n in names)
        w = words[0]
        arg = w if names[w] == "anomaly" else (words[1] if len(words) > 1 else "")
        return self.command(names[w], arg)

    def top_cards(self):
        """The dealer's shoe as the engine sees it: card code -> copies in the top layer.
        Not sent to the page: which cards left it would tell the face-down ones."""
        e = self.engine
        top = {}
        if e is not None and e.top_count:
            for i in range(e.copies):
                if e.loc[i] == e.top_layer:
                    top[i % 52] = top.get(i % 52, 0) + 1
        return top

    def shoe(self):
        """What the page shows of the shoe: cards left in its top layer, whether a card is
        due, the dealer's mode and last action."""
        e = self.engine
        return {"left": e.top_count if e is not None else 0, "due": self._card_wanted(),
                "auto": self.auto_deal, "note": self.note, "pending": self.pending_deal}

    def tones(self):
        """The buzzer as the page plays it: how many tones this boot's piezo heard (seq) and
        the last few, [ms, "tick" | "buzz"] (firmware/hardware/buzzer.py; boards/simdev/piezo.py)."""
        w = self.world
        heard = w.buzzer.tones if w is not None else []
        return {"seq": len(heard), "boots": self.boots, "last": [list(t) for t in heard[-4:]]}

    def state(self, full=True):
        """What the page shows, as JSON-ready data (full: with the panels, the whole log
        and the table's layout; else only the small parts that change)."""
        st = {"deal": self.deal_lines or self.last_deal_lines, "ledger": self.ledger,
              "shoe": self.shoe(), "powered": self.powered, "boots": self.boots,
              "prompt": self.prompt, "tones": self.tones()}
        if full:
            log, seq = self.log_since(0)
            st.update({"labels": self.labels, "indices": self.indices,
                       "panels": {str(i): p.as_json() for i, p in self.panels.items()},
                       "log": log, "log_seq": seq, "preset": self.preset,
                       "seats": self.seats, "casino": self.casino})
        return st

    # ------------------------------------------------------------------ VM thread
    def _run(self):
        while not self.closed:
            if self.powered:
                self._boot_and_serve()
                continue
            self.wake.wait(0.5)
            self.wake.clear()
            self._run_actions()
        self._run_actions()

    def _boot_and_serve(self):
        vm = R.VM(self.flash, heap=self.heap)
        vm.on_line = self._output
        self.steps = []
        self.down = {}
        self.pending_deal = False
        self.boots += 1
        t0 = [time.monotonic()]
        last = [0.0]

        def on_tick(now):
            if self.actions:
                self._run_actions()
            while self.steps and self.steps[0][0] <= now:
                self.steps.pop(0)[1]()
            if now - last[0] >= 2 or now < last[0]:
                last[0] = now
                self._watch()
                if self.auto_deal and not self.pending_deal and self.powered:
                    if not self._card_wanted():
                        self.due_since = None
                    elif self.due_since is None:
                        self.due_since = now
                    elif now - self.due_since >= AUTO_WAIT_MS:
                        self.due_since = None
                        self._deal(None)
                if self.speed > 0:
                    ahead = now / 1000 / self.speed - (time.monotonic() - t0[0])
                    if ahead > 0.004:
                        time.sleep(min(ahead, 0.05))
                    elif ahead < -0.5:
                        t0[0] = time.monotonic() - now / 1000 / self.speed  # catch up, no burst

        vm.on_tick = on_tick
        vm.boot()
        self.world = vm.world
        self.vm = vm
        self._say("# power on: the firmware boots from its flash (%s)"
                  % os.path.relpath(self.flash, ROOT))
        vm.run()                         # until the VM stops: 'halt', a crash, the plug
        self.vm = None
        if self.powered:                 # the VM stopped by itself ('halt' or a crash)
            self.powered = False
            self._say("# the firmware stopped (exit status %s): power on to boot it again"
                      % vm.rc)
        self._watch()
        self.on_change("power")

    def _card_wanted(self):
        """A card is due, or is what starts the next deal (table, classic)."""
        e = self.engine
        if e is None or e.finished():
            return False
        if e.card_due():
            return True
        return (e.phase == E.PH_IDLE and not e.casino and not e.want_shuffle
                and not e.need_kitty)

    def _run_actions(self):
        while True:
            with self.lock:
                if not self.actions:
                    return
                fn = self.actions.popleft()
            fn()

    def _say(self, line):
        with self.lock:
            self.log.append(line)
            self.log_seq += 1
        self.on_change("log")

    def log_since(self, seq):
        """(serial lines after the seq-th, the current seq) for another thread."""
        with self.lock:
            new = min(self.log_seq - seq, len(self.log))
            lines = list(self.log)[len(self.log) - new:] if new > 0 else []
            return lines, self.log_seq

    def _output(self, line):
        self._say(line)
        if line.startswith("> "):
            self.prompt = line[2:]
        if line.startswith(S.NEW_SESSION):
            # the journal's header, as the firmware writes it with the first event
            self.session_head = line[len(S.NEW_SESSION):].split(", ")
            self.engine = None
            self.jlines = []
        n = S.acked_at(line)             # (a new session: at #0)
        if n is not None:
            self.acked = n
            self._sync_journal()
            if line.startswith("#") or "undo" in line:
                self._rebuild_deal_lines()
            else:
                self.deal_lines.append(line)
            self.pending_deal = False
            self.on_change("shoe")
        elif line.startswith("# deal ") and (" over" in line or " void" in line):
            self.deal_lines.append(line)
            self.last_deal_lines = self.deal_lines
            self.deal_lines = []
        elif line.startswith("# session over"):
            self.last_deal_lines = self.deal_lines or self.last_deal_lines
            self.deal_lines = []
        elif line.startswith("!") and self.pending_deal:
            self.pending_deal = False
            self.on_change("shoe")
        return True

    def _rebuild_deal_lines(self):
        """After a resume or an UNDO: the deal's events so far, said as the firmware says
        them (never naming a face-down card: the journal does, so it is not shown)."""
        e = self.engine
        self.deal_lines = []
        if e is not None and e.in_deal():
            # (e.deals counts the deal in progress, as `status` and the banker's display do)
            self.deal_lines = ["# deal %d in progress: %d events so far (resumed)"
                               % (e.deals, len(self.jlines) - self.deal_from)]

    def _sync_journal(self):
        """Replay the journal into the dealer's engine and the ledger (the replayer)."""
        path = os.path.join(self.flash, "journal.txt")
        if not os.path.exists(path):
            files = S.history_files(self.flash)
            path = files[-1] if files and not self.session_head else None
        if path is None:
            lines = list(self.session_head)       # a new session, no event yet
        else:
            if path.endswith("journal.txt"):
                text = S.journal_text(self.flash).decode()   # journal.txt and its tail
            else:
                with open(path) as f:
                    text = f.read()
            lines = [ln for ln in text.splitlines() if strip(ln)]
        if lines[:len(self.jlines)] != self.jlines or self.engine is None:
            head = [ln for ln in lines if strip(ln)[0] in HEADER_WORDS]
            try:
                self.engine = S.shadow(head, [], 0)
            except Exception:
                return
            self.jlines = list(head)
            self.deal_from = len(head)
            self.deck = Deck(self.engine.packs, seed=self.deck_seed)
        for ln in lines[len(self.jlines):]:
            ev = parse_event(strip(ln))
            was = self.engine.in_deal()
            if self.engine.apply(*ev) is None:
                self.jlines.append(ln)
                if not was and self.engine.in_deal():
                    self.deal_from = len(self.jlines) - 1     # the deal's first event
                if ev[0] == E.EV_CARD:
                    self.deck.deal(ev[3])
                self.deck.follow(self.engine, ev[0] == E.EV_SHUFFLE)
        if path is None:
            self.ledger = None
            self.on_change("ledger")
            return
        try:
            led = S.ledger(path)
            # a deal in progress lists its hands' cards: only finished deals are shown
            led["deals"] = [d for d in led["deals"] if "net" in d]
            for d in led["deals"]:
                d.pop("hands", None)
                d.pop("banker_hand", None)
            self.ledger = led
        except Exception as x:       # a torn journal is the firmware's to repair
            self.ledger = {"error": str(x)}
        self.on_change("ledger")

    def _watch(self):
        changed = False
        w = self.world
        heard = len(w.buzzer.tones) if w is not None else 0
        if heard != self.heard:
            self.heard = heard
            changed = True
        for i in self.indices:
            d = w.displays[i] if w is not None else None
            tx = (d.stats.transactions, self.powered, id(w), d.on, d.inverse, d.entire_on,
                  d.contrast, d.start_line, d.seg_remap, d.com_flip) if d is not None else None
            if tx is not None and self.tx.get(i) == tx:
                continue                 # no bus traffic to it: nothing can have changed
            self.tx[i] = tx
            p = Panel(d, self.powered)
            old = self.panels.get(i)
            if old is None or old.key() != p.key():
                p.version = (old.version + 1) if old else 1
                self.panels[i] = p
                changed = True
        if changed:
            self.on_change("panels")

    # --- buttons
    def _now(self):
        return self.world.clock.ms() if self.world is not None else 0

    def _at(self, t, fn):
        self.steps.append((t, fn))
        self.steps.sort(key=lambda s: s[0])

    def _press(self, name, hold):
        if not self._alive():
            return
        i = BUTTONS.index(name)
        t = max([self._now()] + [s[0] for s in self.steps])
        btn = self.world.buttons[i]
        self._at(t, btn.press)
        self._at(t + hold, btn.release)

    def _down(self, name):
        if not self._alive():
            return
        self.world.buttons[BUTTONS.index(name)].press()
        self.down[name] = self._now()

    def _up(self, name):
        if not self._alive() or name not in self.down:
            return
        btn = self.world.buttons[BUTTONS.index(name)]
        self._at(max(self._now(), self.down.pop(name) + HOLD_MS), btn.release)

    def _alive(self):
        if self.vm is None or not self.powered:
            self.note = "the shoe has no power: 'power on' first"
            self.on_change("shoe")
            return False
        return True

    def _line(self, line):
        if not self._alive():
            return
        self._say("< " + line)
        self.vm.send(line)

    # --- the dealer
    def _tag(self, code=None):
        """The sticker of the deck's top card (a card the table does not take stays on top:
        the dealer deals it again), or of the card `code` picked (its first copy from the
        top, else the one on the table: the same sticker again)."""
        if self.deck is None:
            self.deck = Deck(1, seed=self.deck_seed)
        card = self.deck.top() if code is None else self.deck.find(code)
        return card.tag if card is not None else None

    def _next_tags(self, n):
        """The stickers of the next n cards pulled from the shoe (None: fewer left). A card
        dealt that the table has not taken yet has left the shoe already, though the deck
        moves only when the journal says it was taken: the next cards are the ones under
        it (else a card pulled while the last one is read would be that one again)."""
        self._tag()                      # the deck, made on first use
        shoe = self.deck.shoe
        skip = 1 if self.pending_deal and shoe and shoe[0].tag == self.last_tag else 0
        cards = shoe[skip:skip + n]
        return [c.tag for c in cards] if len(cards) == n else None

    def _put(self, tag, dwell=DWELL_MS):
        pn = self.world.pn532
        pn.put(tag)
        self._at(self._now() + dwell, lambda: pn.remove(tag))

    def _deal(self, code):
        if not self._alive():
            return
        if code is None:
            e = self.engine
            if e is None:
                self.note = "the table is not ready for cards yet"
                self.on_change("shoe")
                return
            code = autoplay.Autoplayer(e, deck=self.deck).draw()
            if code < 0:
                self.note = "the shoe is empty here: the table wants a shuffle or a void"
                self.on_change("shoe")
                return
            self.note = "dealt the next card from the shoe"
        else:
            # not named: the page is seen by the whole table, and the card may be face down
            self.note = "dealt the card you picked"
        tag = self._tag(code)
        self._put(tag)
        self.last_tag = tag
        self.pending_deal = True
        self.on_change("shoe")

    def _anomaly(self, kind):
        if not self._alive():
            return
        if kind == "again":
            if self.last_tag is None:
                self.note = "no card has passed the reader yet"
            else:
                self._put(self.last_tag)
                self.note = "the last card's tag went past the reader again"
        elif kind == "two":
            # two new cards at once: whatever card was still passing has left the field
            # (else the PN532, which lists two targets at most, sees the old and one new)
            for tag in list(self.world.pn532.field):
                self.world.pn532.remove(tag)
            tags = self._next_tags(2)
            if tags is None:
                self.note = "fewer than two cards in the shoe"
                self.on_change("shoe")
                return
            for tag in tags:
                self._put(tag)
            self.note = "two cards slid into the field together"
        else:
            tags = self._next_tags(1)
            if tags is None:
                self.note = "the shoe is empty"
                self.on_change("shoe")
                return
            tag = tags[0]
            # gone after the first exchange with it: detected, never read
            self.world.pn532.fault_tag_leaves_after(tag, 0)
            self._put(tag)
            self.note = "a card was pulled through too fast to be read"
        self.on_change("shoe")

    # --- casino keys
    def _same_bets(self):
        """Space in casino: the last round's stakes again, as serial lines."""
        e = self.engine
        if e is None or not self.casino:
            self.note = "same bets: only in casino"
            self.on_change("shoe")
            return
        if e.phase not in (E.PH_IDLE, E.PH_BETS) or e.in_deal():
            self.note = "same bets: between rounds"
            self.on_change("shoe")
            return
        stakes = self._last_stakes()
        if not stakes:
            self.note = "no earlier round to repeat: type the bets"
            self.on_change("shoe")
            return
        for seat, amount in stakes:
            self._line("stake %d %d" % (seat, amount))

    def _last_stakes(self):
        out = []
        for ln in reversed(self.jlines):
            w = strip(ln)
            if w[0] in HEADER_WORDS:
                break
            ev = parse_event(w)
            if ev[0] == E.EV_STAKE:
                out.append((ev[1], ev[2]))
            elif out:
                break
        return list(reversed(out))

    def _bet(self, amount):
        e = self.engine
        seat = 0
        if e is not None and e.phase in (E.PH_IDLE, E.PH_BETS, E.PH_STAKES):
            seat = V.acting_seat(e)
        if not seat:
            self.note = "no stake is due now"
            self.on_change("shoe")
            return
        self._line("stake %d %d" % (seat, amount))

    # --- power
    def _cut(self, why):
        if self.vm is None:
            return
        self.powered = False
        self.vm.proc.kill()
        self._say("# %s: the firmware stops where it is; its flash is kept" % why)
        self._watch()

    def _power_on(self):
        if self.powered:
            self.note = "the shoe is already on"
            self.on_change("shoe")
            return
        self.powered = True
        self.note = ""
        self.on_change("power")


# --------------------------------------------------------------------------- terminal
HALF = (" ", "\u2580", "\u2584", "\u2588")           # top pixel, bottom pixel
BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))   # [dy][dx]


def panel_halfblocks(p):
    """A panel as height/2 lines of 128 characters: two pixel rows per character."""
    rows = panel_levels(p)
    out = []
    for y in range(0, len(rows), 2):
        top, bot = rows[y], rows[y + 1]
        out.append("".join(HALF[top[x] | (bot[x] << 1)] for x in range(128)))
    return out


def panel_braille(p):
    """A panel as height/4 lines of 64 Braille characters: 2 x 4 pixels per character."""
    rows = panel_levels(p)
    out = []
    for y in range(0, len(rows), 4):
        line = []
        for x in range(0, 128, 2):
            v = 0
            for dy in range(4):
                r = rows[y + dy]
                if r[x]:
                    v |= BRAILLE_BITS[dy][0]
                if r[x + 1]:
                    v |= BRAILLE_BITS[dy][1]
            line.append(chr(0x2800 + v))
        out.append("".join(line))
    return out


def text_of(p):
    """The panel's lines of text (decoded with the firmware's font) as the panel lights
    them: a dark panel has none."""
    from hardware.font5x7 import FONT
    from boards.simdev.ssd1306 import SSD1306
    rows = panel_levels(p)
    d = SSD1306(128, p.height)
    d.ram[:] = bytes(len(d.ram))     # a decoding canvas: lit where the panel is lit
    d.on = True
    for y in range(len(rows)):
        bit = 1 << (y & 7)
        base = (y >> 3) * 128
        for x in range(128):
            if rows[y][x]:
                d.ram[base + x] |= bit
    return d.text_rows(FONT)[0]


# (name, characters wide, lines per 64-pixel panel, renderer)
VIEWS = (("pixels", 128, 32, panel_halfblocks), ("braille", 64, 16, panel_braille),
         ("text", 21, 8, None))


def terminal_view(n_panels, cols, rows, log_room=6):
    """The densest view whose tiles fit the terminal: (name, panels per row, width, lines,
    renderer)."""
    for name, w, h, fn in VIEWS:
        per_row = min(3, cols // (w + 3))
        if per_row < 1:
            continue
        grid = -(-n_panels // per_row)
        if grid * (h + 2) + log_room + 3 <= rows or name == "text":
            return name, per_row, w, h, fn
    return VIEWS[-1][0], 1, 21, 8, None


def render_terminal(table, cols, rows, line=None, keys_hint=True):
    """The terminal's screen as lines: the displays (pixel-true when the terminal has room,
    else their text), a status line, the log's last lines and the input line."""
    labels = table.labels
    idx = table.indices
    name, per_row, w, h, fn = terminal_view(len(idx), cols, rows)
    out = []
    for r in range(0, len(idx), per_row):
        group = idx[r:r + per_row]
        out.append(" ".join(("+" + labels[idx.index(i)].center(w, "-") + "+") for i in group))
        bodies = []
        for i in group:
            p = table.panels[i]
            body = fn(p) if fn else [t.ljust(21)[:21] for t in text_of(p)]
            body = (body + [" " * w] * h)[:h]
            bodies.append(body)
        for k in range(h):
            out.append(" ".join("|" + b[k] + "|" for b in bodies))
        out.append(" ".join("+" + "-" * w + "+" for _ in group))
    shoe = table.shoe()
    status = "power %s | %s | shoe %d left%s | %s" % (
        "on" if table.powered else "OFF", table.prompt or "-", shoe["left"],
        ", card due" if shoe["due"] else "", shoe["note"])
    out.append(status[:cols])
    room = max(1, rows - len(out) - 3)
    out.extend(ln[:cols] for ln in table.log_since(0)[0][-room:])
    if keys_hint:
        k = "keys: " + " ".join("%s %s" % (k, a.split(" (")[0]) for k, _, _, a in KEYS)
        k += " | CAPITAL long press, Enter OK, / type a line, ^P plug, ^O power on, ^C quit"
        if table.casino:
            k += " | Space same bets, 0-9 bet, Esc leave"
        out.append(k[:cols])
    if line is not None:
        out.append(("line> " + line)[:cols])
    return out
