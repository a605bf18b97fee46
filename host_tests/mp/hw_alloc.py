# Allocation checks on the VM: the reader's own work allocates nothing (heap_lock), and
# numbers of what a poll allocates in total (driver + simulated models) are printed.
import gc
import micropython

from boards import sim
from boards.simdev import ntag213
from hardware.uid_map import UidMap

w = sim.build(n_displays=1)
r = sim.make_reader()
m = UidMap()
for i in range(52):
    m.add(ntag213.uid_for(i), i)
uid = ntag213.uid_for(17)
miss = ntag213.uid_for(99)

# (results go to preallocated slots: a new global would allocate a dict entry)
out = [0, 0, 0]


def locked(f, arg=None):
    micropython.heap_lock()
    try:
        out[0] = f() if arg is None else f(arg)
        out[1] = 1
    except MemoryError:
        out[1] = 0
    finally:
        micropython.heap_unlock()
    return out[0] if out[1] else "allocated"


print("lookup", locked(m.lookup, uid), locked(m.lookup, miss))

# TLV walk + text record search on a lock-TLV tag image
tag = ntag213.text_tag("10S", n=1, lock_tlv=True)
r._ndef[:] = tag.mem[16:16 + 64]
r._have = 64
from hardware import ndef  # noqa: E402


def walk():
    return ndef.find_message(r._ndef, 0, r._have, 64, r._msg)


def text():
    return ndef.find_text(r._ndef, r._msg[0], r._msg[1], r._txt)


print("walk", locked(walk), locked(text), bytes(r._ndef[r._txt[0]:r._txt[1]]).decode())

# a poll while the PN532 works on a command: IRQ check only
r.poll()                       # sends InListPassiveTarget
print("waiting_poll", locked(r.poll), locked(r.poll))

# total allocation per poll cycle with an empty field (driver + busio + models), and per
# card read (tag in, read, tag out)
gc.collect()
gc.disable()
before = gc.mem_alloc()
n0 = r.polls
for i in range(200):
    r.poll()
    w.clock.advance_us(1000)
print("alloc_per_empty_poll", (gc.mem_alloc() - before) // (r.polls - n0))
gc.enable()
