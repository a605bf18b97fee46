# The .mpy path's imports without littlefs lookups (main.py mounts it on the stock UF2 only;
# the shoe's own UF2 imports frozen modules, which never touch the filesystem).
# MicroPython finds a module on the filesystem by asking for NAME (a package?), NAME.py and
# NAME.mpy on each sys.path entry, then opens it. On littlefs each question walks the root
# directory's metadata on flash, several times an import before a byte of code is read
# (docs/DEVELOPING.md has the figures). An ImportIndex lists the files once and is
# mounted beside them: the questions are answered from that listing, and open() opens the
# real file (read by littlefs in C, as before).
import os

MOUNT = "/.imports"
# the folders listed all the way down: the drivers' and the firmware's packages (the data
# folders, history/ and the journal's, are never imported from)
DEEP = ("lib", "game", "ledger", "table", "hardware", "tagging", "webui")
_DIR = 0x4000
_FILE = 0x8000


def mount(path):
    """sys.path's filesystem entries ('' and, at the root, '/lib') seen through an
    ImportIndex at MOUNT from now on; nothing on a port without user filesystems."""
    try:
        import vfs
        vfs.mount(ImportIndex(), MOUNT)
    except (ImportError, OSError, AttributeError):
        return
    root = os.getcwd() == "/"
    for i in range(len(path)):
        if path[i] == "":
            path[i] = MOUNT
        elif path[i] == "/lib" and root:
            path[i] = MOUNT + "/lib"


def unmount():
    try:
        import vfs
        vfs.umount(MOUNT)
    except (ImportError, OSError):
        pass


class ImportIndex:
    """A read-only filesystem (MicroPython's user VFS protocol: stat and open) over the
    files of the current directory and of its folders named in `deep`, all the way down,
    as they were when it was made; for sys.path entries only."""

    def __init__(self, deep=DEEP):
        self.kinds = {}                  # "/name" or "/lib/pkg/name.mpy": _DIR or _FILE
        self._list("", deep)

    def _list(self, rel, deep):
        for entry in os.ilistdir(rel[1:]) if rel else os.ilistdir():
            name = entry[0]
            kind = _DIR if entry[1] == _DIR else _FILE
            path = rel + "/" + name
            self.kinds[path] = kind
            if kind == _DIR and (rel or name in deep):
                self._list(path, deep)

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def stat(self, path):
        kind = self.kinds.get(path)
        if kind is None:
            raise OSError(2)             # ENOENT: import goes on to the next name or entry
        return (kind, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    def open(self, path, mode):
        return open(path[1:], mode)
