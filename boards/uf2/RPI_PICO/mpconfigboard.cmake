# The stock Raspberry Pi Pico (pico-sdk board "pico") with the shoe frozen in.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
include(${MICROPY_BOARD_DIR}/../version.cmake)
# the interpreter's sources that miss the XIP cache most (tools/xip_profile.py), in SRAM
set(PONTOON_RAM_OBJECTS vm.c gc.c bc.c runtime.c obj.c objtype.c nlr.c nlrthumb.c objarray.c
    objlist.c binary.c nativeglue.c objfun.c objdict.c)
set(PONTOON_RAM_FROZEN_CODE ON)
include(${MICROPY_BOARD_DIR}/../code_in_ram.cmake)
