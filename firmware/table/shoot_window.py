# X2, the shoot window: before the second card round each player in turn may place a shoot
# bet against the kitty, or pass. A pass is no event (TRANSCRIPT.md: a player who does not
# shoot sends nothing), so the passes live here until the window closes.
from game import engine as E
from . import views as V
from .entry import Entry


class ShootWindow:
    def __init__(self, controls):
        self.t = controls.t
        self.c = controls
        self.skip = 0                    # play index the passes have reached

    def window_seat(self):
        """The seat the window offers now (after the engine's shoot bets and the passes
        chosen on the buttons); 0 when the window is closed or the kitty is covered."""
        e = self.t.session.e
        if not (e.rules.shoot and e.phase == E.PH_DEAL2 and e.pos == 0):
            self.skip = 0                # passes live only while their window is open
            return 0
        i = e.shoot_pos if e.shoot_pos > self.skip else self.skip
        if i >= e.nplayers or e.shoot_room() < 1:
            return 0
        return e.porder[i]

    def passed(self):
        """A pass chosen on the buttons that UNDO may take back."""
        return self.skip > self.t.session.e.shoot_pos

    def open(self):
        """The menu's shoot bet: the acting player's (X4), or the window's seat (X2)."""
        e = self.t.session.e
        seat = V.acting_seat(e)
        lo = 1
        if not seat:
            seat = self.window_seat()
            lo = 0                       # X2: 0 = pass
        room = e.shoot_room()
        if not seat or room < 1:
            return "no shoot bet is possible now (X2, X4)"
        Entry(self.c).open_shoot(seat, lo, room)
        return None

    def pass_(self, seat):
        """`seat` places no shoot bet."""
        e = self.t.session.e
        if seat != self.window_seat():
            return "no shoot bet is possible now (X2, X4)"
        for i in range(e.nplayers):
            if e.porder[i] == seat:
                self.skip = i + 1
        self.t.say("# seat %d passes: no shoot bet (X2)" % seat)
        self._moved(seat - 1)
        return None

    def unpass(self):
        e = self.t.session.e
        self.skip -= 1
        self.t.say("# seat %d may shoot again (X2)" % e.porder[self.skip])
        self._moved(e.porder[self.skip] - 1)

    def _moved(self, prio):
        """A choice that is not an event changed what the displays show."""
        self.c.close()
        self.t.turn.goes_first(prio)
        self.t.narrator.prompt()
