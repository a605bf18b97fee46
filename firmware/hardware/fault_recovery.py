# The field faults' recovery paths (faults.py): run only at a fault, so imported then and
# let go after (faults are rare; the code's function objects and globals would be heap for
# the whole night otherwise).
#   clear_bus(f)            SDA held low: the bus cleared, each channel that was on tried
#                           again, a segment that keeps holding it switched off for good
#   restart_reader(reader)  the PN532 reset through RSTPDN and set up as at boot
from micropython import const

from . import drvtime

_BUS = const(2)              # the bus fault's bit of Faults.active (faults.py has the others)
_HOLDS = const(3)            # clears in a row, its channel tried again after each, that
#                              a segment holds the bus again at once: switched off
_SAMCONFIG = const(0x14)     # PN532 SAMConfiguration (docs/DEVICES.md)
_RESET_HOLD_US = const(1000)  # RSTPDN held low (the chip needs far less)
_BOOT_US = const(3000)       # RSTPDN high -> asked whether it answers, this often
_BOOT_TRIES = const(20)
_RFCONFIG = const(0x32)      # RFConfiguration
_HOSTTOPN532 = const(0xD4)
_PN532TOHOST = const(0xD5)
_LOOK_US = const(500)        # the IRQ pin looked at this often while a command runs
_WAIT_LOOKS = const(100)     # so many looks at most: the driver's own timeout
_IDLE = const(0)             # shoe_reader's step: a listing goes out next


def clear_bus(f):
    """SDA held low: nine clocks and a STOP. Each switch channel that was on is tried
    again at once (a display's status read through it): a segment that holds SDA again
    at once, _HOLDS times in a row, is switched off for good."""
    f.counts[1] += 1
    mux = f.mux
    on = mux.mask if mux is not None and mux.mask > 0 else 0
    f._report(_BUS, "bus stuck: cleared")
    free = f.bus.clear()
    if mux is not None:
        mux.mask = -1                # a transfer cut off: the switch is set again
        for ch in range(8):
            if on >> ch & 1 and not f.cut_off >> ch & 1:
                free = _try_channel(f, ch, free)
    f.active &= ~_BUS


def _try_channel(f, ch, free):
    """Channel ch was on when the bus stuck: its segment is used again at once and
    cleared again while it holds the bus; switched off when it keeps holding it (or
    SDA stayed low). True when the bus is free."""
    for _ in range(_HOLDS):
        if not free:
            break
        if not _probe(f, ch) or not f.bus.stuck():
            return True              # a glitch, not the segment's doing
        f.counts[1] += 1
        free = f.bus.clear()
        f.mux.mask = -1
    _cut_off(f, ch, free)
    return not f.bus.stuck()


def _probe(f, ch):
    """A status read of a display on channel ch (False: none to read)."""
    disp = f.t.screens.disp
    for i in range(len(f.slots)):
        if f.slots[i][0] == ch and disp is not None and i < disp.n and \
                disp._devs[i] is not None:
            disp.status(i)
            return True
    return False


def _cut_off(f, ch, free):
    """Channel ch's segment keeps holding the bus: it is switched off for good."""
    f.cut_off |= 1 << ch
    disp = f.t.screens.disp
    for i in range(len(f.slots)):
        if f.slots[i][0] == ch and disp is not None and i < disp.n:
            disp.disable(i)
            f._display(i, "holds the bus: switched off")
    if not free:
        f.bus.clear()                # let go now that its channel will not come back
    try:
        f.mux.select_mask(0)
    except OSError:
        pass


def restart_reader(reader):
    """The PN532 reset through RSTPDN (the driver's reset pin) and set up as at boot:
    SAMConfiguration, then the reader's RFConfiguration. Blocks a few ms (its waits are
    the IRQ pin's, not the driver's coarser looks). The listing starts again and lists the
    cards in the field again: one being read is read again, one reported stays reported
    (the reader's slots are kept). False without a reset pin, or when the chip still does
    not answer (then it is not reset again until it answers)."""
    link = reader.link
    pn = reader.pn
    pin = getattr(pn, "_reset_pin", None)
    link.command = 0
    reader._step = _IDLE
    reader._polled = -1              # blocked in the reset: not a gap in the watch
    if pin is None:
        return False
    pin.value = False
    drvtime.sleep(_RESET_HOLD_US / 1000000)
    pin.value = True
    for _ in range(_BOOT_TRIES):
        drvtime.sleep(_BOOT_US / 1000000)
        try:
            # SAMConfiguration: normal mode, the virtual-card timeout (0x14), the IRQ pin
            if _call(pn, reader.irq, _SAMCONFIG, b"\x01\x14\x01") and \
                    _call(pn, reader.irq, _RFCONFIG, reader._cfg):
                link.reset()             # answering again
                return True
        except (OSError, RuntimeError):
            pass
    return False


def _call(pn, irq, cmd, params):
    """One command to the PN532 through the driver's framing, its ACK (00 00 FF 00 FF 00)
    and its answer, each waited for on the IRQ pin: True when it answered it."""
    if irq is None:                  # no IRQ pin: the driver's own waits
        return pn.call_function(cmd, params=params, timeout=0.05) is not None
    pn._write_frame(bytes((_HOSTTOPN532, cmd)) + params)
    acked = False
    for _ in range(2 * _WAIT_LOOKS):
        if irq.value() == 0:
            if acked:
                r = pn._read_frame(2)
                return r[0] == _PN532TOHOST and r[1] == cmd + 1
            if pn._read_data(6) != b"\x00\x00\xff\x00\xff\x00":
                return False
            acked = True
        else:
            drvtime.sleep(_LOOK_US / 1000000)
    return False
