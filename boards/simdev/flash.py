# A region of NOR flash (the W25Q16JV on the Pico) behind MicroPython's block protocol, as
# rp2.Flash(start=, len=) gives it (readblocks/writeblocks with a byte offset, ioctl):
# programming only clears bits (the new bytes are ANDed in), an erase sets a 4 KB sector to
# 0xFF, a program is whole 256-byte pages from a page boundary.
#
# Power cuts for the recovery tests: after `cut_after` more operations the flash stops. The
# operation it stops in is torn: a program leaves each bit it was to clear cleared or not
# (a seeded random choice), an erase is either done or not; then PowerCut is raised and
# every later operation raises it too, until power_on().
import random

SECTOR = 4096
PAGE = 256


class PowerCut(Exception):
    pass


class Flash:
    def __init__(self, size=96 * 1024, seed=0):
        self.data = bytearray(b"\xff" * size)
        self.cut_after = -1              # operations left before the power goes (-1: never)
        self.off = False
        self.rng = random.Random(seed)
        self.programs = 0
        self.erases = 0

    # ------------------------------------------------------------------ power
    def power_on(self):
        self.off = False
        self.cut_after = -1

    def _step(self):
        """True when this operation is the one the power goes in."""
        if self.off:
            raise PowerCut("the flash has no power")
        if self.cut_after < 0:
            return False
        if self.cut_after == 0:
            self.off = True
            return True
        self.cut_after -= 1
        return False

    # ------------------------------------------------------------------ block protocol
    def readblocks(self, block, buf, offset=0):
        if self.off:
            raise PowerCut("the flash has no power")
        a = block * SECTOR + offset
        if a < 0 or a + len(buf) > len(self.data):
            raise OSError(22)
        buf[:] = self.data[a:a + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        if offset is None:               # the plain protocol: erase, then program
            for k in range((len(buf) + SECTOR - 1) // SECTOR):
                self.ioctl(6, block + k)
            offset = 0
        a = block * SECTOR + offset
        n = len(buf)
        if a % PAGE or n % PAGE or a < 0 or a + n > len(self.data):
            raise OSError(22)            # flash_range_program: whole pages only
        torn = self._step()
        self.programs += 1
        data = self.data
        for i in range(n):
            b = buf[i]
            if torn:                     # each bit to clear cleared or not
                b |= self.rng.getrandbits(8) & ~b & 0xFF
            data[a + i] &= b
        if torn:
            raise PowerCut("power cut during a program at %d" % a)

    def ioctl(self, op, arg):
        if op == 4:
            return len(self.data) // SECTOR
        if op == 5:
            return SECTOR
        if op == 6:
            torn = self._step()
            if not torn or self.rng.random() < 0.5:
                a = arg * SECTOR
                self.data[a:a + SECTOR] = b"\xff" * SECTOR
                self.erases += 1
            if torn:
                raise PowerCut("power cut during an erase of sector %d" % arg)
            return 0
        return 0
