# The serial line's commands: each input line gets exactly one answer, "ok ..." or
# "error: ..." (an event's own "ok #N" line comes from the table). The events themselves are
# the transcript language (docs/TRANSCRIPT.md).
from micropython import const


from hardware.buttons import LONG
from game.transcript import ParseError, parse_event, strip
from ledger import forget
from .sources import SRC_SERIAL

BUTTON_NAMES = ("STICK", "TWIST", "BUY", "SPLIT", "MINUS", "PLUS", "OK", "UNDO")
HELP = ("ok events: card C, stake S N, buy S N, twist S, stick S, split S, double S, "
        "burn S, shoot S N, kitty N, bankdouble, sell S N, stand, shuffle, void; "
        "commands: undo, status, health, new, press BUTTON [long], help, halt, hang, "
        "tags write|enroll|check|stop")


def button_index(words):
    """["press", NAME] or ["press", NAME, "long"]: the button's index (| LONG), or -1."""
    if len(words) < 2 or len(words) > 3 or (len(words) == 3 and words[2] != "long"):
        return -1
    name = words[1].upper()
    if name not in BUTTON_NAMES:
        return -1
    return BUTTON_NAMES.index(name) + (LONG if len(words) == 3 else 0)


class Console:
    def __init__(self, table):
        self.t = table

    def line(self, line):
        t = self.t
        say = t.say
        words = strip(line)
        if not words:
            return
        w = words[0].lower()
        words[0] = w
        if w == "help":
            say(HELP)
        elif w == "halt":
            t.stop = True
            say("ok halted")
        elif w == "status":
            say("ok " + t.narrator.status())
        elif w == "health":
            import sys
            from . import health_report
            say("ok " + health_report.line(t))
            forget(health_report.__name__)
        elif w == "hang":
            say("ok hang: the loop stops; the watchdog resets the shoe, which resumes")
            from hardware import drvtime
            while True:                  # the watchdog's check: nothing feeds it now
                drvtime.sleep(0.01)
        elif w == "press":
            b = button_index(words)
            if b < 0:
                say("error: press takes a button: STICK TWIST BUY SPLIT MINUS PLUS OK "
                    "UNDO, then optionally 'long'")
                return
            say("ok press %s" % words[1].upper())
            t.controls.press(b)
        elif w == "defaults":
            if t.ui.fatal and t.settings.error:
                t.use_defaults()
                say("ok defaults")
            else:
                say("error: the settings are fine: nothing to replace")
        elif w == "new":
            why = t.new_session()
            say("error: " + why if why else "ok new session")
        elif w == "tags":
            why = t.tag_run().command(" ".join(words))
            # the tag mode's own "tags: ..." lines follow (tools/tags.py reads those)
            say("error: " + why if why else "ok " + " ".join(words))
        elif w == "undo":
            why = t.undo()
            say("error: " + why if why else "ok undo: back at #%d" % t.session.nev)
        else:
            try:
                ev, seat, amount, card = parse_event(words)
            except ParseError as x:
                say("error: %s" % x)
                return
            why = t.event(ev, seat, amount, card, SRC_SERIAL)
            if why:
                say("error: " + why)
