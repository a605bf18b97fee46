"""Transcript scenarios (host_tests/scenarios/<preset>/*.txt) replayed through tools/replay.py.

Each scenario has
  NAME.txt          the transcript; first line `# checks: ID ...` lists the rule IDs it pins;
                    an event line whose comment contains `# REJECTED` must be rejected
  NAME.expect.json  hand-computed expectations (a subset of the replayer's JSON document)
  NAME.txt.json     the golden: the full replayer output, written by regen_golden.py

Checks per scenario: exit 0 and valid JSON; golden byte for byte; expectations subset;
the MicroPython unix port prints the same bytes; `# checks:` IDs exist in docs/RULES.md.
The `classic` options' and Shoot Pontoon's scenarios (scenarios/classic_options/, shoot/;
their expectations are test_options.py's) are held to their goldens on both runtimes too:
every folder is, but the refused input's (bad/, bad_options/: exit 2 and the same one
line on stderr on both runtimes), and a new folder is checked as soon as it exists.
Plus: rule coverage over all scenarios, and exit 2 for unreadable / unparsable input, a
header out of its range named with that range on both runtimes.
"""
import glob
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import FIRMWARE, ROOT, run_micropython

SCEN = os.path.join(ROOT, "host_tests", "scenarios")
BAD = os.path.join(SCEN, "bad")
REPLAY = os.path.join(ROOT, "tools", "replay.py")
RULES_MD = os.path.join(ROOT, "docs", "RULES.md")     # the project's own rule book
PRESETS = ("table", "classic", "casino")
MIN_PER_PRESET = 8

# Every rule ID the scenarios must cover (C1-C4, H1-H7, B1-B2, D1-D4, P1-P10, K1-K2, S1-S4,
# N1-N3, T1-T3, R1-R2).
REQUIRED = (
    ["C%d" % i for i in range(1, 5)]
    + ["H%d" % i for i in range(1, 8)]
    + ["B1", "B2"]
    + ["D%d" % i for i in range(1, 5)]
    + ["P%d" % i for i in range(1, 11)]
    + ["K1", "K2"]
    + ["S%d" % i for i in range(1, 5)]
    + ["N1", "N2", "N3"]
    + ["T1", "T2", "T3"]
    + ["R1", "R2"]
)


def scenario_files():
    out = []
    for preset in PRESETS:
        out.extend(sorted(glob.glob(os.path.join(SCEN, preset, "*.txt"))))
    return out


SCENARIOS = scenario_files()
IDS = [os.path.relpath(p, SCEN) for p in SCENARIOS]
# the folders of input the replayer must refuse (exit 2, one line on stderr), by pattern;
# every other folder holds scenarios, each held to its full golden on both runtimes
REFUSED = {"bad": "*.txt", "bad_options": "*.bad"}
GOLDEN_DIRS = sorted(d for d in os.listdir(SCEN)
                     if os.path.isdir(os.path.join(SCEN, d)) and d not in REFUSED)
OPTION_DIRS = tuple(d for d in GOLDEN_DIRS if d not in PRESETS)   # classic_options, shoot
GOLDEN = SCENARIOS + [p for d in OPTION_DIRS
                      for p in sorted(glob.glob(os.path.join(SCEN, d, "*.txt")))]
GOLDEN_IDS = [os.path.relpath(p, SCEN) for p in GOLDEN]
REFUSED_FILES = [p for d, pattern in sorted(REFUSED.items())
                 for p in sorted(glob.glob(os.path.join(SCEN, d, pattern)))]


def run_cpython(path):
    return subprocess.run([sys.executable, REPLAY, path], capture_output=True, timeout=120,
                          cwd=ROOT)


_cache = {}


def replay(path):
    if path not in _cache:
        _cache[path] = run_cpython(path)
    return _cache[path]


def rule_ids():
    ids = set()
    with open(RULES_MD, encoding="utf-8") as f:
        for m in re.finditer(r"^- \*\*([A-Z]\d+)\b", f.read(), re.M):
            ids.add(m.group(1))
    return ids


def checks_of(path):
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    m = re.match(r"#\s*checks:\s*(.*)$", first.strip())
    return m.group(1).split() if m else None


def marked_rejections(path):
    """Line numbers of event lines carrying a `# REJECTED` comment."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if "# REJECTED" in line and not line.lstrip().startswith("#"):
                out.append(n)
    return out


# ---------------------------------------------------------------- subset comparison
def subset_diffs(expected, actual, where="$"):
    """List of human-readable differences where `expected` is not contained in `actual`."""
    diffs = []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return ["%s: expected an object %s, got %s" % (where, _short(expected), _short(actual))]
        for k, v in expected.items():
            if k not in actual:
                diffs.append("%s.%s: missing (expected %s)" % (where, k, _short(v)))
            else:
                diffs.extend(subset_diffs(v, actual[k], "%s.%s" % (where, k)))
    elif isinstance(expected, list) and expected and isinstance(expected[0], dict):
        # a list of objects (deals, hands): same length, element-wise subsets
        if not isinstance(actual, list) or len(actual) != len(expected):
            diffs.append("%s: expected %d entries, got %s" % (
                where, len(expected), len(actual) if isinstance(actual, list) else _short(actual)))
        if isinstance(actual, list):
            for i, (e, a) in enumerate(zip(expected, actual)):
                diffs.extend(subset_diffs(e, a, "%s[%d]" % (where, i)))
    else:
        if expected != actual or type(expected) is not type(actual):
            diffs.append("%s: expected %s, got %s" % (where, _short(expected), _short(actual)))
    return diffs


def _short(v):
    s = json.dumps(v)
    return s if len(s) < 200 else s[:197] + "..."


def check_expectations(expect, doc):
    diffs = []
    for key, value in expect.items():
        if key == "rejected_lines":
            got = sorted(e["line"] for e in doc.get("events", []) if e.get("ok") is False)
            if sorted(value) != got:
                extra = sorted(set(got) - set(value))
                missing = sorted(set(value) - set(got))
                why = {e["line"]: e.get("error") for e in doc.get("events", [])}
                diffs.append("rejected_lines: expected %s, got %s" % (sorted(value), got))
                for n in extra:
                    diffs.append("  line %d rejected but should be accepted: %s" % (n, why.get(n)))
                for n in missing:
                    diffs.append("  line %d accepted but should be rejected" % n)
        elif key not in ("balances", "kitty", "banker", "finished", "winners", "deals"):
            diffs.append("unknown expectation key %r" % key)
        elif key not in doc:
            diffs.append("%s: missing from the replayer output" % key)
        elif key == "deals":
            diffs.extend(subset_diffs(value, doc["deals"], "deals"))
        elif value != doc[key]:
            diffs.append("%s: expected %s, got %s" % (key, _short(value), _short(doc[key])))
    return diffs


# ---------------------------------------------------------------- per-scenario tests
def test_scenarios_exist():
    assert SCENARIOS, "no scenario found under %s" % SCEN
    for preset in PRESETS:
        n = len(glob.glob(os.path.join(SCEN, preset, "*.txt")))
        assert n >= MIN_PER_PRESET, "preset %s has %d scenarios, needs %d" % (
            preset, n, MIN_PER_PRESET)


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_replay_runs(path):
    r = replay(path)
    assert r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace"))
    doc = json.loads(r.stdout)
    assert isinstance(doc, dict) and "deals" in doc


@pytest.mark.parametrize("path", GOLDEN, ids=GOLDEN_IDS)
def test_golden(path):
    golden = path + ".json"
    assert os.path.exists(golden), "no golden %s: see host_tests/regen_golden.py" % golden
    with open(golden, "rb") as f:
        want = f.read()
    got = replay(path).stdout
    assert got == want, "output differs from the golden %s" % os.path.relpath(golden, ROOT)


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_expectations(path):
    exp_path = path[:-4] + ".expect.json"
    assert os.path.exists(exp_path), "missing %s" % exp_path
    with open(exp_path, encoding="utf-8") as f:
        expect = json.load(f)
    assert "rejected_lines" in expect, "every scenario pins its rejected lines"
    assert sorted(expect["rejected_lines"]) == marked_rejections(path), (
        "rejected_lines %s disagree with the `# REJECTED` markers %s" % (
            sorted(expect["rejected_lines"]), marked_rejections(path)))
    r = replay(path)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    diffs = check_expectations(expect, json.loads(r.stdout))
    assert not diffs, "%s disagrees with the hand-computed expectations:\n  %s" % (
        os.path.relpath(path, ROOT), "\n  ".join(diffs))


@pytest.mark.parametrize("path", GOLDEN, ids=GOLDEN_IDS)
def test_micropython_same_bytes(path, micropython):
    r = micropython([REPLAY, path], heapsize="256k", micropypath=FIRMWARE + ":" + ROOT)
    assert r.returncode == 0, "micropython exit %d: %s" % (
        r.returncode, r.stderr.decode(errors="replace"))
    assert r.stdout == replay(path).stdout, "MicroPython output differs from CPython"


def test_every_scenario_folder_is_held_to_its_goldens_on_both_runtimes():
    # a new folder is a scenario folder (below: golden, .expect.json, both runtimes)
    # unless it is named in REFUSED
    assert set(OPTION_DIRS) >= {"classic_options", "shoot"}
    for d in GOLDEN_DIRS:
        texts = sorted(glob.glob(os.path.join(SCEN, d, "*.txt")))
        assert texts, "%s holds no scenario" % d
        assert set(texts) <= set(GOLDEN), d
        for p in texts:
            assert os.path.exists(p + ".json"), "no golden for %s" % p
            assert os.path.exists(p[:-4] + ".expect.json"), "no expectations for %s" % p
        others = [n for n in os.listdir(os.path.join(SCEN, d))
                  if not n.endswith((".txt", ".txt.json", ".expect.json", ".md"))]
        assert others == [], (d, others)
    for d, pattern in REFUSED.items():
        assert glob.glob(os.path.join(SCEN, d, pattern)), d


@pytest.mark.parametrize("path", REFUSED_FILES,
                         ids=[os.path.relpath(p, SCEN) for p in REFUSED_FILES])
def test_refused_input_is_refused_alike_on_both_runtimes(path, micropython):
    cpython = run_cpython(path)
    vm = micropython([REPLAY, path], heapsize="256k", micropypath=FIRMWARE + ":" + ROOT)
    assert cpython.returncode == 2 and cpython.stdout == b"", cpython
    assert len(cpython.stderr.decode().strip().splitlines()) == 1, cpython.stderr
    assert (vm.returncode, vm.stdout, vm.stderr) == (2, b"", cpython.stderr)


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_checks_line(path):
    ids = checks_of(path)
    assert ids, "the first line must be `# checks: ID ...`"
    unknown = sorted(set(ids) - rule_ids())
    assert not unknown, "unknown rule IDs in # checks: %s" % unknown


def test_rule_coverage():
    assert SCENARIOS, "no scenarios"
    covered = set()
    for path in SCENARIOS:
        covered.update(checks_of(path) or ())
    missing = [i for i in REQUIRED if i not in covered]
    assert not missing, "rule IDs no scenario checks: %s" % missing


def test_rules_md_parsed():
    ids = rule_ids()
    for i in REQUIRED:
        assert i in ids, "%s not found in %s" % (i, RULES_MD)


# ---------------------------------------------------------------- unreadable input: exit 2
BAD_CASES = [
    ("missing file", os.path.join(BAD, "does_not_exist.txt")),
    ("unknown keyword", os.path.join(BAD, "unknown_keyword.txt")),
    ("bad card code", os.path.join(BAD, "bad_card.txt")),
    ("unknown rules option", os.path.join(BAD, "unknown_option.txt")),
    ("missing seats header", os.path.join(BAD, "missing_seats.txt")),
    ("seats 0", os.path.join(BAD, "seats_zero.txt")),
    ("banker 0", os.path.join(BAD, "banker_zero.txt")),
    ("packs 0", os.path.join(BAD, "packs_zero.txt")),
]
# A header line out of its range: the one line names that line's own range (0 is not the
# default of `packs` nor the cut of `banker`: no line at all is), the same on both runtimes.
HEADER_RANGES = [
    ("seats_zero.txt", "line 2: seats must be 2 to 8, the banker included, not 0"),
    ("banker_zero.txt", "line 3: banker must be a seat from 1 to 4, not 0"),
    ("packs_zero.txt", "line 4: packs must be 1 to 8, not 0"),
]


@pytest.mark.parametrize("what,path", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_input_exits_2(what, path):
    if what != "missing file":
        assert os.path.exists(path), path
    else:
        assert not os.path.exists(path)
    r = run_cpython(path)
    assert r.returncode == 2, "%s: exit %d, stdout %r" % (what, r.returncode, r.stdout[:200])
    err = r.stderr.decode(errors="replace")
    assert err.strip(), "%s: no message on stderr" % what
    assert len(err.strip().splitlines()) == 1, "%s: stderr is not one line: %r" % (what, err)
    assert r.stdout == b"", "%s: nothing may be printed on stdout" % what


@pytest.mark.parametrize("name,message", HEADER_RANGES, ids=[c[0] for c in HEADER_RANGES])
def test_header_out_of_range_names_its_range(name, message, micropython):
    path = os.path.join(BAD, name)
    cpython = run_cpython(path)
    vm = micropython([REPLAY, path], heapsize="256k", micropypath=FIRMWARE + ":" + ROOT)
    for r in (cpython, vm):
        assert r.returncode == 2 and r.stdout == b"", r
        assert r.stderr.decode() == "replay: error: %s: %s\n" % (path, message)
