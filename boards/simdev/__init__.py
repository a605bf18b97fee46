# Bus-level device models for the simulated board, written from /work/shared/DEVICES.md.
# They run on CPython and on the MicroPython unix port; boards/sim.py wires them up.
