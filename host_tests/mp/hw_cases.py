# Hardware scenarios on the simulated board, shared by both runtimes: pytest calls them
# in-process on CPython and runs this file under MicroPython (`hw_cases.py name ...`
# prints one JSON line per case); the test compares both results with the expectations.
import json
import sys

if sys.implementation.name == "cpython":
    import os
    _here = os.path.dirname(os.path.abspath(__file__))
    _root = os.path.dirname(os.path.dirname(_here))
    for _p in (os.path.join(_root, "firmware"), _root):
        if _p not in sys.path:
            sys.path.insert(0, _p)

from boards import sim                       # noqa: E402
from boards.simdev import ntag213            # noqa: E402
from boards.simdev.bus import ProtocolError  # noqa: E402
from game.cards import card_name, parse_card      # noqa: E402
from hardware.shoe_reader import ANOMALY          # noqa: E402

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "CDHS"


def deck_texts():
    # as a phone app would write them: "10S" for tens on half the deck, "TS" on the rest
    out = []
    for r in range(13):
        for s in range(4):
            rk = RANKS[r]
            if rk == "10" and s % 2:
                rk = "T"
            out.append(rk + SUITS[s])
    return out


def run(w, reader, actions, polls, step_us=1000):
    """Poll `polls` times; actions maps poll index -> list of callables. Returns events."""
    evs = []
    for i in range(polls):
        for a in actions.get(i, ()):
            a()
        e = reader.poll()
        if e == ANOMALY:                 # its own kind: the line and the kind on the reader
            assert reader.anomaly.startswith(reader.anomaly_kind + ": "), reader.anomaly
            evs.append(reader.anomaly)
        elif e is not None:
            evs.append(e)
        w.clock.advance_us(step_us)
    return evs


def deal(w, reader, tags, dwell=40, gap=10, step_us=1000, overlap=0):
    """Pass tags through the field one after another; each stays `dwell` polls; the next
    arrives `overlap` polls before the previous leaves."""
    actions = {}
    t = 2
    for tag in tags:
        actions.setdefault(t, []).append(lambda tag=tag: w.pn532.put(tag))
        actions.setdefault(t + dwell, []).append(lambda tag=tag: w.pn532.remove(tag))
        t += dwell + gap - overlap
    return run(w, reader, actions, t + dwell + gap, step_us)


# --- cases -----------------------------------------------------------------------------

def case_driver_detect():
    w = sim.build()
    pn = sim.make_pn532()
    out = {"fw": list(pn.firmware_version)}
    pn.SAM_configuration()
    tag = ntag213.text_tag("QH", n=7)
    out["none"] = pn.read_passive_target(timeout=0.05) is None
    w.pn532.put(tag)
    uid = pn.read_passive_target(timeout=0.5)
    out["uid"] = list(uid)
    out["uid_ok"] = bytes(uid) == tag.uid
    out["page3"] = list(pn.ntag2xx_read_block(3))
    data = b"".join(bytes(pn.ntag2xx_read_block(p)) for p in range(4, 7))
    out["ndef"] = list(data[:12])
    out["ms"] = w.clock.ms()
    return out


def case_driver_write():
    w = sim.build()
    pn = sim.make_pn532()
    tag = ntag213.blank_tag(n=3)
    w.pn532.put(tag)
    uid = pn.read_passive_target(timeout=0.5)
    rec = ntag213.ndef_tlv(ntag213.ndef_text_record("10S")) + b"\xfe"
    rec = rec + bytes(-len(rec) % 4)
    oks = []
    for i in range(len(rec) // 4):
        oks.append(pn.ntag2xx_write_block(4 + i, rec[i * 4:i * 4 + 4]))
    back = b"".join(bytes(pn.ntag2xx_read_block(4 + i)) for i in range(len(rec) // 4))
    bad_page = pn.ntag2xx_write_block(0x2D, b"\x00\x00\x00\x00")
    pn.call_function(0x52, params=b"\x00")   # InRelease
    w.pn532.remove(tag)
    r = sim.make_reader()
    evs = deal(w, r, [tag])
    return {"uid_ok": bytes(uid) == tag.uid, "writes": oks, "back_ok": back == rec,
            "model_ok": tag.user()[:len(rec)] == rec, "bad_page": bad_page,
            "events": evs}


def case_deck_text():
    w = sim.build()
    r = sim.make_reader()
    texts = deck_texts()
    tags = []
    for i, t in enumerate(texts):
        tags.append(ntag213.text_tag(t, n=i, lock_tlv=(i % 3 == 0)))
    t0 = w.clock.ns
    b0 = w.pn532.stats.wire_bytes()
    evs = deal(w, r, tags, dwell=30, gap=5)
    return {"events": evs, "expect": [parse_card(t) for t in texts],
            "retries": r.retries, "timeouts": r.timeouts,
            "bytes": w.pn532.stats.wire_bytes() - b0, "ms": (w.clock.ns - t0) // 1000000}


def case_deck_uidmap():
    from hardware.uid_map import UidMap
    w = sim.build()
    m = UidMap()
    tags = []
    for i in range(52):
        t = ntag213.blank_tag(n=100 + i)
        m.add(t.uid, (i * 7) % 52)
        tags.append(t)
    r = sim.make_reader(uid_map=m)
    evs = deal(w, r, tags, dwell=30, gap=5)
    return {"events": evs, "expect": [(i * 7) % 52 for i in range(52)]}


def case_uidmap_file():
    from hardware.uid_map import UidMap
    m = UidMap(capacity=2)
    for i in range(10):
        m.add(ntag213.uid_for(i), (i * 5) % 52)
    path = "/tmp/shoe_uidmap_test.txt"
    m.save(path)
    m2 = UidMap().load(path)
    text = open(path).read()
    return {"n": m2.n, "same": bytes(m2.buf[:m2.n * 8]) == bytes(m.buf[:m.n * 8]),
            "lookups": [m2.lookup(ntag213.uid_for(i)) for i in range(11)],
            "first_line": text.split("\n")[1]}


def case_lingering_card():
    # the same card sits in the field for 300 polls: one event
    w = sim.build()
    r = sim.make_reader()
    tag = ntag213.text_tag("KS", n=1)
    evs = run(w, r, {1: [lambda: w.pn532.put(tag)]}, 300)
    return {"events": evs, "lists": w.pn532.commands.get(0x4A, 0)}


def case_wobble():
    # a card leaves and comes back at the edge of the field: still one event; a new card
    # after it is reported; rearm() allows the first one again (e.g. after a shuffle)
    w = sim.build()
    r = sim.make_reader()
    a = ntag213.text_tag("2C", n=1)
    b = ntag213.text_tag("3C", n=2)
    acts = {1: [lambda: w.pn532.put(a)], 60: [lambda: w.pn532.remove(a)],
            100: [lambda: w.pn532.put(a)], 160: [lambda: w.pn532.remove(a)],
            200: [lambda: w.pn532.put(b)], 260: [lambda: w.pn532.remove(b)],
            300: [lambda: w.pn532.put(a)], 360: [lambda: w.pn532.remove(a)],
            370: [r.rearm], 380: [lambda: w.pn532.put(a)], 440: [lambda: w.pn532.remove(a)]}
    return {"events": run(w, r, acts, 480)}


def case_creeping():
    # the next card enters while the previous is still in the field
    w = sim.build()
    r = sim.make_reader()
    tags = [ntag213.text_tag(t, n=i) for i, t in enumerate(("AH", "5D", "JC", "9S"))]
    evs = deal(w, r, tags, dwell=60, gap=0, overlap=30)
    return {"events": evs, "expect": [parse_card(t) for t in ("AH", "5D", "JC", "9S")]}


def case_next_card_listed_with_the_last_while_the_loop_is_busy():
    # the last card, read and reported, is still in the field when the next enters; the
    # listing names both, so its frame is longer than the usual answer and is asked for
    # again (NACK). The loop was busy (a display's lines) until the listing had waited
    # 12 ms, so the frame asked again comes after the 15 ms of silence that mean "an empty
    # field": that wait is not a silence, the last card is still there and the next is
    # the one new card, read and reported (not "two new cards", dealt again)
    w = sim.build()
    r = sim.make_reader()
    a = ntag213.text_tag("AH", n=1)
    b = ntag213.text_tag("5D", n=2)
    w.pn532.put(a)
    evs = []
    reported = -1
    t = 0
    while t < 160000:
        if reported >= 0:
            if t == reported + 1000:
                w.pn532.put(b)
            elif t == reported + 6000:
                w.pn532.remove(a)
            elif t == reported + 46000:
                w.pn532.remove(b)
        e = r.poll()
        if e is not None:
            evs.append(r.anomaly if e == ANOMALY else e)
            if reported < 0:
                reported = t
        if reported >= 0 and t == reported + 1500:
            w.clock.advance_us(12000)            # the loop busy elsewhere
            t += 12000
        w.clock.advance_us(500)
        t += 500
    return {"events": evs}


def case_two_tags():
    w = sim.build()
    r = sim.make_reader()
    a = ntag213.text_tag("QH", n=1)
    b = ntag213.text_tag("QS", n=2)
    c = ntag213.text_tag("4D", n=3)
    acts = {2: [lambda: w.pn532.put(a), lambda: w.pn532.put(b)],
            80: [lambda: w.pn532.remove(a)], 120: [lambda: w.pn532.remove(b)],
            150: [lambda: w.pn532.put(c)], 200: [lambda: w.pn532.remove(c)]}
    return {"events": run(w, r, acts, 240)}


def case_leaves_mid_read():
    # the card leaves the field during its read and never returns: no card, an anomaly
    w = sim.build()
    r = sim.make_reader()
    a = ntag213.text_tag("7H", n=1, lock_tlv=True)
    w.pn532.fault_tag_leaves_after(a, 0)
    evs1 = run(w, r, {2: [lambda: w.pn532.put(a)]}, 80)
    # the same fault, but the card comes back into the field: read correctly
    w2 = sim.build()
    r2 = sim.make_reader()
    b = ntag213.text_tag("10H", n=2, lock_tlv=True)     # 18 bytes of TLVs: two READs
    w2.pn532.fault_tag_leaves_after(b, 1)
    evs2 = run(w2, r2, {2: [lambda: w2.pn532.put(b)], 26: [lambda: w2.pn532.put(b)],
                        100: [lambda: w2.pn532.remove(b)]}, 140)
    return {"gone": evs1, "back": evs2, "retries": r2.retries, "reads": b.reads}


def case_checksum_fault():
    w = sim.build()
    r = sim.make_reader()
    a = ntag213.text_tag("6S", n=1)
    acts = {2: [lambda: w.pn532.put(a), lambda: w.pn532.fault_checksum(3)],
            80: [lambda: w.pn532.remove(a)]}
    evs = run(w, r, acts, 120)
    return {"events": evs, "retries": r.retries}


def case_nack_fault():
    w = sim.build()
    r = sim.make_reader()
    a = ntag213.text_tag("9D", n=1)
    acts = {0: [lambda: w.bus.fault_nack(0x24, 3)], 4: [lambda: w.pn532.put(a)],
            100: [lambda: w.pn532.remove(a)], 150: [lambda: w.bus.fault_nack(0x24, 10)],
            200: [lambda: w.pn532.put(b)], 300: [lambda: w.pn532.remove(b)]}
    b = ntag213.text_tag("9H", n=2)
    evs = run(w, r, acts, 340)
    return {"events": evs, "retries": r.retries, "nacks": w.pn532.stats.nacks}


def case_silent_reader():
    w = sim.build()
    r = sim.make_reader()
    a = ntag213.text_tag("JD", n=1)
    acts = {2: [lambda: setattr(w.pn532, "silent", True)],
            200: [lambda: setattr(w.pn532, "silent", False), lambda: w.pn532.put(a)],
            300: [lambda: w.pn532.remove(a)]}
    evs = run(w, r, acts, 340, step_us=5000)
    return {"events": evs}


def case_unknown_tags():
    from hardware.uid_map import UidMap
    w = sim.build()
    m = UidMap()
    known = ntag213.blank_tag(n=5)
    m.add(known.uid, parse_card("AS"))
    r = sim.make_reader(uid_map=m)
    blank = ntag213.blank_tag(n=6)
    hello = ntag213.text_tag("hello", n=7)
    clash = ntag213.text_tag("KD", uid=known.uid)
    zero = ntag213.NTAG213(ntag213.uid_for(8))         # no NDEF TLV at all
    evs = deal(w, r, [blank, hello, known, clash, zero], dwell=40, gap=10)
    return {"events": evs}


def case_pn532_protocol():
    w = sim.build()
    i2c = w.bus
    out = {}
    good = b"\x00\x00\xff\x02\xfe\xd4\x02\x2a\x00"          # GetFirmwareVersion
    i2c.writeto(0x24, good)
    try:                                                   # busy NACK right after a write
        i2c.readfrom(0x24, 1)
        out["nack_after_write"] = False
    except OSError:
        out["nack_after_write"] = True
    w.clock.advance_us(1100)
    out["status_only"] = list(i2c.readfrom(0x24, 1))
    out["ack"] = list(i2c.readfrom(0x24, 7))
    out["busy"] = list(i2c.readfrom(0x24, 1))
    w.clock.advance_us(2000)
    out["resp"] = list(i2c.readfrom(0x24, 14))
    errs = []
    for bad in (b"\x00\x00\xff\x02\xfe\xd4\x02\x2b\x00",     # DCS wrong
                b"\x00\x00\xff\x02\xfd\xd4\x02\x2a\x00",     # LCS wrong
                b"\x00\x00\xff\x02\xfe\xd5\x02\x29\x00",     # TFI D5 from the host
                b"\x00\x00\xff\x04\xfc\xd4\x4a\x03\x00\xdf\x00"):  # InList MaxTg 3
        w.clock.advance_us(2000)
        try:
            i2c.writeto(0x24, bad)
            errs.append("no error")
        except ProtocolError as e:
            errs.append(str(e).split(":")[1].strip().split(" ")[0])
    out["errors"] = errs
    return out


def _frame(*data):
    body = bytes((0xD4,) + data)
    return bytes((0, 0, 0xFF, len(body), (-len(body)) & 0xFF)) + body + \
        bytes(((-sum(body)) & 0xFF, 0))


def _call(w, data, wait_us=40000, n=40):
    w.bus.writeto(0x24, _frame(*data))
    w.clock.advance_us(1100)
    w.bus.readfrom(0x24, 7)                     # ACK
    w.clock.advance_us(wait_us)
    r = w.bus.readfrom(0x24, n)
    if r[0] != 1:
        return None
    ln = r[4]
    return list(r[8:6 + ln])                    # after D5 and the response code


def case_pn532_targets():
    w = sim.build()
    a = ntag213.text_tag("QH", n=1)
    b = ntag213.text_tag("QS", n=2)
    out = {}
    _call(w, (0x32, 0x05, 0xFF, 0x01, 0x01))
    out["empty"] = _call(w, (0x4A, 0x01, 0x00))
    w.pn532.put(a)
    one = _call(w, (0x4A, 0x01, 0x00))
    out["one"] = one
    # not released: the next poll misses the 7-byte-UID tag, the one after finds it
    out["again"] = [_call(w, (0x4A, 0x01, 0x00))[0], _call(w, (0x4A, 0x01, 0x00))[0]]
    out["read"] = _call(w, (0x40, 0x01, 0x30, 0x03))
    out["release"] = _call(w, (0x52, 0x00))
    out["after_release"] = _call(w, (0x4A, 0x01, 0x00))[0]
    _call(w, (0x52, 0x00))
    w.pn532.put(b)
    two = _call(w, (0x4A, 0x02, 0x00), n=40)
    out["two"] = two[:1] + [two[6], two[18]]
    _call(w, (0x52, 0x00))
    out["max1_of_two"] = _call(w, (0x4A, 0x01, 0x00))[0]
    w.pn532.remove(a)
    w.pn532.remove(b)
    out["gone_read"] = _call(w, (0x40, 0x01, 0x30, 0x04))
    out["no_target"] = _call(w, (0x40, 0x01, 0x30, 0x04))
    # infinite retries (the reset default) and an empty field: no answer until a tag comes
    w.pn532.clear_field()
    _call(w, (0x32, 0x05, 0xFF, 0x01, 0xFF))
    out["waits"] = _call(w, (0x4A, 0x01, 0x00), wait_us=500000)
    w.pn532.put(a)
    w.clock.advance_us(40000)
    r = w.bus.readfrom(0x24, 30)
    out["arrives"] = list(r[:2]) + [r[7], r[8]]
    return out


def case_ssd1306_model():
    from boards.simdev.ssd1306 import SSD1306
    from boards.simdev.bus import SimI2C
    bus = SimI2C()
    d = bus.add_device(0x3C, SSD1306())
    out = {}
    bus.writeto(0x3C, b"\x00\x20\x00\x21\x7e\x7f\x22\x06\x07")   # horizontal, 2x2 window
    bus.writeto(0x3C, b"\x40\x01\x02\x03\x04\x05")
    out["horizontal"] = [d.ram[6 * 128 + 126], d.ram[6 * 128 + 127], d.ram[7 * 128 + 126],
                         d.ram[7 * 128 + 127], d.ram[6 * 128 + 126 + 0]]
    bus.writeto(0x3C, b"\x00\x20\x01\x21\x00\x01\x22\x00\x01")   # vertical
    bus.writeto(0x3C, b"\x40\x11\x12\x13\x14\x15")
    out["vertical"] = [d.ram[0], d.ram[128], d.ram[1], d.ram[129]]
    bus.writeto(0x3C, b"\x00\x20\x02\xb3\x0e\x17")               # page mode, col 126
    bus.writeto(0x3C, b"\x40\x21\x22\x23")
    out["page"] = [d.ram[3 * 128 + 126], d.ram[3 * 128 + 127], d.ram[3 * 128 + 0],
                   d.page, d.mode]
    bus.writeto(0x3C, b"\x80\xaf\xc0\x55\x80\xa7")                # Co=1 pairs
    out["co"] = [d.on, d.inverse, d.ram[3 * 128 + 1]]
    out["clean"] = list(d.violations)
    bus.writeto(0x3C, b"\x80\x81\x40\x7f")                        # contrast arg as data
    bus.writeto(0x3C, b"\x00\x12\x34")                            # data as commands
    bus.writeto(0x3C, b"\x80\xad\x80\x30")                        # 0xAD: not an SSD1306 cmd
    bus.writeto(0x3C, b"\x00\x20\x10")                            # bad addressing mode
    out["violations"] = [v.split(" ")[0] + " " + v.split(" ")[1] for v in d.violations]
    return out


def case_mux():
    w = sim.build()
    mux = sim.make_mux()
    i2c = sim.make_i2c()
    out = {"root": sorted(i2c.scan())}
    mux.select(3)
    out["ch3"] = sorted(i2c.scan())
    mux.select(0)
    out["ch0"] = sorted(i2c.scan())
    mux.select(5)
    try:
        w.bus.writeto(0x3D, b"\x80\xaf")     # 0x3D sits on channel 0 only
        out["unselected"] = "answered"
    except OSError as e:
        out["unselected"] = "OSError %d" % e.args[0]
    out["selects"] = w.mux.selects
    return out


def case_bus_clock():
    from boards.simdev.bus import SimI2C
    from boards.simdev.tca9548a import TCA9548A
    out = {}
    for f in (100000, 400000):
        b = SimI2C(freq=f)
        b.add_device(0x70, TCA9548A())
        b.writeto(0x70, b"\x01")
        t1 = b.clock.ns
        b.writeto(0x70, bytes(1024))
        out[str(f)] = [t1, b.clock.ns - t1]
    return out


def _expected_pixels(line, inv, font):
    from hardware.font5x7 import ADVANCE, FIRST, WIDTH
    cols = bytearray(128)
    x = 0
    for ch in line:
        if x + WIDTH > 128:
            break
        g = (ord(ch) - FIRST) * WIDTH
        cols[x:x + WIDTH] = font[g:g + WIDTH]
        x += ADVANCE
    if inv:
        cols = bytearray(c ^ 0xFF for c in cols)
    return cols


def case_displays():
    from hardware.font5x7 import FONT
    w = sim.build()
    b0 = w.bus.stats.wire_bytes()
    t0 = w.clock.ns
    d = sim.make_displays(9)
    init = [w.bus.stats.wire_bytes() - b0, (w.clock.ns - t0) // 1000]
    screens = []
    for i in range(9):
        screens.append(["Seat %d" % (i + 1), "QH 10S 4D", "Total 24  BUST",
                        "Stake 15", "", "Twist or stick?", "~!@#$%^&*()_+{}|:<>?", "x" * 30])
    res = []
    pixel_ok = True
    for i in range(8):
        res.append(d.show(i, screens[i], highlight=5))
        for p in range(8):
            want = _expected_pixels(screens[i][p], p == 5, FONT)
            if bytes(w.displays[i].ram[p * 128:(p + 1) * 128]) != bytes(want):
                pixel_ok = False
    full = d.last_bytes
    texts = [w.displays[i].text_rows(FONT) for i in range(8)]
    b1 = w.bus.stats.wire_bytes()
    t1 = w.clock.ns
    screens[2][2] = "Total 21"
    one = d.show(2, screens[2], highlight=5)
    one_bytes = [d.last_bytes, w.bus.stats.wire_bytes() - b1, (w.clock.ns - t1) // 1000]
    same = d.show(2, screens[2], highlight=5)
    move = d.show(2, screens[2], highlight=6)
    # the banker's panel was initialised, never drawn: still dark (its RAM is noise)
    untouched = not w.displays[8].on and all(w.displays[i].on for i in range(8))
    return {"pages": res, "pixel_ok": pixel_ok, "full_bytes": full, "init": init,
            "text0": texts[0][0], "inv0": texts[0][1], "text7": texts[7][0][0],
            "one": one, "one_bytes": one_bytes, "same": same, "move": move,
            "banker_dark": untouched, "violations": w.violations(),
            "line2": w.displays[2].text_rows(FONT)[0][2]}


def case_display_non_ascii():
    # a character outside the font is one '?' cell, however many UTF-8 bytes it has (the
    # page loops read a line's bytes: seat_displays' viper functions, native_shim on
    # CPython); a change from one such character to another draws nothing new
    from hardware.font5x7 import FONT
    w = sim.build()
    d = sim.make_displays(1)
    lines = ["Se\u00e9t 1 \u00a3", "\u20ac5 \u00e9", "\u00e9"]
    d.show(0, lines)
    text = w.displays[0].text_rows(FONT)[0][:3]
    again = d.show(0, ["Se\u00e8t 1 \u00a3", "\u20ac5 \u00e9", "\u00e9"])
    last = d.show(0, ["Se\u00e8t 1 \u00a3", "\u20ac5 \u00e9", "\u00e9x"])
    return {"text": text, "again": again, "last": last, "violations": w.violations()}


def case_display_builtin_font():
    # font=None renders with the driver's framebuf text(); compare with an independent
    # native framebuf rendering of the same text (MicroPython only: CPython has no
    # native framebuf and adafruit_framebuf needs a font file)
    import framebuf
    w = sim.build()
    d = sim.make_displays(2, font=None)
    lines = ["Seat 1", "QH 10S", "", "Total 20"]
    d.show(1, lines, highlight=3)
    ref = bytearray(1024)
    fb = framebuf.FrameBuffer(ref, 128, 64, framebuf.MONO_VLSB)
    for p, s in enumerate(lines):
        if p == 3:
            fb.fill_rect(0, 24, 128, 8, 1)
            fb.text(s, 0, 24, 0)
        else:
            fb.text(s, 0, p * 8, 1)
    return {"same": bytes(w.displays[1].ram) == bytes(ref),
            "lit": sum(bin(b).count("1") for b in ref)}


def case_display_faults():
    from hardware.font5x7 import FONT
    w = sim.build()
    d = sim.make_displays(4)
    out = {}
    out["a"] = d.show(1, ["before", "x"])
    w.displays[1].alive = False
    out["dead"] = d.show(1, ["during", "x"])
    out["others"] = d.show(2, ["fine"])
    out["still_dead"] = d.show(1, ["during", "y"])
    w.displays[1].alive = True
    w.displays[1].reset()
    w.displays[1].ram[:] = b"\xaa" * 1024                    # power-up garbage
    out["back"] = d.show(1, ["after", "y"])
    out["text"] = w.displays[1].text_rows(FONT)[0][:3]
    out["on"] = w.displays[1].on
    # a NACK on the mux itself
    w.bus.fault_nack(0x70, 1)
    sim.make_mux().mask = -1             # force a channel write, which the fault NACKs
    out["mux_nack"] = d.show(3, ["mux"])
    out["mux_retry"] = d.show(3, ["mux"])
    out["failures"] = d.failures
    out["violations"] = w.violations()
    return out


def case_driver_ssd1306_strict():
    # the unchanged driver against a model that knows only the docs/DEVICES.md command set
    from boards.simdev.ssd1306 import SSD1306
    from hardware import drivers
    w = sim.build()
    plain = SSD1306()
    w.bus.add_device(0x3D, plain)
    drv = drivers.ssd1306(sim.make_i2c(), addr=0x3D)
    drv.fill(0)
    drv.pixel(0, 0, 1)
    drv.show()
    return {"violations": [v.split(" (")[0] for v in plain.violations],
            "on": plain.on, "mode": plain.mode}


CASES = [n[5:] for n in sorted(globals()) if n.startswith("case_")]


def run_case(name):
    return globals()["case_" + name]()


if __name__ == "__main__":
    names = sys.argv[1:] or CASES
    for n in names:
        print(json.dumps([n, run_case(n)]))
