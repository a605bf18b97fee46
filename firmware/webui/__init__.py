# The Pico W's web part: the table's page served to the players' phones (microdot).
