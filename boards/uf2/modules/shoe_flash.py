# The flash layout of the shoe's own UF2 (mpconfigboard.h of each board here): the region
# MicroPython's rp2.Flash() covers begins JOURNAL_BYTES below where the stock firmware's
# does. Those first bytes are the raw region for the journal's tail and the snapshots
# (firmware/ledger/raw_journal.py), written a page at a time and never erased while a session is
# played; littlefs is mounted from JOURNAL_BYTES on, where the stock firmware keeps it, so
# the files of a Pico that ran the stock UF2 are all still there.
# The flash's block device is taken from _rp2, the port's C module: `import rp2` would also
# load the frozen rp2 package (the PIO assembler), which the shoe never uses, and keep its
# functions on the heap for as long as the board runs.
from micropython import const

JOURNAL_BYTES = const(96 * 1024)     # = the boards' MICROPY_HW_FLASH_STORAGE_BYTES extra


def journal_device():
    from _rp2 import Flash
    return Flash(start=0, len=JOURNAL_BYTES)


def mount():
    """littlefs at "/", made on first use (what the port's own _boot.py does, moved)."""
    from _rp2 import Flash
    import vfs
    bdev = Flash(start=JOURNAL_BYTES)
    try:
        fs = vfs.VfsLfs2(bdev, progsize=256)
    except OSError:
        vfs.VfsLfs2.mkfs(bdev, progsize=256)
        fs = vfs.VfsLfs2(bdev, progsize=256)
    vfs.mount(fs, "/")
