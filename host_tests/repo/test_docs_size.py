"""docs/DEVELOPING.md is a reference, not a log: it stays short enough to read (history is
git's), and every link into it from the repository lands on one of its headings."""
import os
import re

from conftest import ROOT

DEVELOPING = os.path.join(ROOT, "docs", "DEVELOPING.md")
MAX_LINES = 500
LINK = re.compile(r"DEVELOPING\.md#([A-Za-z0-9_-]+)")
LINKING = ("README.md", "docs", "boards", "tools", "host_tests", "firmware")


def anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text):
    return {anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def links_into_developing():
    found = []
    for name in LINKING:
        top = os.path.join(ROOT, name)
        paths = [top] if os.path.isfile(top) else [
            os.path.join(d, f) for d, _, files in os.walk(top) for f in files
            if f.endswith((".md", ".py"))]
        for path in paths:
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    for target in LINK.findall(line):
                        found.append(("%s:%d" % (os.path.relpath(path, ROOT), number), target))
    return found


def test_developing_stays_under_500_lines():
    with open(DEVELOPING, encoding="utf-8") as f:
        lines = f.read().count("\n")
    assert lines < MAX_LINES, ("docs/DEVELOPING.md has %d lines: it is a reference (what each "
                               "part does, how it is measured, the figures), history is git's"
                               % lines)


def test_every_link_into_developing_lands_on_a_heading():
    with open(DEVELOPING, encoding="utf-8") as f:
        have = anchors(f.read())
    links = links_into_developing()
    assert len(links) >= 10, links                  # README's list of sections, at least
    bad = ["%s: #%s" % (where, target) for where, target in links if target not in have]
    assert bad == [], "links to no heading of docs/DEVELOPING.md:\n" + "\n".join(bad)


def test_the_anchor_rule_is_githubs():
    assert anchor(" The table: controller, buttons, serial line (`firmware/app.py`)") == \
        "the-table-controller-buttons-serial-line-firmwareapppy"
    assert anchor(" Fit and speed on the virtual Pico (`tools/bench_pico.py`)") == \
        "fit-and-speed-on-the-virtual-pico-toolsbench_picopy"
    assert anchor(" `make play`: sit at the simulated table") == \
        "make-play-sit-at-the-simulated-table"
