"""Draw docs/architecture.png, the firmware's parts and how an event flows through them,
from the code itself: the modules and their imports are read from firmware/*.py, and every
step of the event flow names a function that must exist there.

  .venv/bin/python tools/architecture.py           # redraw docs/architecture.png
  .venv/bin/python tools/architecture.py --check   # exit 1 if the picture is stale
  .venv/bin/python tools/architecture.py --list    # the parts and their imports as text
"""
import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import cli  # noqa: E402

FIRMWARE = os.path.join(ROOT, "firmware")
PICTURE = os.path.join(ROOT, "docs", "architecture.png")

# The parts are firmware/'s folders (a module is in the part its folder names; TOP is the
# modules at the top: main.py, the .mpy path's import_index and the shims the Adafruit
# drivers import by name), from the top floor down: a part imports the parts below it.
TOP = ""
PARTS = (
    (TOP, "Start: main, the drivers' shims"),
    ("table", "Table: the loop, modes, screens"),
    ("webui", "Web: the Pico W's page"),
    ("tagging", "Tags: writing the deck"),
    ("ledger", "Ledger: session, journal"),
    ("game", "Game: the rules, pure"),
    ("hardware", "Hardware: reader, buttons, I/O"),
)
# Arrows that run back up (a part importing one on its own floor or above it), each a
# design point the layout keeps in view; any other is refused (test_architecture).
DESIGN_POINTS = {
    ("hardware", "game"): "the reader names cards through game/cards.py (and the viper "
                          "stand-ins of game/native_shim.py): the card vocabulary belongs "
                          "on the ground floor, under both",
    ("webui", "table"): "the web page reads the table's views and reaches into the table: "
                        "it should be handed what it shows",
}
# firmware/ files that are not the device's (CPython's stand-in for the built-in module)
HOST_ONLY = ("micropython",)

# One accepted card from the reader to the displays: (label, "module:Class.method").
FLOW = (
    ("the card's tag read", "hardware.shoe_reader:ShoeReader.poll"),
    ("the loop takes it", "table.app:Table.step"),
    ("checked, applied", "table.app:Table.event"),
    ("the engine decides", "game.engine:Engine.apply"),
    ("journaled (flushed)", "ledger.session:Session.record"),
    ("said on serial", "table.narrator:Narrator.card_text"),
    ("displays marked", "table.app:Table.after_event"),
    ("its display's turn first", "hardware.bus_turn:BusTurn.goes_first"),
    ("one display a pass", "table.screens:Screens.redraw_one"),
    ("its lines", "table.views:seat_view"),
    ("changed cells sent", "hardware.seat_displays:SeatDisplays.show"),
    ("release after (bus turn)", "hardware.bus_turn:BusTurn.release_waits"),
)


class ArchitectureError(Exception):
    pass


def modules():
    """Every firmware module, dotted as imported ("main", "game.engine"); a package's
    __init__ is not one."""
    out = []
    for dirpath, dirs, files in os.walk(FIRMWARE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(dirpath, FIRMWARE).replace(os.sep, "/")
        pre = "" if rel == "." else rel.replace("/", ".") + "."
        for n in files:
            if n.endswith(".py") and n != "__init__.py" and (pre or n[:-3] not in HOST_ONLY):
                out.append(pre + n[:-3])
    return sorted(out)


def _path(name):
    return os.path.join(FIRMWARE, *name.split(".")) + ".py"


def _tree(name):
    with open(_path(name)) as f:
        return ast.parse(f.read())


def _package(name):
    return name.rpartition(".")[0]


def imports(name, known):
    """The firmware modules `name` imports (anywhere in the file: a deferred import too),
    relative imports resolved."""
    out = set()
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = _package(name)
                for _ in range(node.level - 1):
                    pkg = _package(pkg)
                base = pkg + ("." + base if base else "") if pkg else base
            names = [base] + [base + "." + a.name for a in node.names]
        else:
            continue
        out.update(n for n in names if n in known and n != name)
    return sorted(out)


def part_name(module):
    return module.split(".")[0] if "." in module else TOP


def part_of():
    """module -> part index; refuses a module in no part (a folder PARTS lacks)."""
    index = {p: i for i, (p, _) in enumerate(PARTS)}
    where = {}
    lost = []
    for m in modules():
        if part_name(m) in index:
            where[m] = index[part_name(m)]
        else:
            lost.append(m)
    if lost:
        raise ArchitectureError("firmware modules in no part of tools/architecture.py "
                                "(a folder PARTS lacks): " + ", ".join(lost))
    return where


def defined(target):
    """True when "module:Class.method" or "module:function" exists in firmware/."""
    mod, _, dotted = target.partition(":")
    if mod not in modules():
        return False
    body = _tree(mod).body
    for part in dotted.split("."):
        found = None
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == part:
                found = node
        if found is None:
            return False
        body = found.body
    return True


def check_flow():
    bad = [t for _, t in FLOW if not defined(t)]
    if bad:
        raise ArchitectureError("event flow names what the code lacks: " + ", ".join(bad))


def edges():
    """(from part, to part) -> number of module imports across them."""
    where = part_of()
    known = set(where)
    out = {}
    for m in sorted(known):
        for n in imports(m, known):
            a, b = where[m], where[n]
            if a != b:
                out[(a, b)] = out.get((a, b), 0) + 1
    return out


def upward():
    """The arrows that run back up: (from part, to part) by folder name, and the imports
    that make each: {(a, b): ["hardware.shoe_reader -> game.cards", ...]}."""
    where = part_of()
    known = set(where)
    out = {}
    for m in sorted(known):
        for n in imports(m, known):
            a, b = where[m], where[n]
            if a != b and b <= a:
                out.setdefault((PARTS[a][0], PARTS[b][0]), []).append("%s -> %s" % (m, n))
    return out


def listing():
    where = part_of()
    known = set(where)
    lines = []
    for i, (folder, title) in enumerate(PARTS):
        lines.append("%s (firmware/%s)" % (title, folder))
        for m in sorted(k for k, v in where.items() if v == i):
            lines.append("  %-26s -> %s" % (m, ", ".join(imports(m, known)) or "-"))
    lines.append("event flow: " + " -> ".join(t for _, t in FLOW))
    for (a, b), why in sorted(upward().items()):
        lines.append("runs back up: %s -> %s (%s): %s"
                     % (a or "top", b or "top", ", ".join(why),
                        DESIGN_POINTS.get((a, b), "NOT A KNOWN DESIGN POINT")))
    return "\n".join(lines)


COLOURS = ((240, 240, 240), (222, 244, 214), (244, 222, 244), (255, 246, 200),
           (214, 234, 255), (255, 236, 200), (232, 232, 232))


def draw():
    from PIL import Image, ImageDraw, ImageFont
    check_flow()
    where = part_of()
    font = ImageFont.load_default(14)
    small = ImageFont.load_default(12)
    big = ImageFont.load_default(20)
    col_w, gap, top = 200, 14, 250
    n = len(PARTS)
    per = [sorted(k for k, v in where.items() if v == i) for i in range(n)]
    rows = max(len(p) for p in per)
    width = 20 + n * col_w + (n - 1) * gap + 20
    height = top + 40 + rows * 24 + 260
    img = Image.new("RGB", (width, height), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.text((20, 12), "The shoe's firmware: its parts, and one card from the reader to the "
           "displays", fill=(0, 0, 0), font=big)
    # the event flow, two rows of boxes, left to right then right to left
    half = (len(FLOW) + 1) // 2
    bw, bh, bgap = (width - 40 - (half - 1) * 18) // half, 58, 18
    centres = []
    for k, (label, target) in enumerate(FLOW):
        row, col = divmod(k, half)
        if row:
            col = half - 1 - col
        x0 = 20 + col * (bw + bgap)
        y0 = 50 + row * (bh + 34)
        i = where[target.split(":")[0]]
        d.rounded_rectangle((x0, y0, x0 + bw, y0 + bh), 8, fill=COLOURS[i % len(COLOURS)],
                            outline=(90, 90, 90))
        d.text((x0 + 8, y0 + 6), "%d. %s" % (k + 1, label), fill=(0, 0, 0), font=font)
        mod, _, fn = target.partition(":")
        d.text((x0 + 8, y0 + 26), mod.replace(".", "/") + ".py", fill=(60, 60, 60),
               font=small)
        d.text((x0 + 8, y0 + 40), fn, fill=(60, 60, 60), font=small)
        centres.append((x0, y0, row))
    for k in range(len(centres) - 1):
        x0, y0, row = centres[k]
        x1, y1, row1 = centres[k + 1]
        if row == row1 and row == 0:
            _arrow(d, (x0 + bw, y0 + bh // 2), (x1, y1 + bh // 2))
        elif row == row1:
            _arrow(d, (x0, y0 + bh // 2), (x1 + bw, y1 + bh // 2))
        else:
            _arrow(d, (x0 + bw // 2, y0 + bh), (x1 + bw // 2, y1))
    # the parts, a column each, with their modules
    for i, (folder, title) in enumerate(PARTS):
        x0 = 20 + i * (col_w + gap)
        y1 = top + 40 + rows * 24 + 10
        d.rounded_rectangle((x0, top, x0 + col_w, y1), 10, fill=COLOURS[i % len(COLOURS)],
                            outline=(90, 90, 90))
        head, _, rest = title.partition(": ")
        d.text((x0 + 10, top + 6), "firmware/" + (folder + "/" if folder else ""),
               fill=(0, 0, 0), font=font)
        d.text((x0 + 10, top + 24), head + ": " + rest, fill=(60, 60, 60), font=small)
        for r, m in enumerate(per[i]):
            d.text((x0 + 16, top + 44 + r * 24), m.rpartition(".")[2] + ".py",
                   fill=(0, 0, 0), font=font)
    # which part imports which (count of module imports), read from the code
    y = top + 40 + rows * 24 + 30
    d.text((20, y), "Imports between parts, module by module (read from firmware/; the "
           "parts stand from the top floor, left, down: the game imports nothing outside "
           "itself):", fill=(0, 0, 0), font=font)
    y += 24
    lines = []
    for (a, b), c in sorted(edges().items()):
        lines.append("%s -> %s: %d" % (PARTS[a][1].split(":")[0], PARTS[b][1].split(":")[0],
                                       c))
    per_col = (len(lines) + 3) // 4
    for k, text in enumerate(lines):
        cx, cy = divmod(k, per_col)
        d.text((30 + cx * 360, y + cy * 18), text, fill=(40, 40, 40), font=small)
    y += per_col * 18 + 12
    d.text((20, y), "Arrows that run back up (design points):", fill=(150, 0, 0), font=font)
    for (a, b), why in sorted(upward().items()):
        y += 20
        d.text((30, y), "%s -> %s: %s" % (a, b, DESIGN_POINTS.get((a, b), "NOT KNOWN")),
               fill=(150, 0, 0), font=small)
    return img


def _arrow(d, a, b):
    d.line((a, b), fill=(60, 60, 60), width=2)
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    n = max(1.0, (dx * dx + dy * dy) ** 0.5)
    ux, uy = dx / n, dy / n
    tip = (x1, y1)
    left = (x1 - 10 * ux + 5 * uy, y1 - 10 * uy - 5 * ux)
    right = (x1 - 10 * ux - 5 * uy, y1 - 10 * uy + 5 * ux)
    d.polygon((tip, left, right), fill=(60, 60, 60))


def stale():
    """None when docs/architecture.png is what draw() makes now, else why not."""
    from PIL import Image
    if not os.path.exists(PICTURE):
        return "docs/architecture.png is missing"
    with Image.open(PICTURE) as saved:
        now = draw()
        if saved.size != now.size or saved.convert("RGB").tobytes() != now.tobytes():
            return "docs/architecture.png differs from firmware/"
    return None


def main(argv=None):
    ap = cli.ArgumentParser(prog="architecture.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when docs/architecture.png is not what firmware/ says")
    ap.add_argument("--list", action="store_true", help="print the parts and imports")
    a = ap.parse_args(argv)
    try:
        if a.list:
            print(listing())
            return 0
        if a.check:
            why = stale()
            if why:
                print("architecture: %s: run .venv/bin/python tools/architecture.py" % why,
                      file=sys.stderr)
            return 1 if why else 0
        draw().save(PICTURE, optimize=True)
        print("architecture: docs/architecture.png")
        return 0
    except ArchitectureError as e:
        cli.fail("architecture.py", e)


if __name__ == "__main__":
    sys.exit(main())
