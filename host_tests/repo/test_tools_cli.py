"""Every command-line tool in tools/ answers `--help` (exit 0, a usage text) and bad
arguments with one line on stderr, exit status 2, no traceback and no hang.

The tools are discovered, so a tool added later is covered without touching this file:
every tools/*.py and tools/<dir>/*.py is a command when it has an `if __name__ ==
"__main__":` block (or is a package's __main__.py). A module that is not a command is
listed in NOT_COMMANDS with the reason; an unlisted module without a main fails here, so
the list stays true.
"""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
LIMIT_S = 60            # per run: a tool that waits for something that never comes fails

NOT_COMMANDS = {
    "cli.py": "the shared argument parser and one-line errors the tools import",
    "simtable.py": "the simulated table (driver, screens, pictures) that sim.py and "
                   "bench_app.py import",
    "strategies.py": "player and banker strategies that simulate.py imports",
    "decisions.py": "the exact values of a decision that night.py imports",
    "report.py": "the replayer's JSON document, which replay.py and night.py write",
    "runner.py": "the one runner interface (CPython, VM and virtual Pico backends) that "
                 "sim.py, play.py, the vpico session, the benches and the tests use",
    "panel.py": "the display-memory decoder that the pictures, the terminal and the page "
                "import",
    "livetable.py": "the live simulated table (VM, chip models, plug) that play.py and "
                    "sim.py --interactive drive",
    "liveterm.py": "the live terminal view that sim.py --interactive runs",
    "vm/sim_main.py": "main.py of the simulated board: the MicroPython VM runs it under "
                      "tools/hwbridge.py, never a person",
    "vpico/pico.py": "the virtual Pico's Python side (emulator process, USB, chips, clock) "
                     "that vpico/session.py and the vpico tests drive",
    "vpico/table.py": "deploy and play on the virtual Pico, for vpico/session.py and the "
                      "tests",
    "vm/web_main.py": "main.py of the simulated networked board (Pico W): the MicroPython VM "
                      "runs it under tools/hwbridge.py, never a person",
}

# Bad arguments for every command (so a new tool is checked without an entry here), plus
# each known tool's own (a value out of its range, a missing argument). Each must give exit
# status 2 and one error line; argparse's usage block may come before it (tools/cli.py
# leaves it out, a plain argparse parser prints it).
COMMON_BAD = [["--no-such-option"], ["--no-such-option", "value", "--another"]]
BAD = {
    "autoplay.py": [[], ["9", "1"], ["4", "1", "poker"], ["x", "1"]],
    "bench_app.py": [["--seats", "9"], ["--seed", "x"]],
    "bench_engine.py": [["--seats", "1"], ["--repeat", "0"]],
    "bench_hw.py": [["--freq", "0"], ["--freq"]],
    "card_timeline.py": [["--seats", "9"], ["--events", "0"], ["--seed", "x"],
                         ["--board", "pico_x"], ["--out", "/tmp/timeline"]],
    "dealer.py": [["--sessions", "0"], ["--rate", "2"], ["--rate", "x"], ["--seats", "9"]],
    "fault_campaign.py": [["--sessions", "0"], ["--faults", "x"], ["--seats", "9"]],
    "deploy.py": [["--listing", "x.txt"], ["--port"], ["--port", "/dev/ttyNOPE"],
                  ["--dry-run", "--listing", sys.executable],        # a binary file
                  ["--dry-run", "--listing", "no/such/listing.txt"]],
    "hwbridge.py": [[], ["--heap", "lots", "x.py"], ["no/such/script.py"]],
    "mpy_build.py": [["extra"]],
    "uf2.py": [["--board", "RPI_PICO2"], ["--jobs", "0"], ["--jobs"]],
    "night.py": [["--banker-policy", "draw-below-99"], ["no/such/history.txt"],
                 ["--banker-policy"]],
    "odds.py": [["--packs", "0"], ["--dealer", "h99"], ["--remove", "5H,5H"],
                ["--upcard", "Z"]],
    "replay.py": [[], ["a.txt", "b.txt"], ["--bogus"], ["no/such/transcript.txt"]],
    "sim.py": [["--seats", "9"], ["--seats", "1"], ["--banker", "9"],
               ["--preset", "casino", "--seats", "8"], ["--preset", "casino", "--banker", "1"],
               ["--seats", "x"], ["--preset", "poker"]],
    "simulate.py": [["--deals", "0"], ["--seats", "9", "--preset", "table"],
                    ["--strategy", "guess"], ["--plot", "/proc/no/x.png"],
                    ["--plot", "/proc/x.png"], ["--plot", "/"], ["--no-plot"]],
    "tags.py": [[], ["check", "--count", "0"], ["write", "--from", "ZZ"], ["shuffle"],
                ["write", "--count", "-1"], ["enroll", "--count", "x"],
                ["check", "--command", "no-such-program-anywhere"],
                ["check", "--port", "/dev/no-such-port"],
                ["write", "--from", "AH", "--count", "60"],
                ["check", "--command", "false"]],                  # a shoe that exits
}


def _has_main(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.search(r"^if __name__ == ['\"]__main__['\"]:", text, re.M) is not None


def modules():
    """Every .py in tools/ and its sub-folders (relative paths), caches left out."""
    out = []
    for dirpath, dirs, files in os.walk(TOOLS):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                out.append(os.path.relpath(os.path.join(dirpath, name), TOOLS)
                           .replace(os.sep, "/"))
    return out


def commands():
    return [m for m in modules() if m not in NOT_COMMANDS
            and (_has_main(os.path.join(TOOLS, m)) or m.endswith("/__main__.py"))]


def run(tool, args):
    p = subprocess.run([sys.executable, os.path.join(TOOLS, tool)] + args, cwd=ROOT,
                       capture_output=True, text=True, timeout=LIMIT_S,
                       stdin=subprocess.DEVNULL)
    return p


def test_every_module_is_a_command_or_listed_with_a_reason():
    for m in modules():
        if m in NOT_COMMANDS:
            assert not _has_main(os.path.join(TOOLS, m)), \
                "%s has a main now: take it off NOT_COMMANDS so it is tested" % m
        else:
            assert m in commands(), (
                "tools/%s has no `if __name__ == \"__main__\":`; give it one (a command) or "
                "list it in NOT_COMMANDS with the reason (a library)" % m)
    for m in NOT_COMMANDS:
        assert m in modules(), "NOT_COMMANDS names %s, which is gone" % m
    # the discovery finds what we know is there
    assert {"sim.py", "replay.py", "tags.py", "odds.py", "deploy.py"} <= set(commands())


@pytest.mark.parametrize("tool", commands())
def test_help_exits_0_with_a_usage_text(tool):
    p = run(tool, ["--help"])
    assert p.returncode == 0, (tool, p.stdout[-500:], p.stderr[-500:])
    assert p.stdout.lower().startswith("usage:"), (tool, p.stdout[:300])
    assert "Traceback" not in p.stdout + p.stderr
    assert len(p.stdout.splitlines()) >= 3, "a usage line and what the tool does"


def _bad_cases():
    for tool in commands():
        for args in COMMON_BAD + BAD.get(tool, []):
            yield tool, args


@pytest.mark.parametrize("tool,args", list(_bad_cases()),
                         ids=lambda x: x if isinstance(x, str) else " ".join(x) or "(none)")
def test_bad_arguments_give_one_line_and_exit_2(tool, args):
    p = run(tool, args)
    assert "Traceback" not in p.stdout + p.stderr, (tool, args, p.stderr[-800:])
    assert p.returncode == 2, (tool, args, p.returncode, p.stdout[-300:], p.stderr[-300:])
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    if lines and lines[0].startswith("usage:"):          # argparse's usage block
        lines = lines[1:]
        while lines and lines[0].startswith(" "):
            lines = lines[1:]
    assert len(lines) == 1, (tool, args, p.stderr)
    name = tool.rsplit("/", 1)[-1][:-3]
    assert re.match(r"^%s(\.py)?( \w+)?: error: \S" % re.escape(name), lines[0]), lines[0]
    assert len(lines[0]) <= 200, lines[0]
    assert p.stdout == "", (tool, args, p.stdout[:300])


def test_replay_help_and_errors_on_micropython_too():
    from conftest import MICROPYTHON
    p = subprocess.run([MICROPYTHON, os.path.join(TOOLS, "replay.py"), "--help"], cwd=ROOT,
                       capture_output=True, text=True, timeout=LIMIT_S)
    assert p.returncode == 0 and p.stdout.startswith("usage: replay.py"), p.stdout + p.stderr
    p = subprocess.run([MICROPYTHON, os.path.join(TOOLS, "replay.py"), "--bogus"], cwd=ROOT,
                       capture_output=True, text=True, timeout=LIMIT_S)
    assert p.returncode == 2
    assert p.stderr == "replay: error: unknown option --bogus (see replay.py --help)\n"


def test_bench_hw_explains_every_line_the_vm_scripts_print():
    sys.path.insert(0, TOOLS)
    import bench_hw
    for script, words in (("hw_remote_deck.py", bench_hw.DECK_LINES),
                          ("hw_alloc.py", bench_hw.ALLOC_LINES)):
        with open(os.path.join(ROOT, "host_tests", "mp", script)) as f:
            keys = re.findall(r'^print\("(\w+)"', f.read(), re.M)
        assert keys and sorted(keys) == sorted(words), (script, keys)
    assert bench_hw.explained("alloc_per_empty_poll 3676", bench_hw.ALLOC_LINES) == \
        "  " + bench_hw.ALLOC_LINES["alloc_per_empty_poll"] + ": 3676"


def _ctrl_c_after(args, marker, stream="stdout"):
    """Start a tool in its own process group, wait for `marker` in its output, press Ctrl-C
    (SIGINT to the whole group, as a terminal does); returns (status, stdout, stderr)."""
    import signal
    p = subprocess.Popen([sys.executable] + args, cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        seen = b""
        pipe = p.stdout if stream == "stdout" else p.stderr
        while marker not in seen:
            b = pipe.read1(4096) if hasattr(pipe, "read1") else pipe.read(1)
            assert b, "ended before %r: %r" % (marker, seen[-500:])
            seen += b
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=LIMIT_S)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)
    if stream == "stdout":
        out = seen + out
    else:
        err = seen + err
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def test_ctrl_c_in_simulate_reports_the_deals_so_far():
    rc, out, err = _ctrl_c_after([os.path.join(TOOLS, "simulate.py"), "--deals", "1000000",
                                  "--seats", "2", "--progress"], b"deals/s", "stderr")
    assert rc == 130, (out, err[-500:])
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert re.search(r"interrupted after \d+ of 1000000 deals", err)
    assert "EV per unit of initial stake" in out and "interrupted (Ctrl-C) after" in out


def test_ctrl_c_in_sim_ends_the_vm_and_shows_the_ledger_so_far(tmp_path):
    rc, out, err = _ctrl_c_after([os.path.join(TOOLS, "sim.py"), "--speed", "1", "--no-images",
                                  "--out", str(tmp_path)], b"progress: event 0/")
    assert rc == 130, (out[-1500:], err[-1500:])
    assert "Traceback" not in out + err and "KeyboardInterrupt" not in out + err, err[-1500:]
    assert "sim: interrupted (Ctrl-C) after" in out
    assert "session ledger (tools/replay.py" in out


# A Python without the project's packages: the system `python3` a newcomer types. The venv's
# own base interpreter is one (the packages live in .venv only).
BASE_PYTHON = os.path.join(sys.base_prefix, "bin", "python3")
# commands that need none of the packages, so they need not import tools/cli.py first
NEEDS_NO_VENV = {
    "replay.py": "the firmware's engine only; runs on MicroPython too",
    "odds.py": "exact arithmetic in the standard library only",
    "autoplay.py": "the engine only; runs on MicroPython too (imports cli in its main)",
    "hwbridge.py": "imports cli in its main, before the VM starts",
    "mpy_build.py": "imports cli in its main, before the build",
}


def test_every_command_imports_cli_first_so_a_bad_python_is_caught():
    """cli.py, imported, makes a Python without the packages run the tool again with
    .venv/bin/python3 (or say so in one line): every command imports it at the top, before
    its work; the exceptions need no package."""
    for tool in commands():
        if tool in NEEDS_NO_VENV:
            continue
        with open(os.path.join(TOOLS, tool), encoding="utf-8") as f:
            text = f.read()
        assert re.search(r"^import cli\b", text, re.M), \
            "tools/%s does not import cli at its top (or list it in NEEDS_NO_VENV)" % tool


def _without_packages():
    p = subprocess.run([BASE_PYTHON, "-c", "import PIL"], capture_output=True)
    if p.returncode == 0:
        pytest.skip("the base Python has the packages too")


def test_a_tool_run_by_a_python_without_the_packages_runs_in_the_venv(tmp_path):
    _without_packages()
    script = tmp_path / "probe.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\nimport cli\nimport PIL\n"
                      "print(sys.prefix)\n" % TOOLS)
    p = subprocess.run([BASE_PYTHON, str(script)], cwd=ROOT, capture_output=True, text=True,
                       timeout=LIMIT_S)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert os.path.realpath(p.stdout.strip()) == os.path.realpath(os.path.join(ROOT, ".venv"))
    # a whole command, as typed: `python3 tools/simulate.py ...` (needs the venv for --plot)
    p = subprocess.run([BASE_PYTHON, "tools/simulate.py", "--deals", "0"], cwd=ROOT,
                       capture_output=True, text=True, timeout=LIMIT_S)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.startswith("simulate.py: error: ") and "--deals" in p.stderr, p.stderr


def test_without_a_venv_a_bad_python_gets_one_line_and_exit_2(tmp_path):
    _without_packages()
    tools = tmp_path / "tools"          # a checkout without .venv
    tools.mkdir()
    with open(os.path.join(TOOLS, "cli.py")) as f:
        (tools / "cli.py").write_text(f.read())
    (tools / "tool.py").write_text("import cli\nprint('ran')\n")
    p = subprocess.run([BASE_PYTHON, str(tools / "tool.py")], cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=LIMIT_S)
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and len(p.stderr.splitlines()) == 1, p.stderr
    assert re.match(r"^tool\.py: error: this Python lacks the project's packages \(PIL.*\): "
                    r"run \.venv/bin/python3 \S*tool\.py", p.stderr), p.stderr


def _into_a_reader_that_stops(cmd, tmp_path):
    """Run `cmd` with its stdout into a small pipe; read a little and close it, as `| head`
    does. Returns (status, stderr)."""
    import fcntl
    r, w = os.pipe()
    fcntl.fcntl(w, 1031, 4096)          # F_SETPIPE_SZ: the tool writes more than the pipe holds
    err = open(tmp_path / "err.txt", "w+")
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=w, stderr=err, stdin=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        assert f.read(200)
    p.wait(timeout=LIMIT_S)
    err.seek(0)
    return p.returncode, err.read()


@pytest.mark.parametrize("python", ["cpython", "micropython"])
def test_replay_into_head_stops_without_a_traceback(tmp_path, python):
    from conftest import MICROPYTHON
    sys.path.insert(0, TOOLS)
    import simtable
    head, events = simtable.script_session("table", 8, 1)
    transcript = tmp_path / "session.txt"
    transcript.write_text("\n".join(head + events) + "\n")
    exe = sys.executable if python == "cpython" else MICROPYTHON
    rc, err = _into_a_reader_that_stops([exe, os.path.join(TOOLS, "replay.py"),
                                         str(transcript)], tmp_path)
    assert err == "" and rc == 1, (rc, err[-1500:])


def test_a_cli_tool_into_head_stops_without_a_traceback(tmp_path):
    """Every command imports cli first (above); cli makes a closed stdout end it quietly."""
    script = tmp_path / "printer.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\nimport cli\n"
                      "for i in range(100000):\n    print('line %%d' %% i)\n" % TOOLS)
    rc, err = _into_a_reader_that_stops([sys.executable, str(script)], tmp_path)
    assert err == "" and rc == 1, (rc, err[-1500:])
