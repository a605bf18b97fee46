"""tools/simulate.py and tools/strategies.py: Monte Carlo through the real engine.

Rule IDs refer to docs/RULES.md.
"""
import json
import math
import os
import subprocess
import sys

import pytest

import odds
import simulate
import strategies as S
from game.rules import parse_rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIMULATE = os.path.join(ROOT, "tools", "simulate.py")
Z99 = 2.5758293035489004


def card(text):
    """'AS' / 'TH' / '7C' -> engine card code (rank * 4 + suit)."""
    return "A23456789TJQK".index(text[0]) * 4 + "CDHS".index(text[1])


def hand(*texts, **kw):
    return S.Hand([card(t) for t in texts], **kw)


def run_cli(*args, timeout=120):
    return subprocess.run([sys.executable, SIMULATE] + list(args), capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


# ------------------------------------------------------------------ dealer vs odds.py

def test_dealer_outcomes_agree_with_exact_casino_odds():
    """K1 casino: a fresh 8-pack shoe every deal; the dealer's final hand frequencies must
    fall within the simulation's 99% intervals around tools/odds.py's exact values for the
    casino dealer (rule `casino`: he draws on any 17 holding an ace, seed 003). (h17 would
    fail: its P(17) is 0.018 higher, over three times this run's 99% half-width.)"""
    rules = parse_rules(["casino"])
    player = S.parse_strategy("basic", rules, 8)
    sim = simulate.Simulation(rules, 2, player, packs=8, seed=7, reshuffle_every_deal=True)
    sim.run(30000)
    summary = sim.summary()
    assert summary["deals"] == 30000
    assert summary["shuffles"] == 0 and summary["sessions"] == 30000  # a fresh shoe each deal
    assert summary["banker"] == "house-casino"
    exact = odds.dealer_outcomes(odds.shoe_counts(8), "casino")
    got = summary["dealer_if_played"]
    assert set(got) == set(exact)
    # The dealer did not play only when both player hands bust: rare, and missing at random
    # because the players see no dealer card (003).
    assert summary["dealer_outcomes"].get("not-drawn", {"p": 0})["p"] < 0.05
    for key, p in exact.items():
        est = got[key]
        assert abs(est["p"] - p) <= Z99 * est["se"], (key, est, p)
    assert abs(sum(v["p"] for v in got.values()) - 1.0) < 1e-9


def test_a_banker_on_the_casino_rule_agrees_with_its_exact_odds():
    """`--banker casino` (the casino dealer's K1 rule for a table banker) through the real
    engine: a fresh 8-pack shoe every deal, the banker's final hands within the 99%
    intervals around tools/odds.py's exact `casino` values."""
    rules = parse_rules(["table"])
    sim = simulate.Simulation(rules, 3, S.parse_strategy("stick-on-16", rules),
                              S.parse_banker("casino", rules), packs=8, seed=5,
                              reshuffle_every_deal=True)
    sim.run(20000)
    summary = sim.summary()
    assert summary["banker"] == "casino"
    exact = odds.dealer_outcomes(odds.shoe_counts(8), "casino")
    got = summary["dealer_if_played"]
    assert set(got) == set(exact)
    for key, p in exact.items():
        est = got[key]
        assert abs(est["p"] - p) <= Z99 * est["se"], (key, est, p)


# ------------------------------------------------------------------ statistics

def test_ratio_ci_tiny_case_by_hand():
    # nets 1, -1, 2, 0 on stakes of 1: R = 2/4 = 0.5; residuals .5 -1.5 1.5 -.5 -> 5;
    # se = sqrt(5 / (4 * 3)) / 1.
    r, se, (lo, hi) = simulate.ratio_ci([1, -1, 2, 0], [1, 1, 1, 1])
    assert r == 0.5
    assert se == pytest.approx(math.sqrt(5 / 12))
    assert lo == pytest.approx(0.5 - 1.959963984540054 * math.sqrt(5 / 12))
    assert hi == pytest.approx(0.5 + 1.959963984540054 * math.sqrt(5 / 12))
    # Unequal amounts at risk: nets 2, -1 on 2, 1 -> R = 1/3; residuals 4/3, -4/3 -> 32/9;
    # mean y = 1.5; se = sqrt(32/9 / 2) / 1.5.
    r, se, _ = simulate.ratio_ci([2, -1], [2, 1])
    assert r == pytest.approx(1 / 3)
    assert se == pytest.approx(math.sqrt(16 / 9) / 1.5)
    assert simulate.ratio_ci([3], [1])[1] is None  # one deal: no interval
    # The running-sum form used for the EV curve gives the same numbers.
    xs, ys = [1, -1, 2, 0, 5, -3], [1, 2, 1, 1, 3, 2]
    r, se, _ = simulate.ratio_ci(xs, ys)
    sums = (sum(xs), sum(ys), sum(x * x for x in xs), sum(x * y for x, y in zip(xs, ys)),
            sum(y * y for y in ys))
    r2, se2 = simulate._ratio_from_sums(len(xs), *sums)
    assert (r2, se2) == (pytest.approx(r), pytest.approx(se))


def test_proportion_and_played_out_estimate():
    p = simulate.proportion(25, 100)
    assert p["p"] == 0.25 and p["se"] == pytest.approx(math.sqrt(0.25 * 0.75 / 100))
    # 10 deals: 2 Pontoons, 2 not drawn, 6 played: bust 3, 17 3.
    out = simulate.dealer_if_played({"pontoon": 2, "not-drawn": 2, "bust": 3, "17": 3}, 10)
    assert out["pontoon"]["p"] == pytest.approx(0.2)
    assert out["bust"]["p"] == pytest.approx(0.8 * 0.5)
    assert out["17"]["p"] == pytest.approx(0.4)
    assert "not-drawn" not in out
    var = 0.5 ** 2 * 0.2 * 0.8 / 10 + 0.8 ** 2 * 0.25 / 6
    assert out["bust"]["se"] == pytest.approx(math.sqrt(var))


def test_small_run_ev_is_net_over_stakes_and_conserves_money():
    rules = parse_rules(["casino"])
    sim = simulate.Simulation(rules, 3, S.parse_strategy("basic", rules), seed=3, stake=2)
    sim.run(300)
    s = sim.summary()
    assert s["initial_stakes"] == 300 * 3 * 2
    assert s["ev_per_initial_stake"]["ev"] == pytest.approx(s["net"] / s["initial_stakes"])
    assert s["ev_per_amount_at_risk"]["ev"] == pytest.approx(s["net"] / s["amount_at_risk"])
    assert s["amount_at_risk"] >= s["initial_stakes"]
    lo, hi = s["ev_per_initial_stake"]["ci95"]
    assert lo < s["ev_per_initial_stake"]["ev"] < hi
    e = sim.engine
    # R1: the players' nets are exactly what the house lost (one engine, no void).
    assert sum(e.balance(seat) for seat in range(1, 4)) == s["net"] == -e.balance(0)
    assert sum(v["count"] for v in s["dealer_outcomes"].values()) == 300
    assert sum(v["count"] for v in s["player_outcomes"].values()) == s["player_hands"]
    assert s["shuffles"] > 0  # N1 ruling: the shoe was used down to a quarter and shuffled


def test_same_seed_same_result_table_sessions():
    rules = parse_rules(["table"])

    def run():
        sim = simulate.Simulation(rules, 5, S.parse_strategy("stick-on-16", rules),
                                  S.parse_banker("draw-below-17", rules), seed=11)
        sim.run(100)
        return sim.summary()

    a, b = run(), run()
    assert a["net"] == b["net"] and a["dealer_outcomes"] == b["dealer_outcomes"]
    assert a["sessions"] == 13  # T1: eight deals a session, 100 deals
    # The players' net is the bankers' loss: the EV is over the non-banker seats only.
    assert a["initial_stakes"] == 100 * 4


def test_rejected_event_aborts():
    class Cheat:
        name = "cheat"

        def decide(self, hand):
            return S.STICK  # sticks below 15: the engine must refuse (P6)

    rules = parse_rules(["casino"])
    sim = simulate.Simulation(rules, 1, Cheat(), seed=1)
    with pytest.raises(simulate.SimulationError, match="rejected `stick 1`.*15"):
        sim.run(50)


# ------------------------------------------------------------------ strategies

@pytest.fixture(scope="module")
def basic():
    return S.CasinoBasic(8)


def test_basic_decisions_on_specific_hands(basic):
    # 003: both dealer cards stay closed, so the chart reads only the player's hand; there
    # is no "16 against a dealer 10" decision to make: hard 16 in two cards stands (a stand
    # wins on a dealer bust, ~30% given no Pontoon; a hit busts 8 times in 13).
    assert basic.decide(hand("TS", "6H")) == S.STICK
    assert basic.decide(hand("9S", "4H", "3D")) == S.STICK
    # Four cards: a fifth card that does not bust is a five-card trick paying 2:1 (S4).
    assert basic.decide(hand("2S", "4H", "3D", "7C")) == S.DOUBLE
    assert basic.decide(hand("2S", "4H", "3D", "7C", can_double=False)) == S.TWIST
    assert basic.decide(hand("6S", "5H")) == S.DOUBLE  # 11
    assert basic.decide(hand("7S", "3H")) == S.DOUBLE  # 10
    assert basic.decide(hand("6S", "5H", can_double=False)) == S.TWIST
    assert basic.decide(hand("AS", "AH")) == S.SPLIT
    assert basic.decide(hand("AS", "AH", can_split=False)) == S.TWIST  # soft 12
    assert basic.decide(hand("8S", "8H")) == S.SPLIT
    assert basic.decide(hand("KS", "QH")) == S.STICK  # equal value may split; 20 stands
    assert basic.decide(hand("TS", "7H")) == S.STICK
    assert basic.decide(hand("AS", "6H")) == S.TWIST  # soft 17: must not stand yet
    assert basic.decide(hand("AS", "2H", "4D", "3C")) == S.DOUBLE  # soft 20, four cards


def test_basic_never_sticks_below_the_minimum(basic):
    # P6: stick needs 15. Every hard/soft total of 2-4 cards below 15.
    seen = 0
    for n in (2, 3, 4):
        for hard in range(n, 15):
            for ace in (False, True):
                if ace and hard + 10 > 21:
                    continue
                total = hard + 10 if ace and hard <= 11 else hard
                if total >= 15:
                    continue
                for dbl in (True, False):
                    assert basic._best(hard, ace, n, dbl)[1] != S.STICK, (hard, ace, n)
                    seen += 1
    assert seen > 40
    assert basic.decide(hand("7S", "7H", can_split=False)) == S.TWIST  # 14
    assert basic.decide(hand("9S", "5H")) == S.TWIST


def test_stick_on_n_and_the_minimum():
    r = parse_rules(["casino"])
    s16 = S.parse_strategy("stick-on-16", r)
    assert s16.decide(hand("TS", "5H")) == S.TWIST
    assert s16.decide(hand("TS", "6H")) == S.STICK
    s12 = S.parse_strategy("stick-on-12", r)
    assert s12.decide(hand("TS", "3H")) == S.TWIST  # 13 < 15: N is raised to the minimum
    assert s12.decide(hand("TS", "5H")) == S.STICK
    v2 = parse_rules(["classic", "stick_min=16"])  # V2
    assert S.parse_strategy("stick-on-15", v2).decide(hand("TS", "5H")) == S.TWIST
    assert S.parse_strategy("stick-on-15", v2).decide(hand("TS", "6H")) == S.STICK
    assert S.parse_strategy("stick-on-18", r).decide(hand("AS", "6H")) == S.TWIST


def test_strategy_and_banker_names():
    casino, table = parse_rules(["casino"]), parse_rules(["table"])
    for bad, rules in (("foo", casino), ("stick-on-x", casino), ("stick-on-30", casino),
                       ("basic", table)):
        with pytest.raises(S.StrategyError):
            S.parse_strategy(bad, rules)
    assert S.parse_banker("draw-below-17", table).draw(16, False, 2)
    assert not S.parse_banker("draw-below-17", table).draw(17, False, 2)
    # K1 casino's rule for a banker (seed 003): a 17 with an ace draws, T-6-A included
    like_casino = S.parse_banker("casino", table)
    assert like_casino.name == "casino"
    assert like_casino.draw(16, False, 2, False) and like_casino.draw(17, True, 2, True)
    assert like_casino.draw(17, False, 3, True)             # T-6-A: hard 17 with an ace
    assert not like_casino.draw(17, False, 2, False)        # T-7
    assert not like_casino.draw(18, False, 4, True)         # T-6-A-A
    with pytest.raises(S.StrategyError):
        S.parse_banker("draw-below-17", casino)  # K1: the dealer draws by itself
    with pytest.raises(S.StrategyError):
        S.parse_banker("always", table)


# ------------------------------------------------------------------ the command line

JSON_KEYS = {
    "preset", "packs", "seats", "strategy", "banker", "seed", "deals", "void_deals",
    "player_hands", "shuffles", "net", "initial_stakes", "amount_at_risk",
    "ev_per_initial_stake", "ev_per_amount_at_risk", "ci_method", "player_outcomes",
    "dealer_outcomes", "dealer_if_played", "elapsed_s", "deals_per_second",
    "hands_per_second", "reshuffle_every_deal", "plot", "plot_size",
}


def test_cli_json_contract_progress_on_stderr_and_png(tmp_path):
    from PIL import Image

    png = str(tmp_path / "sub" / "x.png")
    proc = run_cli("--preset", "casino", "--deals", "400", "--seats", "5", "--strategy",
                   "basic", "--seed", "1", "--json", "--plot", png, "--plot-size", "640x480",
                   "--progress")
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)  # stdout is the JSON object and nothing else
    assert JSON_KEYS <= set(s)
    assert s["deals"] == 400 and s["packs"] == 8 and s["seats"] == 5
    for key in ("ev_per_initial_stake", "ev_per_amount_at_risk"):
        assert set(s[key]) == {"ev", "se", "ci95"}
        lo, hi = s[key]["ci95"]
        assert lo < s[key]["ev"] < hi
    assert list(s["dealer_outcomes"])[:2] == ["pontoon", "five-card-trick"]
    assert s["deals_per_second"] > 0
    # The progress bar: on stderr only.
    assert "deals/s" in proc.stderr and "400/400" in proc.stderr and "[###" in proc.stderr
    assert "deals/s" not in proc.stdout.replace('"deals_per_second"', "")
    with Image.open(png) as img:
        img.verify()
    with Image.open(png) as img:
        assert img.format == "PNG" and img.size == (640, 480)
        assert len(img.getcolors(1 << 16)) > 5  # bars and a curve, not a blank page


def test_cli_text_default_plot_size_and_no_progress_when_piped(tmp_path):
    from PIL import Image

    png = str(tmp_path / "d.png")
    proc = run_cli("--preset", "table", "--seats", "4", "--strategy", "stick-on-16",
                   "--banker", "draw-below-17", "--deals", "200", "--plot", png)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # not a terminal: no bar unless asked
    assert "EV per unit of initial stake" in proc.stdout and "95% CI" in proc.stdout
    assert "deals/s" in proc.stdout
    with Image.open(png) as img:
        assert img.size == (1000, 700)


@pytest.mark.parametrize("args", [
    ["--strategy", "foo"],
    ["--deals", "0"],
    ["--deals", "ten"],
    ["--seats", "8"],
    ["--preset", "poker"],
    ["--preset", "table", "--strategy", "basic"],
    ["--banker", "draw-below-17"],
    ["--packs", "9"],
    ["--preset", "table", "--stake", "6"],
    ["--plot-size", "big"],
    ["--nonsense"],
])
def test_cli_bad_input_exits_2_with_one_line(args, tmp_path):
    proc = run_cli(*(args + ["--plot", str(tmp_path / "never.png")]))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simulate.py: error: ")
    assert not (tmp_path / "never.png").exists()


def test_no_png_unless_asked(tmp_path):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "simulate.py"),
                        "--deals", "50", "--seats", "2"],
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert os.listdir(str(tmp_path)) == []          # no out/simulate.png overwritten
    assert "plot:" not in p.stdout


def test_axis_ticks_are_round_numbers():
    assert simulate.nice_ticks(0, 73) == ([0, 20, 40, 60, 80], 0)
    assert simulate.nice_ticks(0, 4.3)[0] == [0, 1, 2, 3, 4, 5]
    ticks, decimals = simulate.nice_ticks(-0.222, 0.309, most=8)
    assert [round(t, 9) for t in ticks] == [-0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4]
    assert decimals == 1
    ticks, decimals = simulate.nice_ticks(-0.0123, 0.0051)
    assert ["%.*f" % (decimals, t) for t in ticks] == ["-0.015", "-0.010", "-0.005", "0.000",
                                                       "0.005", "0.010"]


def test_bar_labels_say_what_they_count():
    assert simulate.bar_label("P dealer-pontoon") == "P lost to D pontoon"
    assert simulate.bar_label("P five-card-trick") == "P 5-card trick"
    assert simulate.bar_label("D not-drawn") == "D not played"
    assert simulate.bar_label("D 17") == "D 17"
    for kind in simulate.PLAYER_KEYS:
        assert "D4" not in simulate.bar_label("P " + kind)
