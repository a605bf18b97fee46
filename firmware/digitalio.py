# digitalio look-alike over machine.Pin (or a simulated pin): what the Adafruit drivers use
# (Direction, Pull, DigitalInOut.direction/value/switch_to_output/switch_to_input).


class Direction:
    INPUT = 0
    OUTPUT = 1


class Pull:
    UP = 1
    DOWN = 2


class DigitalInOut:
    def __init__(self, pin):
        self._pin = pin          # a machine.Pin-like object: init(mode, pull), value([v])
        self._dir = Direction.INPUT
        self._pull = None

    def _mode(self, out):
        cls = type(self._pin)
        return getattr(cls, "OUT" if out else "IN", 1 if out else 0)

    @property
    def direction(self):
        return self._dir

    @direction.setter
    def direction(self, d):
        self._dir = d
        self._pin.init(self._mode(d == Direction.OUTPUT))

    @property
    def value(self):
        return bool(self._pin.value())

    @value.setter
    def value(self, v):
        self._pin.value(1 if v else 0)

    @property
    def pull(self):
        return self._pull

    @pull.setter
    def pull(self, p):
        self._pull = p
        cls = type(self._pin)
        if p == Pull.UP:
            self._pin.init(self._mode(False), getattr(cls, "PULL_UP", 1))
        elif p == Pull.DOWN:
            self._pin.init(self._mode(False), getattr(cls, "PULL_DOWN", 2))

    def switch_to_output(self, value=False, drive_mode=0):
        # (drive_mode: CircuitPython's DriveMode.PUSH_PULL is 0; no driver here asks for
        # another, so the class that names it is not kept on the heap)
        self.direction = Direction.OUTPUT
        self.value = value

    def switch_to_input(self, pull=None):
        self.direction = Direction.INPUT
        if pull is not None:
            self.pull = pull

    def deinit(self):
        pass
