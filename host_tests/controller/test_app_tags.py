"""The tag mode inside the table controller (issue 6): started from the serial line or the
menu, it writes the deck's NDEF records on the simulated board, then the table plays on,
and the last tag left on the reader is not taken for a dealt card."""
import pytest
from app_support import Bench

from boards.simdev import ntag213
from hardware.shoe_reader import ShoeReader  # noqa: F401  (firmware on the path)

TABLE4 = "preset = table\nseats = 4\nbanker = 1\n"


@pytest.fixture
def bench(tmp_path):
    return Bench(str(tmp_path / "flash"), settings=TABLE4)


def run_until(b, pred, ms=600):
    n = len(b.out)
    for _ in range(ms):
        b.t.step()
        b.world.clock.advance_us(1000)
        if any(pred(x) for x in b.out[n:]):
            return b.out[n:]
    raise AssertionError("nothing matched in %s" % b.out[n:])


def text_of(tag):
    # the NDEF text record the shoe wrote, read straight from the tag model's memory
    mem = bytes(tag.mem[16:64])
    at = mem.find(b"\x54\x02en")
    return mem[at + 4:at + 4 + mem[at - 1] - 3].decode()


def test_write_two_cards_from_the_serial_line_then_play_on(bench):
    assert bench.send("tags write AS 2") == "ok tags write AS 2"
    tags = [ntag213.blank_tag(n=900 + i) for i in range(3)]
    for i in range(2):
        bench.world.pn532.put(tags[i])
        out = run_until(bench, lambda x: x.startswith("tags: ok "))
        assert any(x.startswith("tags: ok %d/52 %s" % (i + 1, ("AS", "2S")[i])) for x in out)
        bench.world.pn532.remove(tags[i])
    if "tags: done write" not in bench.out:
        run_until(bench, lambda x: x.startswith("tags: done write"))
    assert "tags: summary write ok=2 same=0 refused=0 failed=0" in bench.out
    assert [text_of(t) for t in tags[:2]] == ["AS", "2S"]
    # Stopped with a freshly written tag still on the reader: that tag must not become
    # the first card of a deal.
    assert bench.send("tags write 3S 1") == "ok tags write 3S 1"
    bench.world.pn532.put(tags[2])
    run_until(bench, lambda x: x.startswith("tags: ok 3/52 3S"))
    assert bench.send("tags stop") == "ok tags stop"
    if "tags: stopped write" not in bench.out:
        run_until(bench, lambda x: x.startswith("tags: stopped write"))
    n = len(bench.out)
    bench.settle(300)
    assert not any(x.startswith("* #") for x in bench.out[n:]), bench.out[n:]
    assert "card" not in bench.journal()
    bench.world.pn532.remove(tags[2])
    bench.settle(100)
    out = bench.card("9H")
    assert any(x.startswith("* #1 card") for x in out), out


def test_tag_mode_is_refused_during_a_deal(bench):
    bench.card("9H")
    assert bench.send("tags write").startswith("error: tag mode is for between deals")


def test_tag_mode_from_the_menu_and_stopped_by_undo(bench):
    bench.press("OK", hold=900)                      # long OK: the menu
    for _ in range(8):
        if bench.screen(8)[7] == "> Write card tags":
            break
        bench.press("PLUS")
    assert bench.screen(8)[7] == "> Write card tags"
    n = len(bench.out)
    bench.press("OK")
    assert "tags: start write AS 52" in bench.out[n:]
    assert bench.screen(8)[0] == "Write 1/52: AS"
    bench.press("UNDO")
    bench.settle(50)
    assert "tags: stopped write" in bench.out[n:]
    # the table's own screen comes back
    assert bench.screen(8)[0].startswith("BANK seat 1")
