// The shoe's firmware for the Raspberry Pi Pico W: the stock RPI_PICO_W board of MicroPython
// v1.28.0 (ports/rp2/boards/RPI_PICO_W, its settings as they are) with the shoe frozen in.
#define MICROPY_HW_BOARD_NAME                   "Pontoon shoe " SHOE_VERSION " on Raspberry Pi Pico W"
// The stock board's filesystem and, below it, the journal's raw region
// (../modules/shoe_flash.py: JOURNAL_BYTES); the firmware must end below both
#define MICROPY_HW_FLASH_STORAGE_BYTES          (848 * 1024 + 96 * 1024)

#define MICROPY_PY_NETWORK 1
// lwIP's TCP connections (its default 5): one for every long poll the web part holds
// (firmware/webui/web.py HOLD_MAX, a phone at each seat and the public page) and for the
// requests beside them (_MAX_OPEN); one closed and waiting out TIME_WAIT is taken first
#define MEMP_NUM_TCP_PCB                        (16)
#define MICROPY_PY_NETWORK_HOSTNAME_DEFAULT     "PicoW"

#define CYW43_USE_SPI (1)
#define CYW43_LWIP (1)
#define CYW43_GPIO (1)
#define CYW43_SPI_PIO (1)

#define MICROPY_HW_PIN_EXT_COUNT    CYW43_WL_GPIO_COUNT

int mp_hal_is_pin_reserved(int n);
#define MICROPY_HW_PIN_RESERVED(i) mp_hal_is_pin_reserved(i)

// Python's frames on a stack of their own (the same for both boards)
#include "../pystack.h"
