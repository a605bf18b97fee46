"""The fit-and-speed goals (README "Measurements on the virtual Pico") on the virtual
Pico: the stock MicroPython UF2, the firmware as the .mpy files `make deploy` copies,
emulated time with the CPU, the I2C bus and the flash charged. A short session (3 seats,
one deal, a tag-mode run, a boot with that session's journal) measured by the same code
as `tools/bench_pico.py`. Emulated time and the Pico's heap are deterministic, so each
figure is asserted: against its goal where the goal is met (boot, the engine's average and
allocations, the journal's erases), and where it is not yet, against the figure as it
stands, so that it cannot grow unseen (the PICO_* limits below, README)."""
import pytest

import bench_pico as B


@pytest.fixture(scope="module")
def measured():
    try:
        return B.measure(seats=8, deals=1, sessions=1, log=lambda *a: None)
    except Exception as x:  # noqa: BLE001 - the message says what is missing
        from vpico import pico
        if isinstance(x, pico.VpicoError):
            pytest.fail("the virtual Pico cannot run: %s" % x)
        raise


def test_every_card_reaches_its_seat_display(measured):
    # goal 30 / 50 / 80 ms (avg / p95 / max) not met yet: held where it is (README)
    c = measured["cards"]
    assert len(c) >= 6, c
    assert sum(c) / len(c) <= PICO_CARD_AVG, c
    assert B.percentile(c, 0.95) <= PICO_CARD_P95, c
    assert max(c) <= PICO_CARD_MAX, c


def test_a_button_release_shows_on_its_display(measured):
    # goal 50 ms not met yet: held where it is (README)
    b = measured["buttons"]
    assert len(b) >= 3, b
    assert max(b) <= PICO_BUTTON_MAX, b


def test_engine_applies_a_card_without_allocating(measured):
    assert measured["engine_cards"] >= 10
    assert measured["engine_allocs"] == 0
    assert measured["engine_avg_us"] <= B.GOALS["engine_us"], measured["engine_avg_us"]
    assert measured["engine_max_us"] <= PICO_ENGINE_MAX_US, measured["engine_max_us"]


def test_the_journal_costs_no_block_copy_per_event(measured):
    # the inline tail: a flash erase about once in ten events, not one per event (the
    # littlefs append was 78 erases per 100 flushed events)
    assert measured["events"] >= 30
    assert measured["erases"] * 4 <= measured["events"], (measured["erases"],
                                                          measured["events"])


def test_boot_with_a_whole_deal_replayed(measured):
    assert measured["boot_events"] >= 30
    assert measured["boot_ms"] <= B.GOALS["boot"], measured["boot_ms"]


def test_heap(measured):
    assert 0 < measured["heap_peak"] <= PICO_HEAP_PEAK, measured["heap_peak"]
    assert measured["block"] >= PICO_BLOCK, measured["block"]


def test_the_scripted_session_was_played_to_its_end(measured):
    # every scripted event acknowledged, and no refusal on the way: a press lost inside a
    # journal fold showed here as "! nothing to confirm" (the players then repeat the
    # action) before the sampler took the edges the RP2040 latches (boards/pico.py)
    assert measured["events"] >= 30
    assert measured["refusals"] == [], measured["refusals"]


def test_a_session_on_the_pico_kept_its_ledger(measured):
    assert any(x.startswith("# session over") for x in measured["lines"]) or \
        any(x.startswith("# deal 1 over") for x in measured["lines"])
    assert not any(x.startswith("Traceback") for x in measured["lines"])
    # the button timer's callback runs as a hard interrupt: an error there (an allocation)
    # is printed by the port, and the timer stops
    assert not any("exception in IRQ" in x or "MemoryError" in x for x in measured["lines"])


# Goals the .mpy firmware does not meet yet (README: by how much, and the frozen
# alternative): these hold the figures where they are, so that they cannot grow unseen.
PICO_HEAP_PEAK = 140 * 1024          # goal 80 KB; 140,000 bytes in this test (README): the
# figure taken at 'halt' after the tag-mode run keeps about 8 KB more than the REPL's own
# collection does a moment later: a stale word on the loop's stack, the collector being
# conservative (README; 137,408 before the button timer's changes, 129,456 before that)
PICO_BLOCK = 16 * 1024               # goal 64 KB; 20,176 bytes in this test (30.5 KB in the
# 3-session bench). The largest block follows the moments the collections happen, so any
# change of timing moves it: 20.2 to 29.9 KB in this test across this round's builds
PICO_CARD_AVG = 75.0                 # goal 30 ms; 58.7 here, the 8-seat bench: avg 57.3, p95 98.7, max 133.9
PICO_CARD_P95 = 125.0                # goal 50 ms
PICO_CARD_MAX = 150.0                # goal 80 ms
PICO_BUTTON_MAX = 280.0              # goal 50 ms; 134 ms in this test: a journal fold on a player's turn
PICO_ENGINE_MAX_US = 6000            # goal 1 ms; avg 0.56 ms, max 4.8 ms: the deal's last card settles every seat
