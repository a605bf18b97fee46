# Simulated push buttons wired to ground with pull-ups: value() is 1 released, 0 pressed.


class SimPin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, name, level=1):
        self.name = name
        self.level = level
        self.mode = None
        self.pull = None

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.level = 1 if value else 0

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0

    def press(self):
        self.level = 0

    def release(self):
        self.level = 1
