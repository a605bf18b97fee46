# The stock Raspberry Pi Pico W (Wi-Fi, Bluetooth) with the shoe and microdot frozen in.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO_W/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO_W/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
include(${MICROPY_BOARD_DIR}/../version.cmake)
# No interpreter code in SRAM here (boards/uf2/code_in_ram.cmake): the Pico W has 40 KB
# less heap and serves the phones from it; its goal is heap, not speed.
