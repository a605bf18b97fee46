#!/usr/bin/env python3
# Help text as a constant: MicroPython keeps no module docstrings.
HELP = """usage: replay.py [-h] [--seal DIGITS] TRANSCRIPT

Replay a table transcript and print the JSON document of docs/TRANSCRIPT.md.

    python3 tools/replay.py FILE        (also: micropython tools/replay.py FILE)
    python3 tools/replay.py --seal 3F9A21C7 FILE

--seal DIGITS: only say (one line) whether FILE is the history file the shoe sealed
with these 8 hex digits (its display and serial line said "seal 3F9A 21C7" at the
session's end: the first digits of the SHA-256 of the file's bytes); exit 0 when it is,
1 when it is not.

Exit 0 when the file was read (rejected events are listed in the JSON); exit 2 with a
one-line message on stderr when the file cannot be read or a line cannot be parsed.
The file is read twice (rejected events first, then the deals as they end), so the
replayer needs memory for neither the whole file nor the whole document: it runs in a
Pico-sized heap.
"""
import sys

try:
    from game import engine  # noqa: F401  (already on the path, e.g. .mpy files via MICROPYPATH)
except ImportError:
    _here = sys.argv[0].rsplit("/", 1)[0] if "/" in sys.argv[0] else "."
    sys.path.insert(0, _here + "/../firmware")

import report  # noqa: E402
from game.transcript import Header, ParseError, read_events  # noqa: E402


def replay_lines(lines, on_reject=None, on_deal=None):
    """Feed transcript lines to a new engine; returns it. Raises ParseError('line N: ...').

    on_reject(line_number, text, error) for each rejected event;
    on_deal(engine) each time a deal ends (settled or void).
    """
    header = Header()
    engine = None
    number = 0
    for number, _, words, ev in read_events(lines, header):
        if engine is None:
            engine = _engine(header, number)
        ended = engine.deals_ended
        error = engine.apply(ev[0], ev[1], ev[2], ev[3])
        if error is not None:
            if on_reject:
                on_reject(number, " ".join(words), error)
        elif engine.deals_ended != ended and on_deal:
            on_deal(engine)
    return engine or _engine(header, number)


def _engine(header, number):
    try:
        return header.engine()
    except ParseError as e:
        raise ParseError(e.reason, number)


def _replay_file(path, on_reject=None, on_deal=None):
    with open(path, "rb") as f:
        return replay_lines(f, on_reject, on_deal)


def check_seal(args, out):
    """replay.py --seal DIGITS FILE: 0 when FILE's seal is DIGITS, 1 when not."""
    from ledger import seal
    if len(args) != 2:
        sys.stderr.write("replay: error: --seal takes the seal's digits and one file "
                         "(see replay.py --help)\n")
        return 2
    want = args[0].replace(" ", "").upper()
    if len(want) != seal.DIGITS or any(c not in "0123456789ABCDEF" for c in want):
        sys.stderr.write("replay: error: a seal is %d hex digits (3F9A21C7), not %s\n"
                         % (seal.DIGITS, args[0]))
        return 2
    path = args[1]
    try:
        with open(path, "rb") as f:
            got = seal.of_lines(f)
    except OSError as e:
        sys.stderr.write("replay: error: cannot read %s: %s\n" % (path, e.strerror or e))
        return 2
    want = want[:4] + " " + want[4:]
    if got == want:
        out.write("%s: sealed: seal %s, the file the shoe sealed\n" % (path, got))
        return 0
    out.write("%s: NOT the sealed file: its seal is %s, not %s\n" % (path, got, want))
    return 1


def main(argv, out=None):
    out = out or sys.stdout
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        out.write(HELP)
        return 0
    if args and args[0] == "--seal":
        return check_seal(args[1:], out)
    if len(args) != 1:
        sys.stderr.write("replay: error: give one transcript file, not %d arguments "
                         "(see replay.py --help)\n" % len(args))
        return 2
    path = args[0]
    if path.startswith("-") and path != "-":
        sys.stderr.write("replay: error: unknown option %s (see replay.py --help)\n" % path)
        return 2
    rejected = []
    try:
        engine = _replay_file(path, lambda n, t, e: rejected.append((n, t, e)))
    except OSError as e:
        sys.stderr.write("replay: error: cannot read %s: %s\n" % (path, e.strerror or e))
        return 2
    except ParseError as e:
        sys.stderr.write("replay: error: %s: %s\n" % (path, e))
        return 2
    report.write_head(out, engine, rejected)
    rejected = None
    first = [True]

    def deal(eng):
        report.write_deal(out, eng, True, first[0])
        first[0] = False

    engine = _replay_file(path, None, deal)
    if engine.in_deal():
        report.write_deal(out, engine, False, first[0])
        first[0] = False
    report.write_tail(out, engine, first[0])
    return 0


if __name__ == "__main__":
    try:
        status = main(sys.argv)
        sys.stdout.flush()
    except OSError as e:            # `replay.py FILE | head`: the reader has gone (EPIPE)
        if not e.args or e.args[0] != 32:
            raise
        try:                        # (CPython would complain again when it flushes at exit)
            import os
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        except (ImportError, AttributeError, OSError):
            pass
        status = 1
    sys.exit(status)
