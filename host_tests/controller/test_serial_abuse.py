"""The serial line under abuse, on the MicroPython VM (the .mpy firmware against the
simulated board): over-long lines, bytes that are not ASCII, NULs, a lone CR, Ctrl-C and
Ctrl-D, and a pasted flood of thousands of lines while cards are dealt and buttons pressed.
The answers are the ones docs/CONTROLLER.md promises."""
from vm_table import VMTable

TABLE4 = "preset = table\nseats = 4\nbanker = 1\n"

ABUSE = [  # (bytes typed, the one answer, or None for no answer)
    (b"card QH" + b" " * 80 + b"# padded\n",
     "error: line longer than 80 characters (95): refused whole"),
    (b"card 9C" + b" " * 73 + b"\n", "ok #1 card to seat 2 (face down)"),     # 80: fine
    ("card 4D \u00e9\n".encode(),
     "error: byte 0xC3 at column 9 is not printable ASCII: line refused"),
    (b"\x00" * 12 + b"\n",
     "error: byte 0x00 (NUL) at column 1 is not printable ASCII: line refused"),
    (b"\r", None),
    (b"\n", None),
    (b"status\r", "ok status: 1 events"),
    (b"status\r\n", "ok status: 1 events"),
    (b"\x04\n", "error: byte 0x04 (Ctrl-D) at column 1 is not printable ASCII: line refused"),
    (b"card 4D\x04\n",
     "error: byte 0x04 (Ctrl-D) at column 8 is not printable ASCII: line refused"),
    (b"\xff\xfe\n", "error: byte 0xFF at column 1 is not printable ASCII: line refused"),
    (b"card 4D\x7f\n", "error: byte 0x7F (DEL) at column 8 is not printable ASCII"),
    (b"\tcard\t4D \n", "ok #2 card to seat 3 (face down)"),                 # tab = space
    (b"# a comment\n", None),
]


def test_bad_bytes_and_long_lines_are_refused_whole(tmp_path):
    vm = VMTable(str(tmp_path / "flash"), TABLE4)
    t = 200
    for data, _ in ABUSE:
        vm.type(t, data)
        t += 100
    vm.type(t, b"stat\x03status\n")          # Ctrl-C: the partial line dropped, the table stops
    vm.max_ms = t + 5000
    assert vm.run() == 0
    want = [a for _, a in ABUSE if a is not None]
    got = vm.answers()
    assert len(got) == len(want), got
    for g, w in zip(got, want):
        assert g.startswith(w), (g, w)
    assert "# stopped from the serial line (Ctrl-C)" in vm.out
    stop = vm.out.index("# stopped from the serial line (Ctrl-C)")
    assert all(ln.startswith("# ") for ln in vm.out[stop:]), vm.out[stop:]  # then summaries
    # nothing of a refused line ran: the journal holds exactly the two accepted cards
    assert vm.journal().splitlines()[-2:] == ["card 9C", "card 4D"]
    assert vm.journal().count("card") == 2
    # Ctrl-C lost nothing: the next boot resumes at #2
    again = VMTable.__new__(VMTable)
    again.__init__(str(tmp_path / "flash2"), TABLE4)
    again.flash = vm.flash
    again.type(100, "status")
    again.until = lambda v: any(x.startswith("ok status") for x in v.out)
    assert again.run() == 0
    assert "# resume #2" in again.out
    assert [x for x in again.answers() if x.startswith("ok status")][0].startswith(
        "ok status: 2 events")


def test_a_pasted_flood_is_worked_through_in_order_while_cards_and_buttons_act(tmp_path):
    n = 5000
    # every bridge request costs 100 simulated us of CPU, so the flood takes simulated time;
    # the dealer's cards and the player's buttons come while it is being worked through
    vm = VMTable(str(tmp_path / "flash"), TABLE4, cpu_us=100)
    paste = b"".join(b"status\n" if i % 10 else b"# pasted line %d\n" % i for i in range(n))
    vm.type(100, paste)
    statuses = n - n // 10

    def answered(k):
        return lambda v: len(v.answers()) >= k

    for k, card in enumerate(["QH", "10S", "4C", "9D"]):
        vm.when(answered(300 + 600 * k), lambda card=card: vm.tag(vm.now(), card, 40))
    vm.when(answered(2400), lambda: vm.press(vm.now(), "PLUS"))    # seat 2 stakes 2
    vm.when(answered(2900), lambda: vm.press(vm.now(), "OK"))
    vm.until = lambda v: len(v.answers()) >= statuses and "* #5 stake 2 2" in v.out
    vm.max_ms = 60000
    assert vm.run() == 0
    got = [x for x in vm.answers() if x.startswith("ok status")]
    assert len(got) == statuses
    # in order: the event count in the answers never goes back, and it moved during the flood
    counts = [int(x.split()[2]) for x in got]
    assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == 5, counts[-1]
    cards = [x for x in vm.out if x.startswith("* #") and "card" in x]
    assert len(cards) == 4, cards
    # the cards and the stake were taken while the flood was still being worked through
    last_status = max(i for i, x in enumerate(vm.out) if x.startswith("ok status"))
    assert vm.out.index("* #5 stake 2 2") < last_status
    assert [x for x in vm.out if x.startswith("!") or x.startswith("error:")] == []
    assert vm.journal().splitlines()[-5:] == ["card QH", "card TS", "card 4C", "card 9D",
                                              "stake 2 2"]
