"""Memory budgets on the real MicroPython VM (the README's "The engine"): no allocation
while valuing a hand or accepting an event, and whole sessions inside a Pico-sized heap."""
import os

from conftest import ROOT

MPPATH = os.path.join(ROOT, "firmware") + ":" + os.path.join(ROOT, "tools")


def test_accepted_events_and_valuation_allocate_nothing(micropython):
    # host_tests/mp/heap_lock_engine.py applies every accepted event of nine scripted
    # sessions (table, casino, classic with shoot/burn/doubling) under heap_lock().
    result = micropython(["host_tests/mp/heap_lock_engine.py"], heapsize="256k",
                         micropypath=MPPATH)
    out = result.stdout.decode() + result.stderr.decode()
    assert result.returncode == 0, out
    assert out.startswith("OK "), out
    events = int(out.split()[1])
    assert events > 1000, out


def test_heap_lock_detects_an_allocation(micropython, tmp_path):
    # The check above can fail: an allocating call under heap_lock raises MemoryError.
    script = tmp_path / "alloc.py"
    script.write_text(
        "import micropython\nfrom game.engine import Engine\nfrom game.rules import Rules\n"
        "micropython.heap_lock()\ne = Engine(Rules('table'), 3, 1)\n"
    )
    result = micropython([str(script)], heapsize="256k", micropypath=MPPATH)
    assert result.returncode != 0
    assert b"MemoryError" in result.stdout + result.stderr


def test_state_for_eight_seats_fits_in_one_kilobyte():
    from game.engine import Engine
    from game.rules import Rules

    engine = Engine(Rules("table"), 8, 1)
    assert engine.max_hands == 29  # the banker's hand + four split hands for each of 7 players
    assert engine.state_bytes() <= 1024, engine.state_bytes()
