"""The buttons on the virtual Pico (stock UF2, firmware/hardware/buttons.py and boards/pico.py as the
deploy bundle's .mpy files): presses made while the CPU is busy in C code, or while every
interrupt is held off, are still seen.

On the Pico the button sampler is a 5 ms timer. As a soft timer its callback runs between
bytecodes, so while C code runs (littlefs folding the journal: 60-170 ms) nobody sampled:
the soak run `tools/soak_pico.py --sessions 13 --seats 3 --deals 2 --fill 96` lost a PLUS
press of two made 140 ms apart in one fold (`stake 1 4` where the player pressed for 5).
The board's timer is now a hard one (boards/pico.py make_button_timer): it interrupts C
code. Only a flash erase holds every interrupt off (45 ms); for that the sampler takes the
edges the RP2040 latches in hardware (make_button_edges). Here the busy spell is a long C
loop (`max(range(N))`), with interrupts held off (machine.disable_irq) for the erase."""
import pytest

import bench_pico as B

DEVICE = r'''
import board, machine, time
from hardware.buttons import Buttons, SampledButtons


def soft_timer(period, cb):
    return machine.Timer(period=period, mode=machine.Timer.PERIODIC, callback=cb)


def make(timer, latched):
    b = Buttons(board.make_buttons(), 50, 800, 20, board.make_button_levels())
    return SampledButtons(b, timer, edges=board.make_button_edges() if latched else None)


def taken(sb):
    out = []
    while True:
        e = sb.poll()
        if e < 0:
            return out
        out.append(e)


def trial(name, timer, latched, irq_off, presses, n):
    sb = make(timer, latched)
    time.sleep_ms(100)
    print('blind', presses)
    time.sleep_ms(20)                  # the line leaves over USB before the CPU is held
    t0 = time.ticks_ms()
    if irq_off:
        s = machine.disable_irq()      # as a flash erase does
    max(range(n))                      # C, no bytecode: no soft timer callback runs
    if irq_off:
        machine.enable_irq(s)
    t1 = time.ticks_ms()
    time.sleep_ms(150)
    sb.stop()
    print('spell', name, t0, t1, 'events', taken(sb))


def cost(name, timer, latched):
    sb = make(timer, latched)
    sb.stop()
    b = sb.b
    if not latched:
        b.levels = None
    t = time.ticks_us()
    for _ in range(50):
        sb._sample(None)
    print('sample', name, time.ticks_diff(time.ticks_us(), t) // 50)


trial('soft', soft_timer, False, False, 2, 180000)
trial('hard', board.make_button_timer, False, False, 2, 180000)
trial('erase', board.make_button_timer, False, True, 1, 80000)
trial('erase_latched', board.make_button_timer, True, True, 1, 80000)
cost('plain', soft_timer, False)
cost('board', soft_timer, True)
'''


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    from vpico import table
    from vpico.pico import VpicoError
    d = tmp_path_factory.mktemp("vpico_buttons")
    try:
        pico, _ = table.fresh_pico(str(d / "flash.bin"))     # the UF2: buttons, board frozen
    except VpicoError as x:
        pytest.fail("the virtual Pico cannot run: %s" % x)
    presses = []
    seen = bytearray()

    def on_serial(data):
        seen.extend(data)
        i = seen.find(b"blind ")
        if i >= 0 and b"\n" in seen[i:]:
            n = int(seen[i + 6:].split(b"\r")[0].split(b"\n")[0])
            del seen[:]
            # the spell begins 20 ms after the line; PLUS held 70 ms, 70 ms apart (simtable)
            at = pico.emulated_now() + 0.04
            presses.append([at + 0.14 * k for k in range(n)])
            for k in range(n):
                pico.at(at + 0.14 * k, lambda: pico.press("PLUS", hold_s=0.07))
    try:
        pico.on_serial = on_serial
        out, err = pico.exec_raw(DEVICE, timeout_s=60)
    finally:
        pico.close()
    assert not err.strip(), err
    lines = out.split("\n")
    spells = {}
    for ln, at in zip([x for x in lines if x.startswith("spell")], presses):
        _, name, t0, t1, _, events = ln.split(None, 5)
        # every press lay inside the spell (ticks_ms counts from power on, as the emulated
        # clock does, to a few ms)
        assert int(t0) + 5 < at[0] * 1000 and at[-1] * 1000 + 70 < int(t1) - 5, (ln, at)
        spells[name] = events.strip()
    cost = {ln.split()[1]: int(ln.split()[2]) for ln in lines if ln.startswith("sample")}
    return spells, cost


def test_two_presses_while_c_code_runs_are_both_seen_by_the_hard_timer(ran):
    spells, _ = ran
    assert spells["soft"] == "[]"                  # the soft timer never ran: both lost
    assert spells["hard"] == "[5, 5]"              # PLUS twice


def test_a_press_while_interrupts_are_off_is_kept_by_the_latched_edges(ran):
    spells, _ = ran
    assert spells["erase"] == "[]"                 # no sample at all in the spell
    assert spells["erase_latched"] == "[5]"


def test_a_sample_costs_less_with_one_register_read_than_eight_pin_reads(ran):
    _, cost = ran
    # on the shoe's UF2 it cost more (726 us against 359) until Python's frames came off
    # the heap (MICROPY_ENABLE_PYSTACK): 122 against 234 us
    assert cost["board"] < cost["plain"] * 0.8, cost
    print("\nbutton sample on the virtual Pico: %d us (Pin.value() x 8: %d us)"
          % (cost["board"], cost["plain"]))
