// The shoe's firmware for the Raspberry Pi Pico W: the stock RPI_PICO_W board of MicroPython
// v1.28.0 (ports/rp2/boards/RPI_PICO_W, its settings as they are) with the shoe frozen in.
#define MICROPY_HW_BOARD_NAME                   "Pontoon shoe " SHOE_VERSION " on Raspberry Pi Pico W"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (848 * 1024)

#define MICROPY_PY_NETWORK 1
#define MICROPY_PY_NETWORK_HOSTNAME_DEFAULT     "PicoW"

#define CYW43_USE_SPI (1)
#define CYW43_LWIP (1)
#define CYW43_GPIO (1)
#define CYW43_SPI_PIO (1)

#define MICROPY_HW_PIN_EXT_COUNT    CYW43_WL_GPIO_COUNT

int mp_hal_is_pin_reserved(int n);
#define MICROPY_HW_PIN_RESERVED(i) mp_hal_is_pin_reserved(i)

// Python's frames (each call's locals and operand stack) on a stack of their own. Without
// it a call whose frame is over 11 words (most functions with a few locals) takes it from
// the GC heap and gives it back, and the allocator's search for 4 free blocks past the
// live data costs about 85 us a call on the Pico (measured). 4 KB of RAM, out of the heap.
#define MICROPY_ENABLE_PYSTACK                  (1)
#define SHOE_PYSTACK_WORDS                      (1024)
#define MICROPY_BOARD_EARLY_INIT() do { \
        static mp_obj_t shoe_pystack[SHOE_PYSTACK_WORDS]; \
        mp_pystack_init(shoe_pystack, shoe_pystack + SHOE_PYSTACK_WORDS); \
} while (0)
// a soft reset starts Python again with an empty one
#define MICROPY_BOARD_END_SOFT_RESET() \
    mp_pystack_init(MP_STATE_THREAD(pystack_start), MP_STATE_THREAD(pystack_end))
