"""tools/tags.py as a person runs it: a check without --count ends with the summary, Ctrl-C
stops a run and still shows the summary, each mode's --help says what it does. (Bad
arguments, a missing port or command: host_tests/repo/test_tools_cli.py.)"""
import os
import signal
import subprocess
import sys
import textwrap

from conftest import ROOT

from game.cards import card_name
from tagging.tag_deck import deck_card

TAGS = os.path.join(ROOT, "tools", "tags.py")
DEVICE = os.path.join(ROOT, "host_tests", "mp", "tags_device.py")


def tags_py(args, timeout=120):
    return subprocess.run([sys.executable, TAGS] + args, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_check_without_count_ends_with_a_summary_when_the_cards_run_out():
    cmd = "%s %s text:AS:1 text:KD:2 blank:3" % (sys.executable, DEVICE)
    p = tags_py(["check", "--command", cmd])
    out = p.stdout.splitlines()
    assert p.returncode == 1, p.stdout + p.stderr            # stopped, 50 cards missing
    assert out[0] == "start check - 52"
    assert [x.split()[:3] for x in out if x.startswith("card ")] == [
        ["card", "1", "AS"], ["card", "2", "KD"]]
    assert out[-2:] == ["summary check present=2 duplicate=0 again=0 unknown=1 missing=50",
                        "stopped check"]
    assert "Traceback" not in p.stderr


# A shoe that starts a check and waits for "tags stop", as a real one waits for cards. It
# does not catch SIGINT: if Ctrl-C reached it, it would die with a traceback and no summary.
STUB_SHOE = textwrap.dedent("""
    import sys
    for line in sys.stdin:
        if line.startswith("tags check"):
            print("tags: start check - 52", flush=True)
            print("tags: place 1", flush=True)
        elif line.strip() == "tags stop":
            print("tags: missing AS", flush=True)
            print("tags: summary check present=51 duplicate=0 again=0 unknown=0 missing=1",
                  flush=True)
            print("tags: stopped check", flush=True)
""")


def test_ctrl_c_stops_the_run_and_shows_the_summary(tmp_path):
    stub = tmp_path / "shoe.py"
    stub.write_text(STUB_SHOE)
    p = subprocess.Popen([sys.executable, TAGS, "check", "--command",
                          "%s %s" % (sys.executable, stub)],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        seen = []
        for _ in range(2):
            seen.append(p.stdout.readline().rstrip("\n"))
        assert seen == ["start check - 52", "place 1"]
        os.killpg(p.pid, signal.SIGINT)      # Ctrl-C at a terminal: the whole foreground group
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(timeout=10)
    assert p.returncode == 1, (out, err)
    lines = out.splitlines()
    assert lines[-3:] == ["missing AS",
                          "summary check present=51 duplicate=0 again=0 unknown=0 missing=1",
                          "stopped check"]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_each_mode_has_its_own_help_saying_what_it_does():
    texts = {}
    for mode in ("write", "enroll", "check"):
        p = tags_py([mode, "--help"], timeout=60)
        assert p.returncode == 0
        assert p.stdout.startswith("usage: tags.py %s" % mode)
        texts[mode] = " ".join(p.stdout.split())
    assert "NDEF Text record" in texts["write"] and "--from" in texts["write"]
    assert "uidmap.txt" in texts["enroll"] and "UID" in texts["enroll"]
    assert "summary" in texts["check"] and "missing" in texts["check"]
    assert "--from" not in texts["check"]
    assert len(set(texts.values())) == 3


def test_check_of_two_packs_from_the_command_line():
    # every card of two packs on its own tag: the check ends by itself at 104, exit 0
    deck = [card_name(deck_card(i)) for i in range(52)]
    pile = ["text:%s:%d" % (c, i) for i, c in enumerate(deck)] + \
        ["text:%s:%d" % (c, 100 + i) for i, c in enumerate(deck)]
    cmd = "%s %s %s" % (sys.executable, DEVICE, " ".join(pile))
    p = tags_py(["check", "--packs", "2", "--command", cmd])
    out = p.stdout.splitlines()
    assert p.returncode == 0, p.stdout + p.stderr
    assert out[0] == "start check - 104"
    assert out[-2:] == ["summary check present=104 duplicate=0 again=0 unknown=0 missing=0",
                        "done check"]
    # one pack of it is not a two-pack deck: stopped when the tags run out, 52 missing
    cmd = "%s %s %s" % (sys.executable, DEVICE, " ".join(pile[:52]))
    p = tags_py(["check", "--packs", "2", "--command", cmd])
    assert p.returncode == 1
    assert p.stdout.splitlines()[-2] == ("summary check present=52 duplicate=0 again=0 "
                                         "unknown=0 missing=52")


def test_write_and_check_help_say_how_to_do_two_packs():
    for mode in ("write", "check"):
        p = tags_py([mode, "--help"])
        assert p.returncode == 0
        text = " ".join(p.stdout.split())
        assert "--packs" in text and "two" in text, text
