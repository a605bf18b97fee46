# The stock Raspberry Pi Pico W (Wi-Fi, Bluetooth) with the shoe and microdot frozen in.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO_W/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO_W/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
include(${MICROPY_BOARD_DIR}/../version.cmake)
# Part of the Pico's set in SRAM here (boards/uf2/code_in_ram.cmake): the VM's loop and
# bytecode decoding, the collector, calls (runtime.c, obj.c) and dict lookups (map.c). The
# Pico W has 40 KB less heap and serves the phones from it, but with the web's code beside
# the table's these missed the 16 KB XIP cache so often that the phones waited for it
# (issue 43); each more object tried (objtype.c, objfun.c) cost heap and gained nothing.
set(PONTOON_RAM_OBJECTS vm.c bc.c gc.c nlr.c nlrthumb.c runtime.c obj.c map.c)
include(${MICROPY_BOARD_DIR}/../code_in_ram.cmake)
# The SDK's division routines in SRAM too: every dict lookup (map.c, in SRAM) divides, and
# from flash each call went through a veneer and missed the XIP cache
list(APPEND MICROPY_DEF_BOARD PICO_DIVIDER_IN_RAM=1)
# 200 MHz, the RP2040's fastest supported clock (clock_200mhz.c raises the regulator for it).
# The Wi-Fi chip's bus is clocked from it through a PIO divider: 3 keeps it near the 31 MHz it
# has at 125 MHz (the CYW43439's gSPI takes 50 MHz at most; 2 would put it there exactly)
list(APPEND MICROPY_DEF_BOARD PICO_USE_FASTEST_SUPPORTED_CLOCK=1 CYW43_PIO_CLOCK_DIV_INT=3)
list(APPEND MICROPY_SOURCE_BOARD ${MICROPY_BOARD_DIR}/clock_200mhz.c)
