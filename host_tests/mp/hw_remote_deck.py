# On the VM with the models in CPython (tools/hwbridge.py): the unchanged drivers read a
# 52-card deck and draw on eight seat displays. Prints "key value" lines.
import gc

gc.collect()
free0 = gc.mem_free()
from hardware import drvtime                                   # noqa: E402
from boards import sim                           # noqa: E402
from boards.simdev.remote import RemoteWorld, host  # noqa: E402

sim.world = RemoteWorld()
drvtime.use(sim.world.clock)
gc.collect()
free1 = gc.mem_free()
from hardware import drivers                                   # noqa: E402
drivers.install()                                # imports the three Adafruit drivers
gc.collect()
free_drv = gc.mem_free()
disp = sim.make_displays(8)
gc.collect()
free2 = gc.mem_free()
reader = sim.make_reader()
gc.collect()
free3 = gc.mem_free()
low = free3
seen = []
lines = ["", "", ""]
shown = 0
for code in range(52):
    host("deal %d" % code)
    n = len(seen)
    for i in range(300):
        e = reader.poll()
        if e is not None:
            seen.append(e)
        host("tick")
        if i > 45 and len(seen) > n:
            break
    seat = code & 7
    lines[0] = "Seat %d" % (seat + 1)
    lines[1] = "Card %d" % code
    lines[2] = "Read %d" % len(seen)
    if disp.show(seat, lines, highlight=1) > 0:
        shown += 1
    f = gc.mem_free()
    if f < low:
        low = f
gc.collect()
print("cards", len(seen))
ok = len(seen) == 52
for i in range(len(seen)):
    if seen[i] != i:
        ok = False
print("deck_ok", 1 if ok else 0)
print("shown", shown)
print("heap_client", free0 - free1)
print("heap_driver_modules", free1 - free_drv)
print("heap_displays", free_drv - free2)
print("heap_reader", free2 - free3)
print("heap_in_use_end", free0 - gc.mem_free())
print("heap_lowest_free", low)
