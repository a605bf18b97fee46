# The Raspberry Pi Pico wiring (see boards/README.md). Deploy as board.py.
#   I2C0: GP4 = SDA, GP5 = SCL, 400 kHz: PN532 (0x24) and TCA9548A (0x70).
#   Displays: index i on switch channel SLOTS[i][0] at SLOTS[i][1].
#   PN532 IRQ on GP6 (input, active low), RSTPDN on GP7 (output, high = run).
#   Buttons GP10..GP17 to ground, internal pull-ups.
#   Buzzer: a passive piezo between GP18 (PWM) and ground.
#   Power: POWER and GROUND below (docs/BUILD.md, "Power").
from machine import I2C, Pin
from micropython import const

PN532_ADDR = 0x24
MUX_ADDR = 0x70
I2C_ID = 0
SDA = 4
SCL = 5
FREQ = 400000
PN532_IRQ = 6
PN532_RESET = 7
SLOTS = ((0, 0x3C), (1, 0x3C), (2, 0x3C), (3, 0x3C), (4, 0x3C), (5, 0x3C), (6, 0x3C),
         (7, 0x3C), (0, 0x3D))
BUTTONS = ("STICK", "TWIST", "BUY", "SPLIT", "MINUS", "PLUS", "OK", "UNDO")
BUTTON_PINS = (10, 11, 12, 13, 14, 15, 16, 17)
BUZZER = 18
# Who feeds whom: (source, part). A source is a Pico pin (VBUS: the USB 5 V; 3V3(OUT): the
# Pico's own regulator) or a part. The reader and the displays together can draw more than
# 3V3(OUT) gives, so they have a 3.3 V regulator of their own on VBUS; the switch and the
# bus pull-ups stay on 3V3(OUT). Every part in GROUND has its GND on a Pico GND.
POWER = (("VBUS", "3.3 V regulator"), ("3.3 V regulator", "PN532"),
         ("3.3 V regulator", "displays"), ("3V3(OUT)", "TCA9548A"),
         ("3V3(OUT)", "I2C pull-ups"))
GROUND = ("3.3 V regulator", "PN532", "TCA9548A", "displays", "buzzer", "buttons")
# the watchdog's registers (RP2040 datasheet 4.7.6); a const named _X is no entry of the
# module's globals (heap)
_WATCHDOG_CTRL = const(0x40058000)    # bit 30 ENABLE; + 0x3000: its atomic clear alias
_WATCHDOG_REASON = const(0x40058008)  # bit 0 TIMER: it ran out; bit 1 FORCE: machine.reset()
SIO_GPIO_IN = 0xD0000004     # every GPIO's input level, bits 0..29 (a small int)
IO_BANK0_INTR = 0x400140F0   # INTR0..3: 4 bits a GPIO: level low, level high, edge low, high

_i2c = None
_mux = None


def make_i2c():
    global _i2c
    if _i2c is None:
        import busio
        _i2c = busio.I2C(I2C(I2C_ID, scl=Pin(SCL), sda=Pin(SDA), freq=FREQ), frequency=FREQ)
    return _i2c


def make_mux():
    global _mux
    if _mux is None:
        from hardware.tca9548a import TCA9548A
        _mux = TCA9548A(make_i2c(), MUX_ADDR)
    return _mux


def make_pn532():
    from hardware import drivers
    from digitalio import DigitalInOut
    reset = DigitalInOut(Pin(PN532_RESET, Pin.OUT, value=1))
    return drivers.pn532(make_i2c(), reset=reset)


def make_bus_clear():
    """The bus's watch and clear (firmware/hardware/faults.py): stuck() reads SDA's level
    from SIO GPIO_IN (the pin stays the I2C block's) at the table's quiet moments; the
    clear (firmware/hardware/bus_recovery.py: the pins taken as open-drain GPIOs) is made at
    the first stuck bus, code that runs only at a fault."""
    return _BusWatch()


class _BusWatch:
    def __init__(self):
        from machine import mem32
        self.mem32 = mem32
        self.bit = 1 << SDA
        self.clearer = None              # bus_recovery.BusClear, from the first fault

    def level(self):
        return self.mem32[SIO_GPIO_IN] & self.bit

    def stuck(self):
        return not self.mem32[SIO_GPIO_IN] & self.bit

    def clear(self):
        if self.clearer is None:
            from hardware.bus_recovery import BusClear
            self.clearer = BusClear(lambda n: Pin(n, Pin.OPEN_DRAIN, value=1), SDA, SCL,
                                    self.level, _reopen)
        return self.clearer.clear()


def _reopen():
    # the same machine.I2C object on the rp2 (one per block), its pins given back
    make_i2c()._i2c = I2C(I2C_ID, scl=Pin(SCL), sda=Pin(SDA), freq=FREQ)


def make_reader(uid_map=None, **kw):
    from hardware.shoe_reader import ShoeReader
    irq = Pin(PN532_IRQ, Pin.IN, Pin.PULL_UP)
    return ShoeReader(make_pn532(), irq=irq, uid_map=uid_map, **kw)


def make_displays(n=9, height=64, font=-1):
    from hardware import drivers
    from hardware.seat_displays import SeatDisplays
    drivers.install_displays()
    mux = make_mux()
    targets = [(mux.channel(SLOTS[i][0]), SLOTS[i][1]) for i in range(n)]
    if font == -1:
        return SeatDisplays(targets, 128, height)
    return SeatDisplays(targets, 128, height, font=font)


def make_buttons():
    """machine.Pin objects in BUTTONS order; value() 0 = pressed."""
    return [Pin(p, Pin.IN, Pin.PULL_UP) for p in BUTTON_PINS]


def make_buzzer():
    """The buzzer (firmware/hardware/buzzer.py): PWM on BUZZER, silent until a tone starts."""
    from hardware.buzzer import Buzzer
    from machine import PWM
    return Buzzer(PWM(Pin(BUZZER)))


def make_serial():
    """Lines typed on the USB serial port (sys.stdin, polled without blocking)."""
    from hardware.serial_lines import StdinLines
    return StdinLines()


def make_button_levels():
    """(levels, all_up): levels() reads every button's pin at once (one register, SIO
    GPIO_IN) and equals all_up while none is pressed: the sampler's usual case costs one
    read instead of eight Pin.value() calls (buttons.Buttons.poll)."""
    from machine import mem32
    all_up = 0
    for pin in BUTTON_PINS:
        all_up |= 1 << pin

    def levels():
        return mem32[SIO_GPIO_IN] & all_up
    return levels, all_up


def make_button_edges():
    """A function returning the buttons whose pin changed since its last call (bit i: button
    i fell, bit 8 + i: it rose), from the edges IO_BANK0 latches in hardware (RP2040
    datasheet 2.19.6.2): they are kept while no Python runs (a flash erase holds every
    interrupt off for 45 ms, the button timer's too: buttons.Buttons.unseen).
    No pin on this board may take a Pin.irq: the rp2 port's GPIO interrupt handler then
    acknowledges every pin's latched edges (ports/rp2/machine_pin.c gpio_irq)."""
    return _ButtonEdges(BUTTON_PINS).take


class _ButtonEdges:
    # A bound method, not a closure: calling a closure over more than a few variables
    # allocates its arguments on the heap, which a hard interrupt handler may not do.

    def __init__(self, pins):
        from machine import mem16
        self.mem16 = mem16
        spots = []               # (halfword, shift of the pin's nibble, button index)
        for i in range(len(pins)):
            pin = pins[i]
            spots.append((IO_BANK0_INTR + (pin >> 2) * 2, (pin & 3) * 4, i))
        halves = []
        masks = []
        for half, shift, _ in spots:
            if half not in halves:
                halves.append(half)
                masks.append(0)
            masks[halves.index(half)] |= 0xC << shift      # the two edge bits
        if len(halves) > 3:
            raise ValueError("buttons spread over more than 3 halfwords of INTR")
        while len(halves) < 3:   # three reads, unrolled in take() (GP10..GP17 take three)
            halves.append(halves[0])
            masks.append(0)
        self.h0, self.h1, self.h2 = halves
        self.m0, self.m1, self.m2 = masks
        self.seen = [0, 0, 0]
        # a byte a button, in BUTTONS order: its halfword's index << 4 | its nibble's shift
        # (one small bytes object: a tuple of tuples took a heap block a button)
        self.spots = bytes(halves.index(h) << 4 | shift for h, shift, _ in spots)
        # write 1 to clear: a halfword write reaches both halves of its word (datasheet
        # 2.1.4), so it clears the same bits of the other half too; those were read in the
        # same take(), unless they latched in the microseconds between read and write
        self.w0, self.w1, self.w2 = (h & ~3 for h in halves)

    def take(self):
        # called every 5 ms from the button timer's interrupt: no allocation, no loop
        # when nothing is latched (the usual case)
        mem16 = self.mem16
        a = mem16[self.h0] & self.m0
        b = mem16[self.h1] & self.m1
        c = mem16[self.h2] & self.m2
        if not (a | b | c):
            return 0
        seen = self.seen
        seen[0] = a
        seen[1] = b
        seen[2] = c
        if a:
            mem16[self.w0] = a
        if b:
            mem16[self.w1] = b
        if c:
            mem16[self.w2] = c
        out = 0
        spots = self.spots
        for i in range(len(spots)):
            v = seen[spots[i] >> 4] >> (spots[i] & 15)
            if v & 4:
                out |= 1 << i
            if v & 8:
                out |= 0x100 << i
        return out


def make_button_timer(period_ms, callback):
    """A periodic timer sampling the buttons, independent of the main loop. A hard one: its
    callback interrupts whatever runs, C code included (littlefs folding the journal holds
    Python off for up to 170 ms, a soft timer's callback with it); it must not allocate
    (buttons.SampledButtons)."""
    import micropython
    from machine import Timer
    micropython.alloc_emergency_exception_buf(100)     # an error in it is still reported
    return Timer(period=period_ms, mode=Timer.PERIODIC, callback=callback, hard=True)


def make_watchdog(timeout_ms):
    """machine.WDT, started now: feed() it within timeout_ms (at most 8388 on rp2) or the
    chip resets."""
    from machine import WDT
    return WDT(timeout=timeout_ms)


def stop_watchdog():
    """machine.WDT has no stop: the SDK's watchdog_disable() clears CTRL.ENABLE (the REPL
    after the table stops is not fed)."""
    from machine import mem32
    mem32[_WATCHDOG_CTRL + 0x3000] = 1 << 30


def reset_cause():
    """Why the chip last started: "power-on", "watchdog" (the loop stopped feeding it) or
    "reset" (machine.reset(): main.py after an error). rp2's machine.reset_cause() says
    WDT_RESET for both of the last two; the watchdog's REASON register tells them apart."""
    import machine
    if machine.reset_cause() != machine.WDT_RESET:
        return "power-on"
    return "watchdog" if machine.mem32[_WATCHDOG_REASON] & 1 else "reset"


def journal_flash():
    """The raw flash region for the journal's tail: on the shoe's own UF2, which keeps it out
    of the filesystem (boards/uf2/shoe_flash.py); None on the stock UF2 (a file tail)."""
    try:
        import shoe_flash
    except ImportError:
        return None
    import sys
    sys.modules.pop("shoe_flash")        # (_boot.py's mount is done: boot work, let go)
    return shoe_flash.journal_device()
