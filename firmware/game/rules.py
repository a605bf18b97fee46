# The three presets and the `classic` options (docs/RULES.md V, X), validated from the
# transcript's `rules` line or the settings file.
from micropython import const


TABLE = const(0)
CLASSIC = const(1)
CASINO = const(2)
PRESETS = ("table", "classic", "casino")

# The seats the shoe plays: one range for the engine, the settings file and every tool.
# table/classic count participants, the banker included: 2 to 8, because each sits at one
# of the eight seat displays on the multiplexer's eight channels. casino counts player
# seats, the house dealing on the banker's display: 1 to 7, the boxes of a casino table.
SEATS_MIN = (2, 2, 1)
SEATS_MAX = (8, 8, 7)


def seats_error(preset, seats, banker=0):
    """None, or why `seats` seats with first banker `banker` (0: the cut, B1) cannot play
    `preset` (a name or TABLE/CLASSIC/CASINO)."""
    p = PRESETS.index(preset) if preset in PRESETS else preset
    lo = SEATS_MIN[p]
    hi = SEATS_MAX[p]
    if not lo <= seats <= hi:
        if p == CASINO:
            return "casino seats must be %d to %d players (the house deals), not %d" % (
                lo, hi, seats)
        return "seats must be %d to %d, the banker included, not %d" % (lo, hi, seats)
    return banker_error(p, seats, banker) if banker else None


def banker_error(preset, seats, banker):
    """None, or why seat `banker` cannot be the first banker at `seats` seats (0 is no
    seat: a table without a first banker cuts for one, B1)."""
    p = PRESETS.index(preset) if preset in PRESETS else preset
    if p == CASINO:
        return "casino has no banker: the house deals"
    if not 1 <= banker <= seats:
        return "banker must be a seat from 1 to %d, not %d" % (seats, banker)
    return None


def packs_error(packs):
    """None, or why the shoe cannot hold `packs` packs (C1, C4 ruling)."""
    if not 1 <= packs <= 8:
        return "packs must be 1 to 8, not %d" % packs
    return None


_ORDER_EQUAL = const(0)
_ORDER_PICTURE = const(1)
_ORDER_NATURAL = const(2)
_ORDER_ACE_TEN_ORDINARY = const(3)
ORDER_NAMES = ("equal", "picture_beats_ten", "natural_beats_plain", "ace_ten_ordinary")

# name: (presets it applies to, kind, low, high). kind "n" = number, "s" = on/off switch,
# "o" = pontoon_order word, "b" = burn (13, 14 or off). Stakes and the kitty are capped
# (100, 10000) so that every per-hand amount fits the engine's 16-bit hand words.
_OPTIONS = (   # pairs, not a dict: a constant tuple stays in flash, a dict is built on the heap
    ("stake_min", ("classic casino", "n", 1, 100)),
    ("stake_max", ("classic casino", "n", 1, 100)),
    ("split_aces_only", ("classic", "s", 0, 1)),
    ("stick_min", ("classic", "n", 15, 16)),
    ("banker_doubling", ("classic", "s", 0, 1)),
    ("pontoon_pays", ("classic", "n", 1, 3)),
    ("banker_pontoon_collects_single", ("classic", "s", 0, 1)),
    ("four_card_eleven_twist_only", ("classic", "s", 0, 1)),
    ("royal_pontoon", ("classic", "s", 0, 1)),
    ("pontoon_order", ("classic", "o", 0, 3)),
    ("burn", ("classic", "b", 13, 14)),
    ("shoot", ("classic", "s", 0, 1)),
    ("kitty_min", ("classic", "n", 1, 10000)),
    ("kitty_max", ("classic", "n", 1, 10000)),
)


class RulesError(Exception):
    pass


class Rules:
    def __init__(self, preset="table"):
        if preset not in PRESETS:
            raise RulesError("unknown preset '%s' (allowed: table, classic, casino)" % preset)
        self.preset = PRESETS.index(preset)
        self.name = preset
        casino = self.preset == CASINO
        self.stake_min = 1
        self.stake_max = 100 if casino else 5
        self.split_aces_only = 0
        self.stick_min = 15
        self.banker_doubling = 0
        self.pontoon_pays = 2
        self.banker_pontoon_collects_single = 0
        self.four_card_eleven_twist_only = 0
        self.royal_pontoon = 0
        self.pontoon_order = _ORDER_EQUAL
        self.burn = 0
        self.shoot = 0
        self.kitty_min = 10
        self.kitty_max = 100
        self.options = []  # (name, text) in the order given, for the settings file and views

    def set(self, name, text):
        """Set one option from its text; raises RulesError naming the allowed values."""
        spec = None
        for known, known_spec in _OPTIONS:
            if known == name:
                spec = known_spec
        if spec is None:
            raise RulesError("unknown rules option '%s' (allowed: %s)"
                             % (name, ", ".join(sorted(k for k, _ in _OPTIONS))))
        presets, kind, low, high = spec
        if self.name not in presets.split():
            raise RulesError(
                "option '%s' does not apply to the %s preset (only to %s)"
                % (name, self.name, presets.replace(" ", ", "))
            )
        if kind == "s":
            if text not in ("on", "off"):
                raise RulesError("%s must be on or off, not '%s'" % (name, text))
            value = 1 if text == "on" else 0
        elif kind == "o":
            if text not in ORDER_NAMES:
                raise RulesError(
                    "pontoon_order must be one of %s, not '%s'" % (", ".join(ORDER_NAMES), text)
                )
            value = ORDER_NAMES.index(text)
        elif kind == "b":
            if text == "off":
                value = 0
            elif text in ("13", "14"):
                value = int(text)
            else:
                raise RulesError("burn must be 13, 14 or off, not '%s'" % text)
        else:
            if not _is_int(text) or not (low <= int(text) <= high):
                raise RulesError(
                    "%s must be a whole number from %d to %d, not '%s'" % (name, low, high, text)
                )
            value = int(text)
        setattr(self, name, value)
        self.options.append((name, text))

    def check(self):
        """Cross-option checks, after every option is set."""
        if self.stake_min > self.stake_max:
            raise RulesError(
                "stake_min (%d) is above stake_max (%d)" % (self.stake_min, self.stake_max)
            )
        if self.kitty_min > self.kitty_max:
            raise RulesError(
                "kitty_min (%d) is above kitty_max (%d)" % (self.kitty_min, self.kitty_max)
            )

    def line(self):
        """The `rules` line that recreates these rules."""
        out = "rules " + self.name
        for name, text in self.options:
            out += " %s=%s" % (name, text)
        return out


def _is_int(text):
    if not text:
        return False
    for ch in text:
        if ch < "0" or ch > "9":
            return False
    return True


def parse_rules(words):
    """words after 'rules': PRESET key=value ... -> Rules (raises RulesError)."""
    if not words:
        raise RulesError("rules needs a preset: table, classic or casino")
    rules = Rules(words[0])
    for word in words[1:]:
        eq = word.find("=")
        if eq <= 0:
            raise RulesError("rules option '%s' must be written name=value" % word)
        rules.set(word[:eq], word[eq + 1 :])
    rules.check()
    return rules
