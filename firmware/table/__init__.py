# The table: the controller's loop (app.py), the buttons' modes (controls and each mode),
# the serial console and its narrator, housekeeping, and what each display shows
# (screens.py schedules, views.py says the lines).
