"""docs/BUILD.md's parts table adds up: each stated total is the sum of its column's rows
(quantity x a unit's price, cheapest and dearest), and the README quotes the same totals.
Every table size buys what it needs: a sticker for every card of every pack (C1, C4 ruling,
and a few spare), a display for every seat and the banker, the parts the wiring draws."""
import math
import os
import re

from conftest import ROOT

import wiring as W


def read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def parts_table():
    """(column names, {part: (unit, [quantity per column], (low, high) or None)})."""
    text = read("docs", "BUILD.md")
    section = text[text.index("## 1. Parts"):text.index("## 2.")]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    assert head[:3] == ["part", "part number or common name", "unit"] \
        and head[-1] == "£ a unit", head
    rows = {}
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        assert len(cells) == len(head), ln
        price = cells[-1]
        if price == "–":
            each = None
        else:
            m = re.fullmatch(r"(\d+(?:\.\d+)?)–(\d+(?:\.\d+)?)", price)
            assert m, price
            each = (float(m.group(1)), float(m.group(2)))
        rows[cells[0]] = (cells[2], [int(q) for q in cells[3:-1]], each)
    return head[3:-1], rows, section


def stated_totals(text):
    m = re.search(r"Totals, each the sum of its column's rows[^*]*\*\*(.*?)\*\*", text,
                  re.S)
    assert m, "no totals line"
    return [(int(a), int(b)) for a, b in re.findall(r"£(\d+)–(\d+)", m.group(1))]


def computed_totals(rows, ncols):
    out = []
    for k in range(ncols):
        low = sum(q[k] * each[0] for _, q, each in rows.values() if each)
        high = sum(q[k] * each[1] for _, q, each in rows.values() if each)
        out.append((math.floor(low), math.ceil(high)))
    return out


def test_the_stated_totals_are_the_sums_of_the_rows():
    columns, rows, section = parts_table()
    assert columns == ["4 seats", "8 seats", "casino, 8 seats"]
    assert stated_totals(section) == computed_totals(rows, len(columns))


def test_the_readme_quotes_the_same_totals():
    _, rows, section = parts_table()
    readme = read("README.md")
    quoted = [(int(a), int(b)) for a, b in re.findall(r"£(\d+)–(\d+)", readme)]
    assert quoted and quoted == stated_totals(section)[:len(quoted)]
    assert len(quoted) >= 2                    # 4 seats and 8 seats at least


def test_a_sum_that_does_not_add_up_is_caught():
    columns, rows, section = parts_table()
    rows = dict(rows)
    unit, q, each = rows["displays"]
    rows["displays"] = (unit, q, (each[0] + 1, each[1]))
    assert computed_totals(rows, len(columns)) != stated_totals(section)


def test_each_table_buys_a_sticker_and_a_card_for_every_card_of_its_packs():
    columns, rows, _ = parts_table()
    # participants (the banker counted) and packs of each column: C1, C4 ruling
    packs = {"4 seats": 1, "8 seats": 2, "casino, 8 seats": 8}
    seats = {"4 seats": 4, "8 seats": 8, "casino, 8 seats": 8}
    for k, col in enumerate(columns):
        tags = rows["tags"][1][k]
        assert 52 * packs[col] < tags <= 52 * packs[col] * 1.2, (col, tags)  # a few spare
        assert rows["cards"][1][k] == packs[col]
        assert rows["displays"][1][k] == seats[col] + 1          # and the banker's
        assert rows["display cable"][1][k] == seats[col] + 1
        assert rows["connectors"][1][k] == 2 * (seats[col] + 1)  # both ends of a cable


def test_every_part_the_wiring_draws_is_bought():
    c = W.board_constants("pico")
    _, rows, _ = parts_table()
    drawn = {r[3] for r in W.connections(c)}
    bought = {"PN532 + TCA9548A": "NFC reader", "PN532": "NFC reader",
              "TCA9548A": "I2C switch", "displays": "displays", "buzzer": "buzzer",
              "3.3 V regulator": "3.3 V supply for the reader and displays",
              "I2C pull-ups": "pull-ups", "buttons": "buttons"}
    for part in drawn:
        name = "buttons" if part.startswith("button") else part
        assert bought[name] in rows, part
    for needed in ("USB supply", "USB cable", "cards", "tags", "microcontroller"):
        assert needed in rows, needed
    assert rows["buttons"][1] == [len(c["BUTTONS"])] * 3
