#!/usr/bin/env python3
"""The wiring diagram of each board, drawn from its file in boards/: the pins and the power
(POWER: who feeds whom, GROUND: every GND joined) are read from the file's own constants
(never typed a second time), checked against the RP2040's pin functions and for a part
unfed or fed twice, and drawn as docs/wiring_pico.png and docs/wiring_pico_w.png.

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
          "PN532_RESET", "SLOTS", "BUTTONS", "BUTTON_PINS", "BUZZER", "POWER", "GROUND")
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
# the Pico's power pins a part may be fed from (Pico datasheet, 2.1 "Pico pinout"), and the
# GND the grounds are drawn to
SUPPLY_PINS = {"VBUS": 40, "VSYS": 39, "3V3(OUT)": 36}
GND_PIN = 38
# the parts that need a supply (each fed exactly once) and a GND
POWERED = ("PN532", "TCA9548A", "displays")
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
    """[(GPIO or None, header pin or None, what it is on the Pico, part, part's pin, note)]:
    every wire, the power and the grounds too; header None: a part's output feeding another
    part (the note names it)."""
    sda_ok, scl_ok = I2C_PINS.get(c["I2C_ID"], (set(), set()))
    if c["SDA"] not in sda_ok or c["SCL"] not in scl_ok:
        raise WiringError("I2C%d cannot use GP%d as SDA and GP%d as SCL (RP2040 pin functions)"
                          % (c["I2C_ID"], c["SDA"], c["SCL"]))
    if len(c["BUTTONS"]) != len(c["BUTTON_PINS"]):
        raise WiringError("BUTTONS and BUTTON_PINS differ in length")
    used = [c["SDA"], c["SCL"], c["PN532_IRQ"], c["PN532_RESET"], c["BUZZER"]] \
        + list(c["BUTTON_PINS"])
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
         "%d kHz" % khz),
        (c["SCL"], HEADER[c["SCL"]], i2c + " SCL", "PN532 + TCA9548A", "SCL", ""),
        (c["PN532_IRQ"], HEADER[c["PN532_IRQ"]], "input, pull-up", "PN532", "IRQ",
         "low: an answer is ready"),
        (c["PN532_RESET"], HEADER[c["PN532_RESET"]], "output", "PN532", "RSTPDN",
         "high: running"),
    ]
    for name, g in zip(c["BUTTONS"], c["BUTTON_PINS"]):
        rows.append((g, HEADER[g], "input, pull-up", "button " + name, "to GND", ""))
    rows.append((c["BUZZER"], HEADER[c["BUZZER"]], "PWM output", "buzzer", "+",
                 "a passive piezo disc"))
    return rows + power(c)


def power(c):
    """The rows of connections() that carry power: each part's supply from POWER, each GND
    of GROUND joined to a Pico GND."""
    fed = [part for _, part in c["POWER"]]
    twice = sorted({p for p in fed if fed.count(p) > 1})
    if twice:
        raise WiringError("%s fed twice in POWER" % ", ".join(twice))
    unfed = [p for p in POWERED if p not in fed]
    if unfed:
        raise WiringError("%s fed by nothing in POWER" % ", ".join(unfed))
    rows = []
    for source, part in c["POWER"]:
        pin = "to 3V3" if part == "I2C pull-ups" else "VIN" if source == "VBUS" else "VCC"
        note = "4.7 kOhm from SDA and from SCL" if part == "I2C pull-ups" else \
            "the USB 5 V" if source == "VBUS" else ""
        if source in SUPPLY_PINS:
            rows.append((None, SUPPLY_PINS[source], source, part, pin, note))
        elif source in fed:
            rows.append((None, None, source, part, pin, "from the %s's OUT" % source))
        else:
            raise WiringError("%s feeds %s: neither a Pico supply pin nor a part fed in "
                              "POWER" % (source, part))
    sources = [s for s, _ in c["POWER"] if s not in SUPPLY_PINS]
    for part in sorted(set(sources), key=sources.index):
        rows.append((None, None, part, part, "OUT", "3.3 V to " + ", ".join(
            p for s, p in c["POWER"] if s == part)))
    unground = [p for p in POWERED + tuple(sources) if p not in c["GROUND"]]
    if unground:
        raise WiringError("%s has no GND in GROUND" % ", ".join(unground))
    for part in c["GROUND"]:
        rows.append((None, GND_PIN, "GND", part, "GND", "joined to every other GND"
                     if part == c["GROUND"][0] else ""))
    return rows


def load_on(c, source):
    """The parts a Pico supply pin or a part's output carries, through any part between."""
    out = []
    for s, part in c["POWER"]:
        if s == source:
            out.append(part)
            out += load_on(c, part)
    return out


def displays(c):
    """[(display index, who, mux channel, address)]."""
    return [(i, "banker" if i == 8 else "seat %d" % (i + 1), ch, addr)
            for i, (ch, addr) in enumerate(c["SLOTS"])]


def channels(c):
    """[(mux channel, [(display index, who, address)])]: every display on its channel, two
    on one channel where two addresses share it."""
    out = {}
    for i, who, ch, addr in displays(c):
        out.setdefault(ch, []).append((i, who, addr))
    return sorted(out.items())


def listing(name):
    c = board_constants(name)
    out = ["%s (boards/%s.py)" % (BOARDS[name], name)]
    for g, pin, what, part, ppin, note in connections(c):
        out.append("  %-6s %-5s %-15s -> %-24s %-7s %s" % (
            "pin %d" % pin if pin is not None else "", "GP%d" % g if g is not None else "",
            what, part, ppin, note))
    out.append("  TCA9548A at 0x%02X, PN532 at 0x%02X" % (c["MUX_ADDR"], c["PN532_ADDR"]))
    for i, who, ch, addr in displays(c):
        out.append("  display %d (%s): TCA9548A channel %d, SSD1306 at 0x%02X" % (i, who, ch, addr))
    if name == "pico_w":
        out.append("  GP%s: the Wi-Fi chip inside the module" % ", GP".join(
            str(g) for g in CYW43_GPIOS))
    return "\n".join(out)


# --------------------------------------------------------------------------- the picture
COLOURS = {"I2C": (0, 110, 200), "PN532": (200, 90, 0), "button": (0, 140, 70),
           "power": (200, 0, 0), "5V": (150, 0, 150), "GND": (60, 60, 60),
           "buzzer": (150, 110, 0)}


def _colour(part, what):
    if what.startswith("I2C"):
        return COLOURS["I2C"]
    if part.startswith("button") and what != "GND":
        return COLOURS["button"]
    if what in ("VBUS", "VSYS"):
        return COLOURS["5V"]
    if what == "GND":
        return COLOURS["GND"]
    if what == "PWM output":
        return COLOURS["buzzer"]
    if what.startswith("input") or what == "output":
        return COLOURS["PN532"]
    return COLOURS["power"]      # 3V3(OUT), a regulator's OUT and what it feeds


def _box(r):
    return "buttons" if r[3].startswith("button") else r[3]


BOX_TITLES = {"buttons": "buttons (each between its pin and GND)",
              "PN532 + TCA9548A": "PN532 + TCA9548A: the I2C bus",
              "displays": "displays (every SSD1306 module: VCC, GND; bus below)"}


def draw(name):
    """The wiring of boards/NAME.py as a Pillow image."""
    from PIL import Image, ImageDraw, ImageFont
    c = board_constants(name)
    rows = connections(c)
    small = ImageFont.load_default(12)
    font = ImageFont.load_default(14)
    big = ImageFont.load_default(20)
    img = Image.new("RGB", (1320, 1240), "white")
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
    used = {r[1]: r for r in rows if r[1] is not None}
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
    # the parts, right of the Pico, one box each; every used pin joined to its parts' pins
    # by its own track (one pin feeding several parts: one track, a dot at each):
    # left-side pins over the board's top, right-side pins straight across; a part's
    # output feeding other parts runs down the boxes' right-hand side
    order = []
    for r in rows:
        if _box(r) not in order:
            order.append(_box(r))
    bx, by, bw = 720, 70, 480
    targets = {}                 # header pin -> [(y, colour)]
    outs = {}                    # part -> (y of its OUT row, colour)
    fed = {}                     # part feeding -> [y of each row it feeds]
    for key in order:
        mine = [r for r in rows if _box(r) == key]
        h = 28 + 22 * len(mine)
        d.rectangle((bx, by, bx + bw, by + h), outline="black", width=2, fill=(250, 250, 255))
        d.text((bx + 8, by + 5), BOX_TITLES.get(key, key), fill="black", font=font)
        for j, r in enumerate(mine):
            yy = by + 34 + 22 * j
            col = _colour(r[3], r[2])
            label = r[3][7:] if r[3].startswith("button ") else r[4]
            d.text((bx + 16, yy), label, fill=col, font=small, anchor="lm")
            if r[5]:
                d.text((bx + 110, yy), r[5], fill=(90, 90, 90), font=small, anchor="lm")
            if r[1] is not None:
                targets.setdefault(r[1], []).append((yy, col))
            elif r[4] == "OUT":
                outs[r[2]] = (yy, col)
            else:
                fed.setdefault(r[2], []).append(yy)
        by += h + 12
    lefts = sorted(p for p in targets if at[p][2])
    rights = sorted((p for p in targets if not at[p][2]), reverse=True)
    for i, pin in enumerate(lefts):
        sx, sy, _ = at[pin]
        out_x = px - 20 - 9 * (len(lefts) - 1 - i)
        top = py - 30 - 9 * (len(lefts) - 1 - i)
        up_x = px + pw + 40 + 9 * (len(lefts) + len(rights) - 1 - i)
        ys = [t[0] for t in targets[pin]]
        col = targets[pin][0][1]
        d.line([(sx - 6, sy), (out_x, sy), (out_x, top), (up_x, top), (up_x, max(ys))],
               fill=col, width=2)
        for yy in ys:
            d.line([(up_x, yy), (bx, yy)], fill=col, width=2)
            d.ellipse((bx - 4, yy - 4, bx + 4, yy + 4), fill=col)
    for i, pin in enumerate(rights):
        sx, sy, _ = at[pin]
        kx = px + pw + 40 + 9 * i
        ys = [t[0] for t in targets[pin]]
        col = targets[pin][0][1]
        d.line([(sx + 6, sy), (kx, sy)], fill=col, width=2)
        d.line([(kx, min(ys + [sy])), (kx, max(ys + [sy]))], fill=col, width=2)
        for yy in ys:
            d.line([(kx, yy), (bx, yy)], fill=col, width=2)
            d.ellipse((bx - 4, yy - 4, bx + 4, yy + 4), fill=col)
    for i, part in enumerate(sorted(outs)):
        oy, col = outs[part]
        rx = bx + bw + 30 + 12 * i
        ys = fed.get(part, [])
        d.line([(rx, min(ys + [oy])), (rx, max(ys + [oy]))], fill=col, width=2)
        for yy in [oy] + ys:
            d.line([(bx + bw, yy), (rx, yy)], fill=col, width=2)
            d.ellipse((bx + bw - 4, yy - 4, bx + bw + 4, yy + 4), fill=col)
    # the switch's channels and the displays on each
    y = by + 6
    d.text((bx, y), "TCA9548A at 0x%02X (A0-A2 to GND); PN532 at 0x%02X (I2C mode: SEL0 high, "
           "SEL1 low)" % (c["MUX_ADDR"], c["PN532_ADDR"]), fill="black", font=small)
    y += 24
    for ch, on in channels(c):
        d.text((bx, y + 9), "SD%d/SC%d" % (ch, ch), fill=COLOURS["I2C"], font=small,
               anchor="lm")
        d.line([(bx + 64, y + 9), (bx + 80 + 140 * len(on) - 10, y + 9)],
               fill=COLOURS["I2C"], width=2)
        for k, (i, who, addr) in enumerate(on):
            x0 = bx + 80 + 140 * k
            d.rectangle((x0, y, x0 + 128, y + 18), outline=COLOURS["I2C"], fill="white")
            d.text((x0 + 64, y + 9), "%d %s 0x%02X" % (i, who, addr), fill=COLOURS["I2C"],
                   font=small, anchor="mm")
        y += 24
    if name == "pico_w":
        d.text((bx, y + 6), "GP%s: the Wi-Fi chip inside the module, on no header pin" %
               ", GP".join(str(g) for g in CYW43_GPIOS), fill=(90, 90, 90), font=small)
    d.text((20, 1212), "Each display's SDA/SCL to its switch channel's SDx/SCx; power as in "
           "docs/BUILD.md, 3 (the reader and the displays draw more than 3V3(OUT) gives).",
           fill=(60, 60, 60), font=small)
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
