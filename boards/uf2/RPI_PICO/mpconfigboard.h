// The shoe's firmware for the Raspberry Pi Pico: the stock RPI_PICO board of MicroPython
// v1.28.0 (ports/rp2/boards/RPI_PICO) with the shoe frozen in (manifest.py here).
// The name shows in the REPL banner and sys.implementation._machine, so a user can tell
// which shoe firmware a Pico runs; SHOE_VERSION comes from the repository's VERSION file.
#define MICROPY_HW_BOARD_NAME                   "Pontoon shoe " SHOE_VERSION " on Raspberry Pi Pico"
// The stock board's filesystem and, below it, the journal's raw region
// (../modules/shoe_flash.py: JOURNAL_BYTES); the firmware must end below both
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024 + 96 * 1024)

// Python's frames on a stack of their own (the same for both boards)
#include "../pystack.h"
