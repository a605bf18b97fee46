"""The virtual Pico itself (tools/vpico): the stock rp2 firmware boots, the USB serial line,
I2C0 answered by the chip models, the GPIOs, flash kept across a power cut; the shoe's own
UF2 says who it is; the XIP cache model charges misses, not hits."""
import os

import pytest

from vpico.pico import FROZEN, STOCK, Pico, firmware_dir, node_ready, uf2_for, VpicoError

P_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WALL = 300      # wall-clock bound of any one wait (the emulator is ~5x slower than a Pico)


@pytest.fixture
def pico(tmp_path):
    try:
        firmware_dir()
        node_ready()
    except VpicoError as e:
        pytest.fail(str(e))
    p = Pico(str(tmp_path / "flash.bin"), firmware=STOCK)     # the bare MicroPython REPL
    p.boot()
    p.write(b"\r")
    p.expect(b">>> ", 3, wall_timeout=WALL)
    yield p
    p.close()


def test_missing_firmware_fails_with_where_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("VPICO_FIRMWARE", str(tmp_path))
    import vpico.pico as P
    monkeypatch.setattr(P, "ROOT", str(tmp_path / "repo"))
    with pytest.raises(VpicoError) as e:
        P.firmware_dir()
    assert "micropython.org/download/RPI_PICO" in str(e.value)
    assert str(tmp_path) in str(e.value)


def test_a_missing_shoe_uf2_says_make_uf2(monkeypatch, tmp_path):
    import vpico.pico as P
    monkeypatch.setattr(P, "ROOT", str(tmp_path))
    with pytest.raises(VpicoError) as e:
        P.uf2_for(FROZEN)
    assert "make uf2" in str(e.value)
    with pytest.raises(VpicoError) as e:
        P.uf2_for(STOCK, board="RPI_PICO_W")
    assert "RPI_PICO" in str(e.value)


@pytest.mark.parametrize("board,name", [("RPI_PICO", "Raspberry Pi Pico with RP2040"),
                                        ("RPI_PICO_W", "Raspberry Pi Pico W with RP2040")])
def test_the_shoes_uf2_names_itself_and_its_version(board, name, tmp_path):
    try:
        uf2_for(FROZEN, board)
    except VpicoError as e:
        pytest.fail(str(e))
    with open(os.path.join(P_ROOT, "VERSION")) as f:
        version = f.read().strip()
    p = Pico(str(tmp_path / "flash.bin"), board=board)
    try:
        p.boot()
        p.expect(b"# heap in use after boot", 10, wall_timeout=WALL)   # the table runs at once
        out, err = p.exec_raw("import sys; print(sys.implementation._machine)")
        p.write(b"\x02")                  # ctrl-B at the friendly REPL: the banner again
        p.expect(b"MicroPython v1.28.0", 5, wall_timeout=WALL)
        banner = p.expect(b"\r\n", 5, wall_timeout=WALL).decode()
    finally:
        p.close()
    assert err == ""
    assert out.strip() == "Pontoon shoe %s on %s" % (version, name)
    assert banner.rstrip().endswith("; Pontoon shoe %s on %s" % (version, name)), banner


def test_the_xip_cache_model_charges_misses_not_hits(tmp_path):
    # a loop that fits the 16 KB cache runs as fast with the model as without; a boot of
    # the shoe's firmware (code from all over the flash) pays for its misses
    code = ("import time\ndef f():\n x = 0\n for i in range(20000):\n  x += 1\n"
            "t = time.ticks_us(); f(); print(time.ticks_diff(time.ticks_us(), t))")
    took = {}
    for cache in (True, False):
        p = Pico(str(tmp_path / ("flash%d.bin" % cache)), firmware=STOCK, xip_cache=cache)
        try:
            p.boot()
            p.write(b"\r")
            p.expect(b">>> ", 3, wall_timeout=WALL)
            m0 = p.xip_misses
            out, _ = p.exec_raw(code)
            took[cache] = (int(out.split()[0]), p.xip_misses - m0, p.xip_stall_ns)
        finally:
            p.close()
    assert took[False][1] == 0 and took[False][2] == 0
    assert took[True][1] > 0                            # the REPL's own code missed
    assert abs(took[True][0] - took[False][0]) * 50 < took[False][0]   # within 2 %


def test_boots_to_the_prompt_with_the_picos_heap(pico):
    # deterministic: the emulated clock and the Pico's real heap
    assert pico.boots == 1
    out, err = pico.exec_raw("import gc, sys; gc.collect(); print(gc.mem_free(), "
                             "sys.platform, sys.implementation._mpy & 0xff)")
    free, plat, mpy = out.split()
    assert (plat, mpy) == ("rp2", "6")
    assert 240_000 <= int(free) <= 241_776      # about 4 KB in use at the prompt


def test_i2c0_reaches_the_models(pico):
    w = pico.world
    out, err = pico.exec_raw(
        "from machine import I2C, Pin\n"
        "i = I2C(0, scl=Pin(5), sda=Pin(4), freq=400000)\n"
        "i.writeto(0x70, b'\\x05')\n"
        "print(i.readfrom(0x70, 2))\n"
        "try:\n"
        "    i.readfrom(0x33, 1)\n"
        "except OSError as e:\n"
        "    print('nack', e.errno)\n"
        "print(i.scan())\n")
    assert err == ""
    lines = out.split("\r\n")
    assert lines[0] == "b'\\x05\\x05'"          # the TCA9548A's control register
    assert lines[1] == "nack 5"                  # EIO, as on the real rp2 port
    # the rp2 port bit-bangs zero-length writes on the pins: scan() never reaches I2C0
    assert lines[2] == "[]"
    assert w.mux.mask == 5 and w.mux.selects == 1


def test_buttons_and_pn532_irq_are_gpios(pico):
    pico.world.buttons[6].press()               # OK on GP16
    out, _ = pico.exec_raw("from machine import Pin\n"
                           "print([Pin(p, Pin.IN, Pin.PULL_UP).value() for p in range(10, 18)],"
                           " Pin(6, Pin.IN).value())")
    assert out.strip() == "[1, 1, 1, 1, 1, 1, 0, 1] 1"


def test_flash_survives_a_power_cut(pico):
    pico.exec_raw("f = open('kept.txt', 'w'); f.write('one\\n'); f.close()")
    n_ops = len(pico.flash_ops)
    assert n_ops > 0 and {k for k, *_ in pico.flash_ops} <= {"e", "p"}
    pico.power_cut()
    pico.boot()
    pico.write(b"\r")
    pico.expect(b">>> ", 3, wall_timeout=WALL)
    out, _ = pico.exec_raw("print(open('kept.txt').read())")
    assert out.strip() == "one"
    assert os.path.getsize(pico.flash) == 2 * 1024 * 1024
