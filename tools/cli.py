"""What every command-line tool in tools/ shares: bad arguments give one line on stderr,
`PROG: error: WHAT (see PROG --help)`, and exit status 2; never a traceback, never a wait.

    from cli import ArgumentParser, count, seats_type
    ap = ArgumentParser(prog="sim.py", description=...)

argparse's own error() prints the usage block first; a user who mistyped one option reads
the one line that says what is wrong, and `--help` has the rest.
"""
import argparse
import os
import sys

_FIRMWARE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "firmware")


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, "%s: error: %s (see %s --help)\n"
                  % (self.prog, " ".join(message.split()), self.prog))


def fail(prog, message):
    """A one-line error for a problem found after parsing; exit status 2."""
    sys.stderr.write("%s: error: %s\n" % (prog, " ".join(str(message).split())))
    sys.exit(2)


def count(text):
    """argparse type: a whole number of at least 1 (a count of 0 would mean "nothing")."""
    t = str(text).strip()
    if not t.isdigit() or int(t) < 1:
        raise argparse.ArgumentTypeError("must be a whole number of at least 1, not %r" % text)
    return int(t)


def whole(text):
    """argparse type: a whole number of at least 0."""
    t = str(text).strip()
    if not t.isdigit():
        raise argparse.ArgumentTypeError("must be a whole number, not %r" % text)
    return int(t)


def check_seats(prog, preset, seats, banker=0):
    """Exit with a one-line error unless `seats` (and the first `banker`, 0 = the cut) are
    what the shoe can play for `preset`; the one range is rules.seat_range."""
    if _FIRMWARE not in sys.path:
        sys.path.insert(0, _FIRMWARE)
    import rules
    why = rules.seats_error(preset, seats, banker)
    if why:
        fail(prog, why)
