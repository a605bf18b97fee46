# The Raspberry Pi Pico wiring (see boards/README.md). Deploy as board.py.
#   I2C0: GP4 = SDA, GP5 = SCL, 400 kHz: PN532 (0x24) and TCA9548A (0x70).
#   Displays: index i on switch channel SLOTS[i][0] at SLOTS[i][1].
#   PN532 IRQ on GP6 (input, active low), RSTPDN on GP7 (output, high = run).
#   Buttons GP10..GP17 to ground, internal pull-ups.
from machine import I2C, Pin

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
        from tca9548a import TCA9548A
        _mux = TCA9548A(make_i2c(), MUX_ADDR)
    return _mux


def make_pn532():
    import drivers
    from digitalio import DigitalInOut
    reset = DigitalInOut(Pin(PN532_RESET, Pin.OUT, value=1))
    return drivers.pn532(make_i2c(), reset=reset)


def make_reader(uid_map=None, **kw):
    from shoe_reader import ShoeReader
    irq = Pin(PN532_IRQ, Pin.IN, Pin.PULL_UP)
    return ShoeReader(make_pn532(), irq=irq, uid_map=uid_map, **kw)


def make_displays(n=9, height=64, font=-1):
    import drivers
    from seat_displays import SeatDisplays
    drivers.install()
    mux = make_mux()
    targets = [(mux.channel(SLOTS[i][0]), SLOTS[i][1]) for i in range(n)]
    if font == -1:
        return SeatDisplays(targets, 128, height)
    return SeatDisplays(targets, 128, height, font=font)


def make_buttons():
    """machine.Pin objects in BUTTONS order; value() 0 = pressed."""
    return [Pin(p, Pin.IN, Pin.PULL_UP) for p in BUTTON_PINS]


def make_serial():
    """Lines typed on the USB serial port (sys.stdin, polled without blocking)."""
    from serial_lines import StdinLines
    return StdinLines()


def make_button_timer(period_ms, callback):
    """A periodic timer (soft IRQ) sampling the buttons, independent of the main loop."""
    from machine import Timer
    return Timer(period=period_ms, mode=Timer.PERIODIC, callback=callback)
