"""The dealer soak's share in `make test` (tools/dealer.py; `make bench` runs the longer
one): whole `table` sessions dealt from a physical deck by a dealer who makes each of the
mistakes real hands make, at a seeded rate. The table answers each as docs/CONTROLLER.md
promises; no card is lost in silence or given to the wrong hand; the journal is the script."""
import dealer as D
import simtable as S

SEEDS = (1, 2, 3)
RATE = 0.05                     # a mistake on a card in three: each kind some 14 times


def test_the_dealers_mistakes_get_the_tables_promised_answers():
    counts = dict((k, 0) for k in D.MISTAKES + ("fast_known",))
    for seed in SEEDS:
        d, bad = D.soak_session(seed, RATE)
        assert bad == [], (seed, bad)
        assert d.misattributed == 0
        for k in counts:
            counts[k] += d.counts[k]
    assert all(counts[k] >= 3 for k in D.MISTAKES), counts
    # a fast card is refused as unread unless its sticker was read before: both are seen
    assert 1 <= counts["fast_known"] < counts["fast"], counts


def test_the_first_card_after_the_shuffle_is_the_last_cut_card_in_a_whole_session():
    # the table in a whole scripted session: the deck (seed 13) deals AD last in the
    # cut and first after the shuffle; the table once stopped taking cards there
    head, events = S.script_session("table", 4, 13)
    assert events[3:6] == ["card AD", "shuffle", "card AD"]
    d, bad = D.soak_session(13, 0.0)
    assert bad == [] and d.done
    assert d.cards[3] is d.cards[5]                   # one card, one sticker


def test_a_soak_that_misses_an_answer_says_so():
    # the checks can fail: a dealer whose "twice" is judged against a refusal it never gets
    head, events = S.script_session("table", 4, 1)
    d = D.Dealer(head, events, rate=0.1, kinds=("twice",), seed=1)
    d.seen = [(0, "x")] * 3 + [(0, "! reader two-tags: made up")]
    d.made = [["twice", 0, 0, None, 0]]
    d.finish()
    assert d.failures and "twice at event 0: the table said" in d.failures[0]


def test_the_soak_finds_a_table_that_never_rearms_its_reader(monkeypatch):
    # the firmware as it was: the reader's last UID outlived the shuffle, and the cut's last
    # card, first out after it, was never read; the soak calls the session silent
    from table import app
    monkeypatch.setattr(app.Table, "rearm", lambda self: None)
    d, bad = D.soak_session(13, 0.0)
    assert any(b.startswith("silent: event 6 (card AD) was not taken") for b in bad), bad
    assert d.misattributed == 0


def test_the_dealer_hears_a_table_that_does_not_buzz(monkeypatch):
    # the ear can fail too: a buzzer that never buzzes leaves every refused mistake unheard
    from hardware import buzzer
    monkeypatch.setattr(buzzer.Buzzer, "buzz", lambda self: None)
    d, bad = D.soak_session(1, RATE)
    assert any(": no buzz, heard" in b for b in bad), bad
    assert not any("a buzz for a card rightly taken" in b for b in bad), bad
