"""Issue 3: the `classic` variations (V1-V8), Shoot Pontoon (X1-X8), the sale of the bank
(N4) and the validation of the `rules` options.

* Every scenario under scenarios/classic_options/ and scenarios/shoot/ is replayed with
  CPython and compared with its hand-computed `NAME.expect.json` (a subset of the
  replayer's JSON, see docs/TRANSCRIPT.md), so these checks run on their own.
* Their `# checks:` lines together must cover V1-V8, X1-X8 and N4.
* Every `scenarios/bad_options/*.bad` must make tools/replay.py exit 2 with a one-line
  message on stderr that names the allowed values.
"""
import glob
import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # host_tests/
ROOT = os.path.dirname(HERE)
SCEN = os.path.join(HERE, "scenarios")
REPLAY = os.path.join(ROOT, "tools", "replay.py")
MY_DIRS = ("classic_options", "shoot")
BAD_DIR = os.path.join(SCEN, "bad_options")


def _scenarios():
    out = []
    for d in MY_DIRS:
        out.extend(sorted(glob.glob(os.path.join(SCEN, d, "*.txt"))))
    return out


SCENARIOS = _scenarios()


def _id(path):
    return os.path.relpath(path, SCEN)


def replay(path):
    return subprocess.run([sys.executable, REPLAY, path], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def marked_rejections(path):
    """Line numbers of event lines whose comment says `# REJECTED`."""
    with open(path) as f:
        return [n for n, line in enumerate(f, 1)
                if "# REJECTED" in line and not line.lstrip().startswith("#")]


def checks_of(path):
    with open(path) as f:
        first = f.readline()
    m = re.match(r"#\s*checks:\s*(.*)$", first.strip())
    return m.group(1).split() if m else None


# ------------------------------------------------------------------ the expect subset
def subset_errors(expected, actual, where):
    """Every key of an expected dict must match; lists match element by element and
    must have the same length (each deal, each hand is listed); scalars are equal."""
    errs = []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return ["%s: expected an object, got %r" % (where, actual)]
        for k, v in expected.items():
            if k not in actual:
                errs.append("%s.%s: missing (expected %r)" % (where, k, v))
            else:
                errs.extend(subset_errors(v, actual[k], "%s.%s" % (where, k)))
    elif isinstance(expected, list):
        if not isinstance(actual, list):
            return ["%s: expected a list, got %r" % (where, actual)]
        if len(expected) != len(actual):
            errs.append("%s: expected %d items, got %d" % (where, len(expected), len(actual)))
        for i, (e, a) in enumerate(zip(expected, actual)):
            errs.extend(subset_errors(e, a, "%s[%d]" % (where, i)))
    elif type(expected) is not type(actual) or expected != actual:
        errs.append("%s: expected %r, got %r" % (where, expected, actual))
    return errs


def compare(expect, doc):
    errs = []
    for key, want in expect.items():
        if key == "rejected_lines":
            got = sorted(e["line"] for e in doc["events"] if not e["ok"])
            if sorted(want) != got:
                reasons = {e["line"]: e["error"] for e in doc["events"]}
                errs.append("rejected_lines: expected %s, got %s (%s)" % (
                    sorted(want), got, reasons))
        elif key not in doc:
            errs.append("%s: missing from the replayer output" % key)
        else:
            errs.extend(subset_errors(want, doc[key], key))
    return errs


def test_scenarios_exist():
    assert len(SCENARIOS) >= 35, "expected at least 35 scenarios in %s, found %d" % (
        ", ".join(MY_DIRS), len(SCENARIOS))
    for path in SCENARIOS:
        assert os.path.exists(path[:-4] + ".expect.json"), "%s has no .expect.json" % _id(path)
    # bad option files must never be picked up as scenarios
    assert not glob.glob(os.path.join(BAD_DIR, "*.txt"))


@pytest.mark.parametrize("path", SCENARIOS, ids=_id)
def test_scenario_expectations(path):
    assert checks_of(path), "%s: the first line must be '# checks: ID ...'" % _id(path)
    with open(path[:-4] + ".expect.json") as f:
        expect = json.load(f)
    assert sorted(expect.get("rejected_lines", [])) == marked_rejections(path), (
        "%s: rejected_lines disagree with the `# REJECTED` markers" % _id(path))
    r = replay(path)
    assert r.returncode == 0, "%s: replay exit %d: %s" % (_id(path), r.returncode, r.stderr)
    doc = json.loads(r.stdout)
    errs = compare(expect, doc)
    assert not errs, "%s:\n  " % _id(path) + "\n  ".join(errs)
    # R1: money is conserved (the kitty included)
    assert sum(doc["balances"].values()) + doc["kitty"] == 0


def test_checks_cover_variations_shoot_and_sale():
    ids = set()
    for path in SCENARIOS:
        ids.update(checks_of(path) or [])
    need = {"V%d" % i for i in range(1, 9)} | {"X%d" % i for i in range(1, 9)} | {"N4"}
    missing = sorted(need - ids)
    assert not missing, "no scenario checks %s" % ", ".join(missing)


# ------------------------------------------------------------------ option validation
_PAYS = ("1 to 3", "1-3", "1..3", "1, 2, 3", "1, 2 or 3", "1, 2, or 3")
_STICK = ("15 to 16", "15-16", "15..16", "15 or 16", "15, 16")
_ONOFF = [("on",), ("off",)]
_ORDERS = [("equal",), ("picture_beats_ten",), ("natural_beats_plain",), ("ace_ten_ordinary",)]
_NAMES = ["stake_min", "stake_max", "split_aces_only", "stick_min", "banker_doubling",
          "pontoon_pays", "banker_pontoon_collects_single", "four_card_eleven_twist_only",
          "royal_pontoon", "pontoon_order", "burn", "shoot", "kitty_min", "kitty_max"]

# file -> what the one-line message must name: each tuple lists acceptable spellings.
BAD = {
    "unknown_option": [("colour",)] + [(n,) for n in _NAMES],
    "unknown_preset": [("blackjack",), ("table",), ("classic",), ("casino",)],
    "stick_min_17": [("stick_min",), _STICK],
    "stick_min_14": [("stick_min",), _STICK],
    "pontoon_pays_4": [("pontoon_pays",), _PAYS],
    "pontoon_pays_0": [("pontoon_pays",), _PAYS],
    "pontoon_pays_word": [("pontoon_pays",), _PAYS],
    "burn_15": [("burn",), ("13",), ("14",), ("off",)],
    "burn_on": [("burn",), ("13",), ("14",), ("off",)],
    "pontoon_order_unknown": [("pontoon_order",)] + _ORDERS,
    "shoot_yes": [("shoot",)] + _ONOFF,
    "royal_pontoon_1": [("royal_pontoon",)] + _ONOFF,
    "stake_max_0": [("stake_max",), ("from 1", "at least 1", "1 to", "1..", ">= 1")],
    "kitty_min_above_max": [("kitty_min",), ("kitty_max",)],
    "stake_min_above_max": [("stake_min",), ("stake_max",)],
    "table_burn": [("burn",), ("classic",)],
    "table_royal_pontoon": [("royal_pontoon",), ("classic",)],
    "table_stake_max": [("stake_max",), ("classic",), ("casino",)],
    "casino_shoot": [("shoot",), ("classic",)],
    "casino_split_aces_only": [("split_aces_only",), ("classic",)],
    "casino_banker_doubling": [("banker_doubling",), ("classic",)],
}
BAD_FILES = sorted(glob.glob(os.path.join(BAD_DIR, "*.bad")))


def test_bad_option_files_all_described():
    names = {os.path.basename(p)[:-4] for p in BAD_FILES}
    assert names, "no bad_options/*.bad files found"
    assert names == set(BAD), "bad_options files and BAD table differ: %s" % sorted(
        names ^ set(BAD))


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: os.path.basename(p))
def test_bad_option_rejected(path):
    r = replay(path)
    assert r.returncode == 2, "exit %d, stdout %r" % (r.returncode, r.stdout[:200])
    assert r.stdout == ""
    msg = r.stderr
    assert msg.endswith("\n") and msg.count("\n") == 1, "not one line: %r" % msg
    for alternatives in BAD[os.path.basename(path)[:-4]]:
        assert any(a in msg for a in alternatives), "%r does not name %s" % (
            msg, " / ".join(alternatives))
