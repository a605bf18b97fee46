# PN532 on I2C (0x24), modelled from DEVICES.md: frames, ACK, status byte, busy NACK after
# a write, a field of NTAG213 tags. Protocol errors in what the host sends raise
# ProtocolError naming the fault (strict=True) or answer the syntax-error frame.
from boards.simdev.bus import ProtocolError, Stats
from boards.simdev import ntag213

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"

# InDataExchange status codes
ST_OK = 0x00
ST_TIMEOUT = 0x01
ST_CRC = 0x02
ST_NOT_ACCEPTABLE = 0x27
ST_RELEASED = 0x29
ST_NAK = 0x14   # (est) what a tag NAK is reported as; not in DEVICES.md

# (est) timings in microseconds; all are constructor parameters
TIMINGS = {
    "nack_after_write": 1000,   # address NACKed this long after every write (ds/obs ~1 ms)
    "ack": 1000,                # ACK frame ready after a command
    "simple": 1500,             # GetFirmwareVersion, SAMConfiguration, RFConfiguration ...
    "detect": 15000,            # InListPassiveTarget with a tag present (5-30 ms)
    "detect_retry": 2000,       # per passive-activation attempt that finds nothing
    "read": 4000,               # InDataExchange READ (3-5 ms)
    "write": 8000,              # InDataExchange WRITE (6-10 ms)
    "release": 1500,
    "wake": 2000,               # clock stretching while waking from PowerDown
}


class IrqPin:
    """The PN532 IRQ output (active low: 0 when a frame is ready). machine.Pin-like."""

    def __init__(self, chip):
        self.chip = chip

    def value(self, v=None):
        return 0 if self.chip.ready() else 1

    def init(self, *a, **k):
        pass


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
        self.waiting = None        # InListPassiveTarget waiting for a tag (infinite retries)
        self.nack_until = 0
        self.retries = 0xFF        # MxRtyPassiveActivation after reset: forever
        self.sam_mode = 0
        self.powered_down = False
        self.rf_on = True
        self.commands = {}         # command code -> count
        self.rng = seed
        self.irq = IrqPin(self)
        # fault injectors
        self.corrupt_next = 0      # corrupt the DCS of the next n response frames
        self.leave_after = None    # (tag, n): tag leaves the field after n more exchanges
        self.silent = False        # stops answering (NACKs everything)
        self.errors = []           # protocol errors seen (also raised in strict mode)

    # --- field
    def put(self, tag):
        if tag not in self.field:
            tag.state = ntag213.IDLE
            self.field.append(tag)
            if self.bus is not None:
                self._poll_waiting()     # a waiting InListPassiveTarget sees it now

    def remove(self, tag):
        if tag in self.field:
            self.field.remove(tag)
            tag.state = ntag213.IDLE
        # the chip still lists it as a target: the next exchange with it times out

    def clear_field(self):
        for t in list(self.field):
            self.remove(t)

    def fault_checksum(self, count=1):
        self.corrupt_next += count

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
        self.silent = not level
        if level:
            self.queue = []
            self.targets = {}
            self.waiting = None
            self.last_response = None
            self.nack_until = 0
            self.retries = 0xFF
            self.sam_mode = 0
            self.powered_down = False
            self.rf_on = True
            for tag in self.field:
                tag.state = ntag213.IDLE

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
        body = bytes([0xD5, code + 1]) + bytes(payload)
        ln = len(body)
        dcs = (-sum(body)) & 0xFF
        if self.corrupt_next:
            self.corrupt_next -= 1
            dcs ^= 0x5A
        frame = bytes([0x00, 0x00, 0xFF, ln, (-ln) & 0xFF]) + body + bytes([dcs, 0x00])
        self.last_response = frame
        self._queue(frame, delay_us)

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
        # targets listed before and never released stay ACTIVE and ignore the wake-up
        for tg in list(self.targets):
            del self.targets[tg]
        found = [tag for tag in self.field if tag.state != ntag213.ACTIVE]
        if not found:
            # the activation attempts cycle the field: ACTIVE tags fall back to IDLE
            for tag in self.field:
                tag.state = ntag213.IDLE
            if self.retries == 0xFF:
                self.waiting = maxtg
                return
            self._respond(0x4A, b"\x00", self.t["detect_retry"] * (self.retries + 1))
            return
        self._answer_list(maxtg, found, self.t["detect"])

    def _answer_list(self, maxtg, found, delay):
        if maxtg == 1 and len(found) > 1:
            found = [found[self._rand(len(found))]]     # which one is unspecified (ds)
        found = found[:maxtg]
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
        if self.waiting is not None and self.field:
            found = [tag for tag in self.field if tag.state != ntag213.ACTIVE]
            if found:
                maxtg = self.waiting
                self.waiting = None
                self._answer_list(maxtg, found, self.t["detect"])

    def _exchange(self, p):
        if len(p) < 2:
            return self._fault("InDataExchange needs Tg and data")
        tg = p[0] & 0x3F
        tag = self.targets.get(tg)
        if tag is None:
            self._respond(0x40, bytes([ST_NOT_ACCEPTABLE]), self.t["simple"])
            return
        data = p[1:]
        delay = self.t["write"] if data[0] == 0xA2 else self.t["read"]
        la = self.leave_after
        if la is not None and la[0] is tag:
            if la[1] <= 0:
                self.leave_after = None
                self.remove(tag)
            else:
                la[1] -= 1
        if tag not in self.field:
            self.targets.pop(tg, None)
            self._respond(0x40, bytes([ST_TIMEOUT]), delay)
            return
        ok, resp = tag.command(data)
        if not ok:
            self._respond(0x40, bytes([ST_NAK]), delay)
            return
        self._respond(0x40, b"\x00" + bytes(resp), delay)
