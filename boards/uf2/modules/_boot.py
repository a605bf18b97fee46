# Run by MicroPython at power-up before main.py, in place of the rp2 port's own _boot.py:
# the filesystem mounted past the journal's raw region (shoe_flash.py).
import shoe_flash

shoe_flash.mount()
del shoe_flash
