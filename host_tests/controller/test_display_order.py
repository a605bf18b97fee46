"""Which display the controller draws when (firmware/table/app.py redraw_one, docs/CONTROLLER.md):
the display an event concerns first, then the others in order; a display interrupted after
a page goes on without building its lines again (on the Pico a rebuild costs 6-10 ms a
page: tools/bench_pico.py)."""
import pytest
from app_support import Bench
from hardware.seat_displays import _RUN_PAGES

WRITES = 8 // _RUN_PAGES     # a whole redraw: runs of whole pages, one write each

TABLE4 = "preset = table\nseats = 4\nbanker = 1\n"


@pytest.fixture
def bench(tmp_path):
    b = Bench(str(tmp_path / "flash"), settings=TABLE4)
    for c in ("QH", "TS", "4C", "9D"):          # the cut; then the stakes are due
        assert any(x.startswith("* #") for x in b.card(c))
    return b


def record(t):
    """Log every display show: ("show", index, result, pages drawn)."""
    log = []
    show = t.screens.disp.show

    def logged_show(i, lines, hl=-1, stop=None):
        r = show(i, lines, hl, stop)
        log.append(("show", i, r, t.screens.disp.last_pages))
        return r
    t.screens.disp.show = logged_show
    return log


def looked_at(t):
    """Log each display whose lines are built (a display looked at): its index."""
    looked = []
    lines = t.screens.lines

    def counted(i):
        looked.append(i)
        return lines(i)
    t.screens.lines = counted
    return looked


def test_the_display_the_event_concerns_goes_first(bench):
    t = bench.t
    log = record(t)
    assert bench.send("stake 2 3").startswith("ok")
    shown = []
    for x in log:
        if x[0] == "show" and x[2] != 0 and (not shown or shown[-1] != x[1]):
            shown.append(x[1])
    assert shown[0] == 1                         # seat 2's display (its stake) first, then
    assert shown[1:] == sorted(shown[1:])        # the others in order, the banker's last
    assert shown[-1] == 8
    assert "Seat 3 to stake" in " ".join(bench.screen(8))


def test_an_interrupted_display_is_not_built_again_for_each_page(bench):
    t = bench.t
    calls = looked_at(t)
    t.screens.disp.redraw(2)                     # seat 3's display forgets what it shows:
    t.screens.hashes[2] = 0                      # all 8 pages go again, a write a pass
    t.screens.mark(2)
    passes = 0
    while t.screens.dirty and passes < 50:
        t.screens.redraw_one()
        passes += 1
    assert passes >= WRITES                      # a write a pass (the loop went round)
    assert calls == [2]                          # but its lines were built once


def sampled(t):
    """The Pico's buttons: sampled by a timer (here one that never fires), so a display's
    pages need not wait for the loop's passes to poll them."""
    from hardware.buttons import SampledButtons
    t.btn = t.turn.btn = SampledButtons(t.btn, lambda period_ms, cb: None, ticks=lambda: 0)
    return t.btn


def redraw_whole(t, i):
    """Display i forgets what it shows; the passes until it is drawn again, and the reader's
    looks meanwhile."""
    looks = []
    service = t.turn.service
    t.turn.service = lambda: (looks.append(1), service())
    t.screens.disp.redraw(i)
    t.screens.hashes[i] = 0
    t.screens.mark(i)
    passes = 0
    while t.screens.dirty and passes < 50:
        t.screens.redraw_one()
        passes += 1
    return passes, len(looks)


def test_with_nothing_waiting_a_display_goes_out_in_one_pass(bench):
    t = bench.t
    sampled(t)
    passes, looks = redraw_whole(t, 2)
    assert passes == 1                           # all 8 pages in one show()
    assert looks >= WRITES                       # the reader had a look after each write
    assert t.screens.disp.last_pages == 8


def test_a_waiting_press_or_card_sends_the_loop_round_between_pages(bench):
    t = bench.t
    btn = sampled(t)
    btn._put(3)                                  # a press waits to be taken
    passes, _ = redraw_whole(t, 2)
    assert passes >= WRITES                      # a write a pass: the loop takes it first
    assert btn.poll() == 3
    urgent = t.reader.urgent
    t.reader.urgent = lambda: True               # a card is being read
    passes, _ = redraw_whole(t, 3)
    assert passes >= WRITES
    t.reader.urgent = urgent
    bench.settle(5)                              # the loop takes what the reader found
    passes, _ = redraw_whole(t, 4)
    assert passes == 1


def test_a_press_looks_at_its_seat_display_then_the_banker_display_first(bench):
    """An amount entered shows on the seat's display and may on the banker's: the seat's
    is looked at first, the banker's next (BusTurn.then), before the displays still owed
    from earlier, and the phones' work waits till both are (web.Web.table_first:
    BusTurn.owed). Issue 43: the banker's display waited behind four displays owed from a
    stake, each a pass and a turn of the phones' slices: 62 ms after the press."""
    import simtable as S
    t = bench.t
    m = t.ui.mode
    seat = m.seat
    assert seat >= 1
    before = m.value
    looked = looked_at(t)
    moved = t.controls.entry_moved

    def owed_then_moved():
        t.screens.mark_some(0b1101)             # displays still owed from earlier
        moved()
    t.controls.entry_moved = owed_then_moved
    pin = bench.world.buttons[S.B["PLUS"]]
    pin.press()
    bench.settle(70)
    del looked[:]
    pin.release()
    owed = []
    for _ in range(60):
        t.step()
        owed.append(t.turn.owed(t.screens.dirty))
        bench.world.clock.advance_us(1000)
        if m.value != before and not t.screens.dirty:
            break
    assert m.value != before                     # the press was taken
    assert looked[:2] == [seat - 1, 8] and sorted(looked[2:]) == [0, 2, 3], looked
    first = owed.index(True)
    assert False not in owed[first:owed.index(False, first)]
    assert t.turn.then == -1 and t.turn.own == -1 and not t.turn.owed(t.screens.dirty)
