#!/usr/bin/env python3
"""`make night`: the night in review, one self-contained HTML page per session.

    .venv/bin/python tools/night.py [FILE_OR_DIR ...] [--out out/night] [--pull]
                                    [--port PORT] [--banker-policy draw-below-17]
                                    [--csv] [--json] [--no-decisions] [--no-png]

Reads the shoe's kept sessions (history/NNNN.txt; a directory means its history/*.txt,
or the files in it; default: out/flash, where `make sim` keeps its shoe's flash), or, with
--pull, copies history/ from the shoe on USB with mpremote (the port as `make deploy`
finds it, or --port) into out/night/pulled/ first. Every session is replayed by the
firmware's own engine (as tools/replay.py does), so the ledger is the engine's. For each
it writes out/night/NNNN.html (inline SVG, no network, no script or style from anywhere
else) and PNG copies of its charts (NNNN_standings.png, NNNN_costs.png), and with --csv /
--json the per-deal ledger and every decision (NNNN_ledger.csv, NNNN_decisions.csv,
NNNN.json).

The page: standings (every seat's balance after every deal, banks held as bands), the
final ledger and the winners (T2); the settle-up in the fewest payments (searched
exhaustively); per seat: hands, Pontoons, five-card tricks, busts, splits, buys, banks held
and what the bank made, shoot bets won and lost, the biggest swing; every decision scored
exactly from the cards its maker could not see (tools/decisions.py), its cost in stakes,
and what the real next card did.
"""
import csv
import html
import io
import json
import os
import sys
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "tools"), os.path.join(ROOT, "firmware")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import cli  # noqa: E402
import decisions as D  # noqa: E402
import shuffles  # noqa: E402
from game import engine as E  # noqa: E402
import report  # noqa: E402
from game.cards import card_name  # noqa: E402
from game.hands import KIND_NAMES  # noqa: E402
from game.transcript import Header, ParseError, read_events  # noqa: E402

DEFAULT_POLICY = "draw-below-17"     # tools/autoplay.py's banker stands on 17
POOL_MIN = 15                        # fewer unseen cards in the top layer: the next layers too
SEAT_COLOURS = ("#444444", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                "#17becf", "#8c564b", "#e377c2")
_F_TWISTED, _F_BUST, _F_DOUBLED = E.F_TWISTED, E.F_BUST, E.F_DOUBLED
_LOC_TABLE = E.LOC_TABLE
_LOC_DISCARD = 254


class NightError(Exception):
    """A file that cannot be reviewed (one line)."""


# ================================================================ settle-up

def _groups_dp(values):
    """dp[mask]: the most zero-sum groups the set `mask` splits into (0 when its sum is not
    0 it still counts the groups of a subset; the classic O(2^n * n) recursion)."""
    n = len(values)
    size = 1 << n
    sums = [0] * size
    for mask in range(1, size):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
    dp = [0] * size
    for mask in range(1, size):
        best = 0
        m = mask
        while m:
            low = m & -m
            v = dp[mask ^ low]
            if v > best:
                best = v
            m ^= low
        dp[mask] = best + (1 if sums[mask] == 0 else 0)
    return dp, sums


def settle_up(balances):
    """Who pays whom, in the fewest payments: [(payer, payee, amount)].

    balances: {participant: balance} summing to 0. The fewest payments are the number of
    participants owed or owing less the most groups they split into that each sum to 0
    (each group of k settles in k - 1 payments, and no fewer payments can do it); the
    groups are found by an exhaustive search over every subset (2^n of them, n <= 9
    here: eight seats and the casino's house)."""
    people = [(p, b) for p, b in sorted(balances.items()) if b]
    if sum(b for _, b in people):
        raise ValueError("the balances do not sum to 0: %r" % (balances,))
    n = len(people)
    if not n:
        return []
    values = [b for _, b in people]
    dp, sums = _groups_dp(values)
    # Peel the groups off: a zero-sum sub-mask that keeps the count optimal.
    groups = []
    mask = (1 << n) - 1
    while mask:
        target = dp[mask]
        sub = mask
        found = None
        while sub:
            if sums[sub] == 0 and dp[mask ^ sub] == target - 1 and _minimal_group(sub, sums):
                found = sub
                break
            sub = (sub - 1) & mask
        groups.append(found)
        mask ^= found
    payments = []
    for g in groups:
        members = [people[i] for i in range(n) if g >> i & 1]
        payments.extend(_settle_group(members))
    return payments


def _minimal_group(mask, sums):
    """True when no non-empty proper sub-mask of `mask` sums to 0."""
    sub = (mask - 1) & mask
    while sub:
        if sums[sub] == 0:
            return False
        sub = (sub - 1) & mask
    return True


def _settle_group(members):
    """k - 1 payments inside a zero-sum group: the biggest debtor pays the biggest
    creditor what one of them needs, until all are even."""
    owe = [[-b, p] for p, b in members if b < 0]
    get = [[b, p] for p, b in members if b > 0]
    out = []
    while owe and get:
        owe.sort(reverse=True)
        get.sort(reverse=True)
        amount = min(owe[0][0], get[0][0])
        out.append((owe[0][1], get[0][1], amount))
        owe[0][0] -= amount
        get[0][0] -= amount
        owe = [x for x in owe if x[0]]
        get = [x for x in get if x[0]]
    return out


# ================================================================ the replay

def _read(path):
    try:
        with open(path, "rb") as f:
            lines = f.read().splitlines(True)
    except OSError as e:
        raise NightError("cannot read %s: %s" % (path, e.strerror or e))
    header = Header()
    try:
        events = [(n, " ".join(w), ev) for n, _, w, ev in read_events(lines, header)]
        engine = header.engine()
    except ParseError as e:
        raise NightError("%s: %s" % (path, e))
    return header, engine, events


def _slots_of(e, seat):
    return [e.slot_at(i) for i in range(e.norder) if e.hand_seat(e.slot_at(i)) == seat]


def _cards(e, slot):
    return [e.card(slot, i) for i in range(e.ncards(slot))]


def _hand_name(cards):
    return " ".join(card_name(c) for c in cards)


class Review:
    """One session replayed, with everything the page shows."""

    def __init__(self, path, policy=DEFAULT_POLICY, score=True, progress=None):
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        header, e, events = _read(path)
        self.engine = e
        self.rules = e.rules
        self.casino = bool(e.casino)
        self.seats = e.seats
        self.packs = e.packs
        self.header_lines = header.lines()
        self.policy = "casino" if self.casino else policy
        self.participants = list(range(0 if self.casino else 1, e.seats + 1))
        self.deals = []          # the engine's deal objects (report.deal_json) + balances
        self.decisions = []
        self.rejected = []
        self.shuffles = []       # each shuffle event: its line and the deal after it
        # each shuffle's quality (tools/shuffles.py, the statistic the shoe says itself)
        self.shuffle_results = shuffles.shuffle_report(path)
        self.stats = {s: Counter() for s in self.participants}
        self.swings = {s: None for s in self.participants}
        self._valuers = {}
        self._up = Counter()      # (seat, code) of the face-up cards on the table
        self._pend = None         # what the next card of the current hand is: up or down
        self._progress = progress
        self._run(events, score)

    # ------------------------------------------------------------------ replay
    def _valuer(self):
        key = bool(self.engine.doubled)
        v = self._valuers.get(key)
        if v is None:
            v = self._valuers[key] = D.Valuer(self.rules, self.policy, key)
        return v

    def _run(self, events, score):
        e = self.engine
        started = time.monotonic()
        last_note = started
        for k, (number, text, ev) in enumerate(events):
            kind, seat, amount, code = ev
            phase = e.phase
            decision = None
            if score:
                decision = self._decision(k, events, kind, seat, amount)
            if kind in (E.EV_SPLIT, E.EV_BUY) and phase == E.PH_PLAY:
                self.stats[seat]["splits" if kind == E.EV_SPLIT else "buys"] += 1
            slot = e.expected_card_slot() if kind == E.EV_CARD else -1
            up = self._face_up_next(phase, kind)
            if kind == E.EV_SPLIT and phase == E.PH_PLAY:
                for c in _cards(e, e.current_slot()):
                    self._up[(seat, c)] += 1
            ended = e.deals_ended
            error = e.apply(kind, seat, amount, code)
            if error is not None:
                self.rejected.append((number, text, error))
                continue
            if decision is not None:
                self.decisions.append(decision)
            if kind in (E.EV_BUY, E.EV_TWIST, E.EV_DOUBLE, E.EV_SPLIT, E.EV_BURN):
                self._pend = kind
            if kind == E.EV_CARD and slot > 0 and up:
                self._up[(e.hand_seat(slot), code)] += 1
            if kind == E.EV_SHUFFLE:
                self.shuffles.append({"line": number, "deal": e.deals + 1})
            if e.deals_ended != ended:
                self._deal_ended()
                self._up.clear()
            if self._progress and time.monotonic() - last_note > 2.0:
                last_note = time.monotonic()
                self._progress("%s: event %d/%d, %d decisions scored" % (
                    self.name, k + 1, len(events), len(self.decisions)))
        if e.in_deal():
            self.unfinished = True
        else:
            self.unfinished = False
        self.balances = {s: e.balance(s) for s in self.participants}
        self.kitty = e.kitty
        self.finished = e.finished()
        self.winners = (list(e.winners()) if e.finished() else []) if self.rules.preset == 0 \
            else self._leaders()
        self.seconds = time.monotonic() - started

    def _leaders(self):
        seats = [s for s in self.participants if s]
        if not seats:
            return []
        best = max(self.balances[s] for s in seats)
        return [s for s in seats if self.balances[s] == best]

    def _face_up_next(self, phase, kind):
        """Is the card about to be read dealt face up (P4 buy: down, P5 twist: up, D1/D3:
        down, the banker's turn: up)?"""
        if kind != E.EV_CARD:
            return False
        if phase == E.PH_PLAY:
            return self._pend in (E.EV_TWIST, E.EV_DOUBLE)
        return phase == E.PH_BANKER

    def _deal_ended(self):
        e = self.engine
        text = io.StringIO()
        report.write_deal_object(text, e, True)
        d = json.loads(text.getvalue())
        d["balances"] = {str(s): e.balance(s) for s in self.participants}
        d["kitty"] = e.kitty
        shoot = []
        for i in range(e.norder):
            slot = e.slot_at(i)
            s = e.hand_seat(slot)
            st = self.stats[s]
            kind = KIND_NAMES[e.hand_kind(slot)]
            if e.ncards(slot):
                st["hands"] += 1
                st[kind] += 1
            bet = e.hand_shoot(slot)
            if bet:
                won = kind != "bust" and e.hand_net(slot) > 0 and not d["void"]
                st["shoot won" if won else "shoot lost"] += bet
                shoot.append({"seat": s, "bet": bet, "won": won})
        d["shoot"] = shoot
        banker = d["banker"]
        if not d["void"]:
            self.stats[banker]["banks held"] += 1
            self.stats[banker]["bank made"] += d["net"].get(str(banker), 0)
            for s in self.participants:
                net = d["net"].get(str(s), 0)
                best = self.swings[s]
                if net and (best is None or abs(net) > abs(best[0])):
                    self.swings[s] = (net, d["number"])
        self.deals.append(d)

    # ------------------------------------------------------------------ what one could see
    def _pool(self, viewer_seat, own):
        """The ranks unseen by `viewer_seat`: the shoe's top layer (and the next layers
        while it holds fewer than POOL_MIN: the order in which they come is known, their
        cards' order is not) and the cards on the table face down in others' hands."""
        e = self.engine
        pool = [0] * 10
        layers = Counter()
        table = Counter()
        for idx in range(e.copies):
            where = e.loc[idx]
            if where == _LOC_TABLE:
                table[idx % 52] += 1
            elif where < _LOC_DISCARD:
                layers[where] += 1
        taken = 0
        for layer in sorted(layers):
            if taken >= POOL_MIN:
                break
            for idx in range(e.copies):
                if e.loc[idx] == layer:
                    pool[D.rank_of(idx % 52)] += 1
                    taken += 1
        own = Counter(own)
        up = Counter()
        for (s, c), n in self._up.items():
            if s != viewer_seat:
                up[c] += n
        for c, n in table.items():
            hidden = n - own[c] - up[c]
            if hidden > 0:
                pool[D.rank_of(c)] += hidden
        return pool

    def _next_card(self, k, events):
        """The first card read after event k, unless a shuffle comes first."""
        for _, _, ev in events[k + 1:]:
            if ev[0] == E.EV_SHUFFLE:
                return None
            if ev[0] == E.EV_CARD:
                return ev[3]
        return None

    # ------------------------------------------------------------------ decisions
    def _decision(self, k, events, kind, seat, amount):
        e = self.engine
        ph = e.phase
        if ph == E.PH_BANKER and not self.casino and kind in (E.EV_CARD, E.EV_STAND):
            return self._banker_decision(k, events, kind)
        if kind == E.EV_SHOOT and ph in (E.PH_DEAL2, E.PH_PLAY):
            return self._shoot_decision(k, events, seat, amount)
        if ph != E.PH_PLAY or kind not in (E.EV_STICK, E.EV_TWIST, E.EV_BUY, E.EV_SPLIT,
                                           E.EV_DOUBLE):
            return None
        if e.check(kind, seat, amount) is not None:
            return None                      # the engine refuses it: no decision was made
        slot = e.current_slot()
        cards = _cards(e, slot)
        own = [c for s in _slots_of(e, seat) for c in _cards(e, s)]
        pool = self._pool(seat, own)
        flags = e.hand_flags(slot)
        stake = e.hand_stake(slot)
        init = e.initial_stake(seat)
        last = e.hw[slot * 4 + 1]
        can_split = e.check(E.EV_SPLIT, seat, 0) is None
        values = self._valuer().player(pool, cards, stake, init, last,
                                       bool(flags & _F_TWISTED), bool(flags & _F_DOUBLED),
                                       can_split)
        values = {c: v for c, v in values.items() if c == "split" or (
            c.split()[0] in _EVENT_OF and
            e.check(_EVENT_OF[c.split()[0]], seat, _amount_of(c)) is None)}
        word = E.EVENT_WORDS[kind]
        chosen = "%s %d" % (word, amount) if kind == E.EV_BUY else word
        return self._scored(k, events, seat, cards, chosen, values, pool)

    def _shoot_decision(self, k, events, seat, amount):
        e = self.engine
        slots = _slots_of(e, seat)
        slot = e.current_slot() if e.phase == E.PH_PLAY else (slots[0] if slots else -1)
        if slot < 0:
            return None
        cards = _cards(e, slot)
        own = [c for s in slots for c in _cards(e, s)]
        pool = self._pool(seat, own)
        init = max(1, e.initial_stake(seat))
        values = self._valuer().shoot(pool, cards, max(1, e.hand_stake(slot)), init,
                                      e.shoot_room(), amount, len(cards) == 3,
                                      e.hw[slot * 4 + 1],
                                      bool(e.hand_flags(slot) & _F_TWISTED))
        return self._scored(k, events, seat, cards, "shoot %d" % amount, values, pool)

    def _banker_decision(self, k, events, kind):
        e = self.engine
        cards = _cards(e, 0)
        banker = e.hand_seat(0)
        pool = self._pool(banker, cards)
        hands = []
        for i in range(e.norder):
            slot = e.slot_at(i)
            if e.hand_flags(slot) & _F_BUST or not e.ncards(slot):
                continue
            s = e.hand_seat(slot)
            mine = Counter(_cards(e, slot))
            visible = []
            for (us, c), n in self._up.items():
                if us == s and mine[c]:
                    take = min(n, mine[c])
                    visible.extend([c] * take)
                    mine[c] -= take
            if e.ncards(slot) == 2 and e.hand_kind(slot) >= 4:
                visible = _cards(e, slot)    # a Pontoon is shown (P2)
            hands.append((e.hand_stake(slot), visible, e.ncards(slot)))
        values = self._valuer().banker(pool, cards, hands)
        chosen = D.DRAW if kind == E.EV_CARD else D.STAND
        # his draw is the card event itself: the card he drew is the one that came next
        return self._scored(k - 1 if kind == E.EV_CARD else k, events, banker, cards, chosen,
                            values, pool, banker=True)

    def _scored(self, k, events, seat, cards, chosen, values, pool, banker=False):
        money = {c: (v[0] if isinstance(v, tuple) else v) for c, v in values.items()}
        if chosen not in money:
            return None
        best = max(money, key=lambda c: (money[c], c == chosen))
        nxt = self._next_card(k, events)
        hindsight = ""
        if nxt is not None:
            after = cards + [nxt]
            hard = sum(D.VALUES[D.rank_of(c)] for c in after)
            ace = any(D.rank_of(c) == 0 for c in after)
            t = D.total(hard, ace)
            hindsight = "next card %s: %s" % (card_name(nxt), "%d, bust" % t if t > 21 else
                                             "five-card trick" if len(after) >= 5 else
                                             "%d" % t)
        return {
            "deal": self.engine.deals, "seat": seat, "banker": banker,
            "hand": _hand_name(cards), "total": D.total(
                sum(D.VALUES[D.rank_of(c)] for c in cards),
                any(D.rank_of(c) == 0 for c in cards)),
            "unseen": sum(pool), "choice": chosen,
            "values": {c: round(v, 4) for c, v in money.items()},
            "best": best, "cost": round(money[best] - money[chosen], 4),
            "hindsight": hindsight,
        }

    # ------------------------------------------------------------------ sums
    def cost(self, seat):
        return sum(d["cost"] for d in self.decisions if d["seat"] == seat)

    def seat_name(self, s):
        if self.casino and s == 0:
            return "house"
        return "seat %d" % s


_EVENT_OF = {"stick": E.EV_STICK, "twist": E.EV_TWIST, "buy": E.EV_BUY,
             "split": E.EV_SPLIT, "double": E.EV_DOUBLE}


def _amount_of(choice):
    parts = choice.split()
    return int(parts[1]) if len(parts) > 1 else 0


# ================================================================ charts (SVG and PNG)

def _series(rv):
    """Balances after every deal (deal 0: all at 0)."""
    out = {s: [0] for s in rv.participants}
    for d in rv.deals:
        for s in rv.participants:
            out[s].append(d["balances"][str(s)])
    return out


def standings_shapes(rv, width=760, height=320):
    """The standings chart as shapes both renderers draw: ('band'|'line'|'text'|'axis', ...)."""
    series = _series(rv)
    n = len(rv.deals)
    lo = min([0] + [min(v) for v in series.values()])
    hi = max([0] + [max(v) for v in series.values()])
    if hi == lo:
        hi = lo + 1
    left, right, top, bottom = 50, width - 110, 30, height - 40
    span = max(1, n)

    def x(i):
        return left + (right - left) * i / span

    def y(v):
        return bottom - (bottom - top) * (v - lo) / (hi - lo)

    shapes = []
    runs = []                                    # deal i+1 is played between x(i) and x(i+1)
    for i, d in enumerate(rv.deals):
        if rv.casino:
            break
        colour = SEAT_COLOURS[d["banker"] % len(SEAT_COLOURS)]
        shapes.append(("band", x(i), top, x(i + 1), bottom, colour,
                       "deal %d: bank seat %d" % (d["number"], d["banker"])))
        if runs and runs[-1][0] == d["banker"]:
            runs[-1][2] = i + 1
        else:
            runs.append([d["banker"], i, i + 1])
    for seat, first, end in runs:                # who held the bank, over each run of deals
        if x(end) - x(first) >= 40:
            shapes.append(("text", (x(first) + x(end)) / 2, top - 6, "bank: seat %d" % seat,
                           SEAT_COLOURS[seat % len(SEAT_COLOURS)], "middle"))
    shapes.append(("axis", left, y(0), right, y(0), "#888888", "0"))
    for v in sorted({lo, 0, hi}):
        shapes.append(("text", left - 6, y(v) + 4, "%+d" % v if v else "0", "#333333", "end"))
    for i in range(n + 1):
        shapes.append(("text", x(i), bottom + 16, str(i), "#333333", "middle"))
    shapes.append(("text", (left + right) / 2, height - 6, "after deal", "#333333", "middle"))
    labels = []
    for s in rv.participants:
        pts = [(x(i), y(v)) for i, v in enumerate(series[s])]
        colour = SEAT_COLOURS[s % len(SEAT_COLOURS)]
        shapes.append(("line", pts, colour, rv.seat_name(s)))
        labels.append([pts[-1][1] + 4, "%s %+d" % (rv.seat_name(s), series[s][-1]), colour])
    labels.sort()
    for i in range(1, len(labels)):              # the end labels kept 14 px apart
        labels[i][0] = max(labels[i][0], labels[i - 1][0] + 14)
    for ly, text, colour in labels:
        shapes.append(("text", right + 8, ly, text, colour, "start"))
    return shapes


def costs_shapes(rv, width=760, height=200):
    seats = [s for s in rv.participants if any(d["seat"] == s for d in rv.decisions)]
    if not seats:
        return []
    costs = {s: rv.cost(s) for s in seats}
    top = max(costs.values()) or 1.0
    left, right = 120, width - 80
    row = (height - 20) / max(1, len(seats))
    shapes = []
    for i, s in enumerate(seats):
        y0 = 10 + i * row
        w = (right - left) * costs[s] / top
        colour = SEAT_COLOURS[s % len(SEAT_COLOURS)]
        shapes.append(("rect", left, y0 + 3, left + w, y0 + row - 3, colour, ""))
        shapes.append(("text", left - 8, y0 + row / 2 + 4, rv.seat_name(s), "#333333", "end"))
        shapes.append(("text", left + w + 6, y0 + row / 2 + 4, "%.2f" % costs[s], "#333333",
                       "start"))
    return shapes


def svg(shapes, width, height, title):
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'role="img" aria-label="%s">' % (width, height, width, height, html.escape(title))]
    for sh in shapes:
        kind = sh[0]
        if kind == "band":
            _, x0, y0, x1, y1, colour, tip = sh
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" '
                       'fill-opacity="0.13"><title>%s</title></rect>'
                       % (x0, y0, x1 - x0, y1 - y0, colour, html.escape(tip)))
        elif kind == "rect":
            _, x0, y0, x1, y1, colour, _tip = sh
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                       % (x0, y0, max(0.5, x1 - x0), y1 - y0, colour))
        elif kind == "axis":
            _, x0, y0, x1, y1, colour, _ = sh
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                       'stroke-dasharray="4 3"/>' % (x0, y0, x1, y1, colour))
        elif kind == "line":
            _, pts, colour, name = sh
            out.append('<polyline fill="none" stroke="%s" stroke-width="2.5" points="%s">'
                       '<title>%s</title></polyline>' % (
                           colour, " ".join("%.1f,%.1f" % p for p in pts), html.escape(name)))
            for px, py in pts:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px, py, colour))
        elif kind == "text":
            _, tx, ty, text, colour, anchor = sh
            out.append('<text x="%.1f" y="%.1f" fill="%s" text-anchor="%s" font-size="12" '
                       'font-family="sans-serif">%s</text>' % (tx, ty, colour, anchor,
                                                               html.escape(text)))
    out.append("</svg>")
    return "\n".join(out)


def png(shapes, width, height, path, scale=2):
    """The same shapes drawn by Pillow (the page's charts as files)."""
    from PIL import Image, ImageDraw, ImageFont
    img = Image.new("RGB", (width * scale, height * scale), "white")
    draw = ImageDraw.Draw(img, "RGBA")
    try:
        font = ImageFont.load_default(size=12 * scale)
    except TypeError:                    # an older Pillow: its one bitmap font
        font = ImageFont.load_default()

    def rgb(colour, alpha=255):
        c = colour.lstrip("#")
        return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), alpha)

    for sh in shapes:
        kind = sh[0]
        if kind in ("band", "rect"):
            _, x0, y0, x1, y1, colour, _ = sh
            draw.rectangle([x0 * scale, y0 * scale, max(x0 + 0.5, x1) * scale, y1 * scale],
                           fill=rgb(colour, 33 if kind == "band" else 255))
        elif kind == "axis":
            _, x0, y0, x1, y1, colour, _ = sh
            draw.line([x0 * scale, y0 * scale, x1 * scale, y1 * scale], fill=rgb(colour),
                      width=scale)
        elif kind == "line":
            _, pts, colour, _ = sh
            draw.line([(px * scale, py * scale) for px, py in pts], fill=rgb(colour),
                      width=int(2.5 * scale), joint="curve")
            for px, py in pts:
                r = 3 * scale
                draw.ellipse([px * scale - r, py * scale - r, px * scale + r, py * scale + r],
                             fill=rgb(colour))
        elif kind == "text":
            _, tx, ty, text, colour, anchor = sh
            a = {"start": "ls", "middle": "ms", "end": "rs"}[anchor]
            draw.text((tx * scale, ty * scale), text, fill=rgb(colour), font=font, anchor=a)
    img.save(path)


# ================================================================ the page

STYLE = """
body{font-family:sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 12px}
h1{font-size:26px;margin-bottom:4px}h2{font-size:20px;margin-top:28px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;
text-align:right;font-size:13px}th{background:#f3f3f3}td.l,th.l{text-align:left}
.win{font-weight:bold;color:#1a7f37}.small{font-size:12px;color:#555}.cost{color:#b00020}
.chosen{font-weight:bold}.best{background:#e8f5e9}
"""


def _esc(x):
    return html.escape(str(x))


def shuffle_section(results):
    """Each shuffle's quality (tools/shuffles.py): how many neighbours of the pass before
    came out together again in the next pass's first cards, against a fair shuffle's
    expected count; nothing when the session had no shuffle to judge."""
    if not results:
        return ""
    rows = []
    for r in results:
        rows.append("<tr%s><td>%d</td><td>%d</td><td>%d</td><td>%.1f &plusmn; %.1f</td>"
                    "<td>%.3g</td><td>%s</td></tr>" % (
                        ' class="best"' if not r["weak"] else "", r["pass"], r["cards"],
                        r["kept"], r["expected"], r["spread"], r["p_value"],
                        "<b>weak</b>" if r["weak"] else "fair"))
    return ('<h2 id="shuffles">Shuffles</h2><p class="small">Neighbours kept: pairs of '
            'cards that lay together in the pass before (dealt one after another, or in '
            'one hand) found together again in the first %d cards after the shuffle; '
            'weak when a fair shuffle keeps as many in fewer than 1%% of cases.</p>'
            '<table><tr><th>shuffle</th><th>cards seen</th><th>neighbours kept</th>'
            '<th>a fair shuffle keeps</th><th>p</th><th>verdict</th></tr>%s</table>'
            % (shuffles.C.WINDOW, "".join(rows)))


def render_page(rv, charts):
    title = "The night of session %s" % rv.name
    p = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         "<title>%s</title><style>%s</style></head><body>" % (_esc(title), STYLE)]
    p.append("<h1>%s</h1>" % _esc(title))
    p.append('<p class="small">%s; %s, %d pack%s; %d deals%s; from %s</p>' % (
        _esc(rv.rules.name), "%d player seats and the house" % rv.seats if rv.casino else
        "%d seats, the banker included" % rv.seats, rv.packs, "s" if rv.packs > 1 else "",
        len(rv.deals), " (unfinished: a deal was in progress)" if rv.unfinished else "",
        _esc(os.path.basename(rv.path))))
    if rv.rejected:
        p.append('<p class="small">%d events the engine refused (as tools/replay.py lists '
                 'them) are left out.</p>' % len(rv.rejected))
    # standings
    p.append('<h2 id="standings">Standings</h2>')
    p.append(charts["standings"])
    if not rv.casino:
        p.append('<p class="small">Each band is a deal, in the colour of the seat that held '
                 'the bank.</p>')
    p.append('<table id="ledger"><tr><th class="l">deal</th><th class="l">bank</th>%s</tr>' %
             "".join("<th>%s</th>" % _esc(rv.seat_name(s)) for s in rv.participants))
    for d in rv.deals:
        bank = "house" if rv.casino else "seat %d" % d["banker"]
        note = " (void)" if d["void"] else "" if d["counted"] else " (not counted)"
        p.append("<tr><td class='l'>%d%s</td><td class='l'>%s</td>%s</tr>" % (
            d["number"], note, bank, "".join(
                "<td title='deal %+d'>%+d</td>" % (d["net"].get(str(s), 0),
                                                   d["balances"][str(s)])
                for s in rv.participants)))
    p.append("<tr><th class='l'>final</th><th></th>%s</tr></table>" % "".join(
        "<th class='%s'>%+d</th>" % ("win" if s in rv.winners else "", rv.balances[s])
        for s in rv.participants))
    if rv.kitty:
        p.append("<p>Kitty left: %d.</p>" % rv.kitty)
    win = ", ".join(rv.seat_name(s) for s in rv.winners) or "nobody yet"
    rule = ("the highest balance wins, equal highest share (T2)" if rv.rules.preset == 0 else
            "the highest balance")
    p.append('<p id="winners"><b>Winner%s: %s</b> (%s%s).</p>' % (
        "s" if len(rv.winners) > 1 else "", _esc(win), rule,
        "" if rv.finished or rv.rules.preset != 0 else "; the eight deals are not all played"))
    # settle-up
    p.append('<h2 id="settle">Settle-up</h2>')
    pays = settle_up(final_holdings(rv))
    if rv.kitty:
        p.append("<p>The kitty's %d go back to seat %d, the banker who put it up (X8), "
                 "before anyone pays.</p>" % (rv.kitty, rv.engine.banker))
    if pays:
        p.append("<p>%d payment%s settle the night (the fewest that can):</p><ul>" % (
            len(pays), "s" if len(pays) > 1 else ""))
        for payer, payee, amount in pays:
            p.append("<li>%s pays %s <b>%d</b></li>" % (
                _esc(_who(rv, payer)), _esc(_who(rv, payee)), amount))
        p.append("</ul>")
    else:
        p.append("<p>Everybody is even: nothing to pay.</p>")
    # per seat
    p.append('<h2 id="seats">Per seat</h2><table><tr><th class="l"></th>%s</tr>' % "".join(
        "<th>%s</th>" % _esc(rv.seat_name(s)) for s in rv.participants))
    rows = (("hands played", "hands"), ("Pontoons", "pontoon"), ("five-card tricks",
                                                          "five-card-trick"),
            ("busts", "bust"), ("splits", "splits"), ("buys", "buys"),
            ("banks held", "banks held"), ("the bank made", "bank made"),
            ("shoot bets won", "shoot won"), ("shoot bets lost", "shoot lost"))
    for label, key in rows:
        if key.startswith("shoot") and not rv.rules.shoot:
            continue
        if rv.casino and key in ("banks held", "bank made", "buys"):
            continue
        p.append("<tr><td class='l'>%s</td>%s</tr>" % (label, "".join(
            "<td>%s</td>" % (("%+d" % rv.stats[s][key]) if key == "bank made" else
                             rv.stats[s][key]) for s in rv.participants)))
    p.append("<tr><td class='l'>biggest swing</td>%s</tr>" % "".join(
        "<td>%s</td>" % ("%+d (deal %d)" % rv.swings[s] if rv.swings[s] else "-")
        for s in rv.participants))
    p.append("<tr><td class='l'>cost of choices</td>%s</tr></table>" % "".join(
        "<td class='cost'>%.2f</td>" % rv.cost(s) for s in rv.participants))
    # decisions
    p.append('<h2 id="decisions">Every decision scored</h2>')
    if rv.decisions:
        p.append(
            '<p class="small">Each value is the exact expected money of that choice (in '
            'units of stake) from the cards its maker could not see at that moment: the '
            'pack less his own cards, every face-up card and the cards gathered under the '
            'pack since the last shuffle; the best play follows each choice. The banker is '
            'taken to play <b>%s</b> (tools/strategies.py)%s. The cost is what the chosen '
            'move gave up against the best one. Approximations: a split\'s second hand is '
            'valued as the first; the players still to play are not modelled. In '
            'hindsight: the card that really came next.</p>' % (
                _esc(rv.policy), "; the banker's own draws are scored against the players' "
                "face-up cards and card counts he could see" if not rv.casino else ""))
        p.append(charts["costs"])
        p.append('<table id="decision-table"><tr><th>deal</th><th class="l">who</th>'
                 '<th class="l">hand</th><th>unseen</th><th class="l">choice</th>'
                 '<th class="l">values</th><th class="l">best</th><th>cost</th>'
                 '<th class="l">in hindsight</th></tr>')
        for d in rv.decisions:
            vals = ", ".join(
                "<span class='%s'>%s %+.2f</span>" % (
                    "chosen" if c == d["choice"] else "", _esc(c), v) + (
                    ")" if c.startswith("(") else "")
                for c, v in _shown_values(d))
            who = ("banker (seat %d)" % d["seat"]) if d["banker"] else rv.seat_name(d["seat"])
            p.append("<tr class='%s'><td>%d</td><td class='l'>%s</td><td class='l'>%s (%d)"
                     "</td><td>%d</td><td class='l'>%s</td><td class='l'>%s</td>"
                     "<td class='l'>%s</td><td class='cost'>%s</td><td class='l'>%s</td></tr>"
                     % ("best" if not d["cost"] else "", d["deal"], _esc(who),
                        _esc(d["hand"]), d["total"], d["unseen"], _esc(d["choice"]), vals,
                        _esc(d["best"]), "%.2f" % d["cost"] if d["cost"] else "",
                        _esc(d["hindsight"])))
        p.append("</table>")
    else:
        p.append("<p>No decision was scored.</p>")
    p.append(shuffle_section(rv.shuffle_results))
    p.append('<p class="small">Made by tools/night.py from %s (%s).</p></body></html>' % (
        _esc(os.path.basename(rv.path)), _esc("; ".join(rv.header_lines))))
    return "\n".join(p)


def _shown_values(d):
    """A decision's values, best first, for the page: of the buys only the best, the
    chosen one and the range of the others (the exports keep every amount)."""
    vals = d["values"]
    buys = sorted((c for c in vals if c.startswith("buy ")), key=lambda c: -vals[c])
    keep = [c for c in vals if not c.startswith("buy ")] + buys[:1]
    if d["choice"] in buys and d["choice"] not in keep:
        keep.append(d["choice"])
    rows = sorted(((c, vals[c]) for c in keep), key=lambda kv: -kv[1])
    rest = [c for c in buys if c not in keep]
    if rest:
        amounts = sorted(int(c.split()[1]) for c in rest)
        low = min(vals[c] for c in rest)
        rows.append(("(buy %d-%d down to" % (amounts[0], amounts[-1]), low))
    return rows


def _who(rv, who):
    return rv.seat_name(who)


def final_holdings(rv):
    """What each participant is owed (+) or owes (-) at the end: the balances, the kitty
    going back to the banker who put it up (X8: he takes back what is left)."""
    out = dict(rv.balances)
    if rv.kitty:
        out[rv.engine.banker] += rv.kitty
    return out


# ================================================================ exports

def ledger_rows(rv):
    rows = []
    for d in rv.deals:
        row = {"deal": d["number"], "counted": int(d["counted"]), "void": int(d["void"]),
               "banker": d["banker"]}
        for s in rv.participants:
            row["net %d" % s] = d["net"].get(str(s), 0)
        for s in rv.participants:
            row["balance %d" % s] = d["balances"][str(s)]
        rows.append(row)
    return rows


def decision_rows(rv):
    return [dict(d, values=" ".join("%s=%.4f" % kv for kv in d["values"].items()))
            for d in rv.decisions]


def _write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        if not rows:
            return
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def document(rv):
    return {"session": rv.name, "rules": rv.rules.name, "seats": rv.seats,
            "packs": rv.packs, "banker_policy": rv.policy, "deals": ledger_rows(rv),
            "balances": {str(s): b for s, b in rv.balances.items()}, "kitty": rv.kitty,
            "winners": rv.winners,
            "settle_up": [{"from": a, "to": b, "amount": n}
                          for a, b, n in settle_up(final_holdings(rv))],
            "cost_of_choices": {str(s): round(rv.cost(s), 4) for s in rv.participants},
            "decisions": rv.decisions}


def write_session(rv, out, want_csv=False, want_json=False, want_png=True):
    """Write the page (and charts, exports) of one reviewed session; returns the page path."""
    os.makedirs(out, exist_ok=True)
    width, height = 760, 320
    st = standings_shapes(rv, width, height)
    cs = costs_shapes(rv)
    charts = {"standings": svg(st, width, height, "balances after every deal"),
              "costs": svg(cs, 760, 200, "cost of choices per seat") if cs else ""}
    page = os.path.join(out, rv.name + ".html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(render_page(rv, charts))
    if want_png:
        png(st, width, height, os.path.join(out, rv.name + "_standings.png"))
        if cs:
            png(cs, 760, 200, os.path.join(out, rv.name + "_costs.png"))
    if want_csv:
        _write_csv(os.path.join(out, rv.name + "_ledger.csv"), ledger_rows(rv))
        _write_csv(os.path.join(out, rv.name + "_decisions.csv"), decision_rows(rv))
    if want_json:
        with open(os.path.join(out, rv.name + ".json"), "w", encoding="utf-8") as f:
            json.dump(document(rv), f, indent=1)
    return page


# ================================================================ command line

def history_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            h = os.path.join(p, "history")
            d = h if os.path.isdir(h) else p
            files.extend(sorted(os.path.join(d, n) for n in os.listdir(d)
                                if n.endswith(".txt") and n[:-4].isdigit()))
        elif os.path.exists(p):
            files.append(p)
        elif p == os.path.join(ROOT, "out", "flash"):
            raise NightError("no shoe's history in out/flash: play a session first "
                             "(`make sim`), or give the files, or --pull from the shoe")
        else:
            raise NightError("no such file or directory: %s" % p)
    return files


def pull(port, dest):
    """Copy history/ from the shoe on USB (mpremote, the port as `make deploy` finds it)."""
    import deploy
    port = port or deploy.find_port()
    os.makedirs(dest, exist_ok=True)
    deploy.mpremote(port, "fs", "cp", "-r", ":history", dest + "/")
    return os.path.join(dest, "history")


def parse_args(argv):
    ap = cli.ArgumentParser(prog="night.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", metavar="FILE_OR_DIR",
                    help="history files or shoe directories (default: out/flash)")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "night"))
    ap.add_argument("--pull", action="store_true",
                    help="copy history/ from the shoe on USB first (mpremote)")
    ap.add_argument("--port", help="the shoe's serial port for --pull (default: the first)")
    ap.add_argument("--banker-policy", default=DEFAULT_POLICY,
                    help="the banker's play the values assume (tools/strategies.py): "
                         "draw-below-N, 12 <= N <= 21, or casino; default " + DEFAULT_POLICY)
    ap.add_argument("--csv", action="store_true", help="also the ledger and decisions as CSV")
    ap.add_argument("--json", action="store_true", help="also one JSON document a session")
    ap.add_argument("--no-decisions", action="store_true", help="do not score decisions")
    ap.add_argument("--no-png", action="store_true", help="no PNG copies of the charts")
    a = ap.parse_args(argv)
    try:
        D.banker_rule(a.banker_policy)
    except ValueError as e:
        ap.error(str(e))
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if a.pull:
            paths = [pull(a.port, os.path.join(a.out, "pulled"))]
        else:
            paths = a.paths or [os.path.join(ROOT, "out", "flash")]
        files = history_files(paths)
        if not files:
            raise NightError("no history files (history/NNNN.txt) in %s: play a session "
                             "first (`make sim`)" % ", ".join(paths))
        for path in files:
            rv = Review(path, a.banker_policy, not a.no_decisions,
                        progress=lambda s: print("night: " + s, flush=True))
            page = write_session(rv, a.out, a.csv, a.json, not a.no_png)
            print("night: %s: %d deals, %d decisions scored in %.1f s -> %s" % (
                rv.name, len(rv.deals), len(rv.decisions), rv.seconds,
                os.path.relpath(page)))
    except NightError as e:
        cli.fail("night.py", str(e))
    except Exception as e:          # the pull: mpremote's or the port's own message
        if type(e).__name__ == "DeployError":
            cli.fail("night.py", str(e))
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
