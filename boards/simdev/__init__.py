# Bus-level device models for the simulated board, written from the chips' datasheets.
# They run on CPython and on the MicroPython unix port; boards/sim.py wires them up.
