# The Pico W: the stock board's modules (networking, aioble) and the shoe with its web part
# (boards/pico_w.py as board, boards/pico.py as pico, microdot).
include("$(PORT_DIR)/boards/RPI_PICO_W/manifest.py")  # noqa: F821 - manifest API
include("../../../manifest.py", board="pico_w", web=True)  # noqa: F821
