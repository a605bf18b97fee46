#!/usr/bin/env python3
"""Write, enroll or check the deck's NFC tags from a computer, through the shoe.

    tools/tags.py write  [--from CARD] [--count N] [--port PORT]
    tools/tags.py enroll [--from CARD] [--count N] [--port PORT]
    tools/tags.py check  [--count N] [--port PORT]
    tools/tags.py write --command "CMD"       # talk to a process instead (the simulator)

The shoe must be running its controller (main.py), which passes serial lines starting
"tags " to firmware/tagmode.py. This tool sends one line and prints the shoe's answers until
the run ends; Ctrl-C sends "tags stop" (the shoe prints its summary) and exits.

Protocol (lines, "\\n"-terminated; full details in firmware/tagmode.py):
  host -> shoe:  tags write [CARD [COUNT]] | tags enroll [CARD [COUNT]] | tags check [COUNT]
                 | tags stop
  shoe -> host:  "tags: KIND FIELDS..." with KIND one of start place ok same refused failed
                 card duplicate again unknown missing summary done stopped error idle;
                 "tags: done MODE" or "tags: stopped MODE" is the last line of a run.
Other lines from the shoe (the controller's own output) are shown with --verbose only.

Deck order: AS 2S .. KS, AH .. KH, AD .. KD, AC .. KC (tens are written "10S").
Exit status: 0 the run finished (check: every card once, nothing unknown); 1 it was stopped
or the check found problems; 2 the shoe answered "tags: error" or the line closed.

Try it without hardware (the simulated board, 52 blank tags, then a check of them):
    .venv/bin/python tools/tags.py write --command \\
        ".venv/bin/python host_tests/mp/tags_device.py $(echo blank:{0..51})"
"""
import argparse
import shlex
import subprocess
import sys

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
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1, cwd=cwd)

    def write_line(self, text):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

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


def request(mode, first=None, count=None):
    words = ["tags", mode]
    if mode != "check" and first:
        words.append(first)
    if count:
        if mode != "check" and not first:
            words.append("AS")
        words.append(str(count))
    return " ".join(words)


def run(line, mode, first=None, count=None, show=print, verbose=False):
    """Send the request, show the answers; returns (exit status, list of "tags:" payloads)."""
    line.write_line(request(mode, first, count))
    got = []
    stopping = False
    while True:
        try:
            text = line.read_line()
        except KeyboardInterrupt:
            if stopping:
                raise
            stopping = True
            line.write_line("tags stop")
            continue
        except EOFError as e:
            show("tags.py: %s" % e)
            return 2, got
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("write", "enroll", "check"))
    ap.add_argument("--from", dest="first", help="first card (deck order), e.g. AH")
    ap.add_argument("--count", type=int, help="cards to do (check: tags to read)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--port", help="the shoe's serial port, e.g. /dev/ttyACM0")
    g.add_argument("--command", help="run this command and talk to it instead of a port")
    ap.add_argument("--verbose", action="store_true", help="also show the shoe's other lines")
    a = ap.parse_args(argv)
    if a.command:
        line = ProcessLine(a.command)
    else:
        port = a.port
        if port is None:
            port = find_port()
        line = SerialLine(port)
    try:
        rc, _ = run(line, a.mode, a.first, a.count, verbose=a.verbose)
    finally:
        line.close()
    return rc


def find_port():
    """The first USB serial port, as `mpremote connect auto` picks it."""
    import serial.tools.list_ports
    for p in sorted(serial.tools.list_ports.comports()):
        if p.vid is not None and p.pid is not None:
            return p.device
    raise SystemExit("tags.py: no USB serial device found; give --port")


if __name__ == "__main__":
    sys.exit(main())
