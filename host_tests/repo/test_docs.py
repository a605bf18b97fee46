"""The repository stands on its own: the rule book and the transcript language are its own
files (docs/RULES.md, docs/TRANSCRIPT.md), every rule ID the code, tests and docs cite is
defined there, nothing refers to a file outside the repository or to an absolute path of
one machine (the virtual Pico's firmware files aside), and every document named (DEVICES.md,
docs/ARCHITECTURE.md, ...) is a file of the repository."""
import os
import re

from conftest import ROOT

from game import engine as E

DOCS = os.path.join(ROOT, "docs")
SKIP_DIRS = {".git", ".venv", "node_modules", "out", "build", "__pycache__", ".pytest_cache",
             ".hypothesis"}
TEXT_EXT = (".py", ".md", ".txt", ".json", ".toml", ".cfg", ".ini", ".sh", ".yml",
            ".yaml", "Makefile", "run", ".gitignore")
# Built from pieces so that this file does not match itself.
OUTSIDE = re.compile("/" + "work/|" + r"\.\./" + "shared/")
# The virtual Pico's firmware files are found beside the checkout (or via $VPICO_FIRMWARE).
ALLOWED = ("../" + "shared/pico", "../" + "shared/micropython-lib")
RULE_ID = re.compile(r"\b([CHBDPKSNTRVX]\d{1,2})\b")
CITING = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tools"),
          os.path.join(ROOT, "host_tests"), DOCS]


def repo_text_files():
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            if name.endswith(TEXT_EXT):
                yield os.path.join(top, name)


def outside_references(path):
    bad = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            rest = line
            for ok in ALLOWED:
                rest = rest.replace(ok, "")
            if OUTSIDE.search(rest):
                bad.append("%s:%d: %s" % (os.path.relpath(path, ROOT), number, line.strip()))
    return bad


def test_nothing_refers_outside_the_repository():
    bad = []
    n = 0
    for path in repo_text_files():
        n += 1
        bad += outside_references(path)
    assert n > 100, "walked only %d files from %s" % (n, ROOT)
    assert bad == [], "references outside the repository:\n" + "\n".join(bad)


def test_the_outside_reference_check_can_fail(tmp_path):
    md = ".md"                          # in pieces, so that this file does not match itself
    p = tmp_path / ("x" + md)
    p.write_text("see ../" + "shared/RULES" + md + "\nor /" + "work/shared/TRANSCRIPT" + md
                 + "\nthe VM firmware: ../" + "shared/pico/README" + md + "\n")
    assert len(outside_references(str(p))) == 2


# A document named in the repository: "docs/RULES.md", "TRANSCRIPT.md", "[x](../README.md)".
DOC_NAME = re.compile(r"(?<![\w./-])((?:\.\./|\./)*(?:[\w-]+/)*[\w-]+\.md)\b")


def missing_documents(path):
    """Document names in `path` that name no file of the repository. A bare name may be
    the file's neighbour, a top-level file or one of docs/; a path is taken from the
    file's folder or from the repository's root."""
    here = os.path.dirname(path)
    bad = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            for ok in ALLOWED:
                line = line.replace(ok, "")
            for name in DOC_NAME.findall(line):
                if "/" in name:
                    places = (here, ROOT)
                else:
                    places = (here, ROOT, DOCS)
                if not any(os.path.isfile(os.path.join(p, name)) for p in places):
                    bad.append("%s:%d: %s" % (os.path.relpath(path, ROOT), number, name))
    return bad


def test_every_document_named_is_in_the_repository():
    bad = []
    for path in repo_text_files():
        bad += missing_documents(path)
    assert bad == [], "documents named but not in the repository:\n" + "\n".join(bad)


def test_the_missing_document_check_can_fail(tmp_path):
    md = ".md"                          # in pieces, so that this file does not match itself
    p = tmp_path / "notes.txt"
    p.write_text("the guide: DEVELOPERS%s, STYLE%s, docs/SETUP%s, [old](../GUIDE%s)\n"
                 "in the repository: README%s, docs/RULES%s, TRANSCRIPT%s, DEVICES%s, "
                 "ARCHITECTURE%s, [b](boards/README%s)\n" % ((md,) * 10))
    bad = missing_documents(str(p))
    assert [b.split(": ", 1)[1] for b in bad] == [
        "DEVELOPERS" + md, "STYLE" + md, "docs/SETUP" + md, "../GUIDE" + md]


def book_ids():
    with open(os.path.join(DOCS, "RULES.md"), encoding="utf-8") as f:
        return set(re.findall(r"^- \*\*([A-Z]\d+)\b", f.read(), re.M))


def test_every_cited_rule_id_is_in_the_rule_book():
    ids = book_ids()
    expected = (["C%d" % i for i in range(1, 5)] + ["H%d" % i for i in range(1, 8)]
                + ["B1", "B2"] + ["D%d" % i for i in range(1, 5)]
                + ["P%d" % i for i in range(1, 11)] + ["K1", "K2"]
                + ["S%d" % i for i in range(1, 5)] + ["N%d" % i for i in range(1, 5)]
                + ["T1", "T2", "T3"] + ["V%d" % i for i in range(1, 9)]
                + ["X%d" % i for i in range(1, 9)] + ["R1", "R2"])
    assert sorted(ids) == sorted(expected)
    cited = {}
    for top in CITING:
        for base, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and d != "mp"]
            for name in files:
                if not name.endswith((".py", ".md", ".txt")) or name == "DEVICES.md":
                    continue                # DEVICES.md: chip command codes, not rules
                with open(os.path.join(base, name), encoding="utf-8") as f:
                    for i in RULE_ID.findall(f.read()):
                        cited.setdefault(i, name)
    unknown = {i: where for i, where in cited.items() if i not in ids}
    assert not unknown, "rule IDs cited but not in docs/RULES.md: %s" % unknown
    assert len(cited) >= 55


def test_the_rule_book_says_where_the_rules_come_from():
    with open(os.path.join(DOCS, "RULES.md"), encoding="utf-8") as f:
        text = f.read()
    assert "pagat.com" in text and "RULINGS.md" in text and "TRANSCRIPT.md" in text
    for preset in ("`table`", "`classic`", "`casino`"):
        assert preset in text
    assert text.count("**Ruling") >= 15


def test_the_transcript_language_matches_the_parser():
    """Every event keyword of docs/TRANSCRIPT.md is one the parser knows, and back."""
    with open(os.path.join(DOCS, "TRANSCRIPT.md"), encoding="utf-8") as f:
        text = f.read()
    events = text.split("## Events", 1)[1].split("Who acts when", 1)[0]
    words = set(re.findall(r"^\| `([a-z]+)[ `]", events, re.M))
    assert words == set(E.EVENT_WORDS[1:])
    for key in ('"rules"', '"events"', '"deals"', '"balances"', '"kitty"', '"banker"',
                '"finished"', '"winners"', "royal-pontoon", "five-card-trick"):
        assert key in text
    for header in ("`rules PRESET", "`seats N`", "`banker S`", "`packs K`"):
        assert header in text
