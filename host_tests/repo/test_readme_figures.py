"""The README's figures are copied from `make bench`, and each table names the output line
it copied. The quick, deterministic ones are checked here against a fresh run: the bus
figures of tools/bench_hw.py (simulated clock) and the exact odds of tools/odds.py (h17, s17
and the casino dealer's rule). (The heap searches and speeds of bench_engine.py /
bench_app.py take minutes: `make bench`.)"""
import os
import re
import subprocess
import sys

from conftest import ROOT


def readme():
    """The README and docs/DEVELOPING.md, where its figures went."""
    text = ""
    for name in ("README.md", os.path.join("docs", "DEVELOPING.md")):
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            text += f.read() + "\n"
    return text


def run(*args):
    p = subprocess.run([sys.executable] + list(args), cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def section(text, start):
    i = text.index(start)
    j = text.index("\n\n", text.index("|---", i))
    return text[i:j]


def numbers(cell):
    return [n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", cell)]


def test_bench_makes_every_readme_figure():
    with open(os.path.join(ROOT, "Makefile")) as f:
        make = f.read()
    bench = make[make.index("\nbench:"):].split("\n\n")[0]
    text = readme()
    for cmd in ("tools/bench_engine.py", "tools/bench_hw.py", "tools/bench_app.py",
                "tools/odds.py --packs 8 --dealer h17", "tools/odds.py --packs 8 --dealer s17",
                "tools/odds.py --packs 8 --dealer casino",
                "tools/simulate.py --preset casino --deals 200000 --seats 5 --strategy basic "
                "--seed 1 --packs 8"):
        assert cmd in bench, cmd
        assert cmd.split(" --dealer")[0] in text, cmd      # the README names its command


def test_bus_figures_match_bench_hw():
    out = run("tools/bench_hw.py", "--no-heap").splitlines()
    rows = section(readme(), "Printed by `.venv/bin/python3 tools/bench_hw.py`")
    checked = 0
    for row in rows.splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) != 4 or not cells[3].startswith("`") or "heapsize" in cells[3] \
                or "heap for" in cells[3]:
            continue
        prefix = cells[3].strip("`")
        lines = [ln for ln in out if ln.startswith(prefix)]
        assert lines, prefix
        got = numbers(lines[0])
        for figure in numbers(cells[1]) + numbers(cells[2]):
            assert figure in got, (prefix, figure, lines[0])
        checked += 1
    assert checked == 7


def test_odds_table_matches_odds_py():
    table = section(readme(), "Eight packs (416 cards), printed by")
    for column, rule in ((1, "h17"), (2, "s17"), (3, "casino")):
        out = run("tools/odds.py", "--packs", "8", "--dealer", rule)
        printed = {ln.split()[0]: ln.split()[1] for ln in out.splitlines()[3:-1]}
        rows = [r for r in table.splitlines() if r.startswith("| ") and "%" in r]
        assert len(rows) == 8
        for row in rows:
            cells = [c.strip() for c in row.strip("|").split("|")]
            assert printed[cells[0]] == cells[column], (rule, cells)
