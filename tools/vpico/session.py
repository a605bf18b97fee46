#!/usr/bin/env python3
"""`make vpico`: the firmware plays a whole session on the virtual Pico.

    .venv/bin/python tools/vpico/session.py [--seats 8] [--seed 1] [--out out/vpico]
                                            [--no-images]

A fresh emulated Pico (the shoe's own UF2 from `make uf2` on rp2040js; --stock: the stock
MicroPython v1.28.0 UF2) gets settings.txt, then `make deploy PORT=socket://127.0.0.1:PORT`
(mpremote over the emulated USB serial line: on the shoe's UF2 no code, on the stock one
the .mpy files); it is power-cycled and the scripted players (tools/simtable.py)
play an eight-deal `table` session through the buttons, the reader and the serial line.
Screens are shown as in `make sim` and saved under --out (frames/, table.gif,
table_final.png); the flash image stays there (flash.bin). Printed, from the Pico and the
emulated clock: heap free at the fresh prompt, after the firmware's imports and boot, the
lowest during the session and the largest free block at the end; tag-in-field to the last
byte of its seat's display per dealt card; journal flush per event; power-on to the first
prompt; emulated seconds per wall second.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import cli  # noqa: E402,F401  (first: the project's Python; quiet when piped to head)

from vpico import table as T  # noqa: E402
from vpico.pico import VpicoError  # noqa: E402

S = T.S


class _Args(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write("session.py: error: %s\n" % message)
        sys.exit(2)


def parse_args(argv):
    ap = _Args(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seats", type=int, default=8, choices=range(2, 9), metavar="2..8")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "vpico"))
    ap.add_argument("--no-images", action="store_true")
    ap.add_argument("--stock", action="store_true",
                    help="the stock MicroPython UF2 with the .mpy files make deploy copies "
                         "(default: the shoe's own UF2 from make uf2)")
    return ap.parse_args(argv)


def stats_line(values):
    v = sorted(values)
    if not v:
        return "none"
    return "avg %.1f ms, p95 %.1f ms, max %.1f ms (%d)" % (
        sum(v) / len(v), T.percentile(v, 0.95), v[-1], len(v))


def main(argv):
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    flash = os.path.join(a.out, "flash.bin")
    frames = os.path.join(a.out, "frames")
    if not a.no_images:
        os.makedirs(frames, exist_ok=True)
        for n in os.listdir(frames):
            if n.endswith(".png"):
                os.remove(os.path.join(frames, n))
    head, events = S.script_session("table", a.seats, a.seed)
    t_start = time.monotonic()
    from vpico import pico as P
    firmware = P.STOCK if a.stock else P.FROZEN
    print("vpico: a fresh Pico (%s), settings.txt: table, %d seats"
          % ("stock MicroPython v1.28.0 UF2, the firmware as .mpy files" if a.stock else
             "the shoe's UF2, build/uf2/pontoon-shoe-RPI_PICO.uf2", a.seats), flush=True)
    try:
        pico, free_fresh = T.fresh_pico(flash, S.settings_text("table", a.seats),
                                        firmware=firmware)
    except VpicoError as e:
        print("vpico: error: %s" % e, file=sys.stderr)
        return 1
    try:
        return play(a, pico, free_fresh, head, events, frames, t_start)
    except VpicoError as e:
        print("vpico: error: %s" % e, file=sys.stderr)
        return 1
    finally:
        pico.close()


def play(a, pico, free_fresh, head, events, frames, t_start):
    print("vpico: make deploy PORT=socket://127.0.0.1:%d ..." % pico.serve_tcp(), flush=True)
    t = time.monotonic()
    e0 = pico.emulated_now()
    out = T.make_deploy(pico)
    summary = [ln for ln in out.splitlines() if "to copy" in ln]
    print("vpico: deployed (%s) in %.1f s emulated, %.0f s wall" % (
        summary[0] if summary else "?", pico.emulated_now() - e0, time.monotonic() - t),
        flush=True)
    pico.power_cut()                  # a clean power-on: time from zero, chips reset
    screens = S.Screens(a.seats)
    driver = T.driver(head, events, a.seed)
    from sim import Terminal          # tools/sim.py: the same terminal view as make sim
    term = Terminal(screens, len(events))
    gif = []
    run = T.table_run(pico, driver, screens)

    def on_action(k):
        e = driver.engine_at(k)
        term.progress(k, pico.world.clock.ms(), "%d" % e.deals)
        if term.tty:
            term.frame(force=True)
        else:
            sys.stdout.flush()
        if not a.no_images:
            img = S.table_image(pico.world, screens, 2, "event %d" % k)
            img.save(os.path.join(frames, "frame_%04d.png" % k))
            gif.append(S.table_image(pico.world, screens, 1))
    run.on_action = on_action
    run.on_frame = term.frame
    log = open(os.path.join(a.out, "serial.log"), "w")

    def to_log(text):
        log.write("%s\n" % text)
        log.flush()
    pico.boot()
    run.boot()
    run.on_line = to_log
    try:
        run.run()
        run.halt(settle_s=0.2)
    finally:
        run.on_line = None
        log.close()
    info = T.mem_info(pico)
    emu = pico.emulated_now()
    kept, _ = pico.exec_raw("import os\nh = sorted(os.listdir('history'))\n"
                            "print(open('history/' + h[-1]).read() if h else '')")
    kept_path = os.path.join(a.out, "session.txt")
    with open(kept_path, "w") as f:
        f.write(kept.replace("\r\n", "\n"))
    script_path = os.path.join(a.out, "script.txt")
    with open(script_path, "w") as f:
        f.write("\n".join(head + events) + "\n")
    ledger = S.ledger(kept_path)
    same = ledger == S.ledger(script_path)
    screens.watch(pico.world)          # what the displays show after the halt, as the PNG does
    term.frame(force=True)
    if not a.no_images:
        S.table_image(pico.world, screens, 2, "final").save(
            os.path.join(a.out, "table_final.png"))
        gif.append(S.table_image(pico.world, screens, 1))
        gif[0].save(os.path.join(a.out, "table.gif"), save_all=True, append_images=gif[1:],
                    duration=[250] * (len(gif) - 1) + [3000], loop=0)
    if not term.tty:
        print(screens.tiled_text())
    lines = run.lines
    after_boot = [ln for ln in lines if ln.startswith("# heap in use after boot")]
    lowest = [ln for ln in lines if ln.startswith("# loops")]
    lat = T.card_latencies(run, events)
    flush = []
    for k, ops in sorted(run.flash_by_event.items()):
        if 0 <= k <= len(events) and ops:
            start = ops[0][2]
            end = ops[-1][2] + ops[-1][1]
            flush.append((end - start) / 1e6)
    stall = [sum(op[1] for op in ops) / 1e6 for k, ops in run.flash_by_event.items()
             if 0 <= k <= len(events)]
    n_ev = len(events)
    erases = sum(1 for ops in run.flash_by_event.values() for op in ops if op[0] == "e")
    print()
    print("vpico: %d events, %d deals; the Pico's hand history (%s), replayed on CPython:"
          % (n_ev, driver.engine_at(n_ev).deals, os.path.relpath(kept_path)))
    for seat, bal in ledger["balances"].items():
        print("  seat %s  %+d%s" % (seat, bal, "  WINNER" if int(seat) in ledger["winners"]
                                    else ""))
    print("  refusals %d; actions redone %d; ledger %s the scripted session's" % (
        len(driver.errors), driver.retries, "equal to" if same else "DIFFERENT from"))
    from ledger import seal
    said = [ln.split() for ln in lines if ln.startswith("# seal ")]
    pico_seal = " ".join(said[-1][2:4]) if said else "?"
    with open(script_path, "rb") as f:
        script_seal = seal.of_lines(f)
    sealed = pico_seal == script_seal
    print("  seal: the Pico said %s; the scripted session's on CPython: %s (%s)" % (
        pico_seal, script_seal, "equal" if sealed else "DIFFERENT"))
    print("heap (gc.mem_free on the Pico):")
    print("  at the fresh prompt            %d%s" % (
        free_fresh, "" if pico.firmware == "stock" else " (the table stopped, still loaded)"))
    print("  after imports and boot         %s" % (
        after_boot[-1].replace("# heap ", "") if after_boot else "?"))
    print("  lowest during the session      %s" % (
        lowest[-1].rsplit(" ", 1)[1] + " (garbage included)" if lowest else "?"))
    print("  at the end: free %s, largest free block %d bytes (micropython.mem_info)"
          % (info["free"], info["max_free_block"]))
    print("dealt card, tag in the field -> last byte of its seat's display: %s"
          % stats_line(lat))
    print("journal flush per event (first to last flash operation of the event, "
          "W25Q16JV typical times): %s; flash stalls %s; %d sector erases in %d events"
          % (stats_line(flush), stats_line(stall), erases, n_ev))
    if run.first_prompt_ns is not None:
        print("power-on -> first prompt: %.3f s emulated" % (run.first_prompt_ns / 1e9))
    print("emulated %.1f s in %.1f s wall: %.3f emulated s per wall s (session); "
          "whole run %.0f s wall" % (emu, run.t_wall, emu / run.t_wall if run.t_wall else 0,
                                      time.monotonic() - t_start))
    return 0 if driver.done and same and sealed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
