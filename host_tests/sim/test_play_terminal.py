"""`tools/sim.py --interactive`: the displays live in the terminal (tools/liveterm.py), their
pixels decoded back and compared with the SSD1306 models; the whole program in a pty."""
import os
import pty
import re
import select
import struct
import subprocess
import sys
import time

import pytest

import livetable as L

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WAIT_S = 30


def wait_for(cond, what, timeout=WAIT_S):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    t = L.LiveTable(str(tmp_path_factory.mktemp("term") / "flash"), seats=3, speed=2.0,
                    seed=4)
    t.start()
    try:
        wait_for(lambda: (t.prompt or "").startswith("Cut"), "the first prompt")
        t.command("deal", "QH")
        wait_for(lambda: "Cut: card to seat 2" in t.prompt, "the first cut card")
        t.sync()
        since = t.world.clock.ms()       # 500 ms of the table's own clock: its displays drawn
        wait_for(lambda: t.world.clock.ms() - since >= 500, "the table's clock")
        t.sync()
        yield t
    finally:
        t.close()


def tiles(lines, label, width, height):
    """The body lines of the tile labelled `label` in a rendered screen."""
    for n, ln in enumerate(lines):
        k = ln.find(label.center(width, "-"))
        if k >= 0:                          # the body's columns are the label's
            return [b[k:k + width] for b in lines[n + 1:n + 1 + height]]
    raise AssertionError("no tile %r in:\n%s" % (label, "\n".join(lines)))


def unhalf(body):
    rows = []
    for line in body:
        top = [1 if ch in "\u2580\u2588" else 0 for ch in line]
        bot = [1 if ch in "\u2584\u2588" else 0 for ch in line]
        rows += [top, bot]
    return rows


def unbraille(body):
    rows = []
    for line in body:
        four = [[0] * 128 for _ in range(4)]
        for cx, ch in enumerate(line):
            v = ord(ch) - 0x2800
            for dy in range(4):
                for dx in range(2):
                    if v & L.BRAILLE_BITS[dy][dx]:
                        four[dy][2 * cx + dx] = 1
        rows += four
    return rows


def test_half_blocks_are_the_models_pixels(table):
    lines = L.render_terminal(table, 400, 130, "")
    assert L.terminal_view(4, 400, 130)[0] == "pixels"
    for i, label in zip(table.indices, table.labels):
        want = L.panel_levels(L.Panel(table.world.displays[i]))
        got = unhalf(tiles(lines, label, 128, 32))
        assert got == want, "%s: the half blocks differ from the model" % label
        assert sum(map(sum, got)) > 100          # something is lit: text is on it
    assert lines[-1] == "line> "


def test_braille_when_smaller_and_text_when_small(table):
    lines = L.render_terminal(table, 140, 50, None)
    assert L.terminal_view(4, 140, 50)[0] == "braille"
    seat1 = L.panel_levels(L.Panel(table.world.displays[0]))
    assert unbraille(tiles(lines, "Seat 1", 64, 16)) == seat1
    lines = L.render_terminal(table, 80, 30, None)
    assert L.terminal_view(4, 80, 30)[0] == "text"
    body = tiles(lines, "Banker", 21, 8)
    assert body[0].startswith("CUT FOR BANK"), body
    seat1 = tiles(lines, "Seat 1", 21, 8)
    assert seat1[0].startswith("Seat 1") and "Cut for the bank" in " ".join(seat1), seat1
    assert any("* #1 card QH cut for seat 1" in ln for ln in lines)   # the log below


def test_keys_and_table_commands(table):
    from liveterm import Keys
    k = Keys(table)
    seq = table.log_seq
    for ch in "/status\r":
        k.feed(ch)
    table.sync()
    wait_for(lambda: any(ln.startswith("ok status:") for ln in table.log_since(seq)[0]),
             "the status answer")
    assert k.line is None
    k.feed("/")
    for ch in ".nonsense\r":
        k.feed(ch)
    assert table.note.startswith("table commands: .deal")
    assert L.key_action("S") == ("long", "STICK")
    assert L.key_action("\r") == ("press", "OK")
    assert L.key_action("m") == ("long", "OK")
    assert L.key_action("z") is None


def _read(fd, buf, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return buf
            if not data:
                return buf
            buf += data
    return buf


def test_interactive_in_a_terminal(tmp_path):
    """The program itself in a pseudo-terminal: screens, a line, the plug, quitting."""
    import fcntl
    import termios
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 140, 0, 0))
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "tools/sim.py", "--interactive",
                                  "--seats", "2", "--seed", "3", "--speed", "2",
                                  "--out", str(tmp_path)])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 140, 0, 0))
    buf = b""
    try:
        def screen():
            return buf.decode("utf-8", "replace").split("\x1b[H")[-1].replace("\x1b[K", "")

        def until(text, what):
            nonlocal buf
            end = time.monotonic() + WAIT_S
            while text not in screen() and time.monotonic() < end:
                buf = _read(fd, buf, 0.2)
            assert text in screen(), "%s: %r not on the screen:\n%s" % (what, text, screen())

        # the dealer deals by himself: the cut, then the shuffle prompt
        until("Shuffle, then OK", "the cut")
        s = screen()
        assert "-Seat 1-" in s and "-Banker-" in s and "\u2800" in s   # Braille tiles
        assert re.search(r"[\u2801-\u28ff]", s)                         # lit pixels
        os.write(fd, b"/status\r")
        until("ok status:", "a typed command")
        os.write(fd, b"\x10")                                          # Ctrl-P
        until("power OFF", "the plug")
        os.write(fd, b"\x0f")                                          # Ctrl-O
        until("# resume #", "power on")
        os.write(fd, b"q")
        end = time.monotonic() + WAIT_S
        status = None
        while status is None and time.monotonic() < end:
            buf = _read(fd, buf, 0.2)
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
        assert status is not None, "sim.py --interactive did not quit on 'q'"
        pid = 0
        assert os.WEXITSTATUS(status) == 0
        tail = buf.decode("utf-8", "replace")
        assert "Banker: " in tail and "sim: the table's flash" in tail
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


def test_interactive_without_a_terminal(tmp_path):
    """Piped input: one key or line per input line, the log printed as it comes."""
    p = subprocess.Popen([sys.executable, "tools/sim.py", "--interactive", "--seats", "2",
                          "--speed", "4", "--out", str(tmp_path)], cwd=ROOT,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    import threading
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(p.stdout.readline, "")),
                              daemon=True)
    reader.start()
    try:
        # the input goes in once the table is up, reader included (the boot's last line),
        # not after a guess: tags in the field before the reader starts are taken for
        # cards left on it
        wait_for(lambda: any(x.startswith("# heap in use after boot") for x in list(lines)),
                 "the end of the boot")
        # one write: every line is taken without waiting for more input, and what the
        # last ones caused is said before the run ends
        p.stdin.write("status\n.two\nq\n")
        p.stdin.close()
        p.wait(timeout=WAIT_S)
        reader.join(WAIT_S)
    finally:
        p.kill()
    out = "".join(lines)
    assert p.returncode == 0
    assert "ok status:" in out
    assert "! reader two-tags" in out


def test_two_pulled_while_the_last_card_is_read_are_the_two_under_it(tmp_path):
    """'.two' while the card just dealt is being read (the deck moves only when the table
    has taken it): the two cards pulled together are the two under it, both new to the
    reader. They were that card again and one new one, so no two-tags (a CI run where the
    dealer by himself dealt a card just before the test's '.two')."""
    t = L.LiveTable(str(tmp_path / "flash"), seats=2, speed=4.0, seed=2, auto_deal=False)
    t.start()
    try:
        wait_for(lambda: (t.prompt or "").startswith("Cut"), "the first prompt")
        field, reads = [], []

        def when_read():
            pn = t.world.pn532
            if pn.commands.get(0x40, 0) > reads[0]:       # InDataExchange: the READ is out
                under = [c.tag for c in t.deck.shoe[1:3]]
                t._anomaly("two")
                field.extend([list(pn.field), under])
            else:
                t._at(t._now() + 1, when_read)

        def deal():
            reads.append(t.world.pn532.commands.get(0x40, 0))
            t._deal(None)
            t._at(t._now(), when_read)
        t.do(deal)
        wait_for(lambda: field, "the dealt card's READ")
        in_field, under = field
        assert t.last_tag not in in_field and in_field == under
        wait_for(lambda: any(ln.startswith("! reader two-tags") for ln in t.log_since(0)[0]),
                 "the '! reader two-tags' line")
    finally:
        t.close()


def test_casino_keys_type_a_bet_and_repeat_the_round(tmp_path):
    """casino: digits + Enter place the bet of the seat whose stake is due; Space repeats
    the last round's stakes (only between rounds); Esc leaves the table ('new')."""
    from liveterm import Keys
    t = L.LiveTable(str(tmp_path / "flash"), seats=2, preset="casino", speed=4.0, seed=2,
                    auto_deal=False)
    t.start()
    try:
        wait_for(lambda: (t.prompt or "") == "Seat 1 to bet", "the first bet prompt")
        k = Keys(t)
        k.feed(" ")
        t.sync()
        assert t.note == "no earlier round to repeat: type the bets"
        for ch in "3\r":
            k.feed(ch)
        wait_for(lambda: "Seat 2 to" in t.prompt, "seat 1's bet")
        for ch in "14\x7f\r":                # 14, backspace: 1
            k.feed(ch)
        wait_for(lambda: t.prompt.startswith("Deal"), "seat 2's bet")
        log = t.log_since(0)[0]
        assert "< stake 1 3" in log and "< stake 2 1" in log
        assert any(re.match(r"^ok #1 stake 1 3$", ln) for ln in log), log[-6:]
        assert any(re.match(r"^ok #2 stake 2 1$", ln) for ln in log), log[-6:]
        k.feed(" ")                           # mid-round: no stakes sent
        t.sync()
        assert t.note == "same bets: between rounds"
        assert t._last_stakes() == [(1, 3), (2, 1)]
        seq = t.log_seq
        k.feed("\x1b")
        t.sync()
        wait_for(lambda: any(ln.startswith("error:") or ln.startswith("ok new")
                             for ln in t.log_since(seq)[0]), "the answer to 'new'")
        assert t.log_since(seq)[0][0] == "< new"
    finally:
        t.close()


def test_piped_lines_are_taken_as_they_come(tmp_path):
    """Two lines in one write, then nothing: the second is acted on without waiting for
    more input (a buffered readline() behind select() kept it until the next line)."""
    p = subprocess.Popen([sys.executable, "tools/sim.py", "--interactive", "--seats", "2",
                          "--speed", "4", "--out", str(tmp_path)], cwd=ROOT,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    import threading
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(p.stdout.readline, "")),
                              daemon=True)
    reader.start()
    try:
        # the reader is up once the boot's last line is out: tags that lie in the field
        # before it starts are taken for cards left on it, not dealt
        wait_for(lambda: any(x.startswith("# heap in use after boot") for x in list(lines)),
                 "the end of the boot")
        p.stdin.write("status\n.two\n")
        p.stdin.flush()
        wait_for(lambda: any("! reader two-tags" in x for x in list(lines)), "two-tags")
        p.stdin.write("q\n")
        p.stdin.close()
        p.wait(timeout=WAIT_S)
    finally:
        p.kill()
    assert p.returncode == 0
