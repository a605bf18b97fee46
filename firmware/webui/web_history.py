# The kept sessions on a Pico W's pages (web.py): /history lists them, /api/history/NNNN
# is the numbers a session's standings and settle-up page draws on the phone
# (web_pages.HISTORY). They are made once, as the session is kept (make(): the session's
# keeping steps, ledger/session.py) or at the next boot for one kept without them
# (make_missing()), into history/NNNN.s1.json beside the history file; an answer then
# streams that file. To make them the history file is replayed line by line through a
# fresh engine, as the shoe resumes a session, and the JSON goes out a deal at a time as
# the deals end: neither the file nor the answer is ever whole in the heap, and no chart
# is drawn here. Made once: a replay for every answer took heap and time from a Pico W that
# deals meanwhile (docs/DEVELOPING.md, the Pico W's heap).
#
#   {"deals": [[banker, void, balance of seat `first`, ... of seat `seats`], ...],
#    "rules": "table", "seats": 4, "first": 1, "balances": [...], "kitty": 0,
#    "finished": true, "winners": [2], "error": ""}
#
# A line the engine refuses is skipped (replay.py lists it; a journal holds none); a line
# that cannot be parsed ends the deals with the reason in "error".
import os

from micropython import const

from game.transcript import Header, ParseError, read_events

_LINES_A_SLICE = const(8)      # lines replayed per slice of the connection's task
_CHUNK = const(512)            # bytes of a made file sent a slice
# the made standings' file ends: the number moves when the answer's form changes, so that
# a file of an older form is made again (make_missing removes it)
MADE = ".s1.json"
_MAKING = ".tmp"               # until it is whole (a power cut leaves it: removed at boot)
BOOT_MOST = 8                  # made at one boot, at most (each a replay of the session)


def is_number(name):
    """NNNN: a history file's number (four digits)."""
    if len(name) != 4:
        return False
    for ch in name:
        if ch < "0" or ch > "9":
            return False
    return True


def names(folder):
    """The kept sessions' numbers, newest first."""
    out = []
    try:
        for name in os.listdir(folder):
            if len(name) == 8 and name.endswith(".txt") and is_number(name[:4]):
                out.append(name[:4])
    except OSError:
        pass
    out.sort(reverse=True)
    return out


def standings(path):
    """The JSON of history file `path` (NNNN.txt) as a generator of bytes, one piece a
    slice: its made file's, else replayed (a deal's row when a deal ends, b"" every
    _LINES_A_SLICE lines meanwhile). Raises OSError now when the history file cannot be
    opened (before any byte is sent)."""
    os.stat(path)                  # (no session: no answer, made file or not)
    try:
        made = open(path[:-4] + MADE, "rb")
    except OSError:
        return _pieces(open(path, "rb"))
    return _chunks(made)


def _chunks(f):
    try:
        while True:
            piece = f.read(_CHUNK)
            if not piece:
                break
            yield piece
    finally:
        f.close()


def make(path):
    """Make the standings of history file `path` (NNNN.txt) into NNNN.s1.json, a piece a
    step: a generator, each next() replays a deal or _LINES_A_SLICE lines and writes what
    they made. Written to NNNN.tmp and renamed at the end: a cut leaves no half file."""
    base = path[:-4]
    pieces = _pieces(open(path, "rb"))
    try:
        out = open(base + _MAKING, "wb")
        try:
            for piece in pieces:
                if piece:
                    out.write(piece)
                yield
        finally:
            out.close()
        os.rename(base + _MAKING, base + MADE)
    finally:
        pieces.close()


def make_missing(folder, most=BOOT_MOST):
    """At boot: the standings of the kept sessions without them (kept with another
    firmware, copied on, or cut short) made, the newest first and at most `most` (a boot's
    time stays bounded after a firmware change; the rest at the next boots, replayed for
    an answer meanwhile); a half-made file or one of another form removed. The numbers
    made."""
    done = []
    try:
        files = os.listdir(folder)
    except OSError:
        return done
    files.sort(reverse=True)
    for name in files:
        if (name.endswith(".json") and not name.endswith(MADE)) or name.endswith(_MAKING):
            os.remove(folder + "/" + name)
    for name in files:
        if len(done) >= most:
            break
        if len(name) == 8 and name.endswith(".txt") and is_number(name[:4]):
            if name[:4] + MADE not in files:
                for _ in make(folder + "/" + name):
                    pass
                done.append(name[:4])
    return done


def _balances(e, first):
    """ ", b, b, ...]": the balances of seats `first` to the last, closing a list."""
    out = ""
    for s in range(first, e.seats + 1):
        out += ", %d" % e.balance(s)
    return out + "]"


def _pieces(f):
    header = Header()
    e = None
    error = ""
    rows = 0
    try:
        yield b'{"deals": ['
        try:
            n = 0
            for _, _, _, ev in read_events(f, header):
                if e is None:
                    e = header.engine()
                ended = e.deals_ended
                if e.apply(ev[0], ev[1], ev[2], ev[3]) is None and e.deals_ended != ended:
                    yield ("%s[%d, %d%s" % (",\n" if rows else "\n", e.hand_seat(0),
                                              1 if e.last_void else 0,
                                              _balances(e, 0 if e.casino else 1))).encode()
                    rows += 1
                    n = 0
                else:
                    n += 1
                    if n >= _LINES_A_SLICE:
                        n = 0
                        yield b""
            if e is None:
                e = header.engine()
        except ParseError as x:
            error = str(x)
        yield b"\n]"
        if e is not None:
            first = 0 if e.casino else 1
            yield ((', "rules": "%s", "seats": %d, "first": %d, "balances": '
                    % (e.rules.name, e.seats, first)) + "[" + _balances(e, first)[2:]
                   + (', "kitty": %d, "finished": %s, "winners": [%s]' % (
                       e.kitty, "true" if e.finished() else "false", _winners(e)))).encode()
        yield (', "error": "%s"}' % error.replace('"', "'").replace("\\", "/")).encode()
    finally:
        f.close()


def _winners(e):
    if not e.finished():
        return ""
    best = None
    for s in range(1, e.seats + 1):
        if best is None or e.balance(s) > best:
            best = e.balance(s)
    out = ""
    for s in range(1, e.seats + 1):
        if e.balance(s) == best:
            out += ("%d" if not out else ", %d") % s
    return out
