# PN532 on I2C (0x24), modelled from docs/DEVICES.md: frames, ACK, status byte, busy NACK after
# a write, a field of NTAG213 tags. Protocol errors in what the host sends raise
# ProtocolError naming the fault (strict=True) or answer the syntax-error frame.
from boards.simdev.bus import ProtocolError, Stats
from boards.simdev import ntag213
from boards.simdev.deck import Rng

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"

# InDataExchange status codes
ST_OK = 0x00
ST_TIMEOUT = 0x01
ST_CRC = 0x02
ST_PARITY = 0x03
ST_NOT_ACCEPTABLE = 0x27
ST_RELEASED = 0x29
ST_NAK = 0x14   # (est) what a tag NAK is reported as; not in docs/DEVICES.md

# Timings in microseconds; all are constructor parameters. Marks as in DEVICES.md:
# (ds) from a datasheet or standard, (obs) seen in drivers or logs, (est) an estimate.
#
# Over the air (ISO/IEC 14443-3 type A, 106 kbit/s; (ds)): one bit is 128/fc = 9.44 us
# (fc = 13.56 MHz); a frame is a start bit, 9 bits a byte (8 + parity) and an end bit; a
# REQA is a 7-bit short frame. The tag answers FDT = (9 * 128 + 84)/fc = 91 us after the
# reader's frame (NTAG213 datasheet 9.2: "n=9, approximately 87 us"); the reader waits at
# least 1172/fc = 86 us after the tag's frame. A 7-byte-UID NTAG213 is activated by REQA/ATQA
# and two cascade levels of ANTICOLLISION (93/95 20 -> 5 bytes) and SELECT (9 bytes -> SAK
# + CRC, 3 bytes): activation_us() = 4.5 ms. An NTAG213 READ is 368 us of command and
# 1548 us of answer (NTAG213 datasheet, READ timing) plus the FDT: read_air_us() = 2.0 ms.
# The PN532 adds its own firmware time to every command ("fw", est).
BIT_US = 128 / 13.56
FDT_US = 1236 / 13.56            # reader -> tag frame delay, n = 9
FDT_BACK_US = 1172 / 13.56       # tag -> reader, minimum


def frame_us(nbytes):
    return (2 + 9 * nbytes) * BIT_US


def activation_us():
    """REQA -> ATQA, then ANTICOLLISION + SELECT for cascade levels 1 and 2 (ds)."""
    t = 9 * BIT_US + FDT_US + frame_us(2) + FDT_BACK_US        # REQA (7 bits) / ATQA
    level = (frame_us(2) + FDT_US + frame_us(5) + FDT_BACK_US +  # ANTICOLLISION / UID CLn
             frame_us(9) + FDT_US + frame_us(3) + FDT_BACK_US)   # SELECT / SAK
    return t + 2 * level


def read_air_us():
    return 368 + FDT_US + 1548                                   # NTAG213 READ (ds)


# what became of a READ of a listed tag: answered, a CRC or parity error or an answer cut
# short (the field's edge, field_edge()), the tag gone before its answer ended, a NAK
EDGE_KINDS = ("crc", "parity", "partial")
READ_OUTCOMES = ("ok",) + EDGE_KINDS + ("left", "nak")

TIMINGS = {
    "nack_after_write": 1000,   # address NACKed this long after every write (ds/obs ~1 ms)
    "ack": 1000,                # ACK frame ready after a command (est)
    "fw": 500,                  # the PN532's own firmware time per command (est)
    "simple": 1500,             # GetFirmwareVersion, SAMConfiguration, RFConfiguration (est)
    "activation": round(activation_us()),   # one tag found and selected (ds, see above)
    "detect_retry": 2000,       # a passive-activation attempt in an empty field (est)
    "no_second": 1000,          # MaxTg 2 with one tag: a REQA that no ATQA answers (est)
    "read": round(read_air_us()),           # InDataExchange READ over the air (ds)
    "write": 8000,              # InDataExchange WRITE (6-10 ms, est)
    "release": 1500,            # InRelease (est)
    "wake": 2000,               # clock stretching while waking from PowerDown (obs/est)
    "boot": 2000,               # RSTPDN high -> the chip answers its address again (est)
}


class IrqPin:
    """The PN532 IRQ output (active low: 0 when a frame is ready). machine.Pin-like."""

    def __init__(self, chip):
        self.chip = chip

    def value(self, v=None):
        return 0 if self.chip.ready() else 1

    def wait_low(self, us):
        """Let the simulated clock run until the IRQ asserts or `us` have passed (the
        firmware's idle wait; a real pin is polled instead)."""
        chip = self.chip
        clock = chip.bus.clock
        end = clock.ns + us * 1000
        if chip.ready():                 # a frame nobody has read yet: a short pause only,
            clock.ns += 50000            # so a loop that leaves it there cannot spin
            return
        while not chip.ready():
            t = chip.next_ns()
            if t is None or t >= end:
                clock.ns = max(clock.ns, end)
                return
            clock.ns = max(clock.ns, t)

    def init(self, *a, **k):
        pass


class ResetPin:
    """The RSTPDN line (machine.Pin-like output) wired to the chip."""

    def __init__(self, chip):
        self.chip = chip
        self.level = 1

    def init(self, *a, **k):
        pass

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0
        self.chip.rstpdn(self.level)
        return None


class PN532:
    def __init__(self, strict=True, seed=1, **timings):
        self.t = dict(TIMINGS)
        for k in timings:
            if k not in self.t:
                raise ValueError("unknown timing " + k)
            self.t[k] = timings[k]
        self.strict = strict
        self.bus = None
        self.stats = Stats()
        self.field = []            # tags in the RF field, in arrival order
        self.targets = {}          # Tg -> tag
        self.queue = []            # [ready_ns, frame] pending for the host
        self.last_response = None
        self.waiting = None        # InListPassiveTarget still polling: [start ns, MaxTg,
        #                            attempts (None = forever)]; a tag entering the field
        #                            is found by the next attempt
        self.nack_until = 0
        self.retries = 0xFF        # MxRtyPassiveActivation after reset: forever
        self.sam_mode = 0
        self.powered_down = False
        self.rf_on = True
        self.commands = {}         # command code -> count
        self.rng = seed
        self.irq = IrqPin(self)
        self.on_field = None       # callback() after a tag enters or leaves (tools/vpico)
        # fault injectors
        self.corrupt_next = 0      # corrupt the DCS of the next n response frames
        self.leave_after = None    # (tag, n): tag leaves the field after n more exchanges
        self.silent = False        # stops answering (NACKs everything)
        self.wedged = False        # wedge(): silent until RSTPDN pulses
        self.wedged_ns = -1        # when the last wedge began; listening_ns: the first
        self.listening_ns = 0      # InListPassiveTarget after the reset that ended it
        self.resets = 0            # RSTPDN rising edges
        self.errors = []           # protocol errors seen (also raised in strict mode)
        # the field's edge (field_edge()): READs of a tag in the field that fail, seeded
        self.edge_rate = 0.0
        self.edge_rng = None
        self.in_air = None         # [ready ns, tag, Tg] of the READ answer still on the air
        self.reads = dict((k, 0) for k in READ_OUTCOMES)   # READ exchanges by outcome

    # --- field
    def put(self, tag, since_ns=None):
        """A tag enters the field (since_ns: it came in earlier than the host could say,
        e.g. while the Pico's CPU was stalled by a flash erase; the chip was listening)."""
        if tag not in self.field:
            tag.state = ntag213.IDLE
            now = self.now() if self.bus is not None else 0
            tag.t_in = now if since_ns is None else min(now, since_ns)
            self.field.append(tag)       # a polling InListPassiveTarget finds it later
        if self.on_field is not None:
            self.on_field()

    def remove(self, tag):
        if self.bus is not None:
            self._poll_waiting()         # an attempt due while it was here has found it
        if tag in self.field:
            self.field.remove(tag)
            tag.state = ntag213.IDLE
            self._left_in_air(tag)
        if self.on_field is not None:
            self.on_field()
        # the chip still lists it as a target: the next exchange with it times out

    def _left_in_air(self, tag):
        """A tag that leaves before its READ answer has ended on the air never finished
        it: the PN532 reports a timeout instead of the data (at the same instant, est)."""
        a = self.in_air
        self.in_air = None
        if a is None or a[1] is not tag or a[0] <= self.now():
            return
        for q in self.queue:
            if q[0] == a[0] and q[1] is self.last_response:
                q[1] = self._frame(0x40, bytes([ST_TIMEOUT]))
                self.last_response = q[1]
                self.targets.pop(a[2], None)
                self.reads["ok"] -= 1
                self.reads["left"] += 1
                return

    def clear_field(self):
        for t in list(self.field):
            self.remove(t)

    def fault_checksum(self, count=1):
        self.corrupt_next += count

    def field_edge(self, rate, seed=1):
        """The tag at the field's edge: each READ of a tag in the field fails with
        probability `rate` (a seeded draw, the same on every runtime), as a CRC error, a
        parity error or a partial answer (status 00 and fewer than 16 bytes), a third each.
        The outcomes are counted in self.reads."""
        self.edge_rate = rate
        self.edge_rng = Rng(seed)

    def _edge_draw(self):
        return self.edge_rng.next() / 4294967296.0

    def fault_tag_leaves_after(self, tag, exchanges):
        """`tag` leaves the field after `exchanges` more InDataExchange commands to it."""
        self.leave_after = [tag, exchanges]

    # --- bus side
    def attach(self, bus):
        self.bus = bus

    def now(self):
        return self.bus.clock.ns

    def ready(self):
        self._poll_waiting()
        return bool(self.queue) and self.queue[0][0] <= self.now()

    def ack(self, bus):
        if self.silent:
            return False
        if self.powered_down:
            bus.clock.advance_us(self.t["wake"])      # clock stretching while waking
            self.powered_down = False
        return self.now() >= self.nack_until

    def read(self, bus, buf, n):
        self._fill(buf, n, True)

    def peek(self, bus, buf, n):
        """What read() would give, without taking the frame (tools/vpico answers a read
        before it knows its length)."""
        self._fill(buf, n, False)

    def _fill(self, buf, n, take):
        if n == 0:
            return
        if not self.ready():
            buf[0] = 0x00
            for i in range(1, n):
                buf[i] = 0xA5        # bytes after a busy status mean nothing
            return
        buf[0] = 0x01
        if n == 1:
            return                   # a status-only read does not consume the frame
        frame = self.queue.pop(0)[1] if take else self.queue[0][1]
        m = len(frame)
        for i in range(1, n):
            buf[i] = frame[i - 1] if i - 1 < m else 0x00

    def rstpdn(self, level):
        """The RSTPDN pin (GP7 on the Pico): low holds the chip in reset (it answers
        nothing); rising, it starts again from its power-on state. Tags stay in the field."""
        if self.wedged and not level:
            self.wedged = False          # held in reset: the firmware's hang is gone
        self.silent = not level or self.wedged
        if level:
            self.resets += 1
            if self.bus is not None:
                self.nack_until = self.now() + self.t["boot"] * 1000
            self.queue = []
            self.targets = {}
            self.waiting = None
            self.last_response = None
            if self.bus is None:
                self.nack_until = 0
            self.retries = 0xFF
            self.sam_mode = 0
            self.powered_down = False
            self.rf_on = True
            for tag in self.field:
                tag.state = ntag213.IDLE

    def reset_line(self):
        """The RSTPDN line wired to the chip, as the driver takes it (digitalio)."""
        from digitalio import DigitalInOut
        return DigitalInOut(ResetPin(self))

    def wedge(self):
        """Fault injector: the chip's firmware hangs (seen on tables: a glitch on its
        supply): it NACKs its address until RSTPDN pulses low."""
        self.wedged = True
        self.silent = True
        self.wedged_ns = self.now() if self.bus is not None else 0
        self.listening_ns = 0

    def write(self, bus, data):
        if len(data) == 0:
            return                   # address probe
        data = bytes(data)
        self.nack_until = self.now() + self.t["nack_after_write"] * 1000
        if data == ACK:
            self._abort()
            return
        if data == NACK:
            if self.last_response is None:
                self._fault("NACK frame but there is no response to resend")
                return
            self.queue = [[self.now() + self.t["ack"] * 1000, self.last_response]]
            return
        body = self._parse(data)
        if body is None:
            return
        self._abort()
        self._queue(ACK, self.t["ack"])
        self._execute(body)

    # --- frame handling
    def _fault(self, text):
        text = "PN532: " + text
        self.errors.append(text)
        if self.strict:
            raise ProtocolError(text)
        self._abort()
        self._queue(ERROR_FRAME, self.t["ack"])

    def _parse(self, d):
        n = len(d)
        if n < 7:
            return self._fault("frame too short (%d bytes): %s" % (n, d.hex()))
        if d[0] != 0x00 or d[1] != 0x00 or d[2] != 0xFF:
            return self._fault("bad preamble/start code %s" % d[:3].hex())
        if d[3] == 0xFF and d[4] == 0xFF:           # extended frame
            if n < 10:
                return self._fault("extended frame too short")
            ln = (d[5] << 8) | d[6]
            if (d[5] + d[6] + d[7]) & 0xFF:
                return self._fault("extended frame LCS mismatch")
            start = 8
        else:
            ln = d[3]
            if (d[3] + d[4]) & 0xFF:
                return self._fault("LCS mismatch: LEN %02x LCS %02x" % (d[3], d[4]))
            start = 5
        if ln == 0:
            return self._fault("LEN 0 in a normal frame")
        if n != start + ln + 2:
            return self._fault("frame is %d bytes but LEN %d needs %d" % (n, ln, start + ln + 2))
        body = d[start:start + ln]
        if (sum(body) + d[start + ln]) & 0xFF:
            return self._fault("DCS mismatch (data checksum) in %s" % d.hex())
        if d[start + ln + 1] != 0x00:
            return self._fault("missing postamble 00")
        if body[0] != 0xD4:
            return self._fault("TFI %02x, host frames carry D4" % body[0])
        if len(body) < 2:
            return self._fault("frame without a command code")
        return body[1:]

    def _abort(self):
        self.queue = []
        self.waiting = None

    def _queue(self, frame, delay_us):
        t = self.now() + int(delay_us * 1000)
        if self.queue:
            t = max(t, self.queue[-1][0])
        self.queue.append([t, frame])

    def _respond(self, code, payload, delay_us):
        frame = self._frame(code, payload)
        if self.corrupt_next:
            self.corrupt_next -= 1
            frame = frame[:-2] + bytes([frame[-2] ^ 0x5A, 0x00])
        self.last_response = frame
        self._queue(frame, delay_us)

    def _frame(self, code, payload):
        body = bytes([0xD5, code + 1]) + bytes(payload)
        ln = len(body)
        dcs = (-sum(body)) & 0xFF
        return bytes([0x00, 0x00, 0xFF, ln, (-ln) & 0xFF]) + body + bytes([dcs, 0x00])

    def _rand(self, n):
        self.rng = (self.rng * 1103515245 + 12345) & 0x7FFFFFFF
        return self.rng % n

    # --- commands
    def _execute(self, cmd):
        code = cmd[0]
        p = cmd[1:]
        self.commands[code] = self.commands.get(code, 0) + 1
        t = self.t
        if code == 0x02:
            if p:
                return self._fault("GetFirmwareVersion takes no parameters")
            self._respond(code, b"\x32\x01\x06\x07", t["simple"])
        elif code == 0x14:
            if not 1 <= len(p) <= 3 or not 1 <= p[0] <= 4:
                return self._fault("SAMConfiguration: bad parameters %s" % p.hex())
            self.sam_mode = p[0]
            self._respond(code, b"", t["simple"])
        elif code == 0x32:
            self._rf_config(p)
        elif code == 0x4A:
            self._list(p)
        elif code == 0x40:
            self._exchange(p)
        elif code == 0x52:
            if len(p) != 1:
                return self._fault("InRelease takes one Tg byte")
            st = ST_OK
            if p[0] == 0:
                for tg in list(self.targets):
                    self._release(tg)
            elif p[0] in self.targets:
                self._release(p[0])
            else:
                st = ST_NOT_ACCEPTABLE
            self._respond(code, bytes([st]), t["release"])
        elif code == 0x16:
            if not 1 <= len(p) <= 2:
                return self._fault("PowerDown: bad parameters")
            self._respond(code, b"\x00", t["simple"])
            self.powered_down = True
        else:
            return self._fault("command %02x is not modelled" % code)

    def _rf_config(self, p):
        lengths = {0x01: 1, 0x02: 3, 0x04: 1, 0x05: 3, 0x0A: 11, 0x0B: 8, 0x0C: 3, 0x0D: 9}
        if not p or p[0] not in lengths or len(p) != 1 + lengths[p[0]]:
            return self._fault("RFConfiguration: bad item/length %s" % bytes(p).hex())
        if p[0] == 0x05:
            self.retries = p[3]
        elif p[0] == 0x01:
            self.rf_on = bool(p[1] & 1)
        self._respond(0x32, b"", self.t["simple"])

    def _release(self, tg):
        tag = self.targets.pop(tg)
        if tag.state == ntag213.ACTIVE:
            tag.state = ntag213.HALT

    def _list(self, p):
        if len(p) < 2:
            return self._fault("InListPassiveTarget needs MaxTg and BrTy")
        maxtg, brty = p[0], p[1]
        if not 1 <= maxtg <= 2:
            return self._fault("InListPassiveTarget MaxTg %d (1 or 2 allowed)" % maxtg)
        if brty != 0x00:
            return self._fault("InListPassiveTarget BrTy %02x not modelled (only 00, 106 kbps A)"
                               % brty)
        if len(p) != 2:
            return self._fault("InListPassiveTarget: InitiatorData not expected for type A")
        if self.wedged_ns >= 0 and not self.listening_ns:
            self.listening_ns = self.now()      # listening again after a wedge
        # targets listed before and never released stay ACTIVE and ignore the wake-up
        for tg in list(self.targets):
            del self.targets[tg]
        found = [tag for tag in self.field if tag.state != ntag213.ACTIVE]
        if not found:
            # the activation attempts cycle the field: ACTIVE tags fall back to IDLE
            for tag in self.field:
                tag.state = ntag213.IDLE
            attempts = None if self.retries == 0xFF else self.retries + 1
            # with a finite retry count the tags already in the field stay missed (ACTIVE
            # ones ignore the wake-up; DEVICES.md: polls alternately miss an unreleased
            # tag); retrying forever, the field's cycling makes them IDLE and found
            missed = list(self.field) if attempts is not None else []
            self.waiting = [self.now(), maxtg, attempts, missed]
            if attempts is not None:
                self._respond(0x4A, b"\x00", self.t["detect_retry"] * attempts)
            return
        self._answer_list(maxtg, found, self.t["fw"])

    def _answer_list(self, maxtg, found, delay):
        """Answer InListPassiveTarget `delay` us from now plus the air time of activating
        the tags found (and, when fewer than MaxTg were found, one attempt that finds no
        further tag)."""
        if maxtg == 1 and len(found) > 1:
            found = [found[self._rand(len(found))]]     # which one is unspecified (ds)
        found = found[:maxtg]
        delay += self.t["activation"] * len(found)
        if len(found) < maxtg:
            delay += self.t["no_second"]
        out = bytearray([len(found)])
        for i, tag in enumerate(found):
            tg = i + 1
            self.targets[tg] = tag
            tag.state = ntag213.ACTIVE
            out.append(tg)
            out.extend(ntag213.ATQA)
            out.append(ntag213.SAK)
            out.append(len(tag.uid))
            out.extend(tag.uid)
        self._respond(0x4A, out, delay)

    def _poll_waiting(self):
        """A tag has entered the field while InListPassiveTarget is still polling: the next
        attempt finds it (attempts every detect_retry us from the command)."""
        w = self.waiting
        if w is None or not self.field:
            return
        at = self._attempt_at()
        if at is None or at > self.now():
            return
        start, maxtg, attempts, missed = w
        found = []                       # (no comprehension: a closure over `at` would
        for tag in self._candidates():   # allocate a cell on every call, even early exits)
            if getattr(tag, "t_in", 0) <= at:
                found.append(tag)
        self.waiting = None
        self.queue = [q for q in self.queue if q[1] is ACK]    # drop the "4B 00" answer
        # timed from the attempt, even when the host looks only later
        self._answer_list(maxtg, found, (at - self.now()) / 1000 + self.t["fw"])

    def _candidates(self):
        missed = self.waiting[3]
        return [tag for tag in self.field if tag.state != ntag213.ACTIVE and
                not any(tag is m for m in missed)]

    def _attempt_at(self):
        """ns at which the polling InListPassiveTarget's next attempt finds a tag, or None."""
        w = self.waiting
        if w is None or not self.field:
            return None
        found = self._candidates()
        if not found:
            return None
        start, attempts = w[0], w[2]
        first = min(getattr(tag, "t_in", 0) for tag in found)
        period = self.t["detect_retry"] * 1000
        k = max(0, -(-(first - start) // period))       # the first attempt after it came
        if attempts is not None and k >= attempts:
            return None                                 # too late: "no tag" is answered
        return start + k * period

    def next_ns(self):
        """When something next happens for the host: a frame ready or an attempt."""
        t = self.queue[0][0] if self.queue else None
        a = self._attempt_at()
        if a is not None and (t is None or a < t):
            t = a
        return t

    def _exchange(self, p):
        if len(p) < 2:
            return self._fault("InDataExchange needs Tg and data")
        tg = p[0] & 0x3F
        tag = self.targets.get(tg)
        if tag is None:
            self._respond(0x40, bytes([ST_NOT_ACCEPTABLE]), self.t["simple"])
            return
        data = p[1:]
        delay = (self.t["write"] if data[0] == 0xA2 else self.t["read"]) + self.t["fw"]
        reading = data[0] == 0x30
        self.in_air = None
        la = self.leave_after
        if la is not None and la[0] is tag:
            if la[1] <= 0:
                self.leave_after = None
                self.remove(tag)
            else:
                la[1] -= 1
        if tag not in self.field:
            self.targets.pop(tg, None)
            if reading:
                self.reads["left"] += 1
            self._respond(0x40, bytes([ST_TIMEOUT]), delay)
            return
        ok, resp = tag.command(data)
        if not ok:
            if reading:
                self.reads["nak"] += 1
            self._respond(0x40, bytes([ST_NAK]), delay)
            return
        if reading and self.edge_rate and self._edge_draw() < self.edge_rate:
            kind = EDGE_KINDS[int(self._edge_draw() * len(EDGE_KINDS))]
            self.reads[kind] += 1
            if kind == "partial":           # the tag's answer cut short
                cut = 1 + int(self._edge_draw() * (len(resp) - 1))
                self._respond(0x40, b"\x00" + bytes(resp[:cut]), delay)
            else:
                self._respond(0x40, bytes([ST_CRC if kind == "crc" else ST_PARITY]), delay)
            return
        self._respond(0x40, b"\x00" + bytes(resp), delay)
        if reading:
            self.reads["ok"] += 1
            # the answer is on the air until it is due: a tag leaving before then spoils it
            self.in_air = [self.queue[-1][0], tag, tg]
