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

# Every firmware module in exactly one part (a new module is refused until it is placed).
PARTS = (
    ("Engine: the rules, pure", (
        "engine", "deal", "actions", "bank_options", "settlement", "shoe_layers", "hands",
        "cards", "rules", "transcript", "report",
        "native_shim")),  # CPython's stand-in for the emitters the engine's loops use
    ("Session: what happened", (
        "session", "journal_files", "journal", "raw_journal", "raw_recover", "snapshot",
        "raw_snapshot", "settings", "settings_values")),
    ("Controller: the table's loop", (
        "main", "import_index", "app", "narrator", "console", "controls", "entry", "menu",
        "bank_sale", "shoot_window", "card_entry", "housekeeping", "tag_run", "health", "selfcheck_mode",
        "health_report")),
    ("Showing it", (
        "screens", "views", "seat_displays", "font5x7", "web", "web_pages")),
    ("Hardware adapters", (
        "shoe_reader", "uid_map", "pn532_link", "tagmode", "tag_image", "tag_deck", "ndef", "buttons",
        "buzzer",
        "serial_lines", "line_assembler", "tca9548a", "busio", "digitalio", "drvtime",
        "drivers")),
)

# One accepted card from the reader to the displays: (label, "module:Class.method").
FLOW = (
    ("the card's tag read", "shoe_reader:ShoeReader.poll"),
    ("the loop takes it", "app:Table.step"),
    ("checked, applied", "app:Table.event"),
    ("the engine decides", "engine:Engine.apply"),
    ("journaled (flushed)", "session:Session.record"),
    ("said on serial", "narrator:Narrator.card_text"),
    ("displays marked", "app:Table.after_event"),
    ("one display a pass", "screens:Screens.redraw_one"),
    ("its lines", "views:seat_view"),
    ("changed cells sent", "seat_displays:SeatDisplays.show"),
)


class ArchitectureError(Exception):
    pass


def modules():
    return sorted(n[:-3] for n in os.listdir(FIRMWARE) if n.endswith(".py"))


def _tree(name):
    with open(os.path.join(FIRMWARE, name + ".py")) as f:
        return ast.parse(f.read())


def imports(name, known):
    """The firmware modules `name` imports (anywhere in the file: a deferred import too)."""
    out = set()
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        else:
            continue
        out.update(n for n in names if n in known and n != name)
    return sorted(out)


def part_of():
    """module -> part index; refuses a module in no part or in two."""
    have = set(modules())
    where = {}
    for i, (_, names) in enumerate(PARTS):
        for m in names:
            if m in where:
                raise ArchitectureError("%s is in two parts" % m)
            where[m] = i
    lost = sorted(have - set(where))
    if lost:
        raise ArchitectureError("firmware modules in no part of tools/architecture.py: "
                                + ", ".join(lost))
    return {m: i for m, i in where.items() if m in have}


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


def listing():
    where = part_of()
    known = set(where)
    lines = []
    for i, (title, _) in enumerate(PARTS):
        lines.append(title)
        for m in sorted(k for k, v in where.items() if v == i):
            lines.append("  %-15s -> %s" % (m, ", ".join(imports(m, known)) or "-"))
    lines.append("event flow: " + " -> ".join(t for _, t in FLOW))
    return "\n".join(lines)


COLOURS = ((255, 236, 200), (214, 234, 255), (222, 244, 214), (244, 222, 244),
           (232, 232, 232))


def draw():
    from PIL import Image, ImageDraw, ImageFont
    check_flow()
    where = part_of()
    font = ImageFont.load_default(14)
    small = ImageFont.load_default(12)
    big = ImageFont.load_default(20)
    col_w, gap, top = 230, 22, 250
    n = len(PARTS)
    per = [sorted(k for k, v in where.items() if v == i) for i in range(n)]
    rows = max(len(p) for p in per)
    width = 20 + n * col_w + (n - 1) * gap + 20
    height = top + 40 + rows * 24 + 190
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
        d.text((x0 + 8, y0 + 26), mod + ".py", fill=(60, 60, 60), font=small)
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
    for i, (title, _) in enumerate(PARTS):
        x0 = 20 + i * (col_w + gap)
        y1 = top + 40 + rows * 24 + 10
        d.rounded_rectangle((x0, top, x0 + col_w, y1), 10, fill=COLOURS[i % len(COLOURS)],
                            outline=(90, 90, 90))
        d.text((x0 + 10, top + 10), title, fill=(0, 0, 0), font=font)
        for r, m in enumerate(per[i]):
            d.text((x0 + 16, top + 40 + r * 24), m + ".py", fill=(0, 0, 0), font=font)
    # which part imports which (count of module imports), read from the code
    y = top + 40 + rows * 24 + 30
    d.text((20, y), "Imports between parts (read from firmware/*.py; the engine imports "
           "nothing outside itself):", fill=(0, 0, 0), font=font)
    y += 24
    lines = []
    for (a, b), c in sorted(edges().items()):
        lines.append("%s -> %s: %d" % (PARTS[a][0].split(":")[0], PARTS[b][0].split(":")[0], c))
    per_col = (len(lines) + 2) // 3
    for k, text in enumerate(lines):
        cx, cy = divmod(k, per_col)
        d.text((30 + cx * 400, y + cy * 18), text, fill=(40, 40, 40), font=small)
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
