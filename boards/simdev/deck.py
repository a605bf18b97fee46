# A physical deck of stickered cards, beside the chip models: what the dealer holds.
#
# `packs` packs of 52 cards; every card carries one NTAG213 sticker whose UID is fixed for
# the life of the deck (a card dealt again is the same sticker: never a new UID). With two
# packs there are two stickers per card code, and which of them comes out is decided by
# the shoe's physical order, never by the test.
#
# Where each card is: the shoe (`shoe`, top first: cards leave from the front), the table
# (`table`, in the order dealt), the discard tray (`discard`). Cards go under the pack or to
# the discard tray as the engine's shoe says (firmware/game/shoe_layers.py: R2, N1, N3, the cut's
# cards after B1): follow(engine, event) after each event the table took mirrors it, so
# the physical order always agrees with the engine's layers (check()). `shuffle()` reorders
# the physical cards (the shoe and the discard tray) by riffles, from a seeded generator.
#
# Runs on CPython and the MicroPython unix port (its own generator: no random.Random).
from boards.simdev import ntag213

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
TABLE = 255                 # engine.loc places (firmware/game/shoe_layers.py)
DISCARD = 254
RIFFLES = 7                 # seven riffles mix a pack (Bayer & Diaconis)
OTHER_DECK_SALT = 0x33      # the UIDs of another deck's stickers


def card_text(code):
    return RANKS[code >> 2] + SUITS[code & 3]


class Rng:
    """xorshift32: the same sequence on CPython and MicroPython."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 1) & 0xFFFFFFFF or 1

    def next(self):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x

    def below(self, n):
        return self.next() % n if n > 1 else 0

    def chance(self, p):
        return self.next() < p * 4294967296.0


class Card:
    """One physical card: its code (cards.py), its pack, its sticker (None: no sticker)."""

    def __init__(self, code, pack, tag):
        self.code = code
        self.pack = pack
        self.tag = tag
        self.dead = False           # the sticker no longer answers (it stays dead)

    @property
    def text(self):
        return card_text(self.code)

    def uid(self):
        return self.tag.uid.hex().upper()

    def __repr__(self):
        return "%s/%d" % (self.text, self.pack)


def sticker(code, pack, salt=0):
    """The sticker of card `code` of pack `pack`: a Text record, as NFC Tools writes it."""
    return ntag213.text_tag(card_text(code), uid=ntag213.uid_for(code + 52 * pack, salt),
                            lock_tlv=(code % 4 == 0))


def card_sticker(text, pack=0):
    """The sticker of card `text` ("AS") of pack `pack`: the same UID in every deck made."""
    return sticker(RANKS.index(text[:-1]) << 2 | SUITS.index(text[-1]), pack)


class Deck:
    def __init__(self, packs=1, seed=1, salt=0, shuffled=True):
        self.packs = packs
        self.rng = Rng(seed)
        self.cards = [Card(code, pack, sticker(code, pack, salt))
                      for pack in range(packs) for code in range(52)]
        self.shoe = list(self.cards)            # top first
        self.table = []
        self.discard = []
        self.shuffles = 0
        self.stacked = 0                        # cards a test named that were not on top
        if shuffled:
            self.shuffle()

    # ------------------------------------------------------------------ the dealer's hands
    def shuffle(self):
        """Every card off the table back into the shoe, riffled RIFFLES times and cut."""
        cards = self.shoe + self.discard
        self.discard = []
        for _ in range(RIFFLES):
            cards = self._riffle(cards)
        if len(cards) > 1:
            k = 1 + self.rng.below(len(cards) - 1)
            cards = cards[k:] + cards[:k]
        self.shoe = cards
        self.shuffles += 1

    def _riffle(self, cards):
        """Gilbert-Shannon-Reeds: cut near the middle (binomial), then drop the cards from
        either half with a chance in proportion to its size."""
        n = len(cards)
        cut = 0
        for _ in range(n):
            cut += self.rng.next() & 1
        left, right = cards[:cut], cards[cut:]
        out = []
        i = j = 0
        while i < len(left) or j < len(right):
            a, b = len(left) - i, len(right) - j
            if self.rng.below(a + b) < a:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
        return out

    def top(self):
        """The card that comes out next (None: the shoe is empty)."""
        return self.shoe[0] if self.shoe else None

    def deal(self, code=None):
        """The top card leaves the shoe for the table. `code`: the card a script names; a
        test that names another card has stacked the shoe (its first copy comes to the
        top: counted in `stacked`); one on the table only is picked up again (the same
        sticker)."""
        if code is not None and (not self.shoe or self.shoe[0].code != code):
            return self._stack(code)
        card = self.shoe.pop(0)
        self.table.append(card)
        return card

    def find(self, code):
        """The copy of `code` a dealer asked for it picks: the first from the top of the
        shoe, else the one dealt last (the same sticker again)."""
        for card in self.shoe:
            if card.code == code:
                return card
        for card in reversed(self.table + self.discard):
            if card.code == code:
                return card
        raise ValueError("no %s in this deck" % card_text(code))

    def _stack(self, code):
        for i, card in enumerate(self.shoe):
            if card.code == code:
                self.stacked += 1
                del self.shoe[i]
                self.table.append(card)
                return card
        for card in reversed(self.table):       # dealt again: the same sticker
            if card.code == code:
                return card
        for card in reversed(self.discard):
            if card.code == code:
                return card
        raise ValueError("no %s in this deck" % card_text(code))

    def push_back(self, card):
        """A card read and pushed back into the shoe: on top again."""
        self.table.remove(card)
        self.shoe.insert(0, card)

    def follow(self, e, shuffled=False):
        """After an event the engine `e` took: the cards it no longer has on the table go
        under the pack (in the order they were dealt) or into the discard tray; a shuffle
        (`shuffled`) reorders every card off the table."""
        if shuffled:
            self.shuffle()
            return
        loc = e.loc
        on = [0] * 52
        tray = [0] * 52
        for i in range(e.copies):
            if loc[i] == TABLE:
                on[i % 52] += 1
            elif loc[i] == DISCARD:
                tray[i % 52] += 1
        have = [0] * 52
        for card in self.table:
            have[card.code] += 1
        for c in range(52):
            while have[c] < on[c]:      # a card the table took by hand (or a typed line):
                self._stack(c)          # the dealer laid that card, the first from the top
                have[c] += 1
        gone = []
        for card in self.table:
            c = card.code
            if have[c] > on[c]:
                have[c] -= 1
                gone.append(card)
        under = []
        taken = {}
        for n, card in enumerate(gone):
            self.table.remove(card)
            c = card.code
            if tray[c] > self._count(self.discard, c):
                self.discard.append(card)
                continue
            # the layer it went into: the newest of its code's copies in the shoe (an
            # event may form several layers, a hand each: they go under in that order)
            layers = sorted(loc[i] for i in range(c, e.copies, 52) if loc[i] < DISCARD)
            k = taken.get(c, 0) + 1
            taken[c] = k
            under.append((layers[-k] if k <= len(layers) else 0, n, card))
        under.sort()
        for _, _, card in under:
            self.shoe.append(card)                  # under the pack

    @staticmethod
    def _count(cards, code):
        n = 0
        for c in cards:
            if c.code == code:
                n += 1
        return n

    def check(self, e):
        """None if the physical cards agree with the engine's shoe, else what differs: the
        count of each card on the table, in the tray and in the shoe, and the top card in
        the engine's top layer."""
        loc = e.loc
        for code in range(52):
            want = [0, 0, 0]
            for i in range(code, e.copies, 52):
                w = loc[i]
                want[0 if w == TABLE else 1 if w == DISCARD else 2] += 1
            got = [self._count(self.table, code), self._count(self.discard, code),
                   self._count(self.shoe, code)]
            if want != got:
                return "%s: engine %s, deck %s (table, tray, shoe)" % (card_text(code), want, got)
        top = self.top()
        if top is not None and e.top_count:
            for i in range(top.code, e.copies, 52):
                if loc[i] == e.top_layer:
                    return None
            return "the shoe's top card %s is not in the engine's top layer" % top.text
        return None

    def card_of(self, text, pack=0):
        """The physical card `text` of pack `pack` (wherever it is)."""
        for card in self.cards:
            if card.text == text and card.pack == pack:
                return card
        raise ValueError("no %s in pack %d" % (text, pack))

    def by_uid(self, uid):
        for card in self.cards:
            if card.tag is not None and card.tag.uid == uid:
                return card
        return None


def other_deck_card(code, blank=True):
    """A card of another deck: its sticker (blank: that deck is named by its own UID map)
    has a UID no card of ours has."""
    uid = ntag213.uid_for(code, OTHER_DECK_SALT)
    tag = ntag213.blank_tag(uid) if blank else ntag213.text_tag(card_text(code), uid=uid)
    return Card(code, -1, tag)
