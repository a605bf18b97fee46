"""One way to run the firmware on the host: a table (the firmware and the chip models of its
board) behind one interface, with three backends.

    CPython  the firmware (firmware/table/app.py) in this process, stepped; the fastest (power cuts
             after every event, the pictures)
    VM       the .mpy firmware on the MicroPython unix VM (`-X heapsize`), the chip models in
             this process through tools/hwbridge.py
    Pico     the UF2 (or the stock UF2 with the .mpy files) on the virtual Pico (tools/vpico:
             rp2040js, emulated time with bus, flash and CPU charged)

What every harness does with a table, whichever backend runs it:

    r = runner.CPython(flash, driver, screens)     # or VM(flash, ...), Pico(flash, ...)
    r.boot()                  power on: a new board, the firmware starts from its flash
    r.play(driver)            a (new) driver for the table as it is (after 'new', a resume)
    r.send(line)              a line typed on the serial port
    r.press(name, hold_ms)    a button pressed now, released hold_ms later
    r.put(tag) / r.remove(tag)   an NTAG213 into / out of the reader's field
    r.at(ms, fn)              fn() when the table's clock reaches ms (host actions)
    r.on_tick(now_ms)         called at every step / device request / slice (pacing, hooks)
    r.on_line(line)           called with every serial line the firmware prints
    r.run(until=None)         until until(r) is true; without one, until the driver is done
    r.lines, r.saw(prefix)    every serial line printed (all boots)
    r.world, r.now_ms()       the chip models; r.panels() what each SSD1306 lights (tools/panel)
    r.halt()                  'halt' on the serial line; the lines said after it
    r.power_cut()             the plug pulled now (the flash keeps what was written)
    r.close()

A driver (simtable.Driver: scripted players; livetable's person) follows the protocol
attach(world, push_line) at every boot, poll(now_ms) as the table runs, on_output(line) for
every serial line and done when it has nothing left to do.
"""
import json
import os
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "firmware"), ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from boards import sim  # noqa: E402
from panel import Panel  # noqa: E402

BUTTONS = sim.BUTTONS
VM_MAIN = os.path.join(ROOT, "tools", "vm", "sim_main.py")
# The VM's heap for the sims and tests: the Pico's 241,776 bytes hold the firmware with room
# to spare (the virtual Pico's own tests assert its heap); the 64-bit VM's objects are about
# twice as big, and the firmware needs about 200k there (tools/bench_app.py finds the
# smallest): running at that edge made every small code change a MemoryError at boot.
VM_HEAP = "320k"


class RunnerError(RuntimeError):
    """The firmware said an error where the host asked it for something (the REPL)."""


class Runner:
    """The interface; see the module docstring. A backend sets `world` (the chip models the
    driver and the host actions touch) at boot and calls _output() for each serial line."""

    def __init__(self, driver=None, screens=None):
        self.driver = driver
        self.screens = screens          # a simtable.Screens kept up to date, or None
        self.world = None
        self.dworld = None              # the world as the driver sees it (the Pico: recorded)
        self.lines = []                 # every serial line, all boots
        self.on_line = None
        self.on_tick = None
        self.steps = []                 # [(ms, seq, fn)] host actions at the table's instants
        self._seq = 0

    # ---------------------------------------------------------------- serial
    def send(self, line):
        raise NotImplementedError

    def _output(self, line):
        self.lines.append(line)
        if self.on_line is not None:
            self.on_line(line)
        if self.driver is not None:
            self.driver.on_output(line)

    def saw(self, prefix, since=0):
        return any(x.startswith(prefix) for x in self.lines[since:])

    # ---------------------------------------------------------------- the board
    def now_ms(self):
        return self.world.clock.ms()

    def at(self, ms, fn):
        self._seq += 1
        self.steps.append((ms, self._seq, fn))
        self.steps.sort(key=lambda s: s[:2])

    def _due(self, now):
        while self.steps and self.steps[0][0] <= now:
            self.steps.pop(0)[2]()

    def press(self, name, hold_ms=70):
        b = self.dworld.buttons[BUTTONS.index(name) if isinstance(name, str) else name]
        t = self.now_ms()
        self.at(t, b.press)
        self.at(t + hold_ms, b.release)

    def put(self, tag, since_ns=None):
        self.dworld.pn532.put(tag, since_ns=since_ns)

    def remove(self, tag):
        self.dworld.pn532.remove(tag)

    def panels(self):
        """{display index: Panel} of what each SSD1306 model lights now."""
        return {i: Panel(d) for i, d in enumerate(self.world.displays)}

    # ---------------------------------------------------------------- life
    def play(self, driver):
        """A driver for the table as it is (a boot attaches the runner's own)."""
        self.driver = driver
        if driver is not None:
            driver.attach(self.dworld, self.send)

    def _attach(self, push_line):
        self.steps = []
        if self.driver is not None:
            self.driver.attach(self.dworld, push_line)
        if self.screens:
            self.screens.reset()

    def boot(self):
        raise NotImplementedError

    def run(self, until=None):
        raise NotImplementedError

    def halt(self):
        raise NotImplementedError

    def power_cut(self):
        raise NotImplementedError

    def close(self):
        self.power_cut()

    def session(self):
        """Boot, play the driver to its end and halt; the lines said after 'halt'."""
        self.boot()
        self.run()
        return self.halt()


# --------------------------------------------------------------------------- CPython
class _LineOut:
    """A stream cut into lines (the firmware's `out`)."""

    def __init__(self, fn):
        self.fn = fn
        self.part = ""

    def write(self, text):
        self.part += text
        while "\n" in self.part:
            line, self.part = self.part.split("\n", 1)
            self.fn(line)


class CPython(Runner):
    """The firmware (firmware/table/app.py) on CPython with the simulated board in-process.
    serial_in: the firmware's serial line source (default: lines typed by send())."""

    def __init__(self, flash, driver=None, screens=None, serial_in=None, raw_flash=None,
                 usb=False, world_kw=None):
        super().__init__(driver, screens)
        self.usb = usb                   # the output through boards/simdev/serial.UsbOut
        self.usb_out = None              # (its host_reads(False): a host that stops reading)
        self.world_kw = {"n_displays": 9}        # sim.World's (a bare board: parts left out)
        self.world_kw.update(world_kw or {})
        self.flash = flash.rstrip("/") + "/"
        self.serial_in = serial_in
        self.raw_flash = raw_flash       # boards/simdev/flash.Flash: the UF2's raw region
        self.table = None
        self._push = None

    def boot(self):
        from table import app
        from boards.simdev.serial import QueueLines
        self.world = self.dworld = w = sim.build(**self.world_kw)
        w.raw_flash = self.raw_flash
        kw = {}
        if self.serial_in is None:
            w.serial = QueueLines()
            self._push = w.serial.push
        else:
            kw["lines"] = self.serial_in
            self._push = None
        out = _LineOut(self._output)
        if self.usb:
            from boards.simdev.serial import UsbOut
            out = self.usb_out = UsbOut(w.clock, out.write)
        self._attach(self._push)
        self.table = app.Table(sim, self.flash, out=out, **kw)
        self.table.boot()
        return self

    def send(self, line):
        self._push(line)

    def run(self, until=None, max_ms=10_000_000):
        """Step until until(self) (else the driver is done); the displays settle 40 ms
        after the driver is done."""
        t = self.table
        w = self.world
        d = self.driver
        while until is not None or not d.done:
            busy = t.step()
            now = w.clock.ms()
            if self.steps:
                self._due(now)
            if d is not None:
                d.poll(now)
            if self.screens:
                self.screens.watch(w)
            if self.on_tick is not None:
                self.on_tick(now)
            if until is not None and until(self):
                return True
            if not busy:
                w.clock.advance_us(1000)
            if w.clock.ms() > max_ms:
                raise RuntimeError("simulated time ran out")
        for _ in range(40):
            t.step()
            w.clock.advance_us(1000)
        if self.screens:
            self.screens.watch(w)
        return True

    def halt(self, max_ms=10000):
        n = len(self.lines)
        self.send("halt")
        end = self.world.clock.ms() + max_ms
        while not self.table.stop and self.world.clock.ms() < end:
            if not self.table.step():
                self.world.clock.advance_us(1000)
        return self.lines[n:]

    def power_cut(self):
        self.table = None


# --------------------------------------------------------------------------- the VM
class VM(Runner):
    """The firmware as .mpy files on the MicroPython VM (`-X heapsize`), the chip models in
    this process (tools/hwbridge.py). The VM waits while the host does not serve it, so
    run() can return between two of its requests and be called again. pace(now_ms) and
    on_frame() (a display changed) are called every 2 ms of the table's clock at most.

    script: the VM's main.py (tools/vm/web_main.py: the Pico W with its web server);
    record_writes: keep the emulated ns of every data write to each display (`writes`, all
    boots, as the Pico backend does). serve_in_thread() serves it from a thread of its own
    while the caller works (the web tests make HTTP requests meanwhile); from other threads
    only send(), join() and stop()."""

    def __init__(self, flash, driver=None, screens=None, heap=VM_HEAP, pace=None,
                 on_frame=None, script=VM_MAIN, record_writes=False):
        super().__init__(driver, screens)
        self.flash = flash
        self.heap = heap
        self.pace = pace
        self.on_frame = on_frame
        self.script = script
        self.record_writes = record_writes
        self.writes = {}                 # display index -> [ns of each data write]
        self.proc = None
        self.bridge = None
        self.rc = None                   # the VM's exit status once it stopped
        self.thread = None               # the thread serving it (serve_in_thread)
        # the bridge takes typed bytes out of its buffer in two steps: a line typed from
        # another thread in between would lose its first bytes
        self._serial_lock = threading.Lock()
        self._pending = None
        self._last = 0

    def boot(self, world=None):
        """Power on: a new board (or `world`, chip models the caller made), a new VM."""
        import hwbridge
        self.world = self.dworld = w = world or sim.build(n_displays=9)
        self.bridge = hwbridge.Bridge(w)
        if self.record_writes:
            for i, disp in enumerate(w.displays):
                writes = self.writes.setdefault(i, [])

                def wrap(bus, data, orig=disp.write, writes=writes, carries=disp.carries_data):
                    orig(bus, data)
                    if carries(data):
                        writes.append(w.clock.ns)
                disp.write = wrap
        self._attach(self.bridge.push_line)
        self.rc = None
        self._pending = None
        self._last = 0
        self.proc = hwbridge.start(self.script, self.heap, cwd=self.flash)
        return self

    @property
    def running(self):
        return self.proc is not None and self.rc is None

    def send(self, line):
        with self._serial_lock:
            self.bridge.push_line(line)

    def _reply(self, req):
        with self._serial_lock:
            rep = self.bridge.handle(req[1:].split())
        try:
            self.proc.stdin.write(rep + "\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, ValueError):
            return False

    def _serve(self, stop):
        """Serve the VM until stop() (checked after each output line and before each
        request is answered) or it exits. True if stop() ended it."""
        proc = self.proc
        if proc is None or self.rc is not None:
            return False
        w = self.world
        if self._pending is not None:
            req, self._pending = self._pending, None
            if not self._reply(req):
                return self._exited()
        for line in proc.stdout:
            if not line.startswith("\x01"):
                self._output(line.rstrip("\n"))
                if stop():
                    return True
                continue
            now = w.clock.ms()
            if self.steps:
                self._due(now)
            if self.on_tick is not None:
                self.on_tick(now)
            d = self.driver
            if d is not None:
                d.poll(now)
            if now - self._last >= 2:
                self._last = now
                if self.screens and self.screens.watch(w) and self.on_frame:
                    self.on_frame()
                if self.pace:
                    self.pace(now)
            if stop():
                self._pending = line
                return True
            if not self._reply(line):
                break
        return self._exited()

    def _exited(self):
        self.rc = self.proc.wait()
        if self.screens:
            self.screens.watch(self.world)
        return False

    def run(self, until=None):
        """Until until(self), else until the driver is done; False if the VM stopped first
        (its exit status is rc)."""
        d = self.driver
        if until is None:
            if d is None:
                return self._serve(lambda: False)
            return self._serve(lambda: d.done)
        return self._serve(lambda: until(self))

    def halt(self):
        """'halt' on the serial line; serve until the VM exits. The lines said after it;
        the exit status is rc."""
        n = len(self.lines)
        if self.running:
            self.send("halt")
            self._serve(lambda: False)
        return self.lines[n:]

    def power_cut(self):
        if self.proc is not None and self.rc is None:
            self.proc.kill()
            self.rc = self.proc.wait()
            if self.screens:
                self.screens.watch(self.world)

    # ------------------------------------------------ served from a thread of its own
    def serve_in_thread(self, until=None):
        """Serve the booted VM from a daemon thread until until(self) (checked as run()
        does), without one until the VM stops; the thread."""
        stop = (lambda: until(self)) if until is not None else (lambda: False)
        self.thread = threading.Thread(target=self._serve, args=(stop,), daemon=True)
        self.thread.start()
        return self.thread

    def join(self, timeout_s=None):
        """Wait up to timeout_s for the serving thread to end; True if it did."""
        if self.thread is not None:
            self.thread.join(timeout_s)
            return not self.thread.is_alive()
        return True

    def stop(self, timeout_s=30):
        """End a VM served by a thread: 'halt' on the serial line, up to timeout_s for the
        firmware to stop, then the plug. The exit status is rc."""
        if self.running and self.thread is not None and self.thread.is_alive():
            self.send("halt")
            self.join(timeout_s)
        self.power_cut()
        self.join(10)


# --------------------------------------------------------------------------- the virtual Pico
class _Reader:
    """The PN532 as the driver sees it on the Pico: a tag put or removed also moves the IRQ
    line, and the instant is recorded as a stimulus."""

    def __init__(self, run):
        self.run = run

    def put(self, tag, since_ns=None):
        p = self.run.p
        t = p.world.clock.ns if since_ns is None else min(p.world.clock.ns, since_ns)
        d = self.run.driver
        self.run.stimuli.append((t, "card", d.planned if d is not None else -1))
        p.deal(tag, since_ns=since_ns)

    def remove(self, tag):
        self.run.p.remove(tag)


class _Button:
    def __init__(self, run, i):
        self.run = run
        self.i = i

    def press(self):
        r = self.run
        r.stimuli.append((r.p.world.clock.ns, "press", self.i))
        r.p.world.buttons[self.i].press()

    def release(self):
        r = self.run
        r.stimuli.append((r.p.world.clock.ns, "release", self.i))
        r.p.world.buttons[self.i].release()


class _DriverWorld:
    def __init__(self, run):
        w = run.p.world
        self.buttons = [_Button(run, i) for i in range(len(w.buttons))]
        self.clock = w.clock
        self.displays = w.displays
        self.pn532 = _Reader(run)


class Pico(Runner):
    """The firmware on the virtual Pico: its flash image `flash` (made from the UF2 at the
    first boot when it does not exist), or an already made vpico.pico.Pico (`pico`, e.g.
    after `make deploy` to it). Records the emulated ns of every data write to each display
    (`writes`, all boots), every host stimulus of this boot (`stimuli`), every card record read
    (`card_reads`), the flash operations per event acknowledged (`flash_by_event`) and the
    phones' answers on a Pico W (`web`).

    slice_s: the emulated time run between two polls of the driver; eol: what ends a line
    sent; live_serial: lines are cut as the bytes come (else after each slice)."""

    def __init__(self, flash=None, driver=None, screens=None, pico=None, firmware=None,
                 board="RPI_PICO", slice_s=0.002, wall_timeout=7200, eol="\r",
                 live_serial=False, on_frame=None):
        super().__init__(driver, screens)
        self.flash = flash
        self.p = pico
        self.firmware = firmware
        self.board = board
        self.slice = slice_s
        self.wall_timeout = wall_timeout
        self.eol = eol
        self.live_serial = live_serial
        self.on_frame = on_frame
        self.on_action = None            # callback(event index) when the driver plans one
        self.part = b""
        self.writes = {}                 # display index -> [ns of each data write]
        self.stimuli = []                # (ns, kind, index) of every host action
        self.card_reads = []             # ns of every successful InDataExchange answer read
        self.web = []                    # (seat, status, body) of each "#web" answer
        self.web_parts = {}              # seat -> the "#webp" parts of its answer under way
        self.web_views = {}              # seat -> its stream's answer so far (a dict)
        self.web_ns = []                 # the emulated ns each of them had come out by
        self.accepted_ns = {}            # N -> emulated ns its "* #N" / "ok #N" line came out
        self.flash_by_event = {}         # events acknowledged -> [(kind, ns cost, start ns)]
        self.action_at = {}              # event index -> emulated ms its action started
        self.first_prompt_ns = None
        self.t_wall = 0.0                # wall seconds spent in run()

    def boot(self):
        from vpico import pico as P
        if self.p is None:
            self.p = P.Pico(self.flash, on_i2c=self._i2c, firmware=self.firmware,
                            board=self.board)
        else:
            self.p.on_i2c = self._i2c
        p = self.p
        if p.proc is None:
            p.boot()
        w = self.world = p.world
        self.part = b""
        self.stimuli = []
        self.first_prompt_ns = None
        p.on_serial = self._feed if self.live_serial else None
        p.on_flash = self._flash
        for i, disp in enumerate(w.displays):
            writes = self.writes.setdefault(i, [])      # every boot's, in emulated ns

            def wrap(bus, data, orig=disp.write, writes=writes, carries=disp.carries_data):
                orig(bus, data)
                if carries(data):
                    writes.append(w.clock.ns)
            disp.write = wrap
        self.dworld = _DriverWorld(self)
        self._attach(self.send)
        if self.driver is not None:
            self.driver.on_action = self._action
        return self

    def play(self, driver):
        super().play(driver)
        if driver is not None:
            driver.on_action = self._action

    def _action(self, k):
        self.action_at[k] = self.p.world.clock.ms()
        if self.on_action:
            self.on_action(k)

    def _i2c(self, addr, kind, data, ns):
        # the PN532's answer to a READ, status 00: the card's record is in the firmware
        if kind == "r" and len(data) > 9 and data[6:9] == b"\xd5\x41\x00":
            self.card_reads.append(ns)

    def _flash(self, kind, offs, count, cost, start_ns):
        d = self.driver
        self.flash_by_event.setdefault(d.acked if d is not None else -1, []).append(
            (kind, cost, start_ns))

    def send(self, line):
        self.stimuli.append((self.p.world.clock.ns, "serial", -1))
        self.p.write(line + self.eol)

    def _feed(self, data):
        self.part += data
        while b"\n" in self.part:
            raw, self.part = self.part.split(b"\n", 1)
            line = raw.decode(errors="replace").rstrip("\r")
            if line.startswith("#webp "):  # a part of a phone's answer (boards/vpico_w.py)
                _, seat, part = line.split(" ", 2)
                self.web_parts.setdefault(int(seat), []).append(part)
                continue
            if line.startswith("#web "):   # its end: the answer, at this instant
                words = line.split(" ")
                seat = int(words[1])
                body = "".join(self.web_parts.pop(seat, ()))
                if words[3:] == ["d"]:     # a stream's message: the keys that changed
                    body = self._merged(seat, body)
                self.web.append((seat, int(words[2]), body))
                self.web_ns.append(self.p.world.clock.ns)
                continue
            if line.startswith(("* #", "ok #")):
                n = line.split("#", 1)[1].split(" ", 1)[0]
                if n.isdigit():
                    self.accepted_ns.setdefault(int(n), self.p.world.clock.ns)
            if self.first_prompt_ns is None and line.startswith("> "):
                self.first_prompt_ns = self.p.ns
            self._output(line)

    def _merged(self, seat, body):
        """The phone's whole answer once a stream's message is put with its earlier ones (a
        null: the key is gone), as the page does (web_pages.JS)."""
        view = self.web_views.setdefault(seat, {})
        for k, v in json.loads(body).items():
            if v is None:
                view.pop(k, None)
            else:
                view[k] = v
        return json.dumps(view)

    def take_output(self):
        """The serial output gathered since the last slice, cut into lines."""
        if not self.live_serial:
            data = self.p.read()
            if data:
                self._feed(data)

    def run(self, until=None, max_s=3600.0, wall_timeout=None):
        """Run until until(self) is true (else the driver is done); the driver (if any)
        plays meanwhile."""
        from vpico.pico import VpicoError
        p = self.p
        t0 = time.monotonic()
        wall = self.wall_timeout if wall_timeout is None else wall_timeout
        if until is None:
            d = self.driver
            until = lambda r: d.done  # noqa: E731
        while not until(self):
            p.run_for(self.slice)
            self.take_output()
            now = p.world.clock.ms()
            if self.steps:
                self._due(now)
            if self.on_tick is not None:
                self.on_tick(now)
            if self.driver is not None:
                self.driver.poll(now)
            if self.screens and self.screens.watch(p.world) and self.on_frame:
                self.on_frame()
            if p.emulated_now() > max_s or time.monotonic() - t0 > wall:
                d = self.driver
                raise VpicoError("the Pico did not get there (emulated %.1f s%s); last lines:"
                                 "\n%s" % (p.emulated_now(), ", event %d of %d" % (
                                     d.acked, len(d.events)) if d is not None else "",
                                     "\n".join(self.lines[-12:])))
        self.t_wall += time.monotonic() - t0
        return True

    def halt(self, settle_s=0.1):
        """'halt' on the serial line: the firmware closes the journal, prints its heap
        lines and main.py returns to the REPL. The lines said after it."""
        n = len(self.lines)
        t_wall = self.t_wall
        d, self.driver = self.driver, None          # the players are done: not polled
        self.send("halt")
        self.run(lambda r: r.saw("# heap in use after gc", n),
                 max_s=self.p.emulated_now() + 10)
        self.p.run_for(settle_s)
        self.take_output()
        self.t_wall = t_wall
        self.driver = d
        return self.lines[n:]

    def exec(self, code, timeout_s=120):
        """Python run at the REPL (the table stopped); its output. RunnerError if it
        printed an error."""
        out, err = self.p.exec_raw(code, timeout_s)
        if err.strip():
            raise RunnerError("on the Pico: " + err.strip()[-500:])
        return out

    def mem_info(self):
        """(free, largest free block) after a collection (micropython.mem_info, REPL)."""
        # a collection first, on its own: the code of the exec that reads the figures is
        # then compiled low in the heap, not into whatever hole the last garbage left
        self.exec("import gc\ngc.collect()")
        out = self.exec("import gc, micropython\ngc.collect()\nprint(gc.mem_free())\n"
                        "micropython.mem_info()")
        free = int(out.split()[0])
        block = None
        for part in out.replace("\n", ",").split(","):
            part = part.strip()
            if part.startswith("max free sz:"):
                block = int(part.split(":")[1]) * 16       # GC blocks of 16 bytes (rp2)
        return free, block

    def power_cut(self):
        if self.p is not None:
            self.p.power_cut()

    def close(self):
        if self.p is not None:
            self.p.close()
            self.p = None
