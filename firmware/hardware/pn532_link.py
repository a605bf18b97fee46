# The PN532 link: one command in flight at a time, over I2C with the IRQ pin, never waiting
# for an answer. Used by the shoe reader and the tag mode, each with its own Link.
#
#   lk.send(cmd, params, n)   the command frame and its ACK; n = the answer's data bytes.
#                             The shoe reader's frame is built in rx (no frame made
#                             anew, the ACK awaited on the IRQ pin); the tag mode's by
#                             the driver
#   lk.waiting()              -1 once the answer is ready (IRQ low, or the status byte
#                             without an IRQ pin), else the ms since the command went out
#   lk.receive()              the answer into lk.rx, no allocation (the shoe reader)
#   lk.response()             the answer as the driver reads it (the tag mode)
#   lk.failed()               a round trip failed; True once when failures in a row make
#                             the chip silent (the caller reports it in its own words)
# Command codes and parameter bytes are docs/DEVICES.md's; they live only here.
import sys

from . import drvtime

from micropython import const


INLIST = const(0x4A)       # InListPassiveTarget
INDATA = const(0x40)       # InDataExchange
INRELEASE = const(0x52)    # InRelease
RFCONFIG = const(0x32)     # RFConfiguration
_NTAG_READ = const(0x30)   # through InDataExchange: four pages from a page on
_NTAG_WRITE = const(0xA2)  # through InDataExchange: one page
_CFG_RETRIES = const(0x05)  # RFConfiguration item: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation
_PN532TOHOST = const(0xD5)
_HOSTTOPN532 = const(0xD4)
_ACK_MS = const(10)        # a command's ACK comes within this (the driver's timeout)
_NACK_FRAME = b"\x00\x00\xff\xff\x00\x00"   # host -> PN532: send that answer again


TARGET = const(12)         # a listed target in list_targets' out: Tg, UID length, UID (10)

if sys.implementation.name != "micropython":  # CPython: the viper functions run as Python
    from game.native_shim import micropython, ptr8  # noqa: F401


@micropython.viper
def list_targets(r: ptr8, o: int, end: int, out: ptr8, room: int, uid_len: int) -> int:
    """The InListPassiveTarget answer r[o:end] after its response code (NbTg, then a target:
    Tg, SENS_RES (2), SEL_RES, UID length, UID), its targets into out, TARGET bytes each, as
    many as `room`: those whole and with a UID of uid_len bytes (0: any up to 10). Returns
    how many; fewer than NbTg (r[o]) when some were not taken."""
    nb = r[o] if end > o else 0
    o += 1
    n = 0
    for _ in range(nb):
        if o + 5 > end:
            break
        ln = r[o + 4]
        if (ln == uid_len or (uid_len == 0 and ln <= 10)) and o + 5 + ln <= end and n < room:
            k = n * TARGET
            out[k] = r[o]
            out[k + 1] = ln
            for i in range(ln):
                out[k + 2 + i] = r[o + 5 + i]
            n += 1
        o += 5 + ln
    return n


def uid_hex(uid, n=7):
    """A tag's UID as the UID map file and the serial lines write it."""
    return "".join("%02X" % uid[i] for i in range(n))


def retries_params(passive_retries):
    """RFConfiguration parameters: passive activation attempts (0xFF: until a tag answers)."""
    return bytes((_CFG_RETRIES, 0xFF, 0x01, passive_retries))


def list_params(max_targets):
    """InListPassiveTarget parameters: MaxTg, 106 kbps type A."""
    return bytes((max_targets, 0x00))


RELEASE_ALL = b"\x00"      # InRelease parameter: every target


def read_params():
    """InDataExchange READ parameters, filled per page: Tg, READ, page."""
    return bytearray((0, _NTAG_READ, 0))


def write_params():
    """InDataExchange WRITE parameters, filled per page: Tg, WRITE, page, its 4-byte data."""
    return bytearray((0, _NTAG_WRITE, 0, 0, 0, 0, 0))


class Link:
    def __init__(self, pn532, irq=None, i2c=None, address=0x24, rx=0, silent_after=20):
        self.pn = pn532
        self.irq = irq                        # PN532 IRQ pin (active low), machine.Pin-like
        self._device = None                      # for status reads and receive()
        if i2c is not None:
            from adafruit_bus_device.i2c_device import I2CDevice
            self._device = I2CDevice(i2c, address, probe=False)
        self.silent_after = silent_after
        self._status = bytearray(1)
        self.rx = bytearray(rx) if rx else None
        self.command = 0                      # the command in flight (0: none)
        self._frame_len = 0
        self.full = 0                         # a longer frame was asked again: its length
        self._sent_ms = 0
        self._failures = 0                       # failed round trips in a row
        self.silent = False

    def reset(self):
        """Forget the command in flight and the failures (a new run of the tag mode)."""
        self.command = 0
        self._failures = 0
        self.silent = False

    def send(self, cmd, params, n):
        """Send a command and read its ACK; n = data bytes expected after the response code.
        False when the chip did not take it."""
        self.command = cmd
        self._frame_len = 10 + n                    # status, 5 header, 0xD5 code, n, DCS 00
        self._sent_ms = drvtime.ticks_ms()
        f = self.rx
        if f is None:
            try:
                return self.pn.send_command(cmd, params, timeout=0.01)
            except (OSError, RuntimeError):
                return False
        # the frame in rx (the last answer was taken): 00 00 FF LEN LCS D4 cmd params DCS 00
        k = len(params)
        f[0] = 0
        f[1] = 0
        f[2] = 0xFF
        f[3] = k + 2
        f[4] = -(k + 2) & 0xFF
        f[5] = _HOSTTOPN532
        f[6] = cmd
        c = _HOSTTOPN532 + cmd
        for i in range(k):
            b = params[i]
            f[7 + i] = b
            c += b
        f[7 + k] = -c & 0xFF
        f[8 + k] = 0
        try:
            with self._device as d:
                d.write(f, end=9 + k)
            if not self._acked():
                return False
            with self._device as d:
                d.readinto(f, end=7)                # status, then the ACK frame
        except OSError:
            return False
        return f[0] == 1 and f[1] == 0 and f[2] == 0 and f[3] == 0xFF and f[4] == 0 and \
            f[5] == 0xFF and f[6] == 0

    def _acked(self):
        """The ACK of the command just written is ready (within _ACK_MS)."""
        if self.irq is not None:
            self.wait(_ACK_MS / 1000)
            return self.ready()
        end = drvtime.ticks_add(drvtime.ticks_ms(), _ACK_MS)
        while not self.ready():                     # (NACKed while the chip takes it)
            if drvtime.ticks_diff(end, drvtime.ticks_ms()) < 0:
                return False
        return True

    def configure(self, params):
        """RFConfiguration as one blocking call (its driver's timeout): True if accepted."""
        try:
            return self.pn.call_function(RFCONFIG, params=params, timeout=0.05) is not None
        except (OSError, RuntimeError):
            return False

    def ready(self):
        if self.irq is not None:
            return self.irq.value() == 0
        try:
            with self._device as d:
                d.readinto(self._status)
        except OSError:
            return False
        return self._status[0] == 0x01

    def waiting(self):
        """-1 when the answer is ready, else the ms since the command went out."""
        if self.ready():
            return -1
        return drvtime.ticks_diff(drvtime.ticks_ms(), self._sent_ms)

    def answers(self):
        """The PN532 acknowledges its address (a status read, which aborts nothing)."""
        try:
            with self._device as d:
                d.readinto(self._status)
        except OSError:
            return False
        return True

    def failed(self):
        self._failures += 1
        if self._failures >= self.silent_after and not self.silent:
            self.silent = True
            return True
        return False

    def receive(self):
        """Read the ready answer into self.rx, exactly as long as expected (status byte,
        00 00 FF LEN LCS 0xD5 code, data, DCS 00: fewer bus bytes than the driver's
        fixed-size read, and no allocation). A longer frame (two targets listed) is asked
        for again with a NACK frame (DEVICES.md) and read whole on the next call.
        Returns the number of data bytes after the response code (at rx[8]), -1 for a
        garbled or wrong frame, -2 when the frame comes again (the wait starts again)."""
        rx = self.rx
        m = self.full or self._frame_len
        self.full = 0
        try:
            with self._device as d:
                d.readinto(rx, end=m)
        except OSError:
            return -1
        ln = rx[4]
        if rx[0] != 1 or rx[1] or rx[2] or rx[3] != 0xFF or (ln + rx[5]) & 0xFF or ln < 2:
            return -1
        if 8 + ln > m:
            if 8 + ln > len(rx):
                return -1
            self.full = 8 + ln
            try:
                with self._device as d:
                    d.write(_NACK_FRAME)
            except OSError:
                return -1
            self._sent_ms = drvtime.ticks_ms()
            return -2
        c = 0
        for i in range(6, 7 + ln):
            c += rx[i]
        if c & 0xFF or rx[7 + ln] or rx[6] != _PN532TOHOST or rx[7] != self.command + 1:
            return -1
        self._failures = 0
        self.silent = False
        return ln - 2

    def response(self):
        """The ready answer's data after the response code, read by the driver (it
        allocates), or None."""
        try:
            r = self.pn.process_response(self.command, response_length=self._frame_len - 10,
                                         timeout=0.01)
        except (OSError, RuntimeError):
            r = None
        if r is not None:
            self._failures = 0
            self.silent = False
        return r

    def wait(self, seconds, listing=False):
        """Sleep up to `seconds`, waking as soon as the PN532 has a frame ready (its IRQ
        pin), so a response is read the moment it is there. A simulated IRQ pin offers
        wait_low(us); a real one is polled, often while an answer is due; while the chip
        only lists (a tag entering is awaited) the CPU sleeps between looks instead
        (drvtime.idle: no pin may take an interrupt to wake it, see boards/pico.py)."""
        irq = self.irq
        if irq is None:
            drvtime.sleep(seconds)
            return
        w = getattr(irq, "wait_low", None)
        if w is not None:
            w(int(seconds * 1000000))
            return
        end = drvtime.ticks_add(drvtime.ticks_ms(), int(seconds * 1000))
        while irq.value() and drvtime.ticks_diff(end, drvtime.ticks_ms()) > 0:
            if listing:
                drvtime.idle()
            else:
                drvtime.sleep(0.0001)
