// Included by each board's mpconfigboard.h.
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
