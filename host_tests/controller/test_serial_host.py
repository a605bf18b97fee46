"""A host that keeps the serial port open but stops reading (a paused terminal) while the
table deals, on CPython: boards/simdev/serial.UsbOut models MicroPython's rp2 USB output (a
256-byte buffer the host empties; a write that finds it full waits 500 ms, then drops the
rest; a write taken in part asks again and waits again). firmware/hardware/serial_out.py writes only while the port takes bytes: the table goes on
dealing (cards taken, displays drawn, the reader polled) and when the host reads again the
lines come, past the queue with one line saying how many were dropped and where the table is."""
import runner as R
import simtable as S
from app_support import Bench

from hardware import serial_out
from boards.simdev.serial import UsbOut

SETTINGS = "preset = table\nseats = 4\n"


def usb_bench(tmp_path):
    b = Bench(str(tmp_path / "flash"), settings=SETTINGS, boot=False)
    b.run = R.CPython(b.flash, usb=True)
    b.out = b.run.lines
    b.boot()
    return b


def test_the_table_deals_on_while_the_host_does_not_read(tmp_path):
    b = usb_bench(tmp_path)
    usb = b.run.usb_out
    reader = b.t.reader
    usb.host_reads(False)
    n = len(b.out)
    for _ in range(30):                         # typed, answers not read: more than fits
        b.run.send("status")
        b.settle(5)
    # the line that filled the port's buffer waited (POLLOUT promises a byte, not a line:
    # taken in part, then asked again), once; nothing waited after it
    assert usb.stalled_ms <= 2 * UsbOut.TX_TIMEOUT_MS, usb.stalled_ms
    stalled = usb.stalled_ms
    reader.max_gap_ms = 0
    for text in ("7H", "8D", "9C", "TS"):       # the cut: a card for each seat
        b.card(text)
    b.settle(3000)
    assert usb.stalled_ms == stalled            # no write waited while the cards came
    assert reader.max_gap_ms <= 40, reader.max_gap_ms
    assert len(b.out) == n                      # nothing read meanwhile
    assert b.t.nev == 4                         # every card taken
    usb.host_reads(True)
    b.settle(50)
    said = b.out[n:]
    marks = [x for x in said if x.startswith("# serial: ")]
    assert len(marks) == 1 and marks[0].endswith("; at #4"), said
    assert S.acked_at(marks[0]) == 4
    assert b.t.out.lost == int(marks[0].split()[2])
    assert all(x.startswith(("ok status", "* #", ">", "#", "! ")) for x in said), said


def test_written_straight_every_line_would_wait(tmp_path, monkeypatch):
    # what the firmware did before serial_out.py: each line written as it came
    monkeypatch.setattr(serial_out.SerialOut, "writable", lambda self: True)
    b = usb_bench(tmp_path)
    usb = b.run.usb_out
    usb.host_reads(False)
    for _ in range(10):
        b.run.send("status")
        b.settle(5)
    assert usb.stalled_ms >= 5 * 2 * UsbOut.TX_TIMEOUT_MS, usb.stalled_ms


def test_a_write_waits_once_at_most_when_the_buffer_fills(tmp_path):
    # POLLOUT promises one byte, not a line: the line that fills the buffer may wait (the
    # model's 500 ms), and then none
    b = usb_bench(tmp_path)
    usb = b.run.usb_out
    usb.host_reads(False)
    for _ in range(60):
        b.run.send("status")
        b.settle(5)
    assert usb.stalled_ms <= 2 * UsbOut.TX_TIMEOUT_MS, usb.stalled_ms
    assert b.t.out.n <= serial_out.QUEUE_BYTES


def test_lines_written_while_the_host_reads_come_at_once_and_whole(tmp_path):
    b = usb_bench(tmp_path)
    n = len(b.out)
    assert b.send("status").startswith("ok status")
    assert b.t.out.n == 0 and b.run.usb_out.stalled_ms == 0
    assert b.out[n:] and not any(x.startswith("# serial:") for x in b.out[n:])
