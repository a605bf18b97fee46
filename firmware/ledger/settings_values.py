# The table's settings as the parser of settings.txt (settings.py) made them: the values,
# with their defaults, and the journal's header lines they imply.
from game.rules import parse_rules


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
