# Cards as small integers: code = rank * 4 + suit, one byte each (C1, C2, C4).
# rank 0 = A, 1 = 2, ..., 8 = 9, 9 = T, 10 = J, 11 = Q, 12 = K; suit 0..3 = C D H S.

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
CODES = 52                # card codes, 0 .. CODES - 1: one pack (C1)


def rank(card):
    return card >> 2


def point(card):
    # C2: ace counts 1 here (11 is decided on the whole hand, C3); pictures 10.
    r = card >> 2
    return 10 if r >= 9 else r + 1


def parse_card(text):
    """'QH', 'ts', '10S' -> code, or -1 when the text is not a card."""
    n = len(text)
    if n == 3 and text[0] == "1" and text[1] == "0":
        r = 9
    elif n == 2:
        r = RANK_CHARS.find(text[0].upper())
    else:
        return -1
    s = SUIT_CHARS.find(text[-1].upper())
    if r < 0 or s < 0:
        return -1
    return r * 4 + s


# every card's name, by code: a constant tuple of constant strings, which a frozen build
# keeps in flash (no heap, no string made per call: the views name cards at every event)
_NAMES = (
    "AC", "AD", "AH", "AS", "2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S", "4C", "4D",
    "4H", "4S", "5C", "5D", "5H", "5S", "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S",
    "8C", "8D", "8H", "8S", "9C", "9D", "9H", "9S", "TC", "TD", "TH", "TS", "JC", "JD",
    "JH", "JS", "QC", "QD", "QH", "QS", "KC", "KD", "KH", "KS",
)


def card_name(card):
    return _NAMES[card]


def cut_rank(card):
    # B1 ruling: ace high for the cut, suits never break ties.
    r = card >> 2
    return 13 if r == 0 else r
