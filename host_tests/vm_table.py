"""The whole firmware (.mpy) on the MicroPython VM against the simulated board
(tools/hwbridge.py), driven by a host-side schedule in simulated time: bytes typed on the
serial line, buttons, tags put into and taken out of the reader's field."""
import os
import threading

import hwbridge
import runner as R
import simtable as S

from boards import sim
from boards.simdev.deck import card_sticker


class VMTable:
    def __init__(self, flash, settings, heap=R.VM_HEAP, wall_s=240, cpu_us=0):
        S.fresh_flash(flash, settings)
        self.flash = flash
        self.heap = heap
        self.wall_s = wall_s
        self.world = sim.build(n_displays=9)
        self.bridge = hwbridge.Bridge(self.world)
        self.steps = []                 # (ms, order, fn), run in time order
        self.triggers = []              # [cond(vm), fn]: fn runs once when cond is true
        self.out = []                   # every line the firmware printed
        self.out_at = []                # simulated ms of each
        self.until = None               # until(vm) true: type "halt"
        self.max_ms = 600000
        self.killed = False
        self.cpu_us = cpu_us            # simulated CPU time charged per bridge request
        self.requests = 0

    # -------------------------------------------------------------- schedule
    def at(self, ms, fn):
        self.steps.append((ms, len(self.steps), fn))
        self.steps.sort()

    def when(self, cond, fn):
        """fn() once, as soon as cond(vm) is true (checked at every bridge request)."""
        self.triggers.append([cond, fn])

    def type(self, ms, data):
        """Bytes (or a str line, to which "\\n" is added) typed at simulated ms."""
        if isinstance(data, str):
            data = data.encode() + b"\n"
        self.at(ms, lambda: self.bridge.push_bytes(data))

    def press(self, ms, name, hold=70):
        pin = self.world.buttons[S.B[name]]
        self.at(ms, pin.press)
        self.at(ms + hold, pin.release)

    def tag(self, ms, card, dwell=40, pack=0):
        """A card's sticker (the deck's: the same UID whenever that card comes) in the
        reader's field from ms for dwell ms."""
        t = card_sticker(card, pack)
        self.at(ms, lambda: self.world.pn532.put(t))
        self.at(ms + dwell, lambda: self.world.pn532.remove(t))
        return t

    # -------------------------------------------------------------- run
    def now(self):
        return self.world.clock.ms()

    def run(self):
        vm = R.VM(self.flash, heap=self.heap)
        vm.boot(world=self.world)
        self.bridge = vm.bridge
        timer = threading.Timer(self.wall_s, self._kill, (vm.proc,))
        timer.start()
        halted = [False]

        def on_output(line):
            self.out.append(line)
            self.out_at.append(self.now())
            return True

        def on_tick(_):
            self.requests += 1
            if self.cpu_us:
                self.world.clock.advance_us(self.cpu_us)
            now = self.now()
            while self.steps and self.steps[0][0] <= now:
                self.steps.pop(0)[2]()
            for t in self.triggers:
                if t[0] is not None and t[0](self):
                    t[0] = None
                    t[1]()
            if not halted[0] and (now > self.max_ms or
                                  (self.until is not None and self.until(self))):
                halted[0] = True
                self.bridge.push_line("halt")

        vm.on_line = on_output
        vm.on_tick = on_tick
        try:
            vm.run()                     # until the VM stops ('halt')
        finally:
            timer.cancel()
        rc = vm.rc
        assert not self.killed, "the VM ran out of wall time; last lines:\n" + \
            "\n".join(self.out[-15:])
        return rc

    def _kill(self, proc):
        self.killed = True
        proc.kill()

    # -------------------------------------------------------------- output
    def answers(self):
        """The answer lines ("ok ..." / "error: ...") in order."""
        return [x for x in self.out if x.startswith("ok") or x.startswith("error:")]

    def journal(self):
        with open(os.path.join(self.flash, "journal.txt")) as f:
            return f.read()
