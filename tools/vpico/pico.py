"""The virtual Pico: a MicroPython UF2 on an emulated RP2040 (tools/vpico/vpico.js,
rp2040js) -- the shoe's own (`make uf2`, firmware frozen in) or the stock one with the
firmware as .mpy files on its flash -- wired like boards/pico.py to the chip models of the simulated board
(boards/sim.World: PN532 with its tags, TCA9548A, nine SSD1306).

    from vpico.pico import Pico
    pico = Pico(flash_path)            # a missing flash file is made from the UF2
    Pico(path, firmware="stock")       # MicroPython's own UF2 (the .mpy path)
    Pico(path, board="RPI_PICO_W")     # the shoe's Pico W UF2 (no Wi-Fi chip emulated)
    pico.boot()
    port = pico.serve_tcp()            # mpremote connect socket://127.0.0.1:PORT
    pico.run_for(0.5)                  # emulated seconds; the CPU runs only in run_*
    pico.write(b"print(1)\\r")           # USB CDC, host -> Pico
    pico.press("OK"); pico.deal(tag)   # buttons GP10..GP17, a tag into the PN532 field
    pico.power_cut(); pico.boot()      # the flash file is as it was at that instant
    pico.power_cut_in_op(3, 0.5, seed) # the power goes half-way through the 3rd flash
                                       # erase/program from now: that one is left torn

Emulated time stands still while this process answers the CPU's I2C requests; Node charges
the bus time (9 SCL periods a byte, start and stop, at the rate the firmware set), the
models' own delays (PN532 wake-up stretching), the W25Q16JV's erase/program times and
each XIP cache miss (xip_cache=False: every flash read costs one cycle, as in rp2040js).
World.clock follows the emulated clock, so the models' response delays are emulated time.
"""
import os
import select
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for _p in (os.path.join(ROOT, "firmware"), ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from boards import sim  # noqa: E402

UF2_NAME = "RPI_PICO-v1.28.0.uf2"
BOOTROM_NAME = "rp2040-bootrom-b1.bin"
GET_FIRMWARE = ("the virtual Pico needs the RP2040 B1 boot ROM (%s, 16,384 bytes, from "
                "raspberrypi/pico-bootrom) and, for the .mpy-on-stock configuration, the stock "
                "MicroPython v1.28.0 UF2 for the Raspberry Pi Pico (%s, from "
                "https://micropython.org/download/RPI_PICO/) in $VPICO_FIRMWARE or ../shared/pico/ "
                "beside the repository" % (BOOTROM_NAME, UF2_NAME))
# The firmware a virtual Pico runs: the shoe's own UF2 (`make uf2`, the firmware frozen in)
# unless $VPICO_UF2 or the caller says "stock" (MicroPython's UF2, the firmware as .mpy files
# on its filesystem) or names a UF2 file.
FROZEN = "frozen"
STOCK = "stock"
BOARDS = ("RPI_PICO", "RPI_PICO_W")
BUTTON_PINS = (10, 11, 12, 13, 14, 15, 16, 17)     # boards/pico.py BUTTON_PINS
# How long the W25Q16JV takes to erase a sector and program a page (tools/vpico/vpico.js):
# the datasheet's typical times, or its maximum ($VPICO_FLASH_TIMES or Pico(flash_times=))
FLASH_TIMES = ("typical", "max")


def default_flash_times():
    return os.environ.get("VPICO_FLASH_TIMES") or "typical"


def _board_pin(name):
    """A pin of boards/pico.py, read as tools/wiring.py reads it (no machine module here)."""
    tools = os.path.join(ROOT, "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import wiring
    return wiring.board_constants("pico")[name]


BUZZER_PIN = _board_pin("BUZZER")
PN532_RESET_PIN = 7
SDA_PIN = _board_pin("SDA")


class VpicoError(Exception):
    pass


def frozen_uf2(board="RPI_PICO"):
    return os.path.join(ROOT, "build", "uf2", "pontoon-shoe-%s.uf2" % board)


def default_firmware():
    return os.environ.get("VPICO_UF2") or FROZEN


def firmware_dir():
    """The folder holding the boot ROM and the stock UF2, or VpicoError saying where to get
    them."""
    tried = []
    env = os.environ.get("VPICO_FIRMWARE")
    for d in ([env] if env else []) + [os.path.join(os.path.dirname(ROOT), "shared", "pico")]:
        tried.append(d)
        if os.path.isfile(os.path.join(d, UF2_NAME)) and os.path.isfile(
                os.path.join(d, BOOTROM_NAME)):
            return d
    raise VpicoError(GET_FIRMWARE + "; looked in: " + ", ".join(tried))


def uf2_for(firmware=None, board="RPI_PICO"):
    """The UF2 file of a firmware choice (FROZEN, STOCK or a path), or VpicoError."""
    firmware = firmware or default_firmware()
    if firmware == STOCK:
        if board != "RPI_PICO":
            raise VpicoError("the stock configuration is the plain Pico's (RPI_PICO) only")
        return os.path.join(firmware_dir(), UF2_NAME)
    path = frozen_uf2(board) if firmware == FROZEN else firmware
    if not os.path.isfile(path):
        raise VpicoError("no %s: run `make uf2` (it builds the shoe's UF2 for each board)"
                         % os.path.relpath(path, ROOT) if firmware == FROZEN else
                         "no UF2 file %s" % path)
    return path


def node_ready():
    """Raise VpicoError unless node and the pinned npm packages are installed."""
    if not os.path.isdir(os.path.join(HERE, "node_modules", "rp2040js")):
        raise VpicoError("tools/vpico/node_modules is missing: run `make vpico-deps` "
                         "(npm ci in tools/vpico)")
    try:
        subprocess.run(["node", "--version"], capture_output=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        raise VpicoError("node (Node.js 18 or newer) is needed: apt-get install nodejs npm")


class _Button:
    """A button on its GPIO (pull-up, to ground): press() drives the pin low."""

    def __init__(self, pico, pin, name):
        self.pico = pico
        self.pin = pin
        self.name = name
        self.level = 1

    def value(self, v=None):
        return self.level

    def press(self):
        self.level = 0
        self.pico._pin(self.pin, 0)

    def release(self):
        self.level = 1
        self.pico._pin(self.pin, 1)


class Pico:
    """One virtual Pico and its board. See the module docstring."""

    def __init__(self, flash, world=None, on_serial=None, on_flash=None, on_i2c=None,
                 firmware=None, board="RPI_PICO", xip_cache=True, timer_from_ms=0,
                 flash_times=None):
        self.flash = flash
        # the RP2040 timer at power-on, in ms (0: as a Pico just plugged in): a Pico up for
        # days, near the wrap of MicroPython's ticks_ms (2**30 ms)
        self.timer_from_ms = timer_from_ms
        self.firmware = firmware or default_firmware()   # FROZEN, STOCK or a UF2 path
        self.board = board
        self.xip_cache = xip_cache        # charge XIP cache misses (tools/vpico/vpico.js)
        self.flash_times = flash_times or default_flash_times()
        if self.flash_times not in FLASH_TIMES:
            raise VpicoError("flash times are typical or max, not %r" % self.flash_times)
        self.xip_misses = 0               # since this boot, and their emulated cost
        self.xip_stall_ns = 0
        self.world = world
        self.on_serial = on_serial        # callback(bytes) for CDC output (besides TCP)
        self.on_flash = on_flash          # callback(kind 'e'|'p', offset, count, ns, at ns)
        self.on_i2c = on_i2c              # callback(addr, 'w'|'r', data, ns) at each STOP
        self.proc = None
        self.ns = 0                       # emulated time, ns since this boot
        self.out = bytearray()            # CDC output not yet taken by read()/expect()
        self.flash_ops = []               # (kind, offset, count, ns cost, start ns)
        self.timers = []                  # [(ns, seq, fn)] host actions at emulated times
        self._attempt_check = None        # ns of the listing attempt a timer looks at
        self._seq = 0
        self._txn = None
        self._listener = None
        self._client = None
        self.boots = 0
        self.cut = None                   # (kind e|p|-, offset, count, bytes done, ns) of
        #                                   the last power cut the emulator made
        self.wall = 0.0                   # wall seconds spent running the CPU
        self.idle_ns = 0                  # of the last run slice, the CPU slept this long
        self.resets = []                  # (ns, REASON) of each watchdog reset since boot()

    # ------------------------------------------------------------ power
    def boot(self, world=None):
        """Power on (again): a fresh board (chip models in their power-on state) unless
        `world` is given, the CPU from the flash file."""
        if self.proc is not None:
            raise VpicoError("already running")
        node_ready()
        fw = firmware_dir()
        if world is not None:
            self.world = world
        elif self.world is None or self.boots:
            self.world = sim.build(n_displays=9)    # power-on state of every chip
        w = self.world
        w.buttons = [_Button(self, p, n) for p, n in zip(BUTTON_PINS, sim.BUTTONS)]
        w.pn532.on_field = self._send_irq   # whoever moves a tag, the IRQ line follows
        self._serving = False               # answering a bus phase (_address, _stop)
        w.clock.ns = 0
        self.ns = 0
        self.timers = []
        self.resets = []
        self._attempt_check = None
        self._txn = None
        extra = [] if os.path.exists(self.flash) else ["--uf2", uf2_for(self.firmware,
                                                                        self.board)]
        self._start(fw, extra)
        self.boots += 1

    def _start(self, fw, extra):
        cmd = ["node", os.path.join(HERE, "vpico.js"), "--bootrom",
               os.path.join(fw, BOOTROM_NAME), "--flash", self.flash,
               "--xip-cache", "on" if self.xip_cache else "off", "--buzzer", str(BUZZER_PIN),
               "--flash-times", self.flash_times]
        if self.timer_from_ms and "--start-ns" not in extra:     # (a watchdog reset: from 0)
            cmd += ["--timer-us", str(int(self.timer_from_ms) * 1000)]
        self.proc = subprocess.Popen(cmd + extra, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0)
        self._r = self.proc.stdout
        self._w = self.proc.stdin
        self._send_irq()

    def _watchdog_reset(self, parts):
        """The watchdog reset the chip (vpico.js 'R'): the next chip from the same flash,
        the emulated clock going on, the watchdog's REASON and SCRATCH kept; the board's
        chips keep their state (only the RP2040 was reset)."""
        _, reason, scratch, ns = parts
        self.proc.wait()
        self.ns = int(ns)
        self._follow(self.ns)
        self.resets.append((self.ns, int(reason)))
        self._txn = None
        self._start(firmware_dir(), ["--start-ns", str(self.ns), "--watchdog",
                                     "%d,%s" % (int(reason), scratch.decode())])

    def power_cut(self):
        """Pull the plug now: the flash file keeps what was programmed up to this instant."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait()
        self.proc = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def power_cut_at(self, seconds, seed=1):
        """The power goes when the emulated clock reaches `seconds`: an erase or program in
        flight then is left torn (tools/vpico/vpico.js; which bytes: seeded). The CPU stops
        there: run_* return early once it has (self.proc is None, self.cut says what)."""
        self._send("cut %d %d" % (int(seconds * 1e9), seed))

    def power_cut_in_op(self, k, frac, seed=1, kind=""):
        """The power goes `frac` (0..1) of the way through the k-th flash erase or program
        from now (k >= 1; kind "e" / "p": the k-th erase / program), leaving it torn; as
        power_cut_at."""
        self._send("cut-op %d %.6f %d %s" % (k, frac, seed, kind))

    def no_power_cut(self):
        """Forget a cut armed by power_cut_at / power_cut_in_op that has not come."""
        if self.proc is not None:
            self._send("cut-off")

    def close(self):
        if self.proc is not None:
            try:
                self._send("quit")
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        for s in (self._client, self._listener):
            if s is not None:
                s.close()
        self._client = self._listener = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # ------------------------------------------------------------ time
    def emulated_now(self):
        """Emulated seconds since the last boot."""
        return self.ns / 1e9

    def at(self, seconds, fn):
        """Run fn() (host side: a press, a tag) when the emulated clock reaches `seconds`."""
        self._seq += 1
        self.timers.append((int(seconds * 1e9), self._seq, fn))
        self.timers.sort()

    def run_for(self, seconds, slice_s=0.001):
        return self.run_until(self.emulated_now() + seconds, slice_s=slice_s)

    def run_until(self, seconds, cond=None, slice_s=0.001, wall_timeout=None):
        """Run the CPU until the emulated clock reaches `seconds` or cond() is true (checked
        every slice). Host timers fire at their instants. True if cond() stopped it."""
        end = int(seconds * 1e9)
        step = int(slice_s * 1e9)
        t_wall = time.monotonic()
        while self.ns < end:
            if cond is not None and cond():
                return True
            if self.proc is None:             # the power went (power_cut_at / _in_op)
                return False
            if wall_timeout is not None and time.monotonic() - t_wall > wall_timeout:
                raise VpicoError("wall-clock timeout after %.0f s (emulated %.3f s)"
                                 % (wall_timeout, self.emulated_now()))
            nxt = min(end, self.ns + step)
            if self.timers and self.timers[0][0] < nxt:
                nxt = max(self.timers[0][0], self.ns + 1)
            self._tcp_poll()
            self._run(nxt)
            while self.timers and self.timers[0][0] <= self.ns:
                _, _, fn = self.timers.pop(0)
                fn()
        return bool(cond is not None and cond())

    def _run(self, until_ns):
        t0 = time.monotonic()
        self._send("run %d" % until_ns)
        w = self.world
        r = self._r
        while True:
            line = r.readline()
            if not line:
                rc = self.proc.wait()
                self.proc = None
                raise VpicoError("the emulator stopped (exit status %s; its message is on "
                                 "stderr)" % rc)
            op = line[:1]
            if op == b"R":
                self._watchdog_reset(line.split())
                r = self._r
                self._send("run %d" % until_ns)
                continue
            if op == b"o":
                data = bytes.fromhex(line[2:].decode())
                if self.on_serial:
                    self.on_serial(data)
                if self._client is not None:
                    try:
                        self._client.sendall(data)
                    except OSError:
                        self._client.close()
                        self._client = None
                else:
                    self.out += data
            elif op == b"a":
                self._serving = True
                self._address(line.split())
                self._serving = False
            elif op in (b"w", b"r"):
                self._serving = True
                self._stop(line.split())
                self._serving = False
            elif op == b"x":
                _, addr, ns, n = line.split()
                t = self._txn
                buf = bytearray(int(n))
                self._peek(t, buf)
                self._reply(buf.hex())
            elif op == b"f":
                _, kind, offs, count, cost, at = line.split()
                rec = (kind.decode(), int(offs), int(count), int(float(cost)), int(at))
                self.flash_ops.append(rec)
                if self.on_flash:
                    self.on_flash(*rec)
            elif op == b"b":
                _, pin, level, ns = line.split()
                self._follow(int(ns))
                w.bus.drive("sda" if int(pin) == SDA_PIN else "scl", int(level))
                self._reply("%d" % w.bus.sda())
            elif op == b"g":
                _, pin, level, ns = line.split()
                if int(pin) == PN532_RESET_PIN:
                    self._follow(int(ns))
                    w.pn532.rstpdn(int(level))
                    self._send_irq()
            elif op == b"t":
                _, hz, ns = line.split()
                self._follow(int(ns))
                w.buzzer.set(int(hz), 32768 if int(hz) else 0)   # the piezo hears it
            elif op == b"c":
                _, ns, kind, offs, count, done = line.split()
                self.ns = int(ns)
                self.cut = (kind.decode(), int(offs), int(count), int(done), int(ns))
                self.proc.wait()
                self.power_cut()
                break
            elif op == b"d":
                _, ns, idle, misses, stall = line.split()
                self.ns = int(ns)
                self.idle_ns = int(idle)
                self.xip_misses = int(misses)
                self.xip_stall_ns = int(stall)
                self._follow(self.ns)
                break
            else:
                raise VpicoError("emulator: " + line.decode(errors="replace").strip())
        self.wall += time.monotonic() - t0

    # ------------------------------------------------------------ I2C0 (the models)
    def _follow(self, ns):
        c = self.world.clock
        if ns > c.ns:
            c.ns = ns

    def _address(self, parts):
        w = self.world
        addr = int(parts[1])
        reading = parts[2] == b"r"
        ns = int(parts[3])
        self._follow(ns)
        t0 = w.clock.ns
        try:
            devs = w.bus.address(addr, reading)
        except OSError:
            extra = w.clock.ns - t0
            self._txn = None
            self._reply("n %d %s %d" % (extra, self._irq_state(), w.bus.sda()))
            return
        extra = w.clock.ns - t0
        sync = 1 if w.pn532 in devs else 0
        self._txn = t = [addr, reading, devs, ns, None]
        if reading:
            buf = bytearray(32)
            self._peek(t, buf)
            t[4] = bytes(buf)
            self._reply("k %d %d %s %d %s" % (extra, sync, self._irq_state(), w.bus.sda(),
                                              buf.hex()))
        else:
            self._reply("k %d %d %s %d" % (extra, sync, self._irq_state(), w.bus.sda()))

    def transferring(self):
        """Is an I2C transfer under way (its address phase answered, its stop not yet)?"""
        return self._txn is not None

    def _peek(self, t, buf):
        dev = t[2][0]
        c = self.world.clock
        now = c.ns
        c.ns = t[3]                        # the bytes are what the device had at the start
        getattr(dev, "peek", dev.read)(self.world.bus, buf, len(buf))
        c.ns = now
        t[4] = bytes(buf)

    def _stop(self, parts):
        w = self.world
        t = self._txn
        self._txn = None
        addr = int(parts[1])
        ns = int(parts[2])
        if t is None or t[0] != addr:
            raise VpicoError("I2C STOP for 0x%02x without its address phase" % addr)
        if parts[0] == b"w":
            data = bytes.fromhex(parts[3].decode()) if len(parts) > 3 else b""
            self._follow(ns)
            if data:                    # an empty write is a probe: nothing to deliver
                w.bus.deliver(addr, t[2], data)
        else:
            n = int(parts[3])
            buf = bytearray(n)
            c = w.clock
            c.ns = t[3]
            w.bus.collect(addr, t[2][0], buf)
            self._follow(ns)
            data = bytes(buf)
            if data != t[4][:n]:
                raise VpicoError("device 0x%02x read %s, previewed %s" % (
                    addr, data.hex(), t[4][:n].hex()))
        if self.on_i2c:
            self.on_i2c(addr, "r" if parts[0] == b"r" else "w", data, ns)
        if t[2] and w.pn532 in t[2]:
            self._reply(self._irq_state())

    def _irq_state(self):
        """'LEVEL FALL_NS' of the PN532 IRQ line (GP6): now, and when it falls next."""
        pn = self.world.pn532
        level = pn.irq.value()
        fall = -1
        if level and pn.queue and not pn.silent:
            fall = pn.queue[0][0]
        elif level and not pn.silent:
            # a listing still polling, a tag in the field: its answer exists only once the
            # chip's next attempt has found it, so look again at that instant (the line
            # falls when the answer is ready, never only when the firmware asks)
            at = pn._attempt_at()
            if at is not None and at != self._attempt_check:
                self._attempt_check = at
                self.at(at / 1e9, self._send_irq)
        return "%d %d" % (level, fall)

    def sda_follows(self):
        """The SDA pin's input after the bus model changed it (a fault struck between two
        run slices): what the firmware reads."""
        self._send("pin %d %d" % (SDA_PIN, self.world.bus.sda()))

    def _send_irq(self):
        # while the emulator waits for the answer to a bus phase, that answer carries the
        # IRQ line (a tag the PN532 model lets go mid-exchange: fault_tag_leaves_after);
        # a line of its own then would be read as the answer
        if self.proc is not None and not self._serving:
            self._send("irq " + self._irq_state())

    # ------------------------------------------------------------ the board, host side
    def press(self, button, hold_s=0.07):
        """Press a button (name or index) now and release it hold_s emulated seconds later."""
        i = sim.BUTTONS.index(button) if isinstance(button, str) else button
        b = self.world.buttons[i]
        b.press()
        self.at(self.emulated_now() + hold_s, b.release)

    def deal(self, tag, dwell_s=None, since_ns=None):
        """Put a tag into the reader's field (and take it out after dwell_s, if given)."""
        self.world.pn532.put(tag, since_ns)
        if dwell_s is not None:
            self.at(self.emulated_now() + dwell_s, lambda: self.remove(tag))

    def remove(self, tag):
        self.world.pn532.remove(tag)

    def _pin(self, pin, level):
        if self.proc is not None:
            self._send("pin %d %d" % (pin, level))

    # ------------------------------------------------------------ USB CDC
    def write(self, data):
        """Bytes from the host to the Pico's USB serial port."""
        if isinstance(data, str):
            data = data.encode()
        for i in range(0, len(data), 2048):
            self._send("in " + data[i:i + 2048].hex())

    def host_reads(self, on):
        """The host, its port kept open, stops (False) or starts again (True) reading the
        Pico's USB serial output: while it does not, the Pico's transfers wait (vpico.js)."""
        self._send("host-read %d" % (1 if on else 0))

    def read(self):
        """CDC output gathered so far (and forget it)."""
        data = bytes(self.out)
        self.out = bytearray()
        return data

    def expect(self, text, timeout_s=5.0, wall_timeout=300):
        """Run until `text` appears in the CDC output; returns the output up to its end."""
        if isinstance(text, str):
            text = text.encode()
        if not self.run_until(self.emulated_now() + timeout_s, lambda: text in self.out,
                              wall_timeout=wall_timeout):
            raise VpicoError("no %r within %.1f emulated s; got %r" % (
                text, timeout_s, bytes(self.out[-300:])))
        i = self.out.index(text) + len(text)
        data = bytes(self.out[:i])
        del self.out[:i]
        return data

    def exec_raw(self, code, timeout_s=30.0):
        """Run `code` in the raw REPL (as mpremote does); returns (stdout, stderr) text.
        The Pico must be at the REPL (interrupted with ctrl-C first)."""
        self.read()
        self.write(b"\r\x03\x03")
        self.run_for(0.05)
        self.read()
        self.write(b"\x01")
        self.expect(b"raw REPL; CTRL-B to exit\r\n>", timeout_s)
        self.write(code.encode() + b"\x04")
        self.expect(b"OK", timeout_s)
        out = self.expect(b"\x04", timeout_s)[:-1]
        err = self.expect(b"\x04>", timeout_s)[:-2]
        self.write(b"\x02")
        self.expect(b">>> ", timeout_s)
        return out.decode(errors="replace"), err.decode(errors="replace")

    def put_files(self, files, batch=6000):
        """Write {device path: bytes} onto the Pico's filesystem through the raw REPL, a few
        KB per exec (faster than mpremote's cp here; deploys go through mpremote)."""
        code = []
        size = 0
        dirs = set()
        for path in sorted(files):
            d = path.rsplit("/", 1)[0] if "/" in path else ""
            parts = []
            for p in d.split("/") if d else ():
                parts.append(p)
                dirs.add("/".join(parts))
        mk = ["import os"] + ["try:\n    os.mkdir(%r)\nexcept OSError:\n    pass" % d
                             for d in sorted(dirs)]
        self._exec_ok("\n".join(mk))
        for path in sorted(files):
            data = files[path]
            for i in range(0, max(1, len(data)), batch):
                code.append("f = open(%r, %r); f.write(%r); f.close()" % (
                    path, "wb" if i == 0 else "ab", data[i:i + batch]))
                size += min(batch, len(data) - i)
                if size >= batch:
                    self._exec_ok("\n".join(code))
                    code = []
                    size = 0
        if code:
            self._exec_ok("\n".join(code))

    def _exec_ok(self, code):
        out, err = self.exec_raw(code)
        if err:
            raise VpicoError("the Pico said: " + err.strip()[-300:])
        return out

    def serve_tcp(self):
        """Listen on 127.0.0.1 (a free port): one client at a time gets the CDC byte stream
        (while one is connected, read()/expect() see nothing). Returns the port; bytes move
        while run_* runs."""
        if self._listener is None:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            s.setblocking(False)
            self._listener = s
        return self._listener.getsockname()[1]

    def _tcp_poll(self):
        if self._listener is None:
            return
        socks = [self._listener] + ([self._client] if self._client is not None else [])
        ready = select.select(socks, [], [], 0)[0]
        if self._listener in ready:
            c, _ = self._listener.accept()
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._client is not None:
                self._client.close()
            self._client = c
            self.out = bytearray()      # what nobody read before is gone, as on USB
        if self._client is not None and self._client in ready:
            try:
                data = self._client.recv(65536)
            except OSError:
                data = b""
            if data:
                self.write(data)
            else:
                self._client.close()
                self._client = None

    def serve_while(self, busy, wall_timeout=600):
        """Keep the Pico running (TCP served) while busy() is true, e.g. while an mpremote
        process runs. Emulated time moves in 1 ms slices; a slice the CPU slept through
        waits (up to 1 ms of wall time) for the host's next bytes, so an idle Pico's clock
        runs about as fast as the wall clock instead of racing ahead."""
        t0 = time.monotonic()
        while busy():
            if time.monotonic() - t0 > wall_timeout:
                raise VpicoError("wall-clock timeout after %.0f s" % wall_timeout)
            self.run_for(0.001)
            if self.idle_ns >= 900000 and self._listener is not None:
                socks = [self._listener] + ([self._client] if self._client else [])
                select.select(socks, [], [], 0.001)

    # ------------------------------------------------------------ pipe
    def _send(self, line):
        self._w.write(line.encode() + b"\n")

    def _reply(self, line):
        self._w.write(line.encode() + b"\n")
