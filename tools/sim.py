#!/usr/bin/env python3
"""`make sim`: the firmware plays a whole session on the simulated board.

    .venv/bin/python tools/sim.py [--seed N] [--seats N] [--preset table|classic|casino]
                                  [--speed X] [--heap 256k] [--deals N] [--interactive]
                                  [--out out] [--no-images]

The firmware (.mpy files) runs on the MicroPython VM with a Pico-sized heap; the chip
models (PN532 + NTAG213 cards, TCA9548A, nine SSD1306) live in this process
(tools/hwbridge.py). Scripted players (tools/autoplay.py deciding on a shadow engine)
press the simulated buttons or type serial lines; the dealer puts the next card's tag into
the reader's field when a card is due. Every screen is shown in the terminal as it
changes; frames go to out/frames/*.png and out/table.gif; the session's ledger ends it.

--speed X: X times real time (simulated clock); 0 = as fast as possible. Default 1.
--interactive: you play, with the displays live above the log (tools/liveterm.py): keys
  s STICK, t TWIST, b BUY, p SPLIT, - MINUS, + PLUS, o or Enter OK, u UNDO, m the menu,
  c deal the next card, a the dealer deals by himself (on by default), a capital letter
  a long press; / opens a line for transcript lines ("stake 2 3"), commands ("status") and
  table commands (".deal QH", ".again", ".two", ".fast", ".plug", ".power"); Ctrl-P pulls
  the plug, Ctrl-O powers on; casino: Space same bets, digits a bet, Esc leaves; q quits.
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import cli  # noqa: E402
import runner as R  # noqa: E402
import simtable as S  # noqa: E402


def parse_args(argv):
    ap = cli.ArgumentParser(prog="sim.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seats", type=int, default=4,
                    help="2-8, the banker included (casino: players, 1-7); default 4")
    ap.add_argument("--preset", default="table", choices=("table", "classic", "casino"))
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--heap", default=R.VM_HEAP)
    ap.add_argument("--deals", type=int, default=0, help="classic/casino: deals to play (8)")
    ap.add_argument("--banker", type=int, default=0, help="first banker (0: the cut)")
    ap.add_argument("--interactive", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "out"))
    ap.add_argument("--no-images", action="store_true")
    a = ap.parse_args(argv)
    cli.check_seats("sim.py", a.preset, a.seats, a.banker)   # else the table stays stopped
    if a.speed < 0 or a.deals < 0:
        ap.error("--speed and --deals must not be negative")
    return a


class Terminal:
    def __init__(self, screens, total, quiet=False):
        self.screens = screens
        self.tty = sys.stdout.isatty() and not quiet
        self.total = total
        self.last = 0.0
        self.last_progress = -1
        self.status = ""

    def frame(self, force=False):
        if not self.tty:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.05:
            return
        self.last = now
        sys.stdout.write("\x1b[H\x1b[2J" + self.screens.tiled_text(ansi=True) + "\n"
                         + self.status + "\n")
        sys.stdout.flush()

    def progress(self, done, sim_ms, deal):
        self.status = "event %d/%d  deal %s  simulated %.1f s" % (
            done, self.total, deal, sim_ms / 1000)
        if self.tty:
            return
        step = max(1, self.total // 10)
        if done // step != self.last_progress:
            self.last_progress = done // step
            print("progress: " + self.status, flush=True)


def hand_text(h):
    """'AD 6D 9D 5D = 21', a Pontoon or a bust named as such."""
    kind = h["kind"]
    what = {"pontoon": "Pontoon", "royal-pontoon": "royal Pontoon", "bust": "bust %d",
            "five-card-trick": "five-card trick %d"}.get(kind, "%d")
    return "%s = %s" % (" ".join(h["cards"]), what % h["total"] if "%d" in what else what)


def deal_line(d, next_banker, casino):
    """One line a deal of the replayer's ledger: who had what, who paid whom, and where the
    bank went and why (N2: to a player's unsplit Pontoon; N4: sold; T3: the rotation)."""
    bank = "the dealer" if casino else "bank seat %d" % d["banker"]
    if d["void"]:
        return "deal %d, %s: void, no pay (N3)" % (d["number"], bank)
    parts = []
    if d.get("banker_hand"):
        parts.append("%s has %s" % (bank, hand_text(d["banker_hand"])))
    for h in d.get("hands", []):
        net = h.get("net", 0)
        parts.append("seat %d %s, %s" % (
            h["seat"], hand_text(h), "wins %d" % net if net > 0 else
            "pays %d" % -net if net < 0 else "stands off"))
    bank_net = d["net"].get(str(d["banker"]), 0) if not casino else -sum(
        v for k, v in d["net"].items() if k != "0")
    line = "deal %d%s: %s; the %s %s" % (
        d["number"], "" if d["counted"] else " (not counted)", "; ".join(parts),
        "dealer" if casino else "bank",
        "takes %d" % bank_net if bank_net > 0 else "pays out %d" % -bank_net if bank_net < 0
        else "is even")
    if next_banker is not None and next_banker != d["banker"] and not casino:
        pontoon = [h["seat"] for h in d.get("hands", []) if h["kind"] == "pontoon"
                   and h["seat"] == next_banker]
        line += "; the bank goes to seat %d (%s)" % (
            next_banker, "his Pontoon, N2" if pontoon else "bought, N4")
    return line


def main(argv):
    a = parse_args(argv)
    out = a.out
    flash = os.path.join(out, "flash")
    if a.interactive:
        import liveterm
        return liveterm.run(a, flash)
    S.fresh_flash(flash, S.settings_text(a.preset, a.seats, a.banker))
    frames_dir = os.path.join(out, "frames")
    if not a.no_images:
        os.makedirs(frames_dir, exist_ok=True)
        for n in os.listdir(frames_dir):
            if n.endswith(".png"):
                os.remove(os.path.join(frames_dir, n))
    screens = S.Screens(a.seats, "Dealer" if a.preset == "casino" else "Banker")
    head, events = S.script_session(a.preset, a.seats, a.seed, a.banker, a.deals)
    driver = S.Driver(head, events, seed=a.seed)
    total = len(events)
    term = Terminal(screens, total)
    gif = []
    t_real = time.monotonic()
    runner = R.VM(flash, driver, screens, heap=a.heap)

    def pace(sim_ms):
        if a.speed > 0:
            ahead = sim_ms / 1000 / a.speed - (time.monotonic() - t_real)
            if ahead > 0.002:
                time.sleep(ahead)

    def on_frame():
        term.frame()

    def on_action(k):
        e = driver.engine_at(k)
        term.progress(k, runner.world.clock.ms(), "%d" % e.deals)
        term.frame(force=True)
        if not a.no_images:
            img = S.table_image(runner.world, screens, 2, "event %d: next %s" % (
                k, driver.events[k] if not driver.events[k].startswith("card") else "card"))
            img.save(os.path.join(frames_dir, "frame_%04d.png" % k))
            gif.append(img)

    driver.on_action = on_action
    runner.pace = pace
    runner.on_frame = on_frame
    interrupted = False
    try:
        runner.session()
        rc = runner.rc
    except S.TableStopped as e:
        runner.power_cut()
        print("sim: %s" % e)
        return 1
    except KeyboardInterrupt:            # Ctrl-C: end the VM, show the ledger so far
        runner.power_cut()
        interrupted = True
        rc = 0
        print("\nsim: interrupted (Ctrl-C) after %d of %d events" % (max(0, driver.acked),
                                                                     total))
    term.frame(force=True)
    real = time.monotonic() - t_real
    if not a.no_images and runner.world is not None:
        final = S.table_image(runner.world, screens, 2, "final")
        final.save(os.path.join(out, "table_final.png"))
        gif.append(final)                # the GIF's frames are the PNG frames, full size
        gif[0].save(os.path.join(out, "table.gif"), save_all=True, append_images=gif[1:],
                    duration=[250] * (len(gif) - 1) + [3000], loop=0, optimize=False)
    if rc != 0:
        print("\n".join(driver.output[-15:]))
        print("sim: the firmware exited with status %d" % rc)
        return 1
    if not driver.done and not interrupted:
        print("sim: the session did not finish")
        return 1
    print()
    if not sys.stdout.isatty():
        print(screens.tiled_text())
    files = S.history_files(flash)
    path = files[-1] if files else os.path.join(flash, "journal.txt")
    if not os.path.exists(path):         # interrupted before the table started
        return 130 if interrupted else 1
    led = S.ledger(path)
    deals = led["deals"]
    casino = a.preset == "casino"
    for k, d in enumerate(deals):
        nxt = deals[k + 1]["banker"] if k + 1 < len(deals) else led.get("banker")
        print(deal_line(d, nxt, casino))
    print("session ledger (tools/replay.py %s):" % os.path.relpath(path, ROOT))
    counted = sum(1 for d in led["deals"] if d["counted"])
    print("  deals played %d (counted %d), rejected events %d" % (
        len(led["deals"]), counted, len(led["events"])))
    for s, bal in led["balances"].items():
        who = "dealer (the house; seat 0 in the ledger)" if s == "0" else "seat " + s
        print("  %s  %+d%s" % (who, bal, "  WINNER" if int(s) in led["winners"] else ""))
    if led["kitty"]:
        print("  kitty %d" % led["kitty"])
    print("  winners: %s" % (", ".join(str(s) for s in led["winners"]) or "-"))
    nb = sum(d.stats.wire_bytes() for d in runner.world.displays)
    print("simulated %.1f s in %.1f s real; %d display bytes; refusals %d" % (
        runner.world.clock.ms() / 1000, real, nb, len(driver.errors)))
    rel = os.path.relpath(out, ROOT)
    if a.no_images:
        print("sim: no pictures (--no-images)")
    else:
        print("sim: the pictures are in %s/ (a PNG an event), %s and %s" % (
            os.path.join(rel, "frames"), os.path.join(rel, "table.gif"),
            os.path.join(rel, "table_final.png")))
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
