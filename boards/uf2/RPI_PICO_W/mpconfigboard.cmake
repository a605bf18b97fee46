# The stock Raspberry Pi Pico W (Wi-Fi, Bluetooth) with the shoe and microdot frozen in.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO_W/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO_W/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
include(${MICROPY_BOARD_DIR}/../version.cmake)
# the interpreter's loop, the collector and the call set-up in SRAM (about 10 KB of heap:
# the Pico W has 40 KB less than the Pico, and serves the phones from what is left)
set(PONTOON_RAM_OBJECTS vm.c gc.c bc.c nlr.c nlrthumb.c)
include(${MICROPY_BOARD_DIR}/../code_in_ram.cmake)
