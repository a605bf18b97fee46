# main.py of the simulated board (alone in its folder: the VM puts the script's folder first
# on the import path) on the MicroPython VM (tools/hwbridge.py serves the
# devices): the firmware's own app.main() on the remote world; the flash is the cwd.
from hardware import drvtime
from boards import sim
from boards.simdev.remote import RemoteWorld

sim.world = RemoteWorld()
drvtime.use(sim.world.clock)

from table import app  # noqa: E402

app.main(sim, "")
