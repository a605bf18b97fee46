# main.py of the simulated Pico W on the MicroPython VM (tools/hwbridge.py serves the chips;
# the web server listens on 127.0.0.1, port from settings.txt): the firmware's own
# app.main() on the remote world with a loopback network; the flash is the cwd.
from hardware import drvtime
from boards import sim, sim_w
from boards.simdev.remote import RemoteWorld

sim.world = RemoteWorld()
drvtime.use(sim.world.clock)

from table import app  # noqa: E402

app.main(sim_w, "")
