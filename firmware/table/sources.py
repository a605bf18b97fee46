# Where an accepted event came from: the narration answers a serial command with "ok" and
# says the others with "*", and a card entered by hand is marked so in the journal.
SRC_SHOE = 0        # the reader
SRC_BUTTON = 1      # the shoe's buttons
SRC_SERIAL = 2      # a serial command
