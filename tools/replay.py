#!/usr/bin/env python3
"""Replay a table transcript and print the JSON document of TRANSCRIPT.md.

    python3 tools/replay.py FILE        (also: micropython tools/replay.py FILE)

Exit 0 when the file was read (rejected events are listed in the JSON); exit 2 with a
one-line message on stderr when the file cannot be read or a line cannot be parsed.
"""
import sys

_here = sys.argv[0].rsplit("/", 1)[0] if "/" in sys.argv[0] else "."
_root = _here + "/.."
for _p in (_root + "/firmware", _root):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import report  # noqa: E402
from transcript import Header, ParseError, event_text, parse_event, strip  # noqa: E402


def replay_lines(lines):
    """lines -> (engine, rejected, deals); raises ParseError('line N: ...')."""
    header = Header()
    engine = None
    rejected = []
    deals = []
    number = 0
    for line in lines:
        number += 1
        words = strip(line)
        if not words:
            continue
        try:
            if engine is None:
                if header.take(words):
                    continue
                engine = header.engine()
            ev = parse_event(words)
        except ParseError as e:
            raise ParseError("line %d: %s" % (number, e))
        ended = engine.deals_ended
        error = engine.apply(ev[0], ev[1], ev[2], ev[3])
        if error is not None:
            rejected.append((number, " ".join(words), error))
        elif engine.deals_ended != ended:
            deals.append(report.deal_json(engine, True))
    if engine is None:
        try:
            engine = header.engine()
        except ParseError as e:
            raise ParseError("line %d: %s" % (number, e))
    if engine.in_deal():
        deals.append(report.deal_json(engine, False))
    return engine, rejected, deals


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: replay.py TRANSCRIPT\n")
        return 2
    path = argv[1]
    try:
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("utf-8")
    except OSError as e:
        sys.stderr.write("replay: cannot read %s: %s\n" % (path, e))
        return 2
    except UnicodeError:
        sys.stderr.write("replay: %s is not UTF-8 text\n" % path)
        return 2
    try:
        engine, rejected, deals = replay_lines(text.split("\n"))
    except ParseError as e:
        sys.stderr.write("replay: %s: %s\n" % (path, e))
        return 2
    sys.stdout.write(report.document(engine, rejected, deals))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
