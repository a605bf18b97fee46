# The transcript language (docs/TRANSCRIPT.md): one line -> one event, for the replayer, the
# serial line and the journal alike.
from .cards import card_name, parse_card
from .engine import EVENT_WORDS, MAX_AMOUNT, Engine
from .rules import (SEATS_MAX, RulesError, banker_error, packs_error, parse_rules,
                   seats_error)

from micropython import const


# The events' codes, copies of engine.py's (test_engine_layout checks them): as constants
# here the table below is built of constant tuples, kept in flash, not on the heap.
_EV_CARD = const(1)
_EV_STAKE = const(2)
_EV_BUY = const(3)
_EV_TWIST = const(4)
_EV_STICK = const(5)
_EV_SPLIT = const(6)
_EV_DOUBLE = const(7)
_EV_BURN = const(8)
_EV_SHOOT = const(9)
_EV_KITTY = const(10)
_EV_BANKDOUBLE = const(11)
_EV_SELL = const(12)
_EV_STAND = const(13)
_EV_SHUFFLE = const(14)
_EV_VOID = const(15)

# word: (event, arguments) where arguments is a string of "s" seat, "n" amount, "c" card.
_EVENTS = {
    "card": (_EV_CARD, "c"),
    "stake": (_EV_STAKE, "sn"),
    "buy": (_EV_BUY, "sn"),
    "twist": (_EV_TWIST, "s"),
    "stick": (_EV_STICK, "s"),
    "split": (_EV_SPLIT, "s"),
    "double": (_EV_DOUBLE, "s"),
    "burn": (_EV_BURN, "s"),
    "shoot": (_EV_SHOOT, "sn"),
    "kitty": (_EV_KITTY, "n"),
    "bankdouble": (_EV_BANKDOUBLE, ""),
    "sell": (_EV_SELL, "sn"),
    "stand": (_EV_STAND, ""),
    "shuffle": (_EV_SHUFFLE, ""),
    "void": (_EV_VOID, ""),
}
_ARG_LETTERS = "snc"            # and what each letter names, in a tuple (kept in flash)
_ARG_NAMES = ("a seat number", "an amount", "a card code such as QH or TS")
HEADER_WORDS = ("rules", "seats", "banker", "packs")


class ParseError(Exception):
    """A line that cannot be parsed. `reason` is the message without its line number;
    `line` and `offset` (bytes from the start) say where, when known."""

    def __init__(self, reason, line=0, offset=0):
        super().__init__("line %d: %s" % (line, reason) if line else reason)
        self.reason = reason
        self.line = line
        self.offset = offset


def strip(line):
    """The words of a line without its comment: [] for a blank or comment line."""
    hash_at = line.find("#")
    if hash_at >= 0:
        line = line[:hash_at]
    return line.split()


def _number(word, what, high=MAX_AMOUNT):
    for ch in word:
        if ch < "0" or ch > "9":
            raise ParseError("%s must be a whole number, not '%s'" % (what, word))
    if not word or len(word) > 7 or int(word) > high:
        raise ParseError("%s '%s' is out of range (0 to %d)" % (what, word, high))
    return int(word)


def parse_event(words):
    """words of an event line -> (event, seat, amount, card); raises ParseError."""
    spec = _EVENTS.get(words[0])
    if spec is None:
        if words[0] in HEADER_WORDS:
            raise ParseError("'%s' is a header line and must come before any event" % words[0])
        raise ParseError(
            "unknown keyword '%s' (events: %s)" % (words[0], ", ".join(EVENT_WORDS[1:]))
        )
    ev, args = spec
    if len(words) - 1 != len(args):
        need = ", ".join([_ARG_NAMES[_ARG_LETTERS.index(a)] for a in args]) or "nothing"
        raise ParseError("'%s' takes %s" % (words[0], need))
    seat = amount = card = 0
    for i in range(len(args)):
        a = args[i]
        w = words[i + 1]
        if a == "c":
            card = parse_card(w)
            if card < 0:
                raise ParseError(
                    "'%s' is not a card code (rank A 2-9 T/10 J Q K, then suit C D H S)" % w
                )
        elif a == "s":
            seat = _number(w, "a seat", 99)
        else:
            amount = _number(w, "an amount")
    return ev, seat, amount, card


def read_events(lines, header, skip_to=0, offset=0):
    """Header lines go into `header` (a Header); then yields (line number, byte offset of
    the line, words, event) for each event line. One reader for the replayer and the
    controller's journal. Raises ParseError with the line number and offset. Event lines
    that begin before `skip_to` (what an engine snapshot already holds) are not parsed.
    offset > 0: `lines` begin at that byte of the transcript, past its header (line
    numbers then count from there)."""
    number = 0
    in_header = offset == 0
    for raw in lines:
        number += 1
        start = offset
        offset += len(raw)
        if start < skip_to and not in_header:
            continue
        if isinstance(raw, str):
            line = raw
        else:
            try:
                line = raw.decode("utf-8")
            except UnicodeError:
                raise ParseError("not UTF-8 text", number, start)
        words = strip(line)
        if not words:
            continue
        try:
            if in_header:
                if header.take(words):
                    continue
                in_header = False
            ev = parse_event(words)
        except ParseError as e:
            raise ParseError(e.reason, number, start)
        if start < skip_to:
            continue
        yield number, start, words, ev


def event_text(ev, seat, amount, card):
    """The canonical transcript line of an event (for the journal)."""
    word = EVENT_WORDS[ev]
    args = _EVENTS[word][1]
    out = word
    for a in args:
        if a == "c":
            out += " " + card_name(card)
        elif a == "s":
            out += " %d" % seat
        else:
            out += " %d" % amount
    return out


class Header:
    """Collects the header lines, then builds the engine."""

    def __init__(self):
        self.rules = None
        self.seats = 0
        self.banker = 0
        self.packs = 0

    def take(self, words):
        """Consume a header line; False when the words are not a header."""
        word = words[0]
        if word == "rules":
            if self.rules is not None:
                raise ParseError("a second 'rules' line")
            try:
                self.rules = parse_rules(words[1:])
            except RulesError as e:
                raise ParseError(str(e))
            return True
        if word not in ("seats", "banker", "packs"):
            return False
        if self.rules is None:
            raise ParseError("the first line must be 'rules PRESET ...'")
        if len(words) != 2:
            raise ParseError("'%s' takes one number" % word)
        value = _number(words[1], word, 99)
        if not value:                    # no line is the default (the cut): 0 is out of range
            p = self.rules.preset
            if word == "seats":
                why = seats_error(p, 0)
            elif word == "banker":
                why = banker_error(p, self.seats or SEATS_MAX[p], 0)
            else:
                why = packs_error(0)
            raise ParseError(why)
        if word == "seats":
            self.seats = value
        elif word == "banker":
            self.banker = value
        else:
            self.packs = value
        return True

    def engine(self):
        if self.rules is None:
            raise ParseError("the first line must be 'rules PRESET ...'")
        if not self.seats:
            raise ParseError("a 'seats N' line must come before the first event")
        try:
            return Engine(self.rules, self.seats, self.banker, self.packs)
        except ValueError as e:
            raise ParseError(str(e))

    def lines(self):
        out = [self.rules.line(), "seats %d" % self.seats]
        if self.banker:
            out.append("banker %d" % self.banker)
        if self.packs:
            out.append("packs %d" % self.packs)
        return out
