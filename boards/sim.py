# The simulated board: the same roles as boards/pico.py, on the simulated I2C bus.
#   PN532 (0x24) and TCA9548A (0x70) on the root bus; SSD1306 models behind the switch,
#   display i on channel SLOTS[i][0] at address SLOTS[i][1]; buttons as SimPins; the
#   buzzer a piezo model that keeps every tone (world.buzzer.tones).
# build() makes a fresh world (clock, bus, models) and puts the drivers on its clock;
# the make_*() functions are the board API the controller uses.
# The models are imported inside World(), so a VM-side client (boards/simdev/remote.py)
# can use the make_*() functions without loading them.
from hardware import drvtime

PN532_ADDR = 0x24
MUX_ADDR = 0x70
# display index -> (mux channel, address): seats 0..7 on channels 0..7 at 0x3C, banker at
# 0x3D on channel 0. Must match boards/pico.py.
SLOTS = ((0, 0x3C), (1, 0x3C), (2, 0x3C), (3, 0x3C), (4, 0x3C), (5, 0x3C), (6, 0x3C),
         (7, 0x3C), (0, 0x3D))
BUTTONS = ("STICK", "TWIST", "BUY", "SPLIT", "MINUS", "PLUS", "OK", "UNDO")
# adafruit_ssd1306 sends 0xAD 0x30 (IREF select of SSD1306B/SSD1315 parts); the plain
# SSD1306 of docs/DEVICES.md has no 0xAD, so the models are told it is a 1-argument command.
DRIVER_EXTRA_COMMANDS = {0xAD: 1}
# The power-on check's report holds the banker's display this long (firmware/health.py;
# the Pico's is REPORT_MS): none here, where scripted players look at the table at once
# (a test of the report sets it).
CHECK_MS = 0


class World:
    def __init__(self, freq=400000, n_displays=9, height=64, strict=False, reader=True,
                 switch=True, reset_cause="power-on", **pn532_timings):
        from boards.simdev.bus import SimI2C
        from boards.simdev.buttons import SimPin
        from boards.simdev.clock import Clock
        from boards.simdev.piezo import Piezo
        from boards.simdev.pn532 import PN532
        from boards.simdev.ssd1306 import SSD1306
        from boards.simdev.tca9548a import TCA9548A
        self.clock = Clock()
        self.bus = SimI2C(self.clock, freq)
        # reader / switch False: a board without that part (a bare Pico: n_displays=0 too)
        self.pn532 = PN532(**pn532_timings)
        if reader:
            self.bus.add_device(PN532_ADDR, self.pn532)
        self.mux = TCA9548A()
        if switch:
            self.bus.add_device(MUX_ADDR, self.mux)
        self.displays = []
        for i in range(n_displays):
            ch, addr = SLOTS[i]
            d = SSD1306(128, height, strict=strict, tolerate=DRIVER_EXTRA_COMMANDS)
            self.mux.add_device(ch, addr, d)
            self.displays.append(d)
        self.buttons = [SimPin(name) for name in BUTTONS]
        self.buzzer = Piezo(self.clock)   # .tones: [(ms, "tick" | "buzz")]
        self.serial = None            # boards.simdev.serial.QueueLines, made by make_serial()
        self.i2c = None
        self.mux_driver = None
        # the raw flash region of the shoe's own UF2 (boards/simdev/flash.py) when a test
        # gives one: the journal's tail and the snapshots then live there, not in files
        self.raw_flash = None
        self.reset_cause = reset_cause    # what reset_cause() says ("watchdog" after one)
        self.watchdog = None              # boards/simdev/watchdog.Watchdog once started
        drvtime.use(self.clock)

    def violations(self):
        out = []
        for i, d in enumerate(self.displays):
            for v in d.violations:
                out.append("display %d: %s" % (i, v))
        return out + self.pn532.errors


world = None


def build(**kw):
    global world
    world = World(**kw)
    return world


def _world():
    if world is None:
        build()
    return world


def journal_flash():
    return getattr(_world(), "raw_flash", None)    # (a VM-side world has none)


def make_watchdog(timeout_ms):
    """The watchdog model (boards/simdev/watchdog.py) on the world's clock; a no-op for a
    VM-side world (boards/simdev/remote.py), whose clock is the host's."""
    w = _world()
    if not hasattr(w, "violations"):
        from table.health_report import NoWatchdog
        return NoWatchdog()
    from boards.simdev.watchdog import Watchdog
    w.watchdog = Watchdog(w.clock, timeout_ms)
    return w.watchdog


def stop_watchdog():
    w = _world()
    if getattr(w, "watchdog", None) is not None:
        w.watchdog.stop()


def reset_cause():
    return getattr(_world(), "reset_cause", "power-on")


def make_i2c():
    w = _world()
    if w.i2c is None:
        import busio
        w.i2c = busio.I2C(w.bus, frequency=w.bus.freq)
    return w.i2c


def make_mux():
    w = _world()
    if w.mux_driver is None:
        from hardware.tca9548a import TCA9548A as Mux
        w.mux_driver = Mux(make_i2c(), MUX_ADDR)
    return w.mux_driver


def make_pn532():
    from hardware import drivers
    chip = _world().pn532                       # its RSTPDN (none from a VM-side world)
    return drivers.pn532(make_i2c(), reset=chip.reset_line() if hasattr(chip, "rstpdn") else None)


def make_bus_clear():
    """The bus clear (firmware/hardware/bus_recovery.py) on the bus model's SDA (4) and SCL (5)
    wires, as boards/pico.py's; None for a VM-side world, whose bus has none."""
    from boards.simdev.bus import bus_clear
    return bus_clear(_world().bus, 4, 5)


def make_reader(uid_map=None, **kw):
    from hardware.shoe_reader import ShoeReader
    w = _world()
    return ShoeReader(make_pn532(), irq=w.pn532.irq, uid_map=uid_map, **kw)


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
    """machine.Pin-like objects in BUTTONS order; value() 0 = pressed."""
    return list(_world().buttons)


def make_buzzer():
    """The buzzer (firmware/hardware/buzzer.py) on the world's piezo model; None for a VM-side world
    (boards/simdev/remote.py), which has none."""
    piezo = getattr(_world(), "buzzer", None)
    if piezo is None:
        return None
    from hardware.buzzer import Buzzer
    return Buzzer(piezo)


def make_serial():
    """The USB serial line's input: a line source with poll() -> str or None."""
    w = _world()
    if getattr(w, "serial", None) is None:
        from boards.simdev.serial import QueueLines
        w.serial = QueueLines()
    return w.serial
