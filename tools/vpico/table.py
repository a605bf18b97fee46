"""The shoe's firmware on the virtual Pico: deploy it the way a user does (`make deploy
PORT=socket://...`, mpremote over the emulated USB serial line), then let the scripted
players of tools/simtable.py play through the buttons, the reader and the serial line
(tools/runner.py's Pico backend: `table_run`).

Used by tools/vpico/session.py (`make vpico`) and host_tests/pico/test_vpico_*.py.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for _p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import simtable as S  # noqa: E402
from vpico.pico import STOCK, Pico, VpicoError  # noqa: E402

PROMPT = b">>> "
# REPL code that erases the journal's raw flash region on the shoe's own UF2 (its tail and
# snapshots; nothing on the stock UF2): with journal.txt removed, a fresh Pico
ERASE_RAW_JOURNAL = ("import board\n_d = board.journal_flash() if hasattr(board, 'journal_flash') "
                     "else None\nif _d:\n from ledger import raw_recover\n raw_recover.erase(_d)\n")


def mpremote(pico, *args, wall_timeout=600):
    """Run `mpremote connect socket://127.0.0.1:PORT ARGS...` against the virtual Pico
    (kept running meanwhile). Returns its output; VpicoError if it fails."""
    port = pico.serve_tcp()
    cmd = [sys.executable, "-m", "mpremote", "connect", "socket://127.0.0.1:%d" % port]
    return _served(pico, cmd + list(args), wall_timeout)


def make_deploy(pico, wall_timeout=900, settings=None):
    """`make deploy PORT=socket://127.0.0.1:PORT`: the real deploy path (tools/deploy.py:
    mpy-cross bundle, mpremote copy, soft reset; on the shoe's own UF2 no code). Returns
    its output. settings: a settings file to copy as settings.txt."""
    port = pico.serve_tcp()
    cmd = ["make", "--no-print-directory", "-C", ROOT, "deploy",
           "PORT=socket://127.0.0.1:%d" % port]
    if settings:
        cmd.append("DEPLOY_ARGS=--settings %s" % settings)
    return _served(pico, cmd, wall_timeout)


def _served(pico, cmd, wall_timeout):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        pico.serve_while(lambda: proc.poll() is None, wall_timeout=wall_timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
        out = proc.communicate()[0].decode(errors="replace")
    if proc.returncode:
        raise VpicoError("%s failed (status %d):\n%s" % (" ".join(cmd[:6]), proc.returncode,
                                                        out[-2000:]))
    return out


def fresh_pico(flash, settings=None, firmware=None, board="RPI_PICO"):
    """A Pico with a new flash (the UF2 just copied to it), at the prompt; settings.txt
    written when given. Returns (pico, gc.mem_free() at the fresh prompt). The shoe's own
    UF2 starts the table at power-on: it is stopped (ctrl-C) for the prompt."""
    if os.path.exists(flash):
        os.remove(flash)
    pico = Pico(flash, firmware=firmware, board=board)
    pico.boot()
    if pico.firmware == STOCK:
        pico.write(b"\r")
        pico.expect(PROMPT, 5)
    else:
        pico.expect(b"# heap in use after boot", 10)
    code = "import gc; gc.collect(); print(gc.mem_free())\n"
    if pico.firmware != STOCK:
        # the shoe's UF2 began a session with the default settings at power-on: a fresh
        # Pico for the caller has none (as after `make deploy --settings` and `new`)
        code += ("import os\nfor n in ('journal.txt', 'jtail/lines.txt', 'jsnap/state.bin'):\n"
                 " try:\n  os.remove(n)\n except OSError:\n  pass\n"
                 + ERASE_RAW_JOURNAL)
    if settings is not None:
        code += "f = open('settings.txt', 'w'); f.write(%r); f.close()\n" % settings
    out, err = pico.exec_raw(code)
    if err:
        raise VpicoError("the fresh Pico said: " + err)
    return pico, int(out.split()[0])


# A press the Pico sees: its loop pass (reader poll, buttons, serial, one display) takes
# 4-75 ms of the rp2's own CPU and bus time, and a level must be stable for debounce_ms
# (debounce) between two passes, so simtable's 70 ms presses (tuned on the unix VM, where
# the CPU costs no simulated time) are sometimes missed. People press for 100-200 ms.
HOLD_MS = 150


def driver(head, events, seed):
    """simtable's scripted players, pressing buttons for HOLD_MS."""
    return S.Driver(head, events, seed=seed, hold_ms=HOLD_MS)


def table_run(pico, driver, screens=None, wall_timeout=3600):
    """The runner for a deployed Pico (powered on by its boot()) played by a driver: lines
    sent end with a newline, cut as the bytes come, the driver polled every emulated ms."""
    import runner
    return runner.Pico(pico=pico, driver=driver, screens=screens, slice_s=0.001, eol="\n",
                       live_serial=True, wall_timeout=wall_timeout)


def dealt_on_pico(driver, seats, flash=None, wall_timeout=3600, stopped="stopped"):
    """A scripted dealer's session on the shoe's UF2 (a fresh `seats`-seat table unless
    `flash` is given): the journal's lines and the REPL's error text, or ([], "") with a
    failure named `stopped` when the table stopped answering."""
    import tempfile
    from vpico.pico import FROZEN
    with tempfile.TemporaryDirectory() as tmp:
        if flash is None:
            flash = os.path.join(tmp, "flash.bin")
            fresh_pico(flash, S.settings_text("table", seats))[0].power_cut()
        pico = Pico(flash, firmware=FROZEN)
        pico.boot()
        try:
            got, err = played_session(pico, driver, wall_timeout=wall_timeout)
        except RuntimeError as x:
            got, err = [], ""
            driver.failures.append("%s: %s" % (stopped, str(x).splitlines()[0]))
        finally:
            pico.close()
    return got, err


def played_session(pico, driver, wall_timeout=3600):
    """The driver's session played on the deployed Pico, then halted; the journal's lines
    (the kept history file once the session is over) and the REPL's error text."""
    run = table_run(pico, driver, wall_timeout=wall_timeout)
    run.boot()
    run.run()
    run.halt(settle_s=0.2)
    journal, err = pico.exec_raw(
        "import os\nh = sorted(os.listdir('history')) if 'history' in os.listdir() "
        "else []\nif h:\n print(open('history/' + h[0]).read())\nelse:\n"
        " from ledger import session\n session.print_journal()")
    return [ln for ln in journal.replace("\r\n", "\n").split("\n") if ln.strip()], err


def mem_info(pico):
    """micropython.mem_info() at the REPL: {'total', 'used', 'free', 'max_free_block'}
    in bytes (blocks are 16 bytes on the rp2 port)."""
    out, err = pico.exec_raw("import micropython; micropython.mem_info()")
    info = {}
    for part in out.replace("\r\n", ",").split(","):
        if ":" in part:
            k, _, v = part.rpartition(":")
            k = k.strip()
            try:
                info[k] = int(v.strip())
            except ValueError:
                pass
    return {"total": info.get("GC total"), "used": info.get("used"), "free": info.get("free"),
            "max_free_block": info.get("max free sz", 0) * 16, "raw": out}


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, int(round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def card_latencies(run, events):
    """Per dealt player's card: emulated ms from its tag entering the field to the last
    data byte written to its seat's display before the next action started."""
    d = run.driver
    out = []
    for k, line in enumerate(events):
        if not line.startswith("card") or k not in d.put_at:
            continue
        seat = S.card_seat(d.engine_at(k))
        if seat <= 0:
            continue
        t0 = d.put_at[k]
        end = run.action_at.get(k + 1, float("inf"))
        writes = [t / 1e6 for t in run.writes.get(seat - 1, ()) if t0 <= t / 1e6 <= end]
        if writes:
            out.append(max(writes) - t0)
    return out
