"""Tag mode (firmware/tagging/tagmode.py) end to end on the simulated board: tools/tags.py talking
the serial protocol to host_tests/mp/tags_device.py on the MicroPython VM (firmware as on
the Pico), and the same device loop in-process on CPython for the finer cases."""
import os
import sys

import pytest

from conftest import MICROPYTHON, ROOT

sys.path.insert(0, os.path.join(ROOT, "host_tests", "mp"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import hw_cases  # noqa: E402
import mpy_build  # noqa: E402
import tags  # noqa: E402
import tags_device  # noqa: E402

from tagging import tagmode  # noqa: E402
from boards import sim  # noqa: E402
from boards.simdev import ntag213  # noqa: E402
from game import cards  # noqa: E402
from game.cards import parse_card  # noqa: E402
from hardware.font5x7 import FONT  # noqa: E402
from hardware.uid_map import UidMap  # noqa: E402

DEVICE = os.path.join(ROOT, "host_tests", "mp", "tags_device.py")
DECK = [cards.card_name(tagmode.deck_card(i)) for i in range(52)]


@pytest.fixture
def vm_shoe(monkeypatch):
    """Start the simulated shoe on the MicroPython VM; returns a factory of ProcessLines."""
    monkeypatch.setenv("MICROPYPATH", mpy_build.micropypath())
    opened = []

    def start(*args):
        line = tags.ProcessLine([MICROPYTHON, "-X", "heapsize=1m", DEVICE] + list(args),
                                cwd=ROOT)
        opened.append(line)
        return line
    yield start
    for line in opened:
        line.close()


def read_sim(line, n, prefix="sim: "):
    out = []
    while len(out) < n:
        t = line.read_line()
        if t.startswith(prefix):
            out.append(t)
    return out


def dumped_tags(line, n):
    line.write_line("sim dump")
    out = []
    for t in read_sim(line, n, "sim: tag "):
        _, _, uid, user = t.split()
        out.append(ntag213.NTAG213(bytes.fromhex(uid), bytes.fromhex(user)))
    return out


def kinds(payloads, kind):
    return [p for p in payloads if p.split(" ", 1)[0] == kind]


# --- the deck order and the bytes ---------------------------------------------------------

def test_deck_order_and_record_bytes():
    assert DECK[:3] == ["AS", "2S", "3S"] and DECK[9:14] == ["TS", "JS", "QS", "KS", "AH"]
    assert DECK[26] == "AD" and DECK[39] == "AC" and DECK[51] == "KC"
    assert sorted(tagmode.deck_card(i) for i in range(52)) == list(range(52))
    assert all(tagmode.deck_place(tagmode.deck_card(i)) == i for i in range(52))
    # docs/DEVICES.md's example, byte for byte, and a ten: written "TS", the name the
    # displays and transcripts give it (a phone app's "10S" reads as the same card)
    assert tagmode.text_record("QH") == bytes.fromhex("0309D101055402656E5148FE")
    assert tagmode.text_record("TS") == bytes.fromhex("0309D101055402656E5453FE")
    assert cards.parse_card("10S") == cards.parse_card("TS") == tagmode.deck_card(9)


# --- write --------------------------------------------------------------------------------

def test_write_a_whole_deck_then_the_reader_reads_it(vm_shoe, capsys):
    # every fourth tag carries a factory lock control TLV before its empty NDEF TLV
    pile = ["lock:%d" % i if i % 4 == 3 else "blank:%d" % i for i in range(52)]
    line = vm_shoe(*pile)
    rc, got = tags.run(line, "write")
    assert rc == 0
    assert got[0] == "start write AS 52"
    oks = kinds(got, "ok")
    assert [p.split()[1:3] for p in oks] == [["%d/52" % (i + 1), DECK[i]] for i in range(52)]
    assert kinds(got, "refused") == kinds(got, "failed") == []
    assert got[-2:] == ["summary write ok=52 same=0 refused=0 failed=0", "done write"]
    written = dumped_tags(line, 52)
    # the bytes docs/DEVICES.md gives, after the lock control TLV where there was one
    assert written[0].user()[:12] == tagmode.text_record("AS")
    assert written[9].user()[:12] == tagmode.text_record("TS")
    assert written[3].user()[:5 + 12] == ntag213.LOCK_CONTROL_TLV + tagmode.text_record("4S")
    # the shoe reader (CPython, fresh models with the written memory) reads the deck back
    w = sim.build()
    r = sim.make_reader()
    evs = hw_cases.deal(w, r, written, dwell=30, gap=5)
    assert evs == [parse_card(t) for t in DECK]
    assert w.violations() == []


def test_tags_py_main_exit_status_and_output(monkeypatch, capsys):
    monkeypatch.setenv("MICROPYPATH", mpy_build.micropypath())
    cmd = "%s %s blank:0 blank:1 text:QS:9" % (MICROPYTHON, DEVICE)
    assert tags.main(["write", "--from", "JH", "--count", "2", "--command", cmd]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "start write JH 2"
    assert [x.split()[:3] for x in kinds(out, "ok")] == [["ok", "24/52", "JH"],
                                                         ["ok", "25/52", "QH"]]
    # a check that finds problems exits 1
    cmd = "%s %s text:AS:1 text:AS:2" % (MICROPYTHON, DEVICE)
    assert tags.main(["check", "--count", "2", "--command", cmd]) == 1


def test_refuses_tags_that_are_not_blank(vm_shoe):
    line = vm_shoe("blank:0", "text:QS:9", "text:AS:10", "text:hello:11", "ro:12", "blank:1")
    rc, got = tags.run(line, "write", count=2)
    assert rc == 0
    ref = kinds(got, "refused")
    assert ref == [
        "refused 045A58940900F5 holds QS (card 12 of the deck)",
        "refused %s holds AS (card 1 of the deck)" % ntag213.uid_for(10).hex().upper(),
        "refused %s holds text 'hello'; erase it first" % ntag213.uid_for(11).hex().upper(),
        "refused %s is read-only (CC access 0F): use tags enroll"
        % ntag213.uid_for(12).hex().upper(),
    ]
    # after each refusal the same card is asked for again
    i = got.index(ref[0])
    assert got[i + 1] == "place 2/52 2S"
    assert [p.split()[2] for p in kinds(got, "ok")] == ["AS", "2S"]
    assert got[-2] == "summary write ok=2 same=0 refused=4 failed=0"
    t = dumped_tags(line, 6)
    assert t[1].user()[:12] == tagmode.text_record("QS")          # left unchanged
    assert t[3].user()[:16] == ntag213.text_tag("hello").user()[:16]
    assert t[5].user()[:12] == tagmode.text_record("2S")


def run_inproc(specs, *lines, path=None, irq=True):
    out = []
    shoe = tags_device.Shoe(specs, path or "/nonexistent/uidmap.txt", say=out.append,
                            irq=irq)
    for ln in lines:
        shoe.feed(ln)
        shoe.run()
    return shoe, [x[6:] if x.startswith("tags: ") else x for x in out]


# the tag leaves the field after k exchanges (read, writes, read back): blank tags need
# 1 + 3 + 1 exchanges for "AS", tags with a lock control TLV 1 + 4 + 1
@pytest.mark.parametrize("kind,k", [("blank", k) for k in range(6)]
                         + [("lock", k) for k in range(7)])
def test_tag_removed_mid_write(kind, k):
    shoe, got = run_inproc(["%s:5:leave=%d" % (kind, k)], "tags write AS 1")
    t = shoe.pile[0]
    need = 5 if kind == "blank" else 6
    fails = kinds(got, "failed")
    if k < need:
        assert len(fails) == 1 and fails[0].endswith("place it again"), got
        stage = fails[0].split()[2]
        assert stage == ("read:" if k == 0 else "write:" if k <= need - 2 else "verify:")
    else:
        assert fails == []
    assert kinds(got, "ok") == ["ok 1/52 AS %s" % t.uid.hex().upper()]
    assert got[-1] == "done write"
    pre = ntag213.LOCK_CONTROL_TLV if kind == "lock" else b""
    assert t.user()[:len(pre) + 12] == pre + tagmode.text_record("AS")
    assert shoe.w.violations() == []
    # and the shoe reader reads it
    w = sim.build()
    assert hw_cases.deal(w, sim.make_reader(), [t]) == [parse_card("AS")]


def manual(specs=()):
    out = []
    shoe = tags_device.Shoe(list(specs), "/nonexistent/uidmap.txt", say=out.append)
    shoe.op = None                           # the test places and removes the tags

    def steps(n):
        for _ in range(n):
            shoe.step()
            shoe.w.clock.advance_us(1000)
    return shoe, out, steps


def test_a_half_written_tag_never_reads_as_a_card_and_another_takes_its_place():
    shoe, out, steps = manual()
    w = shoe.w
    t = tags_device.make_tag("lock:1")
    w.pn532.fault_tag_leaves_after(t, 3)     # read, write page 6, write page 7, gone
    shoe.feed("tags write AS 1")
    w.pn532.put(t)
    steps(200)
    assert [x.split()[1] for x in out] == ["start", "place", "failed", "place"]
    assert t not in w.pn532.field
    # pages 6 and 7 hold the new record's tail, page 5 (the TLV header) is untouched
    assert t.user()[:8] == ntag213.LOCK_CONTROL_TLV + b"\x03\x00\xfe"
    assert t.user()[8:16] == tagmode.text_record("AS")[3:11]
    r = sim.make_reader(passive_retries=1)   # the tag mode keeps the chip's retry setting
    assert hw_cases.deal(w, r, [t])[0].startswith("unknown-tag")   # blank, not a card
    b = tags_device.make_tag("blank:2")
    w.pn532.put(b)
    steps(100)
    w.pn532.remove(b)
    steps(50)
    assert out[-1] == "tags: done write" and b.user()[:12] == tagmode.text_record("AS")


def test_a_tag_that_never_comes_back_is_not_counted():
    shoe, out, steps = manual()
    t = tags_device.make_tag("blank:1")
    shoe.w.pn532.fault_tag_leaves_after(t, 2)
    shoe.feed("tags write AS 1")
    shoe.w.pn532.put(t)
    steps(300)
    shoe.feed("tags stop")
    steps(1)
    assert [x.split()[1] for x in out[:4]] == ["start", "place", "failed", "place"]
    assert out[-2:] == ["tags: summary write ok=0 same=0 refused=0 failed=0",
                        "tags: stopped write"]


def test_three_failures_give_up_on_a_tag():
    # a tag that NAKs every write (a locked page the lock bits do not show)
    shoe = tags_device.Shoe(["blank:4", "blank:5"], "/nonexistent/x", say=lambda s: None)
    bad = shoe.pile[0]
    orig = bad.command
    bad.command = lambda data: (False, b"") if data[0] == 0xA2 else orig(data)
    out = []
    shoe.say = out.append
    shoe.feed("tags write AS 1")
    shoe.run()
    fails = [x for x in out if x.startswith("tags: failed")]
    assert len(fails) == 3 and fails[-1].endswith("giving up on this tag")
    assert out[-2:] == ["tags: summary write ok=1 same=0 refused=0 failed=1",
                        "tags: done write"]
    assert shoe.pile[1].user()[:12] == tagmode.text_record("AS")


def test_a_tag_holding_the_wanted_card_counts_and_two_tags_are_refused():
    shoe, out, _ = manual()
    a = ntag213.text_tag("AS", n=1)
    b = ntag213.blank_tag(n=2)
    c = ntag213.blank_tag(n=3)
    shoe.feed("tags write AS 2")
    shoe.step()
    w = shoe.w
    w.pn532.put(a)
    for _ in range(100):
        shoe.step()
        w.clock.advance_us(1000)
    w.pn532.remove(a)
    w.pn532.put(b)
    w.pn532.put(c)
    for _ in range(100):
        shoe.step()
        w.clock.advance_us(1000)
    w.pn532.remove(c)
    for _ in range(200):
        shoe.step()
        w.clock.advance_us(1000)
    w.pn532.remove(b)
    for _ in range(100):
        shoe.step()
        w.clock.advance_us(1000)
    got = [x[6:] for x in out]
    assert "same 1/52 AS %s" % a.uid.hex().upper() in got
    assert got.count("refused - two tags in the field: one card at a time") == 1
    assert "ok 2/52 2S %s" % b.uid.hex().upper() in got
    assert c.user()[:3] == b"\x03\x00\xfe"
    assert got[-1] == "done write"


def test_progress_on_the_banker_display():
    shoe = tags_device.Shoe(["blank:1", "blank:2"], "/nonexistent/x", say=lambda s: None)
    shoe.feed("tags write AS 2")
    shoe.step()
    d = shoe.w.displays[8]
    lines, inv = d.text_rows(FONT)
    assert lines[:2] == ["Write 1/52: AS", "place a blank card"] and inv[0]
    seen = set()
    while shoe.busy():
        shoe.step()
        seen.add(tuple(d.text_rows(FONT)[0][:3]))
    assert ("Write 2/52: 2S", "remove the card", "1 AS ok") in seen
    assert ("Write 2/52: 2S", "place a blank card", "1 AS ok") in seen
    assert ("Write: all done", "remove the card", "2 2S ok") in seen
    assert d.text_rows(FONT)[0][:3] == ["Write: all done", "done", "done: ok 2 same 0"]


def test_status_byte_polling_without_the_irq_pin():
    shoe, got = run_inproc(["blank:1", "blank:2:leave=2"], "tags write QD 2", irq=False)
    assert [p.split()[2] for p in kinds(got, "ok")] == ["QD", "KD"]
    assert shoe.pile[1].user()[:12] == tagmode.text_record("KD")


def test_protocol_errors_and_stop():
    shoe, got = run_inproc([], "tags", "tags frob", "tags write ZZ", "tags write AS 0",
                           "tags check 5 6", "tags stop")
    assert got == ["error unknown tags command: tags", "error unknown tags command: tags frob",
                   "error not a card: ZZ", "error not a count: 0",
                   "error too many arguments: tags check 5 6", "idle"]
    assert not shoe.tm.active and not shoe.tm.done


def test_busy_and_stop_lines():
    out = []
    shoe = tags_device.Shoe([], "/nonexistent/x", say=out.append)
    shoe.feed("tags enroll KC")
    shoe.feed("tags check")
    shoe.feed("tags stop")
    shoe.step()
    assert out == ["tags: start enroll KC 1", "tags: place 52/52 KC",
                   "tags: error busy: enroll is running (send tags stop first)",
                   "tags: summary enroll ok=0 same=0 refused=0 failed=0",
                   "tags: stopped enroll"]


# --- enroll -------------------------------------------------------------------------------

def test_enroll_read_only_tags_and_the_reader_uses_the_map(vm_shoe, tmp_path):
    path = str(tmp_path / "uidmap.txt")
    with open(path, "w") as f:       # an earlier enrolment: tag 40 is already 2S
        f.write("# old\n%s 2S\n" % ntag213.uid_for(40).hex().upper())
    pile = ["ro:30", "ro:40", "text:9H:41", "ro:31", "ro:32", "ro:33"]
    line = vm_shoe("--uidmap", path, *pile)
    rc, got = tags.run(line, "enroll", count=4)
    assert rc == 0
    u = [ntag213.uid_for(n).hex().upper() for n in (30, 40, 41, 31, 32, 33)]
    assert kinds(got, "ok") == ["ok 1/52 AS " + u[0], "ok 3/52 3S " + u[3],
                                "ok 4/52 4S " + u[4]]
    assert kinds(got, "same") == ["same 2/52 2S " + u[1]]
    assert kinds(got, "refused") == ["refused %s holds 9H (card 22 of the deck)" % u[2]]
    # the file on "flash": loaded by a fresh map, it gives the cards
    m = UidMap().load(path)
    assert m.n == 4
    assert [m.lookup(bytes.fromhex(x)) for x in (u[0], u[1], u[3], u[4], u[5])] == \
        [parse_card(c) for c in ("AS", "2S", "3S", "4S")] + [-1]
    # the same shoe's reader (it shares the map) reads the enrolled tags; the text tag too
    line.write_line("sim deal")
    dealt = read_sim(line, 7)
    assert dealt[:5] == ["sim: card AS", "sim: card 2S", "sim: card 9H", "sim: card 3S",
                         "sim: card 4S"]
    assert dealt[5].startswith("sim: anomaly unknown-tag")   # ro:33 was never enrolled
    assert dealt[6] == "sim: dealt 6"


def test_enroll_refuses_a_uid_enrolled_as_another_card(tmp_path):
    path = str(tmp_path / "uidmap.txt")
    with open(path, "w") as f:
        f.write("%s QC\n" % ntag213.uid_for(7).hex().upper())
    shoe, got = run_inproc(["ro:7", "text:hello:8", "ro:9"], "tags enroll AS 1", path=path)
    assert kinds(got, "refused") == [
        "refused %s is enrolled as QC in the UID map" % ntag213.uid_for(7).hex().upper(),
        "refused %s says 'hello', not a card: the reader would reject it"
        % ntag213.uid_for(8).hex().upper()]
    assert UidMap().load(path).lookup(ntag213.uid_for(9)) == parse_card("AS")


def test_bad_uid_map_file_is_not_overwritten(tmp_path):
    path = str(tmp_path / "uidmap.txt")
    with open(path, "w") as f:
        f.write("garbage line here\n")
    shoe, got = run_inproc(["ro:1"], "tags enroll", path=path)
    assert got[0].startswith("sim: uid map")                 # the controller's own load
    assert got[1] == "error %s: bad uid map line: garbage line here" % path
    assert not shoe.tm.active
    assert open(path).read() == "garbage line here\n"


# --- check --------------------------------------------------------------------------------

def test_check_a_deck_with_a_duplicate_and_an_unknown_tag(vm_shoe):
    pile = ["text:%s:%d" % (c, i) for i, c in enumerate(DECK)]
    pile[30] = "text:AH:99"              # 5D is missing, AH is there twice
    pile.insert(10, "blank:77")          # a tag with nothing on it
    pile.insert(20, "text:JS:10")        # card 10's tag again (the same UID)
    line = vm_shoe(*pile)
    rc, got = tags.run(line, "check", count=54)
    assert rc == 1
    assert len(kinds(got, "card")) == 51
    first_ah = ntag213.uid_for(13).hex().upper()
    assert kinds(got, "duplicate") == ["duplicate 33 AH %s %s"
                                       % (ntag213.uid_for(99).hex().upper(), first_ah)]
    assert kinds(got, "unknown") == ["unknown 11 %s has no card record and is not in the "
                                     "UID map" % ntag213.uid_for(77).hex().upper()]
    assert kinds(got, "again") == ["again 21 JS " + ntag213.uid_for(10).hex().upper()]
    assert kinds(got, "missing") == ["missing 5D"]
    assert got[-2:] == ["summary check present=51 duplicate=1 again=1 unknown=1 missing=1",
                        "done check"]


def test_check_of_a_complete_deck_ends_by_itself_and_uses_the_map(tmp_path):
    path = str(tmp_path / "uidmap.txt")
    m = UidMap()
    m.add(ntag213.uid_for(200), parse_card("KC"))
    m.add(ntag213.uid_for(201), parse_card("QC"))           # conflicts with its text
    m.save(path)
    pile = ["text:%s:%d" % (c, i) for i, c in enumerate(DECK[:51])] + ["ro:200"]
    pile.insert(5, "text:KS:201")
    shoe, got = run_inproc(pile, "tags check", path=path)
    assert kinds(got, "unknown") == ["unknown 6 %s says KS but the UID map says QC"
                                     % ntag213.uid_for(201).hex().upper()]
    assert got[-2:] == ["summary check present=52 duplicate=0 again=0 unknown=1 missing=0",
                        "done check"]
    assert kinds(got, "missing") == []


# --- two packs (C1, C4: two from 8 participants): 104 stickers, two per card -------------

def test_write_two_packs_goes_through_the_deck_twice_with_the_same_records():
    pile = ["blank:%d" % i for i in range(104)]
    shoe, got = run_inproc(pile, "tags write packs 2")
    assert got[0] == "start write AS 104"
    oks = kinds(got, "ok")
    assert [p.split()[1:3] for p in oks] == [["%d/104" % (i + 1), DECK[i % 52]]
                                             for i in range(104)]
    assert got[-2:] == ["summary write ok=104 same=0 refused=0 failed=0", "done write"]
    # both packs' stickers say the same; the UIDs tell the copies apart
    assert shoe.pile[0].user()[:12] == shoe.pile[52].user()[:12] == tagmode.text_record("AS")
    assert shoe.pile[0].uid != shoe.pile[52].uid
    # the shoe reader reads both packs: 104 cards, each card code twice
    w = sim.build()
    r = sim.make_reader()
    evs = hw_cases.deal(w, r, shoe.pile, dwell=30, gap=5)
    assert sorted(evs) == sorted(list(range(52)) * 2)


def test_a_first_packs_card_put_back_among_the_second_is_refused():
    # pack 1 written (52 blank tags), then pack 1's AS comes round again (its UID, holding
    # AS) where pack 2's AS is wanted: refused, and the next blank sticker takes the place
    pile = ["blank:%d" % i for i in range(52)] + ["text:AS:0", "blank:100"]
    shoe, got = run_inproc(pile, "tags write AS 53 packs 2")
    assert kinds(got, "refused") == ["refused %s is AS of pack 1, done in this run"
                                     % ntag213.uid_for(0).hex().upper()]
    assert kinds(got, "ok")[-1] == "ok 53/104 AS %s" % ntag213.uid_for(100).hex().upper()
    assert got[-2:] == ["summary write ok=53 same=0 refused=1 failed=0", "done write"]
    # in a one-pack run the same tag is the wanted card already: counted, as before
    shoe, got = run_inproc(["text:AS:0"], "tags write AS 1")
    assert kinds(got, "same") == ["same 1/52 AS %s" % ntag213.uid_for(0).hex().upper()]


def two_pack_pile():
    return ["text:%s:%d" % (c, i) for i, c in enumerate(DECK)] + \
        ["text:%s:%d" % (c, 200 + i) for i, c in enumerate(DECK)]


def test_check_two_packs_wants_every_card_on_two_tags():
    shoe, got = run_inproc(two_pack_pile(), "tags check packs 2")
    assert got[0] == "start check - 104"
    cards_seen = kinds(got, "card")
    assert len(cards_seen) == 104
    assert cards_seen[52] == "card 53 AS %s copy 2/2" % ntag213.uid_for(200).hex().upper()
    assert got[-2:] == ["summary check present=104 duplicate=0 again=0 unknown=0 missing=0",
                        "done check"]


def test_check_two_packs_names_a_third_copy_the_same_tag_and_what_is_missing():
    pile = two_pack_pile()
    pile[pile.index("text:5D:230")] = "text:AH:300"   # pack 2's 5D missing; a third AH
    pile.remove("text:5D:30")             # pack 1's 5D too: 5D missing twice
    pile.remove("text:9S:208")            # pack 2's 9S missing ...
    pile.insert(60, "text:9S:8")          # ... and pack 1's 9S read again (the same UID)
    shoe, got = run_inproc(pile, "tags check %d packs 2" % len(pile))
    third = pile.index("text:AH:300") + 1
    assert kinds(got, "duplicate") == ["duplicate %d AH %s %s" % (
        third, ntag213.uid_for(300).hex().upper(), ntag213.uid_for(13).hex().upper())]
    assert kinds(got, "again") == ["again %d 9S %s" % (60 + 1,
                                                       ntag213.uid_for(8).hex().upper())]
    assert kinds(got, "missing") == ["missing 9S 5Dx2"]
    assert got[-2] == "summary check present=101 duplicate=1 again=1 unknown=0 missing=3"


def test_the_packs_of_a_tags_command():
    assert tagmode.parse_command("tags check packs 2") == ("check", 0, -1, 2)
    assert tagmode.parse_command("tags write QH 5 packs 8") == ("write", 11 + 13, 5, 8)
    assert tagmode.parse_command("tags check") == ("check", 0, -1, 0)   # the table's
    assert tagmode.parse_command("tags check packs 9") == "error packs must be 1 to 8, not 9"
    assert tags.request("check", packs=2) == "tags check packs 2"
    assert tags.request("write", "QH", 5, 2) == "tags write QH 5 packs 2"
    assert tags.request("write") == "tags write"


def test_the_shoes_own_check_counts_the_packs_its_table_plays(tmp_path):
    # `tags check` from the serial line (or the menu) without packs: the table's, C1: a
    # table of 8 plays two packs, so the check wants 104 tags; a table of 4 plays one
    from app_support import Bench
    for seats, want in ((8, 104), (4, 52)):
        b = Bench(str(tmp_path / ("flash%d" % seats)),
                  settings="preset = table\nseats = %d\n" % seats)
        assert b.t.e.packs == want // 52
        assert b.send("tags check") == "ok tags check"
        b.settle(20)
        assert "tags: start check - %d" % want in b.out
        tag = ntag213.text_tag("AS", n=500)
        b.world.pn532.put(tag)
        b.settle(200)
        b.world.pn532.remove(tag)
        b.settle(100)
        line = "tags: card 1 AS %s" % ntag213.uid_for(500).hex().upper()
        assert line + (" copy 1/2" if want == 104 else "") in b.out
        assert b.send("tags stop") == "ok tags stop"
        b.settle(50)
        assert "tags: summary check present=1 duplicate=0 again=0 unknown=0 missing=%d"\
            % (want - 1) in b.out
