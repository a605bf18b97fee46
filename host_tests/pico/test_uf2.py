"""`make uf2` (tools/uf2.py): the shoe's UF2 per board, built from boards/uf2/ (run by
`make test` before the suite); its one-line errors for a missing toolchain or source; a
second build after a firmware change compiles only that module and the frozen content."""
import os
import struct
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import uf2  # noqa: E402

UF2_MAGIC = (0x0A324655, 0x9E5D5157)


def payload(path):
    """The flash image a UF2 file writes (its blocks' payloads in address order)."""
    with open(path, "rb") as f:
        data = f.read()
    blocks = []
    for off in range(0, len(data), 512):
        m0, m1, _, addr, size = struct.unpack_from("<IIIII", data, off)
        assert (m0, m1) == UF2_MAGIC, off
        blocks.append((addr, data[off + 32:off + 32 + size]))
    blocks.sort()
    return b"".join(b for _, b in blocks)


def version():
    with open(os.path.join(ROOT, "VERSION")) as f:
        return f.read().strip()


@pytest.mark.parametrize("board,name", [("RPI_PICO", b"Raspberry Pi Pico with"),
                                        ("RPI_PICO_W", b"Raspberry Pi Pico W with")])
def test_each_board_has_its_uf2_with_the_shoe_frozen_in(board, name):
    path = uf2.uf2_path(board)
    assert os.path.isfile(path), "no %s: run `make uf2`" % path
    image = payload(path)
    assert b"Pontoon shoe %s on %s" % (version().encode(), name) in image
    # the frozen modules are there by name, the web part only on the Pico W
    for module in (b"game/engine.py", b"hardware/seat_displays.py", b"adafruit_pn532",
                   b"board.py", b"main.py"):
        assert module in image, module
    assert (b"microdot" in image) == (board == "RPI_PICO_W")
    assert (b"webui/web_pages.py" in image) == (board == "RPI_PICO_W")
    assert (b"webui/web_history.py" in image) == (board == "RPI_PICO_W")


def _run(env_changes, *args):
    env = dict(os.environ)
    env.update(env_changes)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k)
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "uf2.py")] +
                          list(args), capture_output=True, text=True, env=env, timeout=120)


def test_a_missing_toolchain_is_one_line_naming_the_packages(tmp_path):
    p = _run({"PATH": str(tmp_path)})
    assert p.returncode == 1
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("uf2: error: the ARM toolchain is missing"), err
    assert "gcc-arm-none-eabi" in err[0] and "libnewlib-arm-none-eabi" in err[0]
    assert "Traceback" not in p.stderr


def test_a_bad_micropy_src_is_named(tmp_path):
    p = _run({"MICROPY_SRC": str(tmp_path)})
    assert p.returncode == 1
    assert p.stderr.startswith("uf2: error: MICROPY_SRC=%s is not a MicroPython source tree"
                               % tmp_path), p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_no_source_anywhere_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.delenv("MICROPY_SRC", raising=False)
    monkeypatch.setattr(uf2, "ROOT", str(tmp_path / "repo"))
    with pytest.raises(uf2.BuildError) as e:
        uf2.find_source()
    text = str(e.value)
    assert "git clone --depth 1 -b v1.28.0 https://github.com/micropython/micropython" in text
    assert "BOARD=RPI_PICO_W submodules" in text and "MICROPY_SRC" in text
    assert "\n" not in text


def test_a_firmware_change_rebuilds_only_what_changed():
    src = os.path.join(ROOT, "firmware", "game", "cards.py")
    os.utime(src)                       # changed now (newer than its frozen .mpy)
    p = _run({}, "--board", "RPI_PICO")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert [x for x in lines if x.startswith("uf2: [")] == [
        x for x in lines if x.startswith("uf2: [")][:4]          # a line per stage
    assert any("RPI_PICO: build/uf2/pontoon-shoe-RPI_PICO.uf2" in x for x in lines), lines
    with open(os.path.join(ROOT, "build", "uf2", "RPI_PICO.log")) as f:
        log = f.read()
    frozen = [x.split()[1] for x in log.splitlines() if x.startswith("MPY ")]
    assert frozen == ["game/cards.py"], frozen
    compiled = [x for x in log.splitlines() if "Building C object" in x]
    assert len(compiled) == 1 and "frozen_content" in compiled[0], compiled


@pytest.mark.parametrize("board", ["RPI_PICO", "RPI_PICO_W"])
def test_the_build_is_dated_by_the_shoes_commit_not_the_calendar(board):
    # a calendar date would recompile the files that print it when a build crosses midnight
    # (the test above then fails) and make each day's UF2 differ
    import datetime
    header = os.path.join(uf2.OUT, "build-" + board, "genhdr", "mpversion.h")
    assert os.path.isfile(header), "no %s: run `make uf2`" % header
    with open(header) as f:
        text = f.read()
    p = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert uf2.source_date_epoch() == p.stdout.strip()
    # (a SOURCE_DATE_EPOCH of the caller's own is what `make uf2` used instead)
    stamp = int(os.environ.get("SOURCE_DATE_EPOCH") or p.stdout.strip())
    day = datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d")
    assert '#define MICROPY_BUILD_DATE "%s"' % day in text, text


def _placed(board, function):
    """The address the link map gives `function`'s code in `board`'s last build."""
    path = os.path.join(uf2.OUT, "build-" + board, "firmware.elf.map")
    assert os.path.isfile(path), "no %s: run `make uf2`" % path
    with open(path) as f:
        lines = f.read().split("\n")
    name = " .text." + function
    for i, line in enumerate(lines):
        if line == name or line.startswith(name + " "):
            rest = line[len(name):].split() or lines[i + 1].split()
            return int(rest[0], 16)
    raise AssertionError("%s is not in %s" % (function, path))


def test_the_interpreters_loop_runs_from_sram_on_the_pico():
    # boards/uf2/code_in_ram.cmake: the VM's loop and the collector must not run through
    # the 16 KB XIP cache (MicroPython's own script meant them in SRAM too)
    for function in ("mp_execute_bytecode", "gc_alloc", "mp_setup_code_state_helper"):
        assert 0x20000000 <= _placed("RPI_PICO", function) < 0x20042000, function
    # and what no pass of the table needs stays in flash (each byte in SRAM is heap)
    assert 0x10000000 <= _placed("RPI_PICO", "mp_parse") < 0x11000000
    # the Pico W keeps most of its heap: only the loop, the collector and runtime.c, obj.c,
    # map.c (with the web beside the table they missed the XIP cache at nearly every opcode)
    for function in ("mp_execute_bytecode", "gc_alloc", "mp_setup_code_state_helper",
                     "mp_call_function_n_kw", "mp_map_lookup"):
        assert 0x20000000 <= _placed("RPI_PICO_W", function) < 0x20042000, function
    for function in ("mp_parse", "mp_obj_new_str", "mp_obj_dict_store"):
        assert 0x10000000 <= _placed("RPI_PICO_W", function) < 0x11000000, function


def test_the_frozen_machine_code_runs_from_sram_on_the_pico():
    # boards/uf2/code_in_ram.cmake, PONTOON_RAM_FROZEN_CODE: the engine's native and viper
    # functions and the glyph blit (through the XIP cache, the first deal's end took 200 us
    # more); the Pico W keeps its heap
    for board, in_sram in (("RPI_PICO", True), ("RPI_PICO_W", False)):
        code = uf2.frozen_machine_code(os.path.join(uf2.OUT, "build-" + board))
        assert len(code) >= 20 and "fun_data_game_engine_Engine_apply" in code, (board, code)
        for name, address in code.items():
            assert (0x20000000 <= address < 0x20042000) == in_sram, (board, name, hex(address))


def test_python_frames_come_from_their_own_stack_not_the_heap():
    # boards/uf2/pystack.h (both boards): MICROPY_ENABLE_PYSTACK. Without it a call with more
    # than 11 words of frame allocates it on the heap (85 us a call on the Pico)
    for board in ("RPI_PICO", "RPI_PICO_W"):
        _placed(board, "mp_pystack_alloc")
        path = os.path.join(uf2.OUT, "build-" + board, "firmware.elf.map")
        with open(path) as f:
            assert "shoe_pystack" in f.read(), board


def test_frozen_machine_code_starts_on_a_word_boundary():
    # the ARMv6-M emitter reads its large constants pc-relative as if its code were 4-byte
    # aligned; frozen 2-byte aligned, Engine.apply read 1,000,000 as -1,035,931,648 (Pico W)
    for board in ("RPI_PICO", "RPI_PICO_W"):
        bdir = os.path.join(uf2.OUT, "build-" + board)
        with open(os.path.join(bdir, "frozen_content.c")) as f:
            text = f.read()
        assert text.count('__attribute__((section(".text') >= 20, board     # the code is there
        assert "aligned (2)" not in text, board
        assert uf2.misaligned_native_code(bdir) == [], board


def test_the_unpacked_mpy_tool_aligns_armv6m_code_to_4_bytes(tmp_path):
    tool = tmp_path / "tools" / "mpy-tool.py"
    tool.parent.mkdir()
    original = ("x\n" + uf2._ARMV6_ALIGN4 + "            MP_NATIVE_ARCH_XTENSA,\n        ):\n"
                "            # ARMV6 or Xtensa -- four byte align.\n")
    tool.write_text(original)
    assert uf2.align_frozen_native_code(str(tmp_path))
    assert "MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_ARMV6M," in tool.read_text()
    assert not uf2.align_frozen_native_code(str(tmp_path))      # once only
    tool.write_text("something else\n")
    assert not uf2.align_frozen_native_code(str(tmp_path))      # not its text: left alone


def test_the_frozen_modules_dotted_names_are_the_firmwares_own_strings(tmp_path):
    defs = tmp_path / "ports" / "rp2" / "qstrdefsport.h"
    defs.parent.mkdir(parents=True)
    port = "// qstrs specific to this port\n// *FORMAT-OFF*\nQ(/lib)\n"
    defs.write_text(port)
    assert uf2.intern_module_names(str(tmp_path), ["game.engine", "ledger.snapshot"])
    text = defs.read_text()
    assert text.startswith(port) and "Q(game.engine)\nQ(ledger.snapshot)\n" in text
    assert not uf2.intern_module_names(str(tmp_path), ["game.engine", "ledger.snapshot"])
    assert uf2.intern_module_names(str(tmp_path), ["game.engine"])     # a module gone
    assert defs.read_text() == port + "\n" + uf2._QSTRDEFS_MARK + "\nQ(game.engine)\n"


@pytest.mark.parametrize("board", uf2.BOARDS)
def test_every_dotted_module_name_is_built_into_the_firmware(board):
    bdir = os.path.join(uf2.OUT, "build-" + board)
    with open(os.path.join(bdir, "genhdr", "qstrdefs.generated.h")) as f:
        text = f.read()
    for name in ("game.engine", "ledger.snapshot", "table.app", "hardware.shoe_reader",
                 "adafruit_pn532.adafruit_pn532", "asyncio.core"):
        assert '"%s")' % name in text, (board, name)


def test_a_board_configuration_change_makes_the_generated_headers_again(tmp_path):
    """The port's make collects interned strings per changed source, not per configuration:
    a feature turned on (PYSTACK) left a build failing on a missing MP_QSTR_..."""
    genhdr = tmp_path / "genhdr"

    def build(config):
        genhdr.mkdir(exist_ok=True)
        got = uf2.forget_stale_config(str(tmp_path), "RPI_PICO", config)
        kept = genhdr.exists()
        (tmp_path / uf2.CONFIG_INPUTS).write_text(got)
        return kept
    assert not build("#define A 1")                        # the first build: made
    assert build("#define A 1")                            # unchanged: kept
    assert not build("#define A 1\n#define B 1")          # a feature on: made again
    assert "MICROPY_ENABLE_PYSTACK" in uf2.forget_stale_config(str(tmp_path), "RPI_PICO")


def test_a_module_dropped_from_the_frozen_set_leaves_the_next_build(tmp_path):
    """makemanifest alone keeps a frozen module whose file went (nothing is newer than its
    output): the frozen content is made again when the manifests or the file names change."""
    content = tmp_path / "frozen_content.c"

    def build(inputs):
        content.write_text("frozen")
        got = uf2.forget_stale_frozen(str(tmp_path), inputs)
        kept = content.exists()
        (tmp_path / uf2.FROZEN_INPUTS).write_text(got)
        return kept
    assert not build("manifest\ncards.py engine.py")       # the first build: made
    assert build("manifest\ncards.py engine.py")           # nothing changed: kept
    assert not build("manifest\ncards.py")                 # a module gone: made again
    assert not build("manifest changed\ncards.py")         # a manifest changed: made again
    assert uf2.forget_stale_frozen(str(tmp_path)) == uf2._freeze_inputs()
