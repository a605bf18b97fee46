# The deck as the tag mode works through it: deck order (AS 2S .. KS, AH .. KH, AD .. KD,
# AC .. KC) and, for "tags check", the tally of the tags seen.
from cards import card_name
from shoe_reader import uid_hex

SUITS = "SHDC"          # deck order of the suits; ranks ace .. king within each


def deck_card(i):
    """Card code (cards.py) of deck place i (0..51)."""
    return (i % 13) * 4 + "CDHS".find(SUITS[i // 13])


def deck_place(code):
    return SUITS.find("CDHS"[code & 3]) * 13 + (code >> 2)


class DeckCheck:
    """Which cards a checked deck holds and on which tag each was first seen."""

    def __init__(self, count):
        self.end = count                     # tags to check (-1: until all 52 are present)
        self.k = 0                           # tags checked
        self.seen = bytearray(52)            # per card code
        self.first = bytearray(7 * 52)       # the first UID per card code
        self.stats = {"present": 0, "duplicate": 0, "again": 0, "unknown": 0}

    def complete(self):
        return self.stats["present"] == 52 or 0 < self.end <= self.k

    def tag(self, uid, uidhex, kind, val, mapped):
        """The next tag: what it holds (tagmode's _content) and its card in the UID map.
        Returns (the "tags:" line, the display's short line)."""
        self.k += 1
        k = self.k
        st = self.stats
        if kind == "card" and mapped >= 0 and mapped != val:
            st["unknown"] += 1
            return ("unknown %d %s says %s but the UID map says %s"
                    % (k, uidhex, card_name(val), card_name(mapped)),
                    "%d conflict %s/%s" % (k, card_name(val), card_name(mapped)))
        if kind != "card" and (kind == "text" or mapped < 0):
            st["unknown"] += 1
            if kind == "text":
                why = "says %r, not a card" % val
            elif kind == "blank":
                why = "has no card record and is not in the UID map"
            else:
                why = "holds %s and is not in the UID map" % val
            return "unknown %d %s %s" % (k, uidhex, why), "%d unknown tag" % k
        code = val if kind == "card" else mapped
        name = card_name(code)
        f = self.first
        if self.seen[code]:
            for i in range(7):
                if f[code * 7 + i] != uid[i]:
                    st["duplicate"] += 1
                    return ("duplicate %d %s %s %s"
                            % (k, name, uidhex, uid_hex(f[code * 7:code * 7 + 7])),
                            "%d %s DUPLICATE" % (k, name))
            st["again"] += 1
            return "again %d %s %s" % (k, name, uidhex), "%d %s again" % (k, name)
        self.seen[code] = 1
        f[code * 7:code * 7 + 7] = uid[:7]
        st["present"] += 1
        return "card %d %s %s" % (k, name, uidhex), "%d %s ok" % (k, name)

    def missing(self):
        """The cards not seen, in deck order."""
        return [card_name(deck_card(i)) for i in range(52) if not self.seen[deck_card(i)]]
