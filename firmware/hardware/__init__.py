# The hardware: the card reader (shoe_reader over pn532_link, ndef, uid_map), the buttons,
# the buzzer, the serial line, the seat displays (with their font and the TCA9548A switch)
# and the glue that loads the unchanged Adafruit drivers (drivers, drvtime).
