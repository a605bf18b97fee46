"""One sticker per card, for ever (issue 38): nothing in the repository mints a new UID
for a card dealt again; the harnesses deal boards/simdev/deck.py's stickers."""
import os
import re

import simtable as S

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# a UID numbered from a card's code and how many times it was dealt: code + 52 * k
MINTED = re.compile(r"n\s*=\s*\w*code\w*\s*\+\s*52\s*\*|text_tag\([^)]*\+\s*\w+\)")


def _python_files():
    for top in ("tools", "host_tests", "boards", "firmware"):
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [x for x in dirs if x not in ("node_modules", "__pycache__")]
            for name in files:
                if name.endswith(".py"):
                    yield os.path.join(d, name)


def test_no_harness_mints_a_uid_for_a_card_dealt_again():
    found = []
    for path in _python_files():
        if path.endswith(os.path.join("simdev", "deck.py")) or path == __file__:
            continue
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if MINTED.search(line):
                    found.append("%s:%d: %s" % (os.path.relpath(path, ROOT), n, line.strip()))
    assert found == [], "\n".join(found)


def test_the_pattern_finds_what_the_harnesses_once_did():
    assert MINTED.search("tag = ntag213.text_tag(text, n=code + 52 * k)")
    assert MINTED.search("text_tag(name, n=code + 52 * (k % 2), lock_tlv=x)")
    assert MINTED.search('text_tag("AS", n=5000 + n)')
    assert not MINTED.search('text_tag("AS", n=999)')


def test_a_scripted_session_deals_the_decks_stickers():
    again = 0
    for preset, seats in (("table", 4), ("table", 8), ("casino", 3)):
        head, events = S.script_session(preset, seats, 2, deals=8)
        d = S.Driver(head, events, seed=2)
        assert d.deck.stacked == 0                    # the script is what the deck dealt
        deck_uids = set(c.tag.uid for c in d.deck.cards)
        assert len(deck_uids) == 52 * d.deck.packs    # one sticker per card
        by_uid = {}
        for k, card in d.cards.items():
            assert card.tag.uid in deck_uids
            assert events[k] == "card " + card.text.replace("10", "T") or \
                events[k] == "card " + card.text
            # a UID is always the same card
            assert by_uid.setdefault(card.tag.uid, card.code) == card.code
        again += len(d.cards) - len(set(id(c) for c in d.cards.values()))
    assert again > 0, "no card came out twice: the test shows nothing"
