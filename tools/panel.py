"""The one decoder from an SSD1306 model's display memory to what its panel lights, for every
host program that shows the table (the pictures of `make sim`, the terminal, the web page's
snapshots, the tests)."""
import base64


class Panel:
    """A snapshot of one SSD1306 model: display memory and the state that decides what the
    panel lights."""
    __slots__ = ("ram", "on", "inverse", "entire_on", "contrast", "start_line", "seg_remap",
                 "com_flip", "height", "mux", "powered", "version")

    def __init__(self, d=None, powered=True, version=0):
        self.powered = powered and d is not None
        self.version = version
        if d is None:
            self.ram = bytes(1024)
            self.on = self.inverse = self.entire_on = False
            self.seg_remap = self.com_flip = True
            self.contrast = 0
            self.start_line = 0
            self.height = 64
            self.mux = 63
            return
        self.ram = bytes(d.ram)
        self.on = d.on
        self.inverse = d.inverse
        self.entire_on = d.entire_on
        self.contrast = d.contrast
        self.start_line = d.start_line
        self.seg_remap = d.seg_remap
        self.com_flip = d.com_flip
        self.height = d.height
        self.mux = d.mux

    def key(self):
        return (self.ram, self.on, self.inverse, self.entire_on, self.contrast,
                self.start_line, self.seg_remap, self.com_flip, self.height, self.mux,
                self.powered)

    def as_json(self):
        return {"ram": base64.b64encode(self.ram).decode(), "on": self.on,
                "inverse": self.inverse, "entire_on": self.entire_on,
                "contrast": self.contrast, "start_line": self.start_line,
                "seg_remap": self.seg_remap, "com_flip": self.com_flip,
                "height": self.height, "mux": self.mux, "powered": self.powered,
                "version": self.version}


def panel_levels(p):
    """What the panel lights: rows of 0/1 (height x 128) from a Panel, honouring display
    off, entire-display-on, inversion, the start line, segment / COM remapping and the
    multiplex ratio (a 128x32 panel driven by mux 31 lights its first 32 COM lines)."""
    if not p.powered or not p.on:
        return [[0] * 128 for _ in range(p.height)]
    driven = min(p.height, p.mux + 1)
    if p.entire_on:
        return [[1] * 128 for _ in range(driven)] + [[0] * 128 for _ in range(p.height - driven)]
    ram = p.ram
    inv = 1 if p.inverse else 0
    rows = []
    for y in range(p.height):
        if y >= driven:
            rows.append([0] * 128)
            continue
        # COM scan: command 0xC8 (com_flip) scans COM63..0, the usual upright mounting;
        # without it the picture is upside down. The start line shifts which RAM row a COM
        # line shows.
        ry = y if p.com_flip else p.height - 1 - y
        ry = (ry + p.start_line) % 64
        page = (ry >> 3) * 128
        bit = 1 << (ry & 7)
        row = []
        for x in range(128):
            rx = x if p.seg_remap else 127 - x
            row.append((1 if ram[page + rx] & bit else 0) ^ inv)
        rows.append(row)
    return rows


def panel_image(p, height=64):
    """The lit pixels as a Pillow mode-'1' image 128 x `height` (rows past the panel's own
    height dark)."""
    from PIL import Image
    rows = panel_levels(p)
    out = bytearray(16 * height)
    for y, row in enumerate(rows[:height]):
        base = 16 * y
        for x in range(128):
            if row[x]:
                out[base + (x >> 3)] |= 0x80 >> (x & 7)
    return Image.frombytes("1", (128, height), bytes(out))
