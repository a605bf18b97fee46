# Runs ON the virtual Pico (rp2 port) under micropython-lib's unittest, installed on its
# flash by host_tests/pico/test_vpico_firmware.py: what the rp2 port does that the unix port
# does differently, checked where the firmware meets it.
import errno
import os
import time
import unittest

# the rp2 port's errno module has no ENOSPC (the unix port's has): the number is 28 on both
ENOSPC = getattr(errno, "ENOSPC", 28)


class Rp2Port(unittest.TestCase):
    def test_platform(self):
        import sys
        self.assertEqual(sys.platform, "rp2")

    def test_missing_file_is_enoent(self):
        with self.assertRaises(OSError) as c:
            open("no-such-file.txt")
        self.assertEqual(c.exception.errno, errno.ENOENT)

    def test_i2c_nack_is_eio(self):
        from machine import I2C, Pin
        i2c = I2C(0, scl=Pin(5), sda=Pin(4), freq=400000)
        with self.assertRaises(OSError) as c:
            i2c.readfrom(0x33, 1)
        self.assertEqual(c.exception.errno, errno.EIO)

    def test_zero_length_write_is_bit_banged(self):
        # the rp2 port drives the pins itself for writeto(addr, b''): the I2C block (and
        # so the models) never see it, and nothing answers on the bare pins
        from machine import I2C, Pin
        i2c = I2C(0, scl=Pin(5), sda=Pin(4), freq=400000)
        self.assertEqual(i2c.scan(), [])
        self.assertEqual(i2c.readfrom(0x70, 1), i2c.readfrom(0x70, 1))   # mux answers reads

    def test_ticks_ms_wraps_and_diffs(self):
        self.assertEqual(time.ticks_diff(time.ticks_add(0, -1), 0), -1)
        a = time.ticks_ms()
        time.sleep_ms(20)
        self.assertGreaterEqual(time.ticks_diff(time.ticks_ms(), a), 20)

    def test_drvtime_monotonic_follows_ticks(self):
        from hardware import drvtime
        a = drvtime.monotonic()
        time.sleep_ms(30)
        self.assertGreaterEqual(drvtime.monotonic() - a, 0.029)

    def test_drvtime_ticks_survive_rebase(self):
        from hardware import drvtime
        a = drvtime.ticks_ms()
        time.sleep_ms(30)
        drvtime.rebase()                 # the shoe reader does this at every poll
        self.assertGreaterEqual(drvtime.ticks_diff(drvtime.ticks_ms(), a), 30)

    def test_select_poll_on_usb_stdin(self):
        from hardware.serial_lines import StdinLines
        self.assertIsNone(StdinLines().poll())     # nothing typed: no line, no blocking

    def test_journal_on_a_full_flash(self):
        from ledger.journal import Journal
        j = Journal("")
        j.path = "vt_journal.txt"
        j.tmp = "vt_journal.tmp"
        j.start(["rules table", "seats 2"])
        fill = open("vt_fill.bin", "wb")
        chunk = bytes(4096)
        try:
            while True:
                fill.write(chunk)
        except OSError as e:
            self.assertEqual(e.errno, ENOSPC)
        full_error = None
        try:
            for _ in range(200):
                j.append("card 8H")
        except OSError as e:
            full_error = e.errno
        fill.close()
        os.remove("vt_fill.bin")
        j.close()
        self.assertEqual(full_error, ENOSPC)
        self.assertTrue(j.recover())
        with open(j.path) as f:
            lines = f.read().split("\n")
        self.assertEqual(lines[:2], ["rules table", "seats 2"])
        self.assertEqual(lines[-1], "")                    # no torn line after recover()
        self.assertTrue(all(x == "card 8H" for x in lines[2:-1]))
        os.remove(j.path)


if __name__ == "__main__":
    unittest.main()
