"""The firmware on the virtual Pico (tools/vpico): the shoe's own UF2 (`make uf2`, the
firmware frozen in) given its settings through `make deploy PORT=socket://...` (mpremote),
then each test boots a copy of that flash; and the second configuration, the stock
MicroPython UF2 with the .mpy files `make deploy` copies, played through a power cut."""
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, TOOLS
from vpico import table as T
from vpico.pico import FROZEN, STOCK, Pico, VpicoError, firmware_dir, node_ready, uf2_for

S = T.S
SEATS = 3
SEED = 2
WALL = 900


def _micropython_lib():
    """micropython-lib (v1.28.0's pin) is on no package registry: it comes with the virtual
    Pico's files. $VPICO_MICROPYTHON_LIB, else beside $VPICO_FIRMWARE, else ../shared."""
    env = os.environ.get("VPICO_MICROPYTHON_LIB")
    if env:
        return env
    fw = os.environ.get("VPICO_FIRMWARE")
    if fw:
        return os.path.join(os.path.dirname(os.path.abspath(fw.rstrip("/"))), "micropython-lib")
    return os.path.join(os.path.dirname(ROOT), "shared", "micropython-lib")


UNITTEST = os.path.join(_micropython_lib(), "python-stdlib", "unittest", "unittest")


def _settings_file(d):
    path = str(d / "settings.txt")
    with open(path, "w") as f:
        f.write(S.settings_text("table", SEATS))
    return path


def _frozen_ready():
    try:
        firmware_dir()
        node_ready()
        uf2_for(FROZEN)
    except VpicoError as e:
        pytest.fail(str(e))


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """A flash image of the shoe's UF2 after `make deploy` gave it settings.txt for a 3-seat
    table (on the frozen board deploy copies no code)."""
    _frozen_ready()
    d = tmp_path_factory.mktemp("vpico")
    flash = str(d / "deployed.bin")
    pico, free = T.fresh_pico(flash)
    try:
        out = T.make_deploy(pico, wall_timeout=WALL, settings=_settings_file(d))
    finally:
        pico.power_cut()
    assert "the device runs the shoe's own UF2, version" in out, out
    assert "0 to copy, 0 to remove" in out and "soft reset" in out, out
    return {"flash": flash, "free_fresh": free, "firmware": FROZEN}


@pytest.fixture(scope="module")
def settled(tmp_path_factory):
    """The same table given its settings through the raw REPL at instants of emulated time,
    for the tests that count what the Pico kept up with: `make deploy` over TCP is paced by
    the host's wall clock, and littlefs stamps files with their time and seeds its block
    allocator from metadata checksums, so the journal's blocks (and with them the flash
    erases a deal waits for) moved from one run to the next (4 cards dealt again here, 7 on
    a CI run, same code)."""
    _frozen_ready()
    flash = str(tmp_path_factory.mktemp("vpico_settled") / "settled.bin")
    pico, free = T.fresh_pico(flash, S.settings_text("table", SEATS))
    pico.power_cut()
    return {"flash": flash, "free_fresh": free, "firmware": FROZEN}


@pytest.fixture(scope="module")
def stock_deployed(tmp_path_factory):
    """The .mpy path: the stock UF2 and every file `make deploy` copies to it."""
    try:
        firmware_dir()
        node_ready()
    except VpicoError as e:
        pytest.fail(str(e))
    d = tmp_path_factory.mktemp("vpico_stock")
    flash = str(d / "deployed.bin")
    pico, free = T.fresh_pico(flash, S.settings_text("table", SEATS), firmware=STOCK)
    try:
        out = T.make_deploy(pico, wall_timeout=WALL)
    finally:
        pico.power_cut()
    import deploy
    every_file = len(deploy.build_bundle(str(d / "bundle")))     # a fresh Pico gets them all
    assert "%d to copy" % every_file in out and "soft reset" in out
    return {"flash": flash, "free_fresh": free, "firmware": STOCK}


def boot_copy(deployed, tmp_path, name="flash.bin"):
    path = str(tmp_path / name)
    shutil.copyfile(deployed["flash"], path)
    pico = Pico(path, firmware=deployed["firmware"])
    pico.boot()
    return pico


def cpython_ledger(lines):
    import replay
    path = os.path.join(ROOT, "out")
    os.makedirs(path, exist_ok=True)
    buf = io.StringIO()
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, dir=path) as f:
        f.write("\n".join(lines) + "\n")
    try:
        assert replay.main(["replay.py", f.name], out=buf) == 0
    finally:
        os.remove(f.name)
    return json.loads(buf.getvalue())


def test_fresh_stock_pico_heap(stock_deployed):
    assert 240_000 <= stock_deployed["free_fresh"] <= 241_776


@pytest.mark.parametrize("which", ["frozen", "stock"])
def test_session_with_a_power_cut_mid_deal(which, deployed, stock_deployed, tmp_path):
    deployed = deployed if which == "frozen" else stock_deployed
    head, events = S.script_session("table", SEATS, SEED)
    n_play = 26
    cut_at = 14
    events = events[:n_play]
    driver = T.driver(head, events, SEED)
    assert driver.engine_at(cut_at).in_deal()
    pico = boot_copy(deployed, tmp_path)
    try:
        run = T.table_run(pico, driver, wall_timeout=WALL)
        run.boot()
        run.run(until=lambda r: driver.acked >= cut_at)
        assert not driver.done
        pico.run_for(0.03)                 # into the next action: reader, journal, displays
        boot_lines = list(run.lines)
        run.power_cut()
        run.boot()
        n = len(run.lines)
        run.run()
        run.halt(settle_s=0.2)
        assert any(ln.startswith("# resume #%d" % cut_at) or
                   ln.startswith("# resume #%d" % (cut_at + 1)) for ln in run.lines[n:])
        journal, err = pico.exec_raw("from ledger import session\nsession.print_journal()")
    finally:
        pico.close()
    assert err == ""
    got = [ln for ln in journal.replace("\r\n", "\n").split("\n") if ln.strip()]
    assert got == head + events, "the Pico's journal differs from the scripted session"
    assert cpython_ledger(got) == cpython_ledger(head + events)
    # the Pico's own heap lines (deterministic): a budget, so a regression fails
    heap = [ln for ln in boot_lines if ln.startswith("# heap in use after boot")]
    assert heap, boot_lines[-10:]
    free_after_boot = int(heap[0].rsplit(" ", 1)[1])
    # (the stock UF2 holds the .mpy code in its heap, the engine's machine code included,
    # which is larger than its bytecode, and interns the modules' dotted names there: the
    # figure by build is in docs/DEVELOPING.md; the budget keeps 10% of room under it, for
    # code that costs nothing of the heap on the shoe's own UF2, where code stays in flash)
    assert free_after_boot >= 59_500, heap[0]
    lat = sorted(T.card_latencies(run, events))
    # emulated, so deterministic: 445 ms at the 95th percentile when this was written
    assert lat and T.percentile(lat, 0.95) < 500, lat


def test_scenarios_replay_byte_for_byte(deployed, tmp_path):
    sc = os.path.join(ROOT, "host_tests", "scenarios")
    files = []
    for preset in sorted(os.listdir(sc)):
        for n in sorted(os.listdir(os.path.join(sc, preset))):
            if n.endswith(".txt") and os.path.exists(os.path.join(sc, preset, n + ".json")):
                files.append((preset, n))
    assert len(files) > 100
    pico = boot_copy(deployed, tmp_path)
    try:
        pico.write(b"\r\x03\x03")          # stop main.py: the REPL
        pico.run_for(0.3)
        put = {name: open(os.path.join(TOOLS, name), "rb").read()
               for name in ("replay.py", "report.py")}       # the replayer and its JSON
        for i, (preset, n) in enumerate(files):
            with open(os.path.join(sc, preset, n), "rb") as f:
                put["sc/%d.txt" % i] = f.read()
        pico.put_files(put)
        outputs = []
        batch = 40
        for start in range(0, len(files), batch):
            code = ("import sys, gc\nimport replay\n"
                    "for i in range(%d, %d):\n"
                    "    print('@@', i)\n"
                    "    replay.main(['replay.py', 'sc/%%d.txt' %% i])\n"
                    "    gc.collect()\n" % (start, min(len(files), start + batch)))
            out, err = pico.exec_raw(code, timeout_s=600)
            assert err == "", err[-500:]
            outputs.append(out)
    finally:
        pico.close()
    text = "".join(outputs).replace("\r\n", "\n")
    parts = text.split("@@ ")[1:]
    assert len(parts) == len(files)
    bad = []
    for part, (preset, n) in zip(parts, files):
        _, _, doc = part.partition("\n")
        with open(os.path.join(sc, preset, n + ".json")) as f:
            if doc != f.read():
                bad.append("%s/%s" % (preset, n))
    assert not bad, "differ on the rp2 port: %s" % bad


def test_tags_write_and_check_with_tags_py(deployed, tmp_path):
    from boards.simdev import ntag213
    pico = boot_copy(deployed, tmp_path)
    placed = []
    pile = [ntag213.blank_tag(n=100 + i) for i in range(3)]
    run = T.table_run(pico, None)         # the serial line cut into lines, no players

    def operator(text):
        w = pico.world
        if text.startswith("tags: place") and not w.pn532.field:
            tag = pile[len(placed) % len(pile)]
            placed.append(tag)
            pico.deal(tag)
        elif text.startswith(("tags: ok", "tags: same", "tags: card", "tags: refused")):
            for tag in list(w.pn532.field):
                pico.at(pico.emulated_now() + 0.05, lambda tag=tag: pico.remove(tag))
    run.on_line = operator
    try:
        run.boot()
        pico.run_for(3)                    # boot: the table waits for its cut
        port = pico.serve_tcp()
        for args in (["write", "--from", "AS", "--count", "3"], ["check", "--count", "3"]):
            cmd = [sys.executable, os.path.join(TOOLS, "tags.py")] + args + [
                "--port", "socket://127.0.0.1:%d" % port]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            pico.serve_while(lambda: proc.poll() is None, wall_timeout=WALL)
            out = proc.communicate()[0].decode()
            # check exits 1 while cards of the deck are missing (49 here)
            assert proc.returncode == (0 if args[0] == "write" else 1), out
    finally:
        pico.close()
    said = run.lines
    assert any(ln.startswith("tags: summary write ok=3") for ln in said), said[-20:]
    assert any(ln.startswith("tags: summary check present=3 duplicate=0") for ln in said)
    for card in ("AS", "2S", "3S"):
        assert any(ln.startswith("tags: card") and " %s " % card in ln for ln in said), card


def test_device_unittest_module(deployed, tmp_path):
    assert os.path.isdir(UNITTEST), (
        "micropython-lib's unittest (python-stdlib/unittest at the commit MicroPython v1.28.0 "
        "pins) is expected at %s: set VPICO_MICROPYTHON_LIB to a micropython-lib checkout"
        % UNITTEST)
    pico = boot_copy(deployed, tmp_path)
    try:
        pico.run_for(0.5)
        with open(os.path.join(UNITTEST, "__init__.py"), "rb") as f:
            ut = f.read()
        with open(os.path.join(ROOT, "host_tests", "mp", "vpico_device_tests.py"), "rb") as f:
            mod = f.read()
        pico.put_files({"lib/unittest/__init__.py": ut, "vpico_device_tests.py": mod})
        out, err = pico.exec_raw("import unittest\nunittest.main('vpico_device_tests')",
                                 timeout_s=120)
    finally:
        pico.close()
    text = out + err
    assert "Ran 9 tests" in text and "OK" in text.split("Ran 9 tests")[1], text[-1500:]

DWELL_MS = 40


def _fast_deal(deployed, tmp_path, events, deal_ms, think_ms=40, head=None, retry=False):
    """simtable's players on the Pico with a fast dealer: a card slides through the field
    every deal_ms at the soonest and stays DWELL_MS whether or not it was read (dealt
    again, counted, only when `retry`)."""
    driver = S.Driver(head, events, seed=SEED, hold_ms=T.HOLD_MS, deal_ms=deal_ms,
                      dwell_ms=DWELL_MS, think_ms=think_ms, retry=retry)
    pico = boot_copy(deployed, tmp_path)
    try:
        got, err = T.played_session(pico, driver, wall_timeout=WALL)
    finally:
        pico.close()
    assert err == ""
    return driver, got


def test_three_cards_a_second_on_the_pico(settled, tmp_path):
    # issue 14 on the rp2 port (.mpy files, the CPU's own time counted): a whole session
    # dealt at three cards a second, each card 40 ms in the field: none has to be dealt
    # again, none goes to the wrong hand, no hidden card is named
    from app_support import check_serial, hidden_states
    head, events = S.script_session("table", SEATS, SEED)
    driver, got = _fast_deal(settled, tmp_path, events, deal_ms=333, head=head)
    assert driver.done and driver.errors == [] and driver.retries == 0, driver.errors
    assert got == head + events, "the Pico's journal differs from the scripted session"
    assert cpython_ledger(got) == cpython_ledger(head + events)
    assert check_serial(driver.seen, hidden_states(head, events)) == []
    cards = [k for k, line in enumerate(events) if line.startswith("card")]
    assert len(cards) > 50
    puts = sorted(driver.put_at[k] for k in cards)
    assert min(b - a for a, b in zip(puts, puts[1:])) >= 333 - 8


# cards 35 ms apart, 40 ms each (both in the field for 5 ms), the first 80 events of three
# scripted sessions: played once each, for the two tests below
FAST_SEEDS = (SEED, 1, 5)


@pytest.fixture(scope="module")
def fast_deals(settled, tmp_path_factory):
    out = {}
    for seed in FAST_SEEDS:
        head, events = S.script_session("table", SEATS, seed)
        events = events[:80]
        driver, got = _fast_deal(settled, tmp_path_factory.mktemp("fast%d" % seed), events,
                                 deal_ms=35, think_ms=0, head=head, retry=True)
        out[seed] = (head, events, driver, got)
    return out


def test_the_next_card_enters_while_the_last_leaves_on_the_pico(fast_deals):
    # the worst case on the Pico. The rp2 port cannot always keep up there: a card it could
    # not read is reported ("! reader unread") and dealt again, never guessed or given to
    # another hand
    for seed, (head, events, driver, got) in fast_deals.items():
        assert driver.done, seed
        assert got == head + events, "seed %d: the Pico's journal differs from the script" % seed
        cards = [k for k, line in enumerate(events) if line.startswith("card")]
        overlaps = sum(1 for a, b in zip(cards, cards[1:])
                       if driver.put_at[b] < driver.put_at[a] + DWELL_MS)
        assert overlaps >= 8, (seed, overlaps)
        unread = [x for _, x in driver.errors if x.startswith(("! reader unread",
                                                               "! reader two-tags"))]
        assert len(unread) == len(driver.errors) == driver.retries, seed
        # emulated and the flash laid out at emulated instants (fixture `settled`), so the
        # count is the same on every machine for one UF2; it moves when the firmware's code
        # moves in flash (the XIP cache), so the bound leaves room: at most one card in
        # eight dealt again. Issue 21's goal is none: test_no_card_dealt_again_at_35_ms_apart
        assert driver.retries <= len(cards) // 8, (seed, driver.errors)


# Issue 21's goal, asserted: none dealt again in three sessions. Whether a card is found in
# time at 35 ms follows where the code lies in flash (the XIP cache) as well as the code
# itself, so a change elsewhere can move it (it was 0 or 1 of about 48 cards a session
# before the display's pages went out in one pass and the narration after the display).
@pytest.mark.xfail(strict=False, reason=(
    "issue 21's goal, missed once since the sessions are dealt from a physical deck "
    "(boards/simdev/deck.py): in seed 1's first 80 events one card is dealt again, the second "
    "of two cards 35 ms apart right after a deal the banker's card ended; the firmware of "
    "before the deck misses it too (docs/DEVELOPING.md, the reader on the virtual Pico)"))
def test_no_card_dealt_again_at_35_ms_apart(fast_deals):
    # three sessions: one alone would pass or fail with where the code lies in flash
    assert [d.retries for _, _, d, _ in fast_deals.values()] == [0] * len(FAST_SEEDS)


# A Pico powered for 12.4 days: its timer starts WRAP_IN_MS before MicroPython's ticks_ms
# wraps (2**30 ms), so the wrap comes in the middle of a short session played with the
# buttons (every press but a line's: serial_share 0); each press must reach the table
# (issue 39: the button sampler's hard interrupt once did arithmetic past a small int)
WRAP_IN_MS = 6000


def test_every_press_reaches_the_table_across_the_wrap_of_ticks_ms(settled, tmp_path):
    head, events = S.script_session("table", SEATS, SEED)
    events = events[:60]
    path = str(tmp_path / "flash.bin")
    shutil.copyfile(settled["flash"], path)
    pico = Pico(path, firmware=settled["firmware"], timer_from_ms=2 ** 30 - WRAP_IN_MS)
    pico.boot()
    driver = S.Driver(head, events, seed=SEED, hold_ms=T.HOLD_MS, serial_share=0.0)
    presses = []
    press = driver._press

    def counted(t, name, hold=None):
        presses.append(t)
        return press(t, name, hold)
    driver._press = counted
    try:
        got, err = T.played_session(pico, driver, wall_timeout=WALL)
        ticks, err2 = pico.exec_raw("import time\nprint(time.ticks_ms())")
    finally:
        pico.close()
    assert err == "" and err2 == "", (err, err2)
    assert driver.done and driver.errors == [] and driver.retries == 0, driver.errors
    assert got == head + events
    assert int(ticks) < 2 ** 20                          # the Pico's ticks_ms wrapped
    assert sum(1 for t in presses if t < WRAP_IN_MS) >= 5, presses
    assert sum(1 for t in presses if t > WRAP_IN_MS) >= 5, presses
