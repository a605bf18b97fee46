#!/usr/bin/env python3
"""Write, enroll or check the deck's NFC tags from a computer, through the shoe.

    tools/tags.py write  [--from CARD] [--count N] [--packs P] [--port PORT]
    tools/tags.py enroll [--from CARD] [--count N] [--packs P] [--port PORT]
    tools/tags.py check  [--count N] [--packs P] [--port PORT]
    tools/tags.py write --command "CMD"       # talk to a process instead (the simulator)

The shoe must be running its controller (main.py), which passes serial lines starting
"tags " to firmware/tagging/tagmode.py. This tool sends one line and prints the shoe's answers until
the run ends; Ctrl-C sends "tags stop" (the shoe prints its summary) and exits.

Protocol (lines, "\\n"-terminated; full details in firmware/tagging/tagmode.py):
  host -> shoe:  tags write [CARD [COUNT]] [packs P] | tags enroll [CARD [COUNT]] [packs P]
                 | tags check [COUNT] [packs P] | tags stop
  shoe -> host:  "tags: KIND FIELDS..." with KIND one of start place ok same refused failed
                 card duplicate again unknown missing summary done stopped error idle;
                 "tags: done MODE" or "tags: stopped MODE" is the last line of a run.
Other lines from the shoe (the controller's own output) are shown with --verbose only.

Deck order: AS 2S .. KS, AH .. KH, AD .. KD, AC .. KC (a ten is "TS", as on the displays;
"10S" is taken too).
Two packs (a table of 8, C1 and C4; `casino` has 8): every card of each pack gets the same
record (the shoe tells the copies apart by their UIDs). `write --packs 2` goes through the
deck order twice (places 1..104) and refuses a tag already done in the run (a first pack's
card among the second's); `check --packs 2` wants every card on two different tags. The
shoe's table sets the packs when --packs is not given (its `packs` setting or C1).
Exit status: 0 the run finished (check: every card once, nothing unknown); 1 it was stopped
or the check found problems; 2 the shoe answered "tags: error" or the line closed.

Try it without hardware (the simulated board, 52 blank tags, then a check of them):
    .venv/bin/python tools/tags.py write --command \\
        ".venv/bin/python host_tests/mp/tags_device.py $(echo blank:{0..51})"
"""
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli  # noqa: E402

END_KINDS = ("done", "stopped")


class SerialLine:
    """The shoe's USB serial port (pyserial comes with mpremote)."""

    def __init__(self, port, baud=115200):
        import serial
        self.s = serial.serial_for_url(port, baud, timeout=0.5)   # socket:// too

    def write_line(self, text):
        self.s.write((text + "\n").encode())
        self.s.flush()

    def read_line(self):
        """A line without its newline; "" when nothing came within the timeout."""
        return self.s.readline().decode(errors="replace").rstrip("\r\n")

    def close(self):
        self.s.close()


class ProcessLine:
    """A subprocess speaking the protocol on stdin/stdout (e.g. the simulated shoe)."""

    def __init__(self, command, cwd=None):
        args = shlex.split(command) if isinstance(command, str) else list(command)
        # its own session: Ctrl-C at the terminal reaches this tool, which stops the run
        # and reads the summary, not the shoe process
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1, cwd=cwd, start_new_session=True)

    def write_line(self, text):
        try:
            self.p.stdin.write(text + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, ValueError):    # ValueError: its stdin is closed already
            raise EOFError("the shoe process stopped reading its input (it exited)")

    def read_line(self):
        line = self.p.stdout.readline()
        if not line:
            raise EOFError("the shoe process closed its output")
        return line.rstrip("\r\n")

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait(timeout=60)


def request(mode, first=None, count=None, packs=None):
    words = ["tags", mode]
    if mode != "check" and first:
        words.append(first)
    if count:
        if mode != "check" and not first:
            words.append("AS")
        words.append(str(count))
    if packs:
        words += ["packs", str(packs)]
    return " ".join(words)


def run(line, mode, first=None, count=None, show=print, verbose=False, packs=None):
    """Send the request, show the answers; returns (exit status, list of "tags:" payloads)."""
    try:
        line.write_line(request(mode, first, count, packs))
    except EOFError as e:
        sys.stderr.write("tags.py: error: %s\n" % e)
        return 2, []
    got = []
    stopping = False
    while True:
        try:
            text = line.read_line()
            if not text.startswith("tags: "):
                if verbose and text:
                    show(text)
                continue
            payload = text[6:]
            got.append(payload)
            show(payload)
            kind = payload.split(" ", 1)[0]
            if kind == "error" and len(got) == 1:
                return 2, got                    # the request itself was refused
            if kind in END_KINDS:
                return status(got), got
        except KeyboardInterrupt:            # Ctrl-C (wherever it lands): the shoe's summary
            if stopping:
                raise
            stopping = True
            show("tags.py: stopping: the shoe sends its summary (Ctrl-C again to leave now)")
            line.write_line("tags stop")
        except EOFError as e:
            sys.stderr.write("tags.py: error: %s\n" % e)
            return 2, got


def status(payloads):
    last = payloads[-1].split()
    if last[0] != "done":
        return 1
    if last[1] == "check":
        for p in payloads:
            if p.startswith("summary check"):
                kv = dict(x.split("=") for x in p.split()[2:])
                bad = int(kv["duplicate"]) + int(kv["unknown"]) + int(kv["missing"])
                return 1 if bad else 0
    return 0


MODE_HELP = {
    "write": ("write each blank card's tag with its card",
              "Write an NDEF Text record (\"AH\", \"TS\", as phone apps write it) on each "
              "blank stickered card, in deck order from --from (AS 2S .. KS, AH .. KH, AD .. "
              "KD, AC .. KC). The banker's display names the card to place; every record is "
              "read back; a card already holding another card, other data or a read-only tag "
              "is refused and the same card is asked for again. With --packs 2 the deck order "
              "is gone through twice (104 cards, both packs' records alike) and a tag already "
              "done in the run is refused."),
    "enroll": ("record read-only tags' UIDs as cards (uidmap.txt)",
               "For tags that cannot be written: record each tag's UID as the next card in deck "
               "order in uidmap.txt on the shoe (then set uid_map = uidmap.txt in "
               "settings.txt). The tags are left unchanged."),
    "check": ("read a finished deck and report what is missing",
              "Read the cards one by one: each card seen, duplicates, unknown tags (blank, "
              "other data, a text/UID-map conflict), then a summary with the missing cards. "
              "Ends by itself after --count tags or when every card was seen (52 a pack: "
              "with --packs 2, every card on two different tags, 104 in all; a card on more "
              "is a duplicate); Ctrl-C stops it and still prints the summary."),
}


def _card(text):
    """argparse type: a card code in deck order, e.g. AH or TS (or 10S)."""
    import argparse
    firmware = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "firmware")
    if firmware not in sys.path:
        sys.path.insert(0, firmware)
    from game.cards import parse_card
    if parse_card(text.upper()) < 0:
        raise argparse.ArgumentTypeError("not a card: %r (e.g. AH, TS, QD)" % text)
    return text.upper()


def parse_args(argv=None):
    shared = cli.ArgumentParser(add_help=False)
    g = shared.add_mutually_exclusive_group()
    g.add_argument("--port", help="the shoe's serial port, e.g. /dev/ttyACM0 (default: the "
                   "first USB serial device)")
    g.add_argument("--command", help="run this command and talk to it instead of a port "
                   "(the simulated shoe: host_tests/mp/tags_device.py)")
    shared.add_argument("--verbose", action="store_true",
                        help="also show the shoe's other lines")
    ap = cli.ArgumentParser(prog="tags.py", description=__doc__.split("\n")[0],
                            epilog="`tags.py MODE --help` says what each mode does.")
    sub = ap.add_subparsers(dest="mode", metavar="MODE", required=True,
                            parser_class=cli.ArgumentParser)
    for mode in ("write", "enroll", "check"):
        short, long_text = MODE_HELP[mode]
        sp = sub.add_parser(mode, parents=[shared], help=short, description=long_text,
                            prog="tags.py " + mode)
        if mode != "check":
            sp.add_argument("--from", dest="first", type=_card,
                            help="first card in deck order, e.g. AH (default AS)")
        sp.add_argument("--count", type=cli.count,
                        help="tags to read (default: until every card was seen)"
                        if mode == "check" else
                        "cards to do (default: from --from to the end of the last pack)")
        sp.add_argument("--packs", type=_packs,
                        help="packs in the deck, 1 to 8 (default: the shoe's table's: two "
                        "from 8 participants, C1)")
    a = ap.parse_args(argv)
    a.first = getattr(a, "first", None)
    if a.mode != "check" and a.count:
        left = 52 * (a.packs or 1) - _deck_place(a.first or "AS")
        if a.count > left:
            ap.error("--count %d: from %s to the end of the deck there are %d cards "
                     "(the shoe stops there; --packs for more than one pack)"
                     % (a.count, a.first or "AS", left))
    return a


def _packs(text):
    """argparse type: packs in the deck, 1 to 8 (C1)."""
    import argparse
    if text not in ("1", "2", "3", "4", "5", "6", "7", "8"):
        raise argparse.ArgumentTypeError("packs are 1 to 8, not %r" % text)
    return int(text)


def _deck_place(text):
    """0..51: where a card stands in the deck order tags write goes in (AS first)."""
    firmware = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "firmware")
    if firmware not in sys.path:
        sys.path.insert(0, firmware)
    from game.cards import parse_card
    from tagging import tagmode
    return tagmode.deck_place(parse_card(text))


def open_line(a):
    """The line to the shoe; a one-line error (exit 2) when it cannot be opened."""
    if a.command:
        try:
            return ProcessLine(a.command)
        except (OSError, ValueError) as e:
            cli.fail("tags.py", "cannot run --command %r: %s" % (
                a.command, e.strerror if isinstance(e, OSError) and e.strerror else e))
    port = a.port
    if port is None:
        port = find_port()
    try:
        return SerialLine(port)
    except Exception as e:  # noqa: BLE001 - pyserial's SerialException, ValueError, OSError
        cli.fail("tags.py", "cannot open %s: %s" % (port, str(e).splitlines()[0] if str(e)
                                                      else type(e).__name__))


def main(argv=None):
    a = parse_args(argv)
    line = open_line(a)
    try:
        rc, _ = run(line, a.mode, a.first, a.count, verbose=a.verbose, packs=a.packs)
    except KeyboardInterrupt:            # a second Ctrl-C: leave without waiting
        sys.stderr.write("tags.py: interrupted before the shoe's summary\n")
        rc = 130
    finally:
        line.close()
    return rc


def find_port():
    """The first USB serial port, as `mpremote connect auto` picks it."""
    import serial.tools.list_ports
    for p in sorted(serial.tools.list_ports.comports()):
        if p.vid is not None and p.pid is not None:
            return p.device
    cli.fail("tags.py", "no USB serial device found: plug the shoe in, or give --port "
             "(or --command for the simulated shoe)")


if __name__ == "__main__":
    sys.exit(main())
