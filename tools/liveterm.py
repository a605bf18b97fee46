"""`tools/sim.py --interactive`: the simulated table live in the terminal.

The displays (pixel-true: Unicode half blocks, or Braille cells when the terminal is
smaller, or their text when it is smaller still) above the firmware's serial log and an
input line; the keys are the web page's (tools/livetable.py KEYS). On a terminal, single
keys act at once and "/" opens the input line (a transcript line, a command, or a table
command such as ".deal QH", ".two", ".plug"); without a terminal, every input line is a
key or a line, and the log is printed as it comes.
"""
import os
import select
import shutil
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import livetable as L  # noqa: E402

FRAME_S = 0.05           # at most 20 redraws a second
CTRL_P = "\x10"          # pull the plug
CTRL_O = "\x0f"          # power on


class Keys:
    """Turns keys (single characters) into LiveTable commands; holds the input line."""

    def __init__(self, table):
        self.table = table
        self.line = None         # None: keys mode; str: the input line being typed
        self.bet = ""
        self.quit = False

    def feed(self, ch):
        t = self.table
        if self.line is not None:
            if ch in ("\r", "\n"):
                line, self.line = self.line, None
                why = t.command("line", line)
                if why:
                    t.note = why
            elif ch == "\x1b":
                self.line = None
            elif ch in ("\x7f", "\b"):
                self.line = self.line[:-1]
            elif ch.isprintable():
                self.line += ch
            return
        if ch == "/":
            self.line = ""
            return
        if ch == "q":
            self.quit = True
            return
        if ch == CTRL_P:
            t.command("plug")
            return
        if ch == CTRL_O:
            t.command("power")
            return
        if t.casino:
            if ch == " ":
                t.command("same")
                return
            if ch.isdigit():
                self.bet = (self.bet + ch)[-3:]
                t.note = "bet %s: Enter places it, Esc clears it" % self.bet
                return
            if ch in ("\x7f", "\b") and self.bet:
                self.bet = self.bet[:-1]
                return
            if ch == "\x1b":
                if self.bet:
                    self.bet = ""
                else:
                    t.command("leave")
                return
            if ch in ("\r", "\n") and self.bet:
                t.command("bet", self.bet)
                self.bet = ""
                return
        act = L.key_action(ch)
        if act is not None:
            t.command(*act)


def _line_mode(table, keys):
    """stdin is not a terminal: one key or line per input line (the old --interactive).
    Lines are split here from what the pipe gave: Python's buffered readline() would keep
    the lines after the first of one write until more input came."""
    seen = 0
    fd = sys.stdin.fileno()
    pending = b""
    eof = False
    while not keys.quit:
        lines, seen = table.log_since(seen)
        for ln in lines:
            print(ln, flush=True)
        if b"\n" in pending:
            raw, pending = pending.split(b"\n", 1)
        elif eof:
            if not pending:
                break
            raw, pending = pending, b""          # a last line without its newline
        else:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                chunk = os.read(fd, 4096)
                pending += chunk
                eof = not chunk
            elif not table.powered and table.proc is None and table.boots and \
                    not table.actions:
                break                    # the firmware halted
            continue
        text = raw.decode("utf-8", "replace").strip()
        if text == "":
            table.command("press", "OK")
        elif text == "q":
            break
        elif len(text) == 1 and L.key_action(text):
            table.command(*L.key_action(text))
        else:
            why = table.command("line", text)
            if why:
                print("# " + why, flush=True)
    # what the last lines asked for shows before the run ends: the table runs a moment
    # of its own clock after them
    table.settle()
    lines, seen = table.log_since(seen)
    for ln in lines:
        print(ln, flush=True)


def _screen_mode(table, keys):
    import termios
    import tty
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    changed = threading.Event()
    table.on_change = lambda kind: changed.set()
    out = sys.stdout
    try:
        tty.setcbreak(fd)
        attrs = termios.tcgetattr(fd)
        attrs[3] &= ~termios.IEXTEN           # Ctrl-O reaches us (not "discard output")
        attrs[0] &= ~termios.IXON             # nor is Ctrl-S / Ctrl-Q flow control
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
        out.write("\x1b[?25l\x1b[2J")
        last = 0.0
        dirty = True
        while not keys.quit:
            r, _, _ = select.select([fd], [], [], FRAME_S)
            if r:
                data = os.read(fd, 64).decode("utf-8", "replace")
                if not data:
                    break
                if data.startswith("\x1b") and len(data) > 1:
                    data = ""                 # an arrow or function key: not ours
                for ch in data:
                    keys.feed(ch)
                dirty = True
            if changed.is_set():
                changed.clear()
                dirty = True
            now = time.monotonic()
            if dirty and now - last >= FRAME_S:
                last = now
                dirty = False
                try:
                    size = os.get_terminal_size(sys.stdout.fileno())
                except OSError:
                    size = shutil.get_terminal_size((120, 40))
                lines = L.render_terminal(table, size.columns, size.lines, keys.line)
                out.write("\x1b[H" + "\x1b[K\n".join(lines) + "\x1b[K\x1b[J")
                out.flush()
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        out.write("\x1b[?25h\n")
        out.flush()


def run(a, flash):
    """--interactive: returns the exit status."""
    table = L.LiveTable(flash, seats=a.seats, preset=a.preset, heap=a.heap,
                        speed=a.speed if a.speed > 0 else 1.0, seed=a.seed, banker=a.banker,
                        auto_deal=True)
    keys = Keys(table)
    table.start()
    screens = []
    try:
        if sys.stdin.isatty() and sys.stdout.isatty():
            _screen_mode(table, keys)
        else:
            _line_mode(table, keys)
        table.sync()
        screens = [(label, [t for t in L.text_of(table.panels[i]) if t])
                   for i, label in zip(table.indices, table.labels)]
    finally:
        table.close()
    for label, text in screens:
        print("%s: %s" % (label, " | ".join(text)))
    print("sim: the table's flash (journal, history) is in %s" % os.path.relpath(flash, ROOT))
    return 0
