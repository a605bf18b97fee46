# The shoe's "tags" serial protocol on the simulated board, for tests and for trying
# tools/tags.py without hardware. Runs on MicroPython and CPython:
#
#   micropython host_tests/mp/tags_device.py [--uidmap PATH] [--displays N] PILE...
#
# PILE is the operator's stack of tags, placed one by one whenever the TagMode wants a tag
# and taken away when it wants the field clear:
#   blank:N            a factory-fresh NTAG213 (uid_for(N))
#   lock:N             a factory-fresh tag with a lock control TLV first
#   text:CARD:N        a tag with an NDEF Text record (e.g. a finished card, or "hello")
#   ro:N               a blank tag whose capability container says read-only
#   ...:leave=K        the first time it is placed, the tag leaves after K exchanges
# stdin lines: "tags ..." go to the TagMode (the controller does the same);
#   "sim deal"  passes every pile tag through the field once with the shoe reader polling
#               (prints "sim: card QH" / "sim: anomaly ..." and "sim: dealt N");
#   "sim dump"  prints "sim: tag UIDHEX USERHEX" for every pile tag;
#   "sim quit" or end of input: exit.
# Other output: "sim: pile empty: ..." once when the TagMode wants a tag and none is left;
# the operator then stops the run ("tags stop": the summary follows), so it always ends.
import sys

if sys.implementation.name == "cpython":
    import os
    _here = os.path.dirname(os.path.abspath(__file__))
    _root = os.path.dirname(os.path.dirname(_here))
    for _p in (os.path.join(_root, "firmware"), _root):
        if _p not in sys.path:
            sys.path.insert(0, _p)

import select                                # noqa: E402

from boards import sim                       # noqa: E402
from boards.simdev import ntag213            # noqa: E402
from hardware.shoe_reader import ANOMALY     # noqa: E402


def make_tag(spec):
    parts = spec.split(":")
    leave = -1
    if parts[-1].startswith("leave="):
        leave = int(parts[-1][6:])
        parts = parts[:-1]
    kind = parts[0]
    if kind == "blank":
        t = ntag213.blank_tag(n=int(parts[1]))
    elif kind == "lock":
        t = ntag213.NTAG213(ntag213.uid_for(int(parts[1])),
                            ntag213.LOCK_CONTROL_TLV + b"\x03\x00\xfe")
    elif kind == "text":
        t = ntag213.text_tag(parts[1], n=int(parts[2]))
    elif kind == "ro":
        t = ntag213.blank_tag(n=int(parts[1]))
        t.mem[15] = 0x0F                     # CC: no write access
    else:
        raise ValueError("pile item? " + spec)
    t.leave = leave
    return t


class Operator:
    """Places pile tags when the TagMode wants one and removes them when asked."""

    def __init__(self, world, tm, pile, delay=20):
        self.w = world
        self.tm = tm
        self.pile = pile
        self.cur = 0
        self.delay = delay
        self.wait = 0
        self.empty_said = False

    def step(self):
        from tagging import tagmode
        field = self.w.pn532.field
        need = self.tm.need if self.tm.active else tagmode.NEED_REMOVE
        if need == tagmode.NEED_TAG and not field:
            if self.cur >= len(self.pile):
                if not self.empty_said and self.tm.active:
                    # as a person with no card left would: stop the run (its summary follows)
                    self.empty_said = True
                    self.tm.stop()
                    return "sim: pile empty: the operator stops the run"
                return None
            self.wait += 1
            if self.wait >= self.delay:
                self.wait = 0
                t = self.pile[self.cur]
                if t.leave >= 0:
                    self.w.pn532.fault_tag_leaves_after(t, t.leave)
                    t.leave = -1
                self.w.pn532.put(t)
        elif need == tagmode.NEED_REMOVE and self.cur < len(self.pile) \
                and self.pile[self.cur] in field:
            self.wait += 1
            if self.wait >= self.delay:
                self.wait = 0
                self.w.pn532.remove(self.pile[self.cur])
                self.cur += 1
        else:
            self.wait = 0
        return None


def _say(line):
    sys.stdout.write(line + "\n")
    if hasattr(sys.stdout, "flush"):
        sys.stdout.flush()


class Lines:
    """Lines from stdin without blocking (one byte per read, so no line hides in a buffer)."""

    def __init__(self):
        self.p = select.poll()
        self.p.register(sys.stdin, select.POLLIN)
        self.buf = ""
        self.eof = False
        if sys.implementation.name == "cpython":
            import os
            self._read1 = lambda: os.read(0, 1)
        else:
            self._read1 = lambda: sys.stdin.buffer.read(1)

    def get(self, block):
        while not self.eof and self.p.poll(-1 if block else 0):
            b = self._read1()
            if not b:
                self.eof = True
                break
            c = b.decode()
            if c == "\n":
                line = self.buf
                self.buf = ""
                return line
            self.buf += c
        return None


def tagtext(code):
    from game.cards import card_name
    return card_name(code)


class Shoe:
    """The simulated board with a shoe reader and a TagMode sharing it, as the controller
    will hold them; feed() takes a serial line, step() is one pass of the loop."""

    def __init__(self, specs, path="uidmap.txt", nd=9, say=None, irq=True):
        from tagging import tagmode
        from hardware.uid_map import UidMap
        self.say = say or _say
        self.pile = [make_tag(s) for s in specs]
        self.w = w = sim.build(n_displays=nd)
        m = UidMap()
        try:
            m.load(path)
        except OSError:
            pass
        except ValueError as e:              # as the controller does: no map, say why
            self.say("sim: uid map %s: %s" % (path, e))
            m = None
        self.reader = sim.make_reader(uid_map=m)
        self.displays = sim.make_displays(nd)
        if irq:
            self.tm = tagmode.for_reader(self.reader, self.displays, uidmap_path=path)
        else:                                # readiness from the status byte instead
            self.tm = tagmode.TagMode(self.reader.pn, self.displays, i2c=sim.make_i2c(),
                                      uidmap_path=path, uid_map=m)
        self.op = Operator(w, self.tm, self.pile)
        self.quit = False

    def busy(self):
        op = self.op
        if op is None:                       # manual: the test moves the tags itself
            return self.tm.active
        return self.tm.active or (op.cur < len(self.pile) and self.pile[op.cur] in
                                  self.w.pn532.field)

    def feed(self, line):
        line = line.strip()
        if line.startswith("tags ") or line == "tags":
            self.tm.command(line)
        elif line == "sim deal":
            self.deal()
        elif line == "sim dump":
            for t in self.pile:
                self.say("sim: tag %s %s" % (t.uid.hex().upper(), t.user().hex()))
        elif line == "sim quit":
            self.quit = True
        elif line:
            self.say("sim: ? " + line)

    def step(self):
        out = self.tm.poll()
        while out is not None:
            self.say(out)
            out = self.tm.poll()
        if self.busy():
            if self.op is not None:
                s = self.op.step()
                if s:
                    self.say(s)
                    out = self.tm.poll()     # the operator may have stopped the run
                    while out is not None:
                        self.say(out)
                        out = self.tm.poll()
            self.w.clock.advance_us(1000)
        v = self.w.violations()
        if v:
            for x in v:
                self.say("sim: violation " + x)
            self.quit = True

    def run(self, limit_ms=600000):
        """Steps until the TagMode is idle and the field is clear (or `limit_ms`)."""
        t0 = self.w.clock.ms()
        self.step()
        while self.busy() and not self.quit and self.w.clock.ms() - t0 < limit_ms:
            self.step()
        self.step()

    def deal(self):
        """Pass every pile tag through the field once, the shoe reader polling."""
        w = self.w
        n = 0
        for t in self.pile:
            w.pn532.put(t)
            for i in range(60):
                if i == 40:
                    w.pn532.remove(t)
                e = self.reader.poll()
                if e is not None:
                    n += 1
                    self.say("sim: card " + tagtext(e) if e != ANOMALY
                             else "sim: anomaly " + self.reader.anomaly)
                w.clock.advance_us(1000)
        self.say("sim: dealt %d" % n)


def main(argv):
    path = "uidmap.txt"
    nd = 9
    specs = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--uidmap":
            path = argv[i + 1]
            i += 1
        elif a == "--displays":
            nd = int(argv[i + 1])
            i += 1
        else:
            specs.append(a)
        i += 1
    shoe = Shoe(specs, path, nd)
    inp = Lines()
    while not shoe.quit:
        line = inp.get(block=not shoe.busy())
        if line is None and inp.eof and not shoe.busy():
            break
        if line is not None:
            shoe.feed(line)
        shoe.step()


if __name__ == "__main__":
    main(sys.argv[1:])
