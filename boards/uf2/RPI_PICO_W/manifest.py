# The Pico W: the stock board's modules (networking, aioble) and the shoe with its web part
# (boards/pico_w.py as board, boards/pico.py as pico, microdot). The port's manifests but its
# _boot.py: ours mounts the filesystem past the journal's raw flash region
# (../modules/shoe_flash.py).
freeze("$(PORT_DIR)/modules", "rp2.py")  # noqa: F821 - manifest API
freeze("../modules")  # noqa: F821
include("$(MPY_DIR)/extmod/asyncio")  # noqa: F821
require("onewire")  # noqa: F821
require("ds18x20")  # noqa: F821
require("dht")  # noqa: F821
require("neopixel")  # noqa: F821
require("bundle-networking")  # noqa: F821
require("aioble")  # noqa: F821
include("../../../manifest.py", board="pico_w", web=True)  # noqa: F821
