"""Every make target the README names runs in the suite, on a short setting where it is long,
so that none can hang or break unseen (issue 40: `make bench` waited for ever, `make vpico`
crashed at its first line).

`make bench` as a whole takes minutes: each of its recipe lines is run here on a short
setting (a few lines, one short session), or by the test file named beside it; the Makefile's
recipe must be exactly the lines listed, so a bench script added later needs a row here."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

# each `make bench` recipe line -> the short run of the same script here, or the test file
# that runs it (the vpico ones are slow: they are run once, where their goals are asserted)
BENCH = {
    "tools/bench_engine.py": ["tools/bench_engine.py", "--seats", "2", "--repeat", "1"],
    "tools/bench_hw.py": ["tools/bench_hw.py"],
    "tools/bench_app.py": ["tools/bench_app.py", "--seats", "2"],
    "tools/odds.py --packs 8 --dealer h17": "host_tests/repo/test_readme_figures.py",
    "tools/odds.py --packs 8 --dealer s17": "host_tests/repo/test_readme_figures.py",
    "tools/odds.py --packs 8 --dealer casino": "host_tests/repo/test_readme_figures.py",
    "tools/simulate.py --preset casino --deals 200000 --seats 5 --strategy basic --seed 1 "
    "--packs 8": ["tools/simulate.py", "--preset", "casino", "--deals", "200", "--seats", "5",
                  "--strategy", "basic", "--seed", "1", "--packs", "8"],
    "tools/bench_reader.py": ["tools/bench_reader.py", "--arrivals", "20"],
    "tools/bench_field_edge.py": ["tools/bench_field_edge.py", "--sessions", "1"],
    "tools/bench_field_edge.py --pico --sessions 1 --seats 3 --events 80":
        "host_tests/pico/test_vpico_field_edge.py",
    "tools/bench_load.py": ["tools/bench_load.py", "--lines", "20"],
    "tools/bench_fingers.py": "host_tests/controller/test_fingers.py",
    "tools/shuffles.py --calibrate --trials 1000": ["tools/shuffles.py", "--calibrate",
                                                   "--trials", "40"],
    "tools/dealer.py --sessions 100": "host_tests/controller/test_dealer_soak.py",
    "tools/dealer.py --pico --sessions 3": "host_tests/pico/test_vpico_deck.py",
    "tools/fault_campaign.py --sessions 200": "host_tests/controller/test_faults.py",
    "tools/bench_pico.py": "host_tests/pico/test_pico_goals.py",
    "tools/bench_pico.py --only frozen --flash-times max": "host_tests/pico/test_pico_flash_max.py",
    "tools/bench_torn.py": "host_tests/pico/test_vpico_torn.py",
    "tools/card_timeline.py": "host_tests/pico/test_card_timeline.py",
    "tools/card_timeline.py --percentile 95 --out out/bench/card_timeline_p95.png":
        "host_tests/pico/test_card_timeline.py",
    "tools/card_timeline.py --board pico_w --out out/bench/card_timeline_w.png":
        "host_tests/pico/test_card_timeline.py",
}

# each make target the README names -> the tool its recipe runs and the test file that runs
# that tool (on a short setting where it is long)
TARGETS = {
    "sim": ("tools/sim.py", "host_tests/sim/test_sim_pictures.py", "tools\", \"sim.py\""),
    "play": ("tools/play.py", "host_tests/sim/test_play_browser.py", "tools/play.py"),
    "vpico": ("tools/vpico/session.py", "host_tests/pico/test_vpico_session.py",
              "session.py"),
    "bench": (None, "host_tests/repo/test_make_targets.py", "BENCH"),
    "uf2": ("tools/uf2.py", "host_tests/pico/test_uf2.py", "\"uf2.py\""),
    "deploy": ("tools/deploy.py", "host_tests/pico/test_deploy.py", "\"--dry-run\""),
    "wiring": ("tools/wiring.py", "host_tests/repo/test_wiring.py", "W.stale("),
    "night": ("tools/night.py", "host_tests/sim/test_night.py", "\"night.py\""),
    "architecture": ("tools/architecture.py", "host_tests/repo/test_architecture.py",
                     "A.stale("),
}


def recipe(target):
    with open(os.path.join(ROOT, "Makefile")) as f:
        make = f.read()
    body = make[make.index("\n%s:" % target):].split("\n\n")[0]
    return [ln.strip().replace("$(PY) ", "") for ln in body.splitlines()[1:]
            if ln.startswith("\t")]


def test_the_bench_recipe_is_exactly_the_lines_covered_here():
    assert recipe("bench") == list(BENCH)


def test_every_make_target_the_readme_names_is_run_by_the_suite():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        named = set(re.findall(r"`make (\w+)", f.read())) - {"test"}
    assert named == set(TARGETS), named ^ set(TARGETS)
    for target, (tool, test, marker) in TARGETS.items():
        if tool:
            assert any(ln.startswith(tool) for ln in recipe(target)), (target, recipe(target))
        with open(os.path.join(ROOT, test), encoding="utf-8") as f:
            assert marker in f.read(), (target, test, marker)
    for line, short in BENCH.items():
        if isinstance(short, str):
            with open(os.path.join(ROOT, short), encoding="utf-8") as f:
                text = f.read()
            script = line.split()[0].rsplit("/", 1)[1]
            assert script in text or script[:-3] in text, (line, short)


# what the short run must print (its last figure line), besides ending with status 0
PRINTS = {
    "tools/bench_engine.py": r"ratio CPython / MicroPython: +\d",
    "tools/bench_hw.py": r"bytes allocated per empty-field poll",
    "tools/bench_app.py": r"smallest heap: \d+k",
    "tools/simulate.py": r"rules casino: 200 deals",
    "tools/bench_reader.py": r"read time: [\d.]+ ms worst",
    "tools/bench_field_edge.py": r"lost in silence 0, misattributed 0",
    # the flood starts at the table's first prompt, on a fresh flash ('# new session') as on
    # one that held a session ('# resume'): every line is answered
    "tools/bench_load.py": r"20 pasted 'status' lines answered at \d+ lines/s",
    "tools/shuffles.py": r"fair +flagged +[\d.]+%",
}


@pytest.mark.parametrize("line", [k for k, v in BENCH.items() if isinstance(v, list)])
def test_each_bench_line_runs_to_its_end_on_a_short_setting(line):
    args = BENCH[line]
    assert args[0] == line.split()[0]
    p = subprocess.run([sys.executable] + args, cwd=ROOT, capture_output=True, text=True,
                       timeout=300, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Traceback" not in p.stdout + p.stderr
    assert re.search(PRINTS[args[0]], p.stdout), p.stdout[-2000:]
