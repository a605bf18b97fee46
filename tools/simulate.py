#!/usr/bin/env python3
"""Monte Carlo Pontoon: many deals played through the real engine (firmware/game/engine.py).

Every stake, card and action is an `Engine.apply` event; a rejected event is a bug in the
simulator or the engine and aborts the run (exit 1) with the event and the engine's reason.
Cards come from the engine's own shoe model, as tools/autoplay.py draws them: a card picked
at random from the top layer of the shoe (the unknown-order rest of the pack above the cards
that went under it, RULINGS "Shoe and card tracking"), so the run plays real shoe depletion;
a `shuffle` is sent whenever the engine wants one (N1, N3). `--reshuffle-every-deal` starts a
fresh engine before each deal instead (the engine starts with a freshly shuffled shoe and
accepts a `shuffle` only when it asks for one), so every deal sees a full shoe.

Players follow tools/strategies.py (`stick-on-N`, `basic` for casino); the banker of
`table`/`classic` follows `draw-below-N` or `casino` (the casino dealer's K1 rule: he draws on
any 17 holding an ace, as the engine's casino dealer does by himself). Each player seat stakes
`--stake` units per deal.
In `table` a session ends after eight deals (T1): the next deal starts a new session with a
random first banker (the cut, B1, is not simulated). Seats: `casino` counts player seats
(1-7, the house deals); `table`/`classic` count every participant, the banker included
(2-8, as on the shoe: rules.seats_error), and "the players" are the seats other than that
deal's banker.

Report
------
* outcome frequencies: the players' final hands by kind (H1-H5; "dealer-pontoon" when the
  dealer's Pontoon ended the deal before anyone played, D4) and the dealer's/banker's final
  hand: pontoon, five-card-trick, a total (17..21 and, for a banker who stands lower, lower
  totals), bust, or "not-drawn" (every player hand had bust, so the dealer never played:
  RULINGS "Money"). `dealer_if_played` re-estimates the dealer's distribution as if every
  deal had been played out (the "not-drawn" deals are treated as missing at random: true
  when the players' decisions do not look at the dealer's cards, as in casino where both
  stay closed, 003), for comparison with tools/odds.py.
* EV for the players, from their deal nets (`Engine.deal_net`): per unit of initial stake
  (sum of nets / sum of initial stakes) and per unit of total amount at risk (sum of nets /
  sum of the hands' final stakes: initial stakes, split hands, buys and doubles). Both are
  ratio estimates over deals; their 95% confidence intervals use the normal approximation
  with the delta-method standard error over per-deal results:
  se = sqrt(sum((x_i - R*y_i)^2) / (n*(n-1))) / mean(y).
  Frequencies carry a standard error and a 95% interval from the normal approximation too
  (dealer: one outcome per deal; player hands: ratio over deals, since the hands of one
  deal share a shoe and a dealer).
* deals per second (and player hands per second) of the simulation loop.
* a PNG when asked (`--plot PATH`; `--plot-size`, default 1000x700) drawn with
  Pillow's ImageDraw: outcome frequency bars with 95% whiskers and the running EV with its
  95% band.

A progress bar goes to stderr (automatic on a terminal; `--progress` / `--no-progress`).
`--json` prints one JSON object on stdout. Bad input: exit 2 with a one-line message.

    python3 tools/simulate.py --preset casino --deals 100000 --seats 5 --strategy basic --seed 1
    python3 tools/simulate.py --preset table --seats 6 --strategy stick-on-16 \\
        --banker draw-below-17 --deals 20000 --json
"""
import argparse
import json
import math
import os
import random
import signal
import sys
import time
from array import array

import cli  # noqa: F401  (first: the project's Python; quiet when piped to head)

_here = os.path.dirname(os.path.abspath(__file__))
for _p in (_here, os.path.join(_here, "..", "firmware")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from game import engine as E  # noqa: E402
from game import hands as H  # noqa: E402
import strategies as S  # noqa: E402
from game.rules import RulesError, parse_rules, seats_error  # noqa: E402
from game.transcript import event_text  # noqa: E402

Z95 = 1.959963984540054
_CASINO = 2
_TABLE = 0
_MAX_EVENTS_PER_DEAL = 1000

PLAYER_KEYS = ("pontoon", "five-card-trick", "twenty-one", "ordinary", "bust",
               "dealer-pontoon")
_KIND_KEY = {H.KIND_PONTOON: "pontoon", H.KIND_FIVE_CARD_TRICK: "five-card-trick",
             H.KIND_TWENTY_ONE: "twenty-one", H.KIND_ORDINARY: "ordinary",
             H.KIND_BUST: "bust", H.KIND_ROYAL_PONTOON: "royal-pontoon"}


class UsageError(Exception):
    """Bad input: exit 2 with this one-line message."""


class SimulationError(Exception):
    """The engine rejected an event the simulator produced: a bug (exit 1)."""


# ------------------------------------------------------------------ statistics

def ratio_ci(xs, ys, z=Z95):
    """R = sum(x)/sum(y) with its normal-approximation interval (delta method).

    Returns (R, se, (low, high)); se and the interval are None with fewer than 2 samples.
    """
    n = len(xs)
    sx = float(sum(xs))
    sy = float(sum(ys))
    if n == 0 or sy == 0:
        return None, None, None
    r = sx / sy
    if n < 2:
        return r, None, None
    ss = 0.0
    for x, y in zip(xs, ys):
        d = x - r * y
        ss += d * d
    se = math.sqrt(ss / (n * (n - 1))) / (sy / n)
    return r, se, (r - z * se, r + z * se)


def _ratio_from_sums(n, sx, sy, sxx, sxy, syy, z=Z95):
    """ratio_ci from running sums (for the running EV curve)."""
    if n < 2 or sy == 0:
        return (sx / sy if sy else 0.0), None
    r = sx / sy
    ss = max(0.0, sxx - 2.0 * r * sxy + r * r * syy)
    return r, math.sqrt(ss / (n * (n - 1))) / (sy / n)


def proportion(count, n, z=Z95):
    """p, se and the normal-approximation interval of count/n."""
    if n == 0:
        return {"count": count, "p": None, "se": None, "ci95": None}
    p = count / n
    se = math.sqrt(p * (1.0 - p) / n)
    return {"count": count, "p": p, "se": se, "ci95": [p - z * se, p + z * se]}


def dealer_if_played(counts, n):
    """Dealer distribution as if every deal were played out ("not-drawn" missing at random).

    P(pontoon) = c_pontoon / n; P(k) = (1 - P(pontoon)) * c_k / m for the other outcomes,
    m = deals played out without a Pontoon. Standard errors by the delta method (the two
    factors are treated as independent).
    """
    a_count = counts.get("pontoon", 0)
    out = {"pontoon": proportion(a_count, n)}
    a = a_count / n if n else 0.0
    m = sum(c for k, c in counts.items() if k not in ("pontoon", "not-drawn"))
    for k in _dealer_order(counts):
        if k in ("pontoon", "not-drawn"):
            continue
        b = counts[k] / m if m else 0.0
        p = (1.0 - a) * b
        var = (b * b * a * (1.0 - a) / n if n else 0.0) + \
            ((1.0 - a) ** 2 * b * (1.0 - b) / m if m else 0.0)
        se = math.sqrt(var)
        out[k] = {"count": counts[k], "p": p, "se": se,
                  "ci95": [p - Z95 * se, p + Z95 * se]}
    return out


def _dealer_order(counts):
    totals = sorted(int(k) for k in counts if k.isdigit())
    keys = ["pontoon", "five-card-trick"] + [str(t) for t in totals] + ["bust", "not-drawn"]
    return [k for k in keys if k in counts]


# ------------------------------------------------------------------ the shoe

class Shoe:
    """The physical shoe, mirroring the engine's top layer (like Autoplayer.draw).

    Keeps the card codes of the engine's top layer in a list and picks one at random; the
    list is rebuilt from `engine.loc` whenever the engine's top layer or its card count no
    longer match (a shuffle, a new layer surfacing, cards going under into the top layer,
    a void), so the draw is O(1) instead of a scan of every copy.
    """

    def __init__(self, rng):
        self.rng = rng
        self.engine = None
        self.layer = -1
        self.cards = []
        self.rescans = 0

    def attach(self, engine):
        self.engine = engine
        self.layer = -1
        self.cards = []

    def draw(self):
        e = self.engine
        cards = self.cards
        if e.top_layer != self.layer or e.top_count != len(cards):
            top = e.top_layer
            loc = e.loc
            cards = self.cards = [i % 52 for i in range(len(loc)) if loc[i] == top] \
                if e.top_count else []
            self.layer = top
            self.rescans += 1
            if len(cards) != e.top_count:
                raise SimulationError("shoe model out of step with the engine: %d cards in "
                                      "layer %d, engine says %d" % (len(cards), top, e.top_count))
        n = len(cards)
        if n == 0:
            return -1
        i = self.rng.randrange(n)
        c = cards[i]
        cards[i] = cards[n - 1]
        cards.pop()
        return c


# ------------------------------------------------------------------ the simulation

class Simulation:
    def __init__(self, rules, seats, player, banker=None, packs=0, stake=1, seed=1,
                 reshuffle_every_deal=False, curve_points=200):
        self.rules = rules
        self.seats = seats
        self.packs = packs
        self.player = player
        self.banker = banker
        self.stake = stake
        self.seed = seed
        self.rng = random.Random(seed)
        self.shoe = Shoe(self.rng)
        self.reshuffle = reshuffle_every_deal
        self.casino = rules.preset == _CASINO
        self.engine = None
        self.shuffles = 0
        self.sessions = 0
        self.deals = 0
        self.voids = 0
        self.events = 0
        self.hands = 0
        self.x = array("d")  # players' net per deal
        self.s = array("d")  # players' initial stakes per deal
        self.r = array("d")  # players' final hand stakes per deal (amount at risk)
        self.hand_counts = array("d")  # player hands per deal
        self.player_keys = PLAYER_KEYS + (("royal-pontoon",) if rules.royal_pontoon else ())
        self.kind_per_deal = {k: array("d") for k in self.player_keys}
        self.dealer_counts = {}
        self.curve_points = curve_points
        self.curve = []  # (deals, ev, se)
        self._sums = [0.0] * 5  # sx, sy, sxx, sxy, syy

    def _new_engine(self):
        banker = 0 if self.casino else self.rng.randint(1, self.seats)
        try:
            self.engine = E.Engine(self.rules, self.seats, banker=banker, packs=self.packs)
        except ValueError as exc:
            raise UsageError(str(exc))
        self.shoe.attach(self.engine)
        self.sessions += 1

    def _apply(self, ev, seat=0, amount=0, card=0):
        why = self.engine.apply(ev, seat, amount, card)
        self.events += 1
        if why is not None:
            raise SimulationError("the engine rejected `%s` (deal %d): %s" % (
                event_text(ev, seat, amount, card), self.deals + self.voids + 1, why))

    def _card(self):
        card = self.shoe.draw()
        if card < 0:
            raise SimulationError("a card is due but the shoe is empty and the engine did "
                                  "not void the deal (N3)")
        self._apply(E.EV_CARD, 0, 0, card)

    def _player_turn(self, slot):
        e = self.engine
        seat = e.hand_seat(slot)
        n = e.ncards(slot)
        cards = [e.card(slot, i) for i in range(n)]
        can_split = n == 2 and S.point(cards[0]) == S.point(cards[1]) and \
            e.check(E.EV_SPLIT, seat) is None
        can_double = self.casino and not e.hand_flags(slot) & E.F_DOUBLED
        hand = S.Hand(cards, self.rules.stick_min, can_split, can_double)
        action = self.player.decide(hand)
        if action == S.STICK:
            self._apply(E.EV_STICK, seat)
        elif action == S.TWIST:
            self._apply(E.EV_TWIST, seat)
        elif action == S.DOUBLE:
            self._apply(E.EV_DOUBLE, seat)
        elif action == S.SPLIT:
            self._apply(E.EV_SPLIT, seat)
        else:
            raise SimulationError("strategy %s answered %r" % (self.player.name, action))

    def play_deal(self):
        """Play one deal to its end; returns False when it was void (N3)."""
        if self.engine is None or self.reshuffle or self.engine.finished():
            self._new_engine()
        e = self.engine
        if e.want_shuffle:
            self._apply(E.EV_SHUFFLE)
            self.shuffles += 1
        ended = e.deals_ended
        banker_seat = -1
        for _ in range(_MAX_EVENTS_PER_DEAL):
            if e.deals_ended != ended:
                break
            ph = e.phase
            if ph == E.PH_IDLE:
                if self.casino:
                    self._apply(E.EV_STAKE, 1, self.stake)
                else:
                    self._card()  # D1: the first card begins the deal
            elif ph == E.PH_BETS or ph == E.PH_STAKES:
                self._apply(E.EV_STAKE, e.next_stake_seat(), self.stake)
            elif ph == E.PH_PLAY and e.pend == E.PEND_NONE:
                self._player_turn(e.current_slot())
            elif ph == E.PH_BANKER and not self.casino:
                if self.banker.draw(e.hand_total(0), e.hand_soft(0), e.ncards(0),
                                    H.has_ace(e.hb, 0, e.ncards(0))):
                    self._card()
                else:
                    self._apply(E.EV_STAND)
            else:
                self._card()
            if banker_seat < 0 and e.in_deal():
                banker_seat = e.hand_seat(0)
        else:
            raise SimulationError("a deal took more than %d events" % _MAX_EVENTS_PER_DEAL)
        if e.last_void:
            self.voids += 1
            return False
        self._record(banker_seat)
        return True

    def _record(self, banker_seat):
        e = self.engine
        x = 0
        s = 0
        for seat in range(1, self.seats + 1):
            if seat == banker_seat:
                continue
            x += e.deal_net(seat)
            s += e.initial_stake(seat)
        r = 0
        kinds = dict.fromkeys(self.player_keys, 0)
        standing = False
        dealer_pontoon = e.banker_pontoon
        norder = e.norder
        for i in range(norder):
            slot = e.slot_at(i)
            r += e.hand_stake(slot)
            if dealer_pontoon:
                kinds["dealer-pontoon"] += 1
                continue
            kind = _KIND_KEY[e.hand_kind(slot)]
            if kind != "bust":
                standing = True
            kinds[kind] += 1
        if dealer_pontoon:
            d = "pontoon"
        elif not standing:
            d = "not-drawn"
        else:
            k = e.hand_kind(0)
            if k == H.KIND_BUST:
                d = "bust"
            elif k == H.KIND_FIVE_CARD_TRICK:
                d = "five-card-trick"
            elif k == H.KIND_PONTOON:
                d = "pontoon"
            else:
                d = str(e.hand_total(0))
        self.dealer_counts[d] = self.dealer_counts.get(d, 0) + 1
        self.deals += 1
        self.hands += norder
        self.x.append(x)
        self.s.append(s)
        self.r.append(r)
        self.hand_counts.append(norder)
        for k in self.player_keys:
            self.kind_per_deal[k].append(kinds[k])
        sm = self._sums
        sm[0] += x
        sm[1] += s
        sm[2] += x * x
        sm[3] += x * s
        sm[4] += s * s

    stop_requested = False               # set by Ctrl-C: stop after the deal in play

    def run(self, deals, progress=None):
        step = max(1, deals // self.curve_points)
        t0 = time.perf_counter()
        try:
            while self.deals < deals and not self.stop_requested:
                if self.play_deal() and self.deals % step == 0:
                    ev, se = _ratio_from_sums(self.deals, *self._sums)
                    self.curve.append((self.deals, ev, se))
                    if progress:
                        progress(self.deals, deals, time.perf_counter() - t0)
                if self.voids > 10 * deals + 100:
                    raise SimulationError("almost every deal is void: the shoe keeps running "
                                          "out")
        finally:
            self.elapsed = time.perf_counter() - t0
        if progress:
            progress(self.deals, deals, self.elapsed, done=True)

    # -------------------------------------------------------------- summary
    def summary(self):
        ev, se, ci = ratio_ci(self.x, self.s)
        ev_r, se_r, ci_r = ratio_ci(self.x, self.r)
        players = {}
        for k in self.player_keys:
            p, pse, pci = ratio_ci(self.kind_per_deal[k], self.hand_counts)
            players[k] = {"count": int(sum(self.kind_per_deal[k])), "p": p, "se": pse,
                          "ci95": list(pci) if pci else None}
        dealer = {k: proportion(self.dealer_counts[k], self.deals)
                  for k in _dealer_order(self.dealer_counts)}
        elapsed = max(self.elapsed, 1e-9)
        return {
            "preset": self.rules.name,
            "rules": self.rules.line(),
            "packs": self.engine.packs if self.engine else self.packs,
            "seats": self.seats,
            "strategy": self.player.name,
            "banker": self.banker.name if self.banker else "house-casino",  # K1
            "stake": self.stake,
            "seed": self.seed,
            "reshuffle_every_deal": self.reshuffle,
            "deals": self.deals,
            "void_deals": self.voids,
            "player_hands": self.hands,
            "shuffles": self.shuffles,
            "sessions": self.sessions,
            "events": self.events,
            "net": sum(self.x),
            "initial_stakes": sum(self.s),
            "amount_at_risk": sum(self.r),
            "ev_per_initial_stake": {"ev": ev, "se": se, "ci95": list(ci) if ci else None},
            "ev_per_amount_at_risk": {"ev": ev_r, "se": se_r,
                                      "ci95": list(ci_r) if ci_r else None},
            "ci_method": "normal approximation over per-deal results (ratio estimator, "
                         "delta-method standard error), 95%",
            "player_outcomes": players,
            "dealer_outcomes": dealer,
            "dealer_if_played": dealer_if_played(self.dealer_counts, self.deals),
            "elapsed_s": elapsed,
            "deals_per_second": self.deals / elapsed,
            "hands_per_second": self.hands / elapsed,
        }


# ------------------------------------------------------------------ progress bar

def progress_bar(stream, width=30):
    state = {"last": -1.0}

    def show(k, total, elapsed, done=False):
        final = done
        now = time.perf_counter()
        if not final and now - state["last"] < 0.2:
            return
        state["last"] = now
        frac = k / total if total else 1.0
        fill = int(width * frac)
        rate = k / elapsed if elapsed > 0 else 0.0
        eta = (total - k) / rate if rate > 0 else 0.0
        stream.write("\r[%s%s] %5.1f%% %d/%d deals, %.0f deals/s, eta %.0fs " % (
            "#" * fill, "." * (width - fill), 100.0 * frac, k, total, rate, eta))
        if final:
            stream.write("\n")
        stream.flush()

    return show


# ------------------------------------------------------------------ the plot

# Bar labels: every second label sits one row lower, so a label may be two bars wide.
_SHORT = {"five-card-trick": "5-card trick", "twenty-one": "21", "dealer-pontoon":
          "lost to D pontoon", "not-drawn": "not played", "royal-pontoon": "royal pontoon"}


def bar_label(label):
    """'P dealer-pontoon' -> 'P lost to D pontoon' (P: player hands, D: dealer/banker)."""
    who, _, kind = label.partition(" ")
    return who + " " + _SHORT.get(kind, kind)


def nice_ticks(lo, hi, most=6):
    """Round axis ticks covering [lo, hi]: a step of 1, 2, 2.5 or 5 times a power of ten,
    at most `most` ticks; returns (ticks, decimals needed to print them)."""
    span = max(hi - lo, 1e-12)
    power = 10.0 ** math.floor(math.log10(span / (most - 1)))
    for m in (1, 2, 2.5, 5, 10):
        step = m * power
        first = math.floor(lo / step + 1e-9)
        last = math.ceil(hi / step - 1e-9)
        if last - first + 1 <= most:
            break
    ticks = [k * step for k in range(first, last + 1)]
    decimals = max(0, -int(math.floor(math.log10(step) + 1e-9)) + (1 if m == 2.5 else 0))
    return ticks, decimals


def plot(summary, curve, path, size=(1000, 700)):
    """Outcome bars with 95% whiskers (top) and the running EV with its 95% band (bottom)."""
    from PIL import Image, ImageDraw, ImageFont

    w, h = size
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    black = (0, 0, 0)
    grey = (200, 200, 200)
    title = "%s, %d packs, %d seats, %s%s: %d deals" % (
        summary["preset"], summary["packs"], summary["seats"], summary["strategy"],
        "" if summary["preset"] == "casino" else ", banker " + summary["banker"],
        summary["deals"])
    d.text((10, 5), title, fill=black, font=font)
    margin = 50
    top_h = int(h * 0.55)

    # Top: bars.
    bars = [("P " + k, v) for k, v in summary["player_outcomes"].items()]
    bars += [("D " + k, v) for k, v in summary["dealer_outcomes"].items()]
    x0, y0, x1, y1 = margin, 30, w - 10, top_h - 30
    ymax = max([(v["ci95"][1] if v.get("ci95") else (v["p"] or 0)) for _, v in bars] + [0.01])
    ticks, decimals = nice_ticks(0.0, 100 * min(1.0, ymax))      # in percent
    ymax = ticks[-1] / 100
    d.line((x0, y1, x1, y1), fill=black)
    d.line((x0, y0, x0, y1), fill=black)
    for t in ticks:
        yy = y1 - (y1 - y0) * (t / 100) / ymax
        d.line((x0 - 4, yy, x0, yy), fill=black)
        d.line((x0 + 1, yy, x1, yy), fill=(235, 235, 235))
        d.text((2, yy - 6), "%.*f%%" % (decimals, t), fill=black, font=font)
    n = max(1, len(bars))
    slot = (x1 - x0) / n
    for i, (label, v) in enumerate(bars):
        p = v["p"] or 0.0
        bx = x0 + i * slot + slot * 0.15
        bw = slot * 0.7
        colour = (70, 110, 200) if label.startswith("P ") else (210, 110, 60)
        yy = y1 - (y1 - y0) * p / ymax
        d.rectangle((bx, yy, bx + bw, y1), fill=colour)
        if v.get("ci95"):
            lo, hi = v["ci95"]
            cx = bx + bw / 2
            ylo = y1 - (y1 - y0) * max(0.0, lo) / ymax
            yhi = y1 - (y1 - y0) * min(ymax, hi) / ymax
            d.line((cx, ylo, cx, yhi), fill=black)
            d.line((cx - 3, ylo, cx + 3, ylo), fill=black)
            d.line((cx - 3, yhi, cx + 3, yhi), fill=black)
        short = bar_label(label)
        d.text((bx, y1 + 3 + (i % 2) * 12), short, fill=black, font=font)
    d.text((x0 + 5, y0 - 14), "outcome frequency (P = player hands, D = dealer/banker), "
           "whiskers: 95% CI", fill=black, font=font)

    # Bottom: running EV.
    x0, y0, x1, y1 = margin, top_h + 20, w - 10, h - 25
    d.text((x0 + 5, y0 - 14), "running EV per unit of initial stake, band: 95% CI "
           "(normal approximation)", fill=black, font=font)
    pts = [(k, ev, se) for k, ev, se in curve if ev is not None]
    if pts:
        lows = [ev - Z95 * se for _, ev, se in pts if se is not None]
        highs = [ev + Z95 * se for _, ev, se in pts if se is not None]
        final = summary["ev_per_initial_stake"]["ev"] or 0.0
        lo = min(lows + [ev for _, ev, _ in pts] + [final])
        hi = max(highs + [ev for _, ev, _ in pts] + [final])
        # Keep the early, wide intervals from flattening the curve.
        tail = pts[len(pts) // 10:]
        if tail and tail[0][2] is not None:
            lo = max(lo, tail[0][1] - 3 * Z95 * tail[0][2])
            hi = min(hi, tail[0][1] + 3 * Z95 * tail[0][2])
        if hi - lo < 1e-6:
            lo -= 0.01
            hi += 0.01
        ev_ticks, ev_decimals = nice_ticks(lo, hi, most=8)
        lo, hi = ev_ticks[0], ev_ticks[-1]
        kmax = pts[-1][0]

        def X(k):
            return x0 + (x1 - x0) * k / kmax

        def Y(val):
            val = min(hi, max(lo, val))
            return y1 - (y1 - y0) * (val - lo) / (hi - lo)

        d.rectangle((x0, y0, x1, y1), outline=black)
        for val in ev_ticks:
            d.line((x0, Y(val), x1, Y(val)), fill=grey)
            d.text((2, Y(val) - 6), "%+.*f" % (ev_decimals, val) if abs(val) > 1e-12
                   else "0", fill=black, font=font)
        band_hi = [(X(k), Y(ev + Z95 * se)) for k, ev, se in pts if se is not None]
        band_lo = [(X(k), Y(ev - Z95 * se)) for k, ev, se in pts if se is not None]
        if len(band_hi) >= 2:
            d.polygon(band_hi + band_lo[::-1], fill=(200, 220, 245))
        if lo < 0 < hi:
            d.line((x0, Y(0), x1, Y(0)), fill=black)
        if len(pts) >= 2:
            d.line([(X(k), Y(ev)) for k, ev, _ in pts], fill=(20, 60, 160), width=2)
        d.text((x1 - 160, y1 + 5), "deals: %d" % kmax, fill=black, font=font)
        ev = summary["ev_per_initial_stake"]
        if ev["ci95"]:
            d.text((x0 + 5, y1 + 5), "EV %+.4f  95%% CI [%+.4f, %+.4f]" % (
                ev["ev"], ev["ci95"][0], ev["ci95"][1]), fill=black, font=font)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    img.save(path, "PNG")


# ------------------------------------------------------------------ CLI

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(" ".join(message.split()))


def _build_parser():
    p = _Parser(prog="simulate.py", description="Monte Carlo Pontoon through the real engine.")
    p.add_argument("--preset", default="casino", help="table, classic or casino (default casino)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a rules option (repeatable), e.g. --option stick_min=16")
    p.add_argument("--deals", default="10000", help="deals to play (default 10000)")
    p.add_argument("--seats", default=None,
                   help="casino: player seats 1-7 (default 5); table/classic: participants "
                        "2-8, the banker included (default 5)")
    p.add_argument("--packs", default=None, help="packs 1-8 (default: the preset's, C1)")
    p.add_argument("--strategy", default=None,
                   help="players: stick-on-N or basic (casino; default basic there, "
                        "stick-on-16 elsewhere)")
    p.add_argument("--banker", default=None,
                   help="table/classic banker: draw-below-N or casino (the casino dealer's "
                        "K1 rule; default draw-below-17)")
    p.add_argument("--stake", default="1", help="units each player stakes per deal (default 1)")
    p.add_argument("--seed", default="1", help="random seed (default 1)")
    p.add_argument("--reshuffle-every-deal", action="store_true",
                   help="a freshly shuffled shoe (a fresh engine) for every deal")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", default=None, metavar="PNG",
                   help="write the chart to this PNG (e.g. out/simulate.png); none without it")
    p.add_argument("--plot-size", default="1000x700", help="PNG size WxH (default 1000x700)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="progress bar on stderr (default: when stderr is a terminal)")
    g.add_argument("--no-progress", dest="progress", action="store_false")
    return p


def _unwritable(path):
    """Why a file cannot be written at `path` (tried before the long work), or None."""
    if os.path.isdir(path):
        return "is a folder, not a file name"
    existed = os.path.exists(path)
    try:
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)   # as plot() would, only sooner
        with open(path, "ab"):
            pass
    except OSError as e:
        return "cannot be written (%s)" % (e.strerror or e)
    if not existed:
        os.remove(path)
    return None


def _int(text, name, lo, hi):
    t = str(text).strip()
    if not t.isdigit() or not lo <= int(t) <= hi:
        raise UsageError("%s must be a whole number from %d to %d, got %r" % (name, lo, hi, text))
    return int(t)


def configure(argv):
    """Parse and validate the command line -> (Simulation, deals, args). Raises UsageError."""
    args = _build_parser().parse_args(argv)
    words = [args.preset] + args.option
    for opt in args.option:
        if opt.split("=", 1)[0] == "shoot":
            raise UsageError("shoot pontoon (X) is not simulated: drop --option shoot")
    try:
        rules = parse_rules(words)
    except RulesError as exc:
        raise UsageError(str(exc))
    casino = rules.preset == _CASINO
    deals = _int(args.deals, "--deals", 1, 10 ** 9)
    if args.seats is None:
        seats = 5
    else:
        seats = _int(args.seats, "--seats", 0, 99)
        why = seats_error(rules.preset, seats)
        if why:
            raise UsageError("--seats: " + why)
    packs = _int(args.packs, "--packs", 1, 8) if args.packs is not None else 0
    stake = _int(args.stake, "--stake", rules.stake_min, rules.stake_max)
    seed = _int(args.seed, "--seed", 0, 2 ** 63)
    size = args.plot_size.lower().split("x")
    if len(size) != 2:
        raise UsageError("--plot-size must be WxH, e.g. 1000x700, got %r" % args.plot_size)
    size = (_int(size[0], "--plot-size width", 300, 8000),
            _int(size[1], "--plot-size height", 200, 8000))
    args.size = size
    if args.plot:
        why = _unwritable(args.plot)
        if why:
            raise UsageError("--plot %s: %s" % (args.plot, why))
    real_packs = packs or (8 if casino else (2 if seats >= 8 else 1))
    try:
        name = args.strategy or ("basic" if casino else "stick-on-16")
        player = S.parse_strategy(name, rules, real_packs)
        banker = None
        if args.banker is not None or not casino:
            banker = S.parse_banker(args.banker or "draw-below-17", rules)
    except S.StrategyError as exc:
        raise UsageError(str(exc))
    sim = Simulation(rules, seats, player, banker, packs, stake, seed,
                     args.reshuffle_every_deal)
    return sim, deals, args


def format_text(s):
    lines = []
    lines.append("%s: %d deals (%d void), %d player hands, %s seats, %s packs, strategy %s%s"
                 % (s["rules"], s["deals"], s["void_deals"], s["player_hands"], s["seats"],
                    s["packs"], s["strategy"],
                    "" if s["preset"] == "casino" else ", banker " + s["banker"]))
    lines.append("seed %d, %d shuffles%s" % (s["seed"], s["shuffles"],
                 ", a fresh shoe every deal" if s["reshuffle_every_deal"] else ""))
    for key, label in (("ev_per_initial_stake", "EV per unit of initial stake"),
                       ("ev_per_amount_at_risk", "EV per unit of amount at risk")):
        e = s[key]
        if e["ci95"]:
            lines.append("%-32s %+.5f  95%% CI [%+.5f, %+.5f]" % (label, e["ev"], *e["ci95"]))
        else:
            lines.append("%-32s %+.5f" % (label, e["ev"] or 0.0))
    lines.append("(95% CIs: normal approximation over per-deal results)")
    for title, table in (("player hands", s["player_outcomes"]),
                         ("dealer/banker", s["dealer_outcomes"]),
                         ("dealer if every deal were played out", s["dealer_if_played"])):
        lines.append("%s:" % title)
        for k, v in table.items():
            if v["p"] is None:
                continue
            ci = v["ci95"]
            lines.append("  %-16s %8.4f%%  [%7.4f%%, %7.4f%%]  (%d)" % (
                k, 100 * v["p"], 100 * ci[0] if ci else 0, 100 * ci[1] if ci else 0,
                v["count"]))
    lines.append("%.0f deals/s, %.0f player hands/s (%.1f s)" % (
        s["deals_per_second"], s["hands_per_second"], s["elapsed_s"]))
    return "\n".join(lines)


def main(argv=None):
    try:
        sim, deals, args = configure(argv if argv is not None else sys.argv[1:])
    except UsageError as exc:
        sys.stderr.write("simulate.py: error: %s\n" % exc)
        return 2
    show = args.progress if args.progress is not None else sys.stderr.isatty()

    def ctrl_c(signum, frame):           # the first Ctrl-C ends the run after this deal
        if sim.stop_requested:
            raise KeyboardInterrupt
        sim.stop_requested = True
    signal.signal(signal.SIGINT, ctrl_c)
    try:
        sim.run(deals, progress_bar(sys.stderr) if show else None)
    except KeyboardInterrupt:            # a second Ctrl-C: leave now
        sys.stderr.write("\nsimulate.py: interrupted\n")
        return 130
    except UsageError as exc:
        sys.stderr.write("simulate.py: error: %s\n" % exc)
        return 2
    except SimulationError as exc:
        sys.stderr.write("simulate.py: bug: %s\n" % exc)
        return 1
    interrupted = sim.stop_requested
    if interrupted:
        sys.stderr.write("%ssimulate.py: interrupted after %d of %d deals: the report covers "
                         "those\n" % ("\n" if show else "", sim.deals, deals))
        if sim.deals == 0:
            return 130
    summary = sim.summary()
    summary["interrupted"] = interrupted
    if args.plot:
        plot(summary, sim.curve, args.plot, args.size)
        summary["plot"] = args.plot
        summary["plot_size"] = list(args.size)
    if args.json:
        print(json.dumps(summary))
    else:
        print(format_text(summary))
        if interrupted:
            print("interrupted (Ctrl-C) after %d of %d deals" % (sim.deals, deals))
        if args.plot:
            print("plot: %s (%dx%d)" % (args.plot, args.size[0], args.size[1]))
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
