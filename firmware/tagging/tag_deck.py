# The deck as the tag mode works through it: deck order (AS 2S .. KS, AH .. KH, AD .. KD,
# AC .. KC) and, for "tags check", the tally of the tags seen. A deck of several packs
# (C1, C4) holds each card once a pack; the packs' stickers say the same (the engine counts
# copies, the reader tells them apart by UID), so a check counts the UIDs of each card.
from game.cards import card_name
from hardware.pn532_link import uid_hex

SUITS = "SHDC"          # deck order of the suits; ranks ace .. king within each


def deck_card(i):
    """Card code (cards.py) of deck place i (0..51)."""
    return (i % 13) * 4 + "CDHS".find(SUITS[i // 13])


def place_name(place):
    """The card at deck place `place` of a deck of packs (0..52 x packs - 1), by name."""
    return card_name(deck_card(place % 52))


def deck_place(code):
    return SUITS.find("CDHS"[code & 3]) * 13 + (code >> 2)


class DeckCheck:
    """Which cards a checked deck holds and on which tags each was seen."""

    def __init__(self, count, packs=1):
        self.end = count                     # tags to check (-1: until every card is present)
        self.packs = packs
        self.k = 0                           # tags checked
        self.seen = bytearray(52)            # per card code: its tags seen (up to packs)
        self.first = bytearray(7 * 52 * packs)   # their UIDs: copy j at (code * packs + j) * 7
        self.stats = {"present": 0, "duplicate": 0, "again": 0, "unknown": 0}

    def complete(self):
        return self.stats["present"] == 52 * self.packs or 0 < self.end <= self.k

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
        n = self.seen[code]
        base = code * self.packs
        for j in range(n):
            o = (base + j) * 7
            for i in range(7):
                if f[o + i] != uid[i]:
                    break
            else:
                st["again"] += 1
                return "again %d %s %s" % (k, name, uidhex), "%d %s again" % (k, name)
        if n >= self.packs:
            st["duplicate"] += 1
            o = base * 7
            return ("duplicate %d %s %s %s" % (k, name, uidhex, uid_hex(f[o:o + 7])),
                    "%d %s DUPLICATE" % (k, name))
        o = (base + n) * 7
        f[o:o + 7] = uid[:7]
        self.seen[code] = n + 1
        st["present"] += 1
        if self.packs > 1:
            return ("card %d %s %s copy %d/%d" % (k, name, uidhex, n + 1, self.packs),
                    "%d %s %d/%d ok" % (k, name, n + 1, self.packs))
        return "card %d %s %s" % (k, name, uidhex), "%d %s ok" % (k, name)

    def missing(self):
        """The cards not seen as often as the deck has packs, in deck order: a card missing
        from several packs once with its count ("ASx2")."""
        out = []
        for i in range(52):
            code = deck_card(i)
            left = self.packs - self.seen[code]
            if left == 1:
                out.append(card_name(code))
            elif left > 1:
                out.append("%sx%d" % (card_name(code), left))
        return out

    def missing_count(self):
        return 52 * self.packs - self.stats["present"]


class DoneTags:
    """The tags a write or enroll run of several packs has done, by deck place: a first
    pack's card put back among the second's is known again (size 0: a run of one pack)."""

    def __init__(self, size):
        self.uids = bytearray(7 * size)

    def mark(self, place, uid):
        if self.uids:
            self.uids[place * 7:place * 7 + 7] = uid[:7]

    def place_of(self, uid, first, end):
        """The place in first..end-1 that `uid` was done for, or -1."""
        d = self.uids
        if not d:
            return -1
        for k in range(first, end):
            o = k * 7
            for i in range(7):
                if d[o + i] != uid[i]:
                    break
            else:
                return k
        return -1
