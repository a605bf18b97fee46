# The Pico: the port's own modules and the shoe (firmware, drivers, boards/pico.py as board).
include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821 - manifest API
include("../../../manifest.py", board="pico")  # noqa: F821
