// The Pico W runs at 200 MHz, the RP2040's fastest officially supported clock (pico-sdk 2.1.1:
// certified with the core regulator at 1.15 V at least; PICO_USE_FASTEST_SUPPORTED_CLOCK in
// mpconfigboard.cmake). The SDK raises the regulator in its clock set-up, but MicroPython
// v1.28.0 replaces that set-up with its own copy (ports/rp2/clocks_extra.c) that does not, so
// the regulator is raised here, before the clocks are set up, as the SDK's would.
#include "pico/runtime_init.h"
#include "hardware/structs/vreg_and_chip_reset.h"

#if SYS_CLK_HZ != 200000000
#error "clock_200mhz.c: the board is meant to run at 200 MHz"
#endif

// RP2040 datasheet 2.10.7, VREG.VSEL: 0b1100 is 1.15 V (0b1011, 1.10 V, at power-on)
#define VSEL_1_15V 0xc

static void pontoon_raise_vreg(void) {
    uint32_t vsel = (vreg_and_chip_reset_hw->vreg & VREG_AND_CHIP_RESET_VREG_VSEL_BITS)
                    >> VREG_AND_CHIP_RESET_VREG_VSEL_LSB;
    if (vsel < VSEL_1_15V) {
        hw_write_masked(&vreg_and_chip_reset_hw->vreg,
                        VSEL_1_15V << VREG_AND_CHIP_RESET_VREG_VSEL_LSB,
                        VREG_AND_CHIP_RESET_VREG_VSEL_BITS);
        // the SDK lets it settle for 1 ms; the CPU still runs from the ring oscillator here
        // (at most about 12 MHz), and counting cycles is the only clock there is yet
        busy_wait_at_least_cycles(24000);
    }
}
PICO_RUNTIME_INIT_FUNC_HW(pontoon_raise_vreg, "00450");
