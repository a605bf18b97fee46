// The shoe's firmware for the Raspberry Pi Pico: the stock RPI_PICO board of MicroPython
// v1.28.0 (ports/rp2/boards/RPI_PICO) with the shoe frozen in (manifest.py here).
// The name shows in the REPL banner and sys.implementation._machine, so a user can tell
// which shoe firmware a Pico runs; SHOE_VERSION comes from the repository's VERSION file.
#define MICROPY_HW_BOARD_NAME                   "Pontoon shoe " SHOE_VERSION " on Raspberry Pi Pico"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)

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
