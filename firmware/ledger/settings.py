# The table's settings file on flash (settings.txt): `key = value` lines, '#' comments.
#
#   preset = table            table, classic or casino
#   seats = 4                 participants, banker included: 2..8 (casino: players, 1..7;
#                             the one range is rules.seats_error)
#   banker = cut              cut (B1) or a seat number
#   packs = auto              auto (C1) or 1..8
#   height = 64               display height in pixels: 64 or 32
#   stake_max = 5             any rules option of TRANSCRIPT.md (classic/casino), by name
#   gone_polls = 3            reader: detections a card may miss before it has left
#   timeout_ms = 150          reader: response timeout
#   uid_map = uidmap.txt      reader: UID -> card file for blank tags (optional)
#   debounce_ms = 25          buttons: a press counts once it has lasted this long
#   release_ms = 10           buttons: a release counts once it has lasted this long
#   long_ms = 800             buttons: a press this long is a long press
#   seat_displays = on        off: no seat OLEDs, the players' phones are the seat displays
#   sound = on                off: the buzzer stays silent (no tick, no buzz)
#   shuffle_check = off       on: each shuffle judged after a new pass's first cards
#                             (shuffle_check.py): "weak shuffle: 9 neighbours kept"
#   web = on                  a board with a network (Pico W) serves the table (web.py)
#   wifi = Home network       the Wi-Fi to join (spaces allowed); none: its own access point
#   wifi_password = secret    that network's password
#   ap_name = Pontoon         the access point's name when no wifi is set
#   ap_password = 12345678    the access point's password (8+ characters; none: open)
#   web_port = 80             the port of the pages
#   web_timeout = 10          seconds a connection may last (a long poll answers sooner)
#
# load() never raises for a bad file: it returns Settings with .error = "settings.txt
# line N: ...; line M: ..." (every bad line) and default values, so the controller can say so on every display.
# The table reads the file once, at boot (app.py).
from game.rules import RulesError, parse_rules, seats_error

_NUMBERS = (   # key, low, high (a tuple stays in flash; a dict would be built on the heap)
    ("height", 32, 64),
    ("gone_polls", 1, 20),
    ("timeout_ms", 20, 2000),
    ("debounce_ms", 5, 500),
    ("release_ms", 5, 500),
    ("long_ms", 200, 5000),
    ("web_port", 1, 65535),
    ("web_timeout", 2, 60),
)
_SWITCHES = ("seat_displays", "web", "sound", "shuffle_check")
_TEXTS = ("wifi", "wifi_password", "ap_name", "ap_password")   # may hold spaces


class Settings:
    def __init__(self):
        self.preset = "table"
        self.options = []          # ["name=value", ...] for the rules line
        self.seats = 4
        self.banker = 0            # 0 = cut for the first banker (B1)
        self.packs = 0             # 0 = as C1 says
        self.height = 64
        self.gone_polls = 3
        self.timeout_ms = 150
        self.uid_map = ""
        self.debounce_ms = 25      # the longest that loses no real tap (tools/bench_fingers.py)
        self.release_ms = 10
        self.long_ms = 800
        self.seat_displays = True
        self.web = True
        self.sound = True          # the buzzer's tick and buzz (buzzer.py)
        self.shuffle_check = False  # each shuffle judged (shuffle_check.py)
        self.wifi = ""
        self.wifi_password = ""
        self.ap_name = "Pontoon"
        self.ap_password = ""
        self.web_port = 80
        self.web_timeout = 10
        self.error = None          # text of the first problem, or None
        self.found = False         # the file exists

    def rules(self):
        """The rules.Rules these settings describe (raises RulesError)."""
        return parse_rules([self.preset] + self.options)

    def header_lines(self):
        """The journal's header lines (TRANSCRIPT.md)."""
        out = ["rules " + " ".join([self.preset] + self.options), "seats %d" % self.seats]
        if self.banker:
            out.append("banker %d" % self.banker)
        if self.packs:
            out.append("packs %d" % self.packs)
        return out


def _int(text):
    if not text or len(text) > 6:
        return -1
    for ch in text:
        if ch < "0" or ch > "9":
            return -1
    return int(text)


def _set(s, key, value):
    """Apply one key; returns an error text or None."""
    if key == "preset":
        if value not in ("table", "classic", "casino"):
            return "preset must be table, classic or casino, not '%s'" % value
        s.preset = value
        return None
    if key == "banker":
        if value == "cut":
            s.banker = 0
            return None
        n = _int(value)
        if n < 1:
            return "banker must be 'cut' or a seat number, not '%s'" % value
        s.banker = n
        return None
    if key == "packs":
        if value == "auto":
            s.packs = 0
            return None
        n = _int(value)
        if not 1 <= n <= 8:
            return "packs must be 'auto' or 1 to 8, not '%s'" % value
        s.packs = n
        return None
    if key == "seats":               # its range depends on the preset: seats_error below
        n = _int(value)
        if n < 0:
            return "seats must be a whole number, not '%s'" % value
        s.seats = n
        return None
    if key in _SWITCHES:
        if value not in ("on", "off"):
            return "%s must be on or off, not '%s'" % (key, value)
        setattr(s, key, value == "on")
        return None
    if key in _TEXTS:
        if key == "ap_password" and len(value) < 8:
            return "ap_password needs 8 characters or more (WPA2)"
        setattr(s, key, value)
        return None
    if key == "uid_map":
        s.uid_map = value
        return None
    for name, lo, hi in _NUMBERS:
        if name != key:
            continue
        n = _int(value)
        if n < lo or n > hi or (key == "height" and n not in (32, 64)):
            if key == "height":
                return "height must be 32 or 64, not '%s'" % value
            return "%s must be a whole number from %d to %d, not '%s'" % (key, lo, hi, value)
        setattr(s, key, n)
        return None
    # anything else is a rules option, checked by rules.py below
    s.options.append(key + "=" + value)
    return None


def parse(lines):
    """Settings from an iterable of text lines (never raises). Every bad line is reported,
    each with its number, in one error text; a whole-file check (the seats for the preset,
    a rules option) names the line of the key it concerns."""
    s = Settings()
    s.found = True
    errors = []
    at = {}                          # key -> the line that set it
    number = 0
    for line in lines:
        number += 1
        if not isinstance(line, str):
            try:
                line = line.decode("utf-8")
            except UnicodeError:
                errors.append((number, "not UTF-8 text"))
                continue
        h = line.find("#")
        if h >= 0:
            line = line[:h]
        line = line.strip()
        if not line:
            continue
        eq = line.find("=")
        if eq <= 0:
            errors.append((number, "'%s' is not a 'key = value' line" % line))
            continue
        key = line[:eq].strip()
        value = line[eq + 1:].strip()
        if not value or (" " in value and key not in _TEXTS):
            errors.append((number, "%s needs one value" % key))
            continue
        why = _set(s, key, value)
        if why:
            errors.append((number, why))
        else:
            at[key] = number
    if not errors:
        try:
            s.rules()
        except RulesError as e:
            why = str(e)
            line = 0
            for key in at:
                if "'%s'" % key in why:
                    line = at[key]
            errors.append((line, why))
    if not errors:
        why = seats_error(s.preset, s.seats, s.banker)
        if why:
            if why.startswith("casino has"):
                why += " (remove 'banker')"
            key = "banker" if why.startswith("banker") or why.startswith("casino has") \
                else "seats"
            errors.append((at.get(key, 0) or at.get("preset", 0), why))
    if errors:
        return _bad(errors)
    return s


def _bad(errors):
    d = Settings()
    d.found = True
    d.error = "settings.txt" + ";".join([(" line %d: %s" % (n, why)) if n else (": " + why)
                                         for n, why in errors])
    return d


def load(path="settings.txt"):
    try:
        f = open(path)
    except OSError:
        return Settings()          # no file: the defaults (table, 4 seats, cut)
    try:
        return parse(f)
    finally:
        f.close()
