#!/usr/bin/env python3
"""The wiring diagram of each board, drawn from its file in boards/: the pins are read from
the file's own constants (never typed a second time), checked against the RP2040's pin
functions, and drawn as docs/wiring_pico.png and docs/wiring_pico_w.png.

    .venv/bin/python tools/wiring.py            # draw both into docs/
    .venv/bin/python tools/wiring.py --check    # exit 1 when a picture in docs/ is stale
    .venv/bin/python tools/wiring.py --list     # the connections as text
"""
import ast
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import cli  # noqa: E402

BOARDS = {"pico": "Raspberry Pi Pico", "pico_w": "Raspberry Pi Pico W"}
NEEDED = ("I2C_ID", "SDA", "SCL", "FREQ", "PN532_ADDR", "MUX_ADDR", "PN532_IRQ",
          "PN532_RESET", "SLOTS", "BUTTONS", "BUTTON_PINS")
# RP2040 datasheet, 1.4.3 (GPIO functions): the pins each I2C block can use
I2C_PINS = {0: ({0, 4, 8, 12, 16, 20, 28}, {1, 5, 9, 13, 17, 21}),
            1: ({2, 6, 10, 14, 18, 26}, {3, 7, 11, 15, 19, 27})}
# Pico datasheet, pinout: header pin of each GPIO (1..20 down the left, 21..40 up the right)
HEADER = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
          12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
          22: 29, 26: 31, 27: 32, 28: 34}
OTHER = {3: "GND", 8: "GND", 13: "GND", 18: "GND", 23: "GND", 28: "GND", 30: "RUN",
         33: "GND", 35: "ADC_VREF", 36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS",
         40: "VBUS"}
# inside the Pico W's module: the CYW43 Wi-Fi chip (Pico W datasheet); no header pin
CYW43_GPIOS = (23, 24, 25, 29)


class WiringError(Exception):
    pass


def board_constants(name):
    """The literal constants of boards/NAME.py, those of a `from X import *` first."""
    path = os.path.join(ROOT, "boards", name + ".py")
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except OSError as e:
        raise WiringError("cannot read %s: %s" % (path, e.strerror))
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            if os.path.exists(os.path.join(ROOT, "boards", node.module + ".py")):
                out.update(board_constants(node.module))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass                     # not a literal: not a pin
    missing = [k for k in NEEDED if k not in out]
    if missing:
        raise WiringError("boards/%s.py lacks %s" % (name, ", ".join(missing)))
    return out


def connections(c):
    """[(GPIO or None, header pin, what it is on the Pico, part, part's pin, note)]."""
    sda_ok, scl_ok = I2C_PINS.get(c["I2C_ID"], (set(), set()))
    if c["SDA"] not in sda_ok or c["SCL"] not in scl_ok:
        raise WiringError("I2C%d cannot use GP%d as SDA and GP%d as SCL (RP2040 pin functions)"
                          % (c["I2C_ID"], c["SDA"], c["SCL"]))
    if len(c["BUTTONS"]) != len(c["BUTTON_PINS"]):
        raise WiringError("BUTTONS and BUTTON_PINS differ in length")
    used = [c["SDA"], c["SCL"], c["PN532_IRQ"], c["PN532_RESET"]] + list(c["BUTTON_PINS"])
    twice = sorted({g for g in used if used.count(g) > 1})
    if twice:
        raise WiringError("GP%s wired twice" % ", GP".join(str(g) for g in twice))
    bad = [g for g in used if g not in HEADER]
    if bad:
        raise WiringError("GP%d has no header pin on a Pico" % bad[0])
    i2c = "I2C%d" % c["I2C_ID"]
    khz = c["FREQ"] // 1000
    rows = [
        (c["SDA"], HEADER[c["SDA"]], i2c + " SDA", "PN532 + TCA9548A", "SDA",
         "%d kHz, 4.7 kOhm pull-up to 3V3" % khz),
        (c["SCL"], HEADER[c["SCL"]], i2c + " SCL", "PN532 + TCA9548A", "SCL",
         "4.7 kOhm pull-up to 3V3"),
        (c["PN532_IRQ"], HEADER[c["PN532_IRQ"]], "input, pull-up", "PN532", "IRQ",
         "low: an answer is ready"),
        (c["PN532_RESET"], HEADER[c["PN532_RESET"]], "output", "PN532", "RSTPDN",
         "high: running"),
    ]
    for name, g in zip(c["BUTTONS"], c["BUTTON_PINS"]):
        rows.append((g, HEADER[g], "input, pull-up", "button " + name, "to GND", ""))
    rows.append((None, 36, "3V3(OUT)", "PN532, TCA9548A, OLEDs", "VCC", "see the power "
                 "budget in docs/BUILD.md"))
    rows.append((None, 38, "GND", "every part", "GND", ""))
    return rows


def displays(c):
    """[(display index, who, mux channel, address)]."""
    return [(i, "banker" if i == 8 else "seat %d" % (i + 1), ch, addr)
            for i, (ch, addr) in enumerate(c["SLOTS"])]


def listing(name):
    c = board_constants(name)
    out = ["%s (boards/%s.py)" % (BOARDS[name], name)]
    for g, pin, what, part, ppin, note in connections(c):
        out.append("  pin %2d %-5s %-15s -> %-24s %-7s %s" % (
            pin, "GP%d" % g if g is not None else "", what, part, ppin, note))
    out.append("  TCA9548A at 0x%02X, PN532 at 0x%02X" % (c["MUX_ADDR"], c["PN532_ADDR"]))
    for i, who, ch, addr in displays(c):
        out.append("  display %d (%s): TCA9548A channel %d, SSD1306 at 0x%02X" % (i, who, ch, addr))
    if name == "pico_w":
        out.append("  GP%s: the Wi-Fi chip inside the module" % ", GP".join(
            str(g) for g in CYW43_GPIOS))
    return "\n".join(out)


# --------------------------------------------------------------------------- the picture
COLOURS = {"I2C": (0, 110, 200), "PN532": (200, 90, 0), "button": (0, 140, 70),
           "power": (200, 0, 0), "GND": (60, 60, 60)}


def _colour(part, what):
    if what.startswith("I2C"):
        return COLOURS["I2C"]
    if part.startswith("button"):
        return COLOURS["button"]
    if what == "3V3(OUT)":
        return COLOURS["power"]
    if what == "GND":
        return COLOURS["GND"]
    return COLOURS["PN532"]


def draw(name):
    """The wiring of boards/NAME.py as a Pillow image."""
    from PIL import Image, ImageDraw, ImageFont
    c = board_constants(name)
    rows = connections(c)
    small = ImageFont.load_default(12)
    font = ImageFont.load_default(14)
    big = ImageFont.load_default(20)
    img = Image.new("RGB", (1240, 1000), "white")
    d = ImageDraw.Draw(img)
    d.text((20, 14), "%s: the shoe's wiring, drawn from boards/%s.py by tools/wiring.py"
           % (BOARDS[name], name), fill="black", font=big)
    # the Pico from above, USB at the top: header pins 1-20 down the left, 40-21 the right
    px, py, pw, step = 150, 190, 260, 36
    d.rectangle((px, py, px + pw, py + 20 * step + 20), outline="black", width=2,
                fill=(245, 245, 240))
    d.rectangle((px + pw // 2 - 25, py - 12, px + pw // 2 + 25, py + 10), outline="black",
                fill=(210, 210, 210))
    d.text((px + pw // 2, py - 1), "USB", fill="black", font=small, anchor="mm")
    d.text((px + pw // 2, py + 10 * step + 10), "Pico W" if name == "pico_w" else "Pico",
           fill="black", font=big, anchor="mm")
    gpio_of = {pin: g for g, pin in HEADER.items()}
    used = {r[1]: r for r in rows}
    at = {}
    for pin in range(1, 41):
        left = pin <= 20
        y = py + 20 + (pin - 1 if left else 40 - pin) * step
        x = px if left else px + pw
        label = OTHER.get(pin) or "GP%d" % gpio_of[pin]
        r = used.get(pin)
        col = _colour(r[3], r[2]) if r else (150, 150, 150)
        d.ellipse((x - 6, y - 6, x + 6, y + 6), fill=col if r else "white", outline=col)
        d.text((x + 10, y) if left else (x - 10, y),
               "%d %s" % (pin, label) if left else "%s %d" % (label, pin),
               fill=col if r else (120, 120, 120), font=small, anchor="lm" if left else "rm")
        at[pin] = (x, y, left)
    # the parts, right of the Pico, one box each; every used pin joined to its part's pin
    # by its own track: left-side pins over the board's top, right-side pins straight across
    order = []
    for r in rows:
        if r[3].startswith("button"):
            key = "buttons (each between its pin and GND)"
        else:
            key = r[3]
        if key not in order:
            order.append(key)
    bx, by = 720, 70
    targets = {}
    for key in order:
        mine = [r for r in rows if (key.startswith("buttons") and r[3].startswith("button"))
                or r[3] == key]
        h = 28 + 22 * len(mine)
        d.rectangle((bx, by, bx + 500, by + h), outline="black", width=2, fill=(250, 250, 255))
        d.text((bx + 8, by + 5), key, fill="black", font=font)
        for j, r in enumerate(mine):
            yy = by + 34 + 22 * j
            col = _colour(r[3], r[2])
            d.text((bx + 16, yy), r[3][7:] if key.startswith("buttons") else r[4], fill=col,
                   font=small, anchor="lm")
            if r[5]:
                d.text((bx + 110, yy), r[5], fill=(90, 90, 90), font=small, anchor="lm")
            targets[r[1]] = (yy, col)
        by += h + 12
    lefts = sorted(p for p in targets if at[p][2])
    rights = sorted((p for p in targets if not at[p][2]), reverse=True)
    for i, pin in enumerate(lefts):
        yy, col = targets[pin]
        sx, sy, _ = at[pin]
        out_x = px - 20 - 9 * (len(lefts) - 1 - i)
        top = py - 30 - 9 * (len(lefts) - 1 - i)
        up_x = px + pw + 40 + 9 * (len(lefts) + len(rights) - 1 - i)
        d.line([(sx - 6, sy), (out_x, sy), (out_x, top), (up_x, top), (up_x, yy), (bx, yy)],
               fill=col, width=2)
        d.ellipse((bx - 4, yy - 4, bx + 4, yy + 4), fill=col)
    for i, pin in enumerate(rights):
        yy, col = targets[pin]
        sx, sy, _ = at[pin]
        kx = px + pw + 40 + 9 * i
        d.line([(sx + 6, sy), (kx, sy), (kx, yy), (bx, yy)], fill=col, width=2)
        d.ellipse((bx - 4, yy - 4, bx + 4, yy + 4), fill=col)
    # the switch and the displays behind it
    y = by + 6
    d.text((bx, y), "TCA9548A at 0x%02X (A0-A2 to GND); PN532 at 0x%02X (I2C mode: SEL0 high, "
           "SEL1 low)" % (c["MUX_ADDR"], c["PN532_ADDR"]), fill="black", font=small)
    y += 24
    for i, who, ch, addr in displays(c):
        d.text((bx, y), "display %d (%s): TCA9548A SD%d/SC%d, SSD1306 at 0x%02X" % (
            i, who, ch, ch, addr), fill=COLOURS["I2C"], font=small)
        y += 19
    if name == "pico_w":
        d.text((bx, y + 6), "GP%s: the Wi-Fi chip inside the module, on no header pin" %
               ", GP".join(str(g) for g in CYW43_GPIOS), fill=(90, 90, 90), font=small)
    d.text((20, 972), "Every part's GND to a Pico GND; the displays' SDA/SCL to their switch "
           "channel's SDx/SCx, VCC and GND shared.", fill=(60, 60, 60), font=small)
    return img


def picture_path(name):
    return os.path.join(ROOT, "docs", "wiring_%s.png" % name)


def stale(name):
    """None when docs/wiring_NAME.png is what draw() makes now, else why not."""
    from PIL import Image
    path = picture_path(name)
    if not os.path.exists(path):
        return "%s is missing" % os.path.relpath(path, ROOT)
    with Image.open(path) as saved:
        now = draw(name)
        if saved.size != now.size or saved.convert("RGB").tobytes() != now.tobytes():
            return "%s differs from boards/%s.py" % (os.path.relpath(path, ROOT), name)
    return None


def main(argv=None):
    ap = cli.ArgumentParser(prog="wiring.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a picture in docs/ is not what the board file says")
    ap.add_argument("--list", action="store_true", help="print the connections as text")
    ap.add_argument("--board", choices=sorted(BOARDS), action="append",
                    help="only this board (repeatable; default: both)")
    a = ap.parse_args(argv)
    names = a.board or sorted(BOARDS)
    try:
        if a.list:
            print("\n\n".join(listing(n) for n in names))
            return 0
        if a.check:
            why = [w for w in (stale(n) for n in names) if w]
            for w in why:
                print("wiring: %s: run .venv/bin/python tools/wiring.py" % w, file=sys.stderr)
            return 1 if why else 0
        for n in names:
            draw(n).save(picture_path(n), optimize=True)
            print("wiring: %s" % os.path.relpath(picture_path(n), ROOT))
        return 0
    except WiringError as e:
        cli.fail("wiring.py", e)


if __name__ == "__main__":
    sys.exit(main())
