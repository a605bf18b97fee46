# The Pico: the port's own modules and the shoe (firmware, drivers, boards/pico.py as board).
# The port's boards/manifest.py but its _boot.py: ours mounts the filesystem past the
# journal's raw flash region (../modules/shoe_flash.py).
freeze("$(PORT_DIR)/modules", "rp2.py")  # noqa: F821 - manifest API
freeze("../modules")  # noqa: F821
include("$(MPY_DIR)/extmod/asyncio")  # noqa: F821
require("onewire")  # noqa: F821
require("ds18x20")  # noqa: F821
require("dht")  # noqa: F821
require("neopixel")  # noqa: F821
include("../../../manifest.py", board="pico")  # noqa: F821
