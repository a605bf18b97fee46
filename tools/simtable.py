"""The simulated table around the firmware: scripted players, the dealer with a physical
deck of stickered cards (boards/simdev/deck.py), and the screens, for tools/sim.py,
tools/bench_app.py and the tests.

The firmware runs on any backend of tools/runner.py (CPython, the MicroPython VM, the
virtual Pico). Whichever runs it, a `Driver` plays a scripted session (transcript events from
tools/autoplay.py, decided by a shadow engine): it presses the simulated buttons, types
serial lines, and puts the next card's tag into the PN532 field when a card is due (and
takes it out once the firmware has taken it). It follows the firmware through its serial
lines ("ok #N", "* #N", "# resume #N"), so it survives power cuts and restarts.
"""
import os
import random
import re
import shutil
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if p not in sys.path:
        sys.path.insert(0, p)

import autoplay  # noqa: E402
from game import engine as E  # noqa: E402
from boards import sim  # noqa: E402
from boards.simdev.buttons import Finger  # noqa: E402
from boards.simdev.deck import Deck  # noqa: E402
from game.cards import card_name  # noqa: E402,F401 - (callers use S.card_name)
from hardware.font5x7 import FONT  # noqa: E402
from panel import Panel, panel_image  # noqa: E402
from game.rules import parse_rules  # noqa: E402
from game.transcript import Header, parse_event, strip  # noqa: E402

BUTTONS = ("STICK", "TWIST", "BUY", "SPLIT", "MINUS", "PLUS", "OK", "UNDO")
B = {name: i for i, name in enumerate(BUTTONS)}
NEW_SESSION = "# new session: "          # a session with no event yet: at #0
# (the last: lines dropped while the host did not read, firmware/hardware/serial_out.py)
ACK = re.compile(r"^(?:ok|\*) #(\d+) |^# resume #(\d+)|^(?:ok|\*) undo: back at #(\d+)"
                 r"|^# serial: \d+ lines dropped .*; at #(\d+)$")


def acked_at(line):
    """The number of events the firmware says it holds in this line, or None."""
    m = ACK.match(line)
    if m:
        return int(m.group(1) or m.group(2) or m.group(3) or m.group(4))
    return 0 if line.startswith(NEW_SESSION) else None


def shoe_packs(rules, seats, banker=0):
    """How many packs the engine's shoe holds for these rules and seats."""
    h = Header()
    h.rules = rules
    h.seats = seats
    h.banker = 0 if rules.preset == 2 else banker
    return h.engine().packs


def script_session(preset="table", seats=4, seed=1, banker=0, deals=0, options=()):
    """(header lines, event lines) of a session decided by the autoplayer, its cards dealt
    from the physical deck Deck(packs, seed) (a Driver with the same seed deals the same
    stickers in the same order)."""
    rules = parse_rules([preset] + list(options))
    deck = Deck(shoe_packs(rules, seats, banker), seed=seed)
    lines = autoplay.play_session(rules, seats, seed=seed, banker=banker, deals=deals,
                                  deck=deck)
    head = [ln for ln in lines if strip(ln)[0] in ("rules", "seats", "banker", "packs")]
    return head, lines[len(head):]


def settings_text(preset, seats, banker=0, options=()):
    out = ["preset = %s" % preset, "seats = %d" % seats,
           "banker = %s" % (banker if banker else "cut")]
    for opt in options:
        k, v = opt.split("=")
        out.append("%s = %s" % (k, v))
    return "\n".join(out) + "\n"


def deal_plan(head, events, deck):
    """{event index: the physical card (deck.Card)} for every card event of the script,
    dealt from `deck` as the table takes them (a card the deck does not have on top was
    stacked there by whoever wrote the script: deck.stacked counts them)."""
    e = shadow(head, events, 0)
    plan = {}
    for k, line in enumerate(events):
        ev = parse_event(strip(line))
        if e.apply(*ev) is not None:
            break                       # (a script that goes wrong: its card stays unplanned)
        if ev[0] == E.EV_CARD:
            plan[k] = deck.deal(ev[3])
        deck.follow(e, ev[0] == E.EV_SHUFFLE)
    return plan


def shadow(head, events, n):
    h = Header()
    for line in head:
        h.take(strip(line))
    e = h.engine()
    for line in events[:n]:
        ev = parse_event(strip(line))
        why = e.apply(*ev)
        assert why is None, (line, why)
    return e


BOOT_LIMIT_MS = 10000


class TableStopped(RuntimeError):
    """The firmware never started the session (a bad settings file stops the table)."""


class LostAction(RuntimeError):
    """Nothing came of a scripted action (a card not read, a press lost) and the driver
    may not do it again: a real table would have left the dealer waiting."""


LOST_AFTER_MS = 1500        # an action not acknowledged by then was lost
# the players' taps: real fingers (boards/simdev/buttons.Finger, with contact bounce), held
# for as long as the firmware promises to take a tap (tools/bench_fingers.py) up to a
# deliberate press
HOLDS_MS = (40.0, 200.0)


class Driver:
    """Plays `events` (transcript lines) on the simulated table."""

    def __init__(self, head, events, seed=1, serial_share=0.25, think_ms=40, hold_ms=None,
                 log=None, deal_ms=0, dwell_ms=40, deck=None, retry=False, gap_ms=70):
        self.head = head
        self.events = events
        self.rng = random.Random(seed)
        # the dealer's physical deck (by default the one script_session(seed) dealt from)
        self.deck = deck or Deck(shadow(head, events, 0).packs, seed=seed)
        self.cards = deal_plan(head, events, self.deck)
        self.serial_share = serial_share
        self.think = think_ms
        # every press a finger's: its hold drawn from HOLDS_MS (or `hold_ms` when given),
        # bouncing as the contact closes and opens; `gap_ms` between two presses
        self.finger = Finger(seed * 7 + 3, holds=HOLDS_MS)
        self.hold = hold_ms
        self.gap = gap_ms
        self.log = log
        self.acked = -1             # unknown until "# resume #N" or "# new session: " (#0)
        self.planned = -1           # event index the current action is for
        self.steps = []             # [(time ms, fn)]
        self.action_at = 0
        self.world = None
        self.push_line = None
        self.in_field = None
        self.errors = []            # refusals seen ("error:" / "!")
        self.output = []
        self.seen = []              # (events acknowledged, line) for every output line
        self.done = False
        self.halted = False
        self.ready_at = 0
        self.on_action = None       # callback(index) before an action starts (frames)
        self.put_at = {}            # event index -> ms the card's tag entered the field
        self.ack_at = {}            # event index -> ms the firmware acknowledged it
        self._shadow = None
        self._shadow_n = -1
        # a lost action is done again only when `retry` (the tests about lost cards);
        # otherwise it stops the session with LostAction. Either way it is counted.
        self.retry = retry
        self.retries = 0
        self.stepped_at = 0         # when the last scripted step ran
        self.boot_ms = 1000
        self.booted_at = 0
        # a fast dealer: cards slide through the field every deal_ms (at the soonest) and
        # stay dwell_ms whether or not they were read (0: each card stays until it is read)
        self.deal_ms = deal_ms
        self.dwell_ms = dwell_ms
        self.last_put = -1e9
        self.leaving = []           # [(ms, tag)] fast-dealt tags to take out of the field

    def attach(self, world, push_line):
        """A (new) board after a boot or a power cut."""
        self.world = world
        self.push_line = push_line
        self.booted_at = world.clock.ms()
        self.steps = []
        self.planned = -1
        self.acked = -1
        self.in_field = None

    # ----------------------------------------------------------- firmware output
    def on_output(self, line):
        self.output.append(line)
        if self.log:
            self.log(line)
        n = acked_at(line)
        if n is not None:
            booted = self.acked < 0
            self.acked = n
            now = self.world.clock.ms() if self.world else 0
            self.ack_at.setdefault(n - 1, now)
            # after a boot, the players wait for every display to show the table (the first
            # frame of `make sim` is then the whole table, not one half-drawn panel)
            self.ready_at = now + (self.boot_ms if booted else self.think)
        elif line.startswith("error:") or line.startswith("!"):
            self.errors.append((self.acked, line))
        self.seen.append((self.acked, line))

    # ----------------------------------------------------------- helpers
    def engine_at(self, n):
        if self._shadow is None or self._shadow_n > n:
            self._shadow = shadow(self.head, self.events, 0)
            self._shadow_n = 0
        while self._shadow_n < n:
            ev = parse_event(strip(self.events[self._shadow_n]))
            self._shadow.apply(*ev)
            self._shadow_n += 1
        return self._shadow

    def tag_for(self, k):
        """The sticker of event k's card: the physical card the deck deals there."""
        return self.cards[k].tag

    def _press(self, t, name, hold=None):
        """Button `name` pressed by a finger from t (held `hold` ms, else drawn); returns
        when the next press may start."""
        i = B[name]
        edges = self.finger.edges(hold or self.hold)
        for dt, level in edges:
            if level:
                self.steps.append((t + dt, lambda: self.world.buttons[i].release()))
            else:
                self.steps.append((t + dt, lambda: self.world.buttons[i].press()))
        return t + edges[-1][0] + self.gap

    def _remove_tag(self):
        if self.in_field is not None:
            self.world.pn532.remove(self.in_field)
            self.in_field = None

    # ----------------------------------------------------------- planning
    def plan(self, now):
        k = self.acked
        line = self.events[k]
        words = strip(line)
        ev, seat, amount, card = parse_event(words)
        e = self.engine_at(k)
        self.planned = k
        self.action_at = now
        if self.on_action:
            self.on_action(k)
        t = now
        if ev == E.EV_CARD and self.deal_ms:
            tag = self.tag_for(k)
            at = max(t, self.last_put + self.deal_ms)
            self.last_put = at

            def slide(tag=tag, at=at):
                # the card enters the field at `at` even when this runs later (the board's
                # clock jumped: a flash erase stalls the Pico's CPU, not the dealer's hand)
                self.world.pn532.put(tag, since_ns=int(at * 1e6))
                self.put_at[k] = at
                self.leaving.append((at + self.dwell_ms, tag))
            self.steps.append((at, slide))
            return
        if ev == E.EV_CARD:
            tag = self.tag_for(k)

            def put(tag=tag):
                self._remove_tag()
                self.world.pn532.put(tag)
                self.in_field = tag
                self.put_at[k] = self.world.clock.ms()
            self.steps.append((t, put))
            return
        buttons = None
        if self.rng.random() >= self.serial_share:
            if ev == E.EV_STAKE:
                buttons = ["PLUS"] * (amount - e.rules.stake_min) + ["OK"]
            elif ev == E.EV_BUY:
                buttons = ["BUY"] + ["PLUS"] * (amount - e.initial_stake(seat)) + ["OK"]
            elif ev == E.EV_TWIST:
                buttons = ["TWIST"]
            elif ev == E.EV_STICK or ev == E.EV_STAND:
                buttons = ["STICK"]
            elif ev == E.EV_SPLIT:
                buttons = ["SPLIT"]
            elif ev == E.EV_SHUFFLE:
                buttons = ["OK"]
            elif ev == E.EV_DOUBLE and e.casino:
                buttons = ["BUY"]
            elif ev == E.EV_KITTY and e.need_kitty and amount >= e.rules.kitty_min:
                buttons = ["PLUS"] * (amount - e.rules.kitty_min) + ["OK"]
        if buttons is None:
            self.steps.append((t, lambda: self.push_line(line)))
            return
        for name in buttons:
            t = self._press(t, name)

    def poll(self, now):
        """Run due steps; plan the next action when the firmware has caught up."""
        while self.steps and self.steps[0][0] <= now:
            _, fn = self.steps.pop(0)
            fn()
            self.stepped_at = now
        while self.leaving and self.leaving[0][0] <= now:
            self.world.pn532.remove(self.leaving.pop(0)[1])
        if self.acked < 0:
            if now - self.booted_at > BOOT_LIMIT_MS:     # a stopped table never resumes
                raise TableStopped("the table did not start within %d s (simulated): %s" % (
                    BOOT_LIMIT_MS // 1000, next((x for x in reversed(self.output)
                                                 if x.startswith("error:")), "no error line")))
            return
        if self.in_field is not None and self.acked > self.planned >= 0:
            self._remove_tag()
        if self.acked >= len(self.events):
            if not self.done and not self.steps and now >= self.ready_at:
                self.done = True
            return
        if self.steps or now < self.ready_at:
            return
        if self.planned == self.acked:
            # nothing came of the action: a card that was not read, a lost press
            # (counted from the action's last step: a menu walk takes its time)
            if now - max(self.action_at, self.stepped_at) > LOST_AFTER_MS:
                self.retries += 1
                if not self.retry:
                    raise LostAction("event %d (%s) was not taken within %d ms and the "
                                     "driver does not redo actions; last lines:\n%s"
                                     % (self.acked + 1, self.events[self.acked],
                                        LOST_AFTER_MS, "\n".join(self.output[-12:])))
                if self.retries > 20:
                    raise RuntimeError("the table does not take event %d (%s); last lines:\n%s"
                                       % (self.acked + 1, self.events[self.acked],
                                          "\n".join(self.output[-12:])))
                self._remove_tag()
                self.planned = -1
                self.ready_at = now + 100
            return
        self.plan(now)


# --------------------------------------------------------------------------- screens
def display_text(d):
    """(lines, inverted flags) of an SSD1306 model, decoded with the firmware's font."""
    return d.text_rows(FONT)


class Screens:
    """Watches the display models; keeps the decoded text of each and table frames."""

    def __init__(self, seats, banker_label="Banker"):
        self.seats = min(seats, 8)
        self.indices = list(range(self.seats)) + [8]
        self.labels = ["Seat %d" % (i + 1) for i in range(self.seats)] + [banker_label]
        self.text = {}
        self.inv = {}
        self.tx = {}
        self.history = []          # (time ms, display index, lines) every change

    def watch(self, world):
        changed = False
        for i in self.indices:
            d = world.displays[i]
            n = d.stats.transactions
            if self.tx.get(i) == n:
                continue
            self.tx[i] = n
            lines, inv = display_text(d)
            if lines != self.text.get(i) or inv != self.inv.get(i):
                self.text[i] = lines
                self.inv[i] = inv
                self.history.append((world.clock.ms(), i, lines))
                changed = True
        return changed

    def reset(self):
        self.tx = {}

    def tiled_text(self, ansi=False):
        cols = 3
        out = []
        idx = self.indices
        for r in range(0, len(idx), cols):
            row = idx[r:r + cols]
            out.append("  ".join("+-%s-+" % self.labels[idx.index(i)].center(21, "-")
                                 for i in row))
            for k in range(8):
                parts = []
                for i in row:
                    lines = self.text.get(i, [""] * 8)
                    text = (lines[k] if k < len(lines) else "").ljust(21)[:21]
                    if ansi and self.inv.get(i, [False] * 8)[k]:
                        text = "\x1b[7m" + text + "\x1b[0m"
                    parts.append("| %s |" % text)
                out.append("  ".join(parts))
            out.append("  ".join("+" + "-" * 23 + "+" for _ in row))
        return "\n".join(out)


def table_image(world, screens, scale=2, caption=""):
    """All displays tiled and labelled, as a Pillow image (mode 'P', 2 colours + label)."""
    from PIL import Image, ImageDraw
    cols = 3
    idx = screens.indices
    rows = (len(idx) + cols - 1) // cols
    pad = 2 * scale                      # dark margin inside each border: text never touches it
    tw, th = 128 * scale + 2 * pad + 10, 64 * scale + 2 * pad + 20
    img = Image.new("P", (cols * tw + 8, rows * th + 8 + (14 if caption else 0)), 0)
    img.putpalette([16, 16, 24, 120, 200, 255, 150, 150, 150] + [0] * 759)
    draw = ImageDraw.Draw(img)
    for n, i in enumerate(idx):
        x0 = 8 + (n % cols) * tw
        y0 = 8 + (n // cols) * th
        draw.text((x0, y0), screens.labels[n], fill=2)
        d = world.displays[i]
        panel = panel_image(Panel(d))
        panel = panel.resize((128 * scale, 64 * scale), Image.NEAREST)
        img.paste(1, (x0 + pad, y0 + 12 + pad), panel)
        draw.rectangle((x0 - 1, y0 + 11, x0 + 128 * scale + 2 * pad,
                        y0 + 12 + 64 * scale + 2 * pad), outline=2)
    if caption:
        draw.text((8, rows * th + 6), caption, fill=2)
    return img


# --------------------------------------------------------------------------- runners
def fresh_flash(path, settings=None):
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    if settings is not None:
        with open(os.path.join(path, "settings.txt"), "w") as f:
            f.write(settings)


def card_seat(e):
    """The player whose seat display shows the card the engine expects next (a deal's
    first card included; not the cut's), else -1."""
    seat = e.card_seat()
    return seat if seat > 0 and e.phase != E.PH_CUT else -1


def ledger(path):
    """The replayer's JSON for a journal / history file (tools/replay.py on CPython)."""
    import io
    import json

    import tempfile

    import replay
    buf = io.StringIO()
    if os.path.basename(path) == "journal.txt":
        # the session in progress: journal.txt and the lines still in its tail (jtail/)
        text = journal_text(os.path.dirname(path) or ".")
        with tempfile.TemporaryDirectory() as tmp:
            whole = os.path.join(tmp, "journal.txt")
            with open(whole, "wb") as f:
                f.write(text or b"")
            replay.main(["replay.py", whole], out=buf)
    else:
        replay.main(["replay.py", path], out=buf)
    return json.loads(buf.getvalue())


def journal_text(flash, raw_flash=None):
    """The journal as the firmware reads it: journal.txt, then the lines of the tail file
    jtail/lines.txt when it continues journal.txt (firmware/ledger/journal.py), or of the tail in
    raw_flash (firmware/ledger/raw_journal.py, on a copy of it: a boot's recovery writes)."""
    if raw_flash is not None:
        import copy
        from ledger.raw_journal import RawJournal
        j = RawJournal(copy.deepcopy(raw_flash), flash.rstrip("/") + "/")
        if not os.path.exists(os.path.join(flash, "journal.txt")):
            return None
        j.recover()
        return b"".join(j.lines())
    try:
        with open(os.path.join(flash, "journal.txt"), "rb") as f:
            main = f.read()
    except FileNotFoundError:
        return None
    try:
        with open(os.path.join(flash, "jtail", "lines.txt"), "rb") as f:
            head, _, body = f.read().partition(b"\n")
    except FileNotFoundError:
        return main
    if head == b"@%d" % len(main):
        return main + body
    return main


def history_files(flash):
    """The kept sessions' history files (NNNN.txt: not what the web part made of them)."""
    h = os.path.join(flash, "history")
    if not os.path.isdir(h):
        return []
    return sorted(os.path.join(h, n) for n in os.listdir(h)
                  if len(n) == 8 and n.endswith(".txt") and n[:4].isdigit())


def now_real():
    return time.monotonic()
