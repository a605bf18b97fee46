# The serial line's narration: what an accepted card or deal's end says, the prompt
# whenever it changes, the status line. A card is named only when it is face up (the cut,
# a twist, the banker's own turn): the serial line may be read by anyone at the table.
# An event's answer line is said at once; what follows it (a deal's end, the prompt, the
# session's end) waits for tell(): the table says it once the display the event concerns
# is drawn, and before anything else is said or the state it tells of changes (the next
# event, a press, a command, a refusal).
from game import engine as E
from . import views as V
from game.cards import card_name

from micropython import const


_DEAL = const(1)
_PROMPT = const(2)
_OVER = const(4)
_SHUFFLE = const(8)


class Narrator:
    def __init__(self, out, session, ui):
        self.out = out
        self.session = session
        self.ui = ui
        self.last_prompt = ""
        self.due = 0                     # what waits for tell(): _DEAL | _PROMPT | _OVER
        self.history = ""                # (_OVER) the finished session, kept as this

    def say(self, text):
        if self.due:
            self.tell()                  # what waits goes first: the lines keep their order
        self.out.write(text + "\n")

    def deal_over_later(self):
        self.due |= _DEAL

    def prompt_later(self):
        self.due |= _PROMPT

    def over(self, history):
        self.history = history
        self.ui.seal = self.session.seal.text    # (the banker's display shows it too)
        self.due |= _OVER

    def tell(self):
        """Say what waits: a deal's end, the prompt, the session's end."""
        due = self.due
        self.due = 0
        if due & _DEAL:
            self.deal_over()
        if due & _PROMPT:
            self.prompt()
        if due & _SHUFFLE:
            self.shuffle_verdict()
        if due & _OVER:
            self.session_over(self.history)

    def shuffle_verdict(self):
        """After a new pass's first cards (settings' shuffle_check): how well it was
        shuffled (a weak shuffle stays on the banker's display for the pass)."""
        from game import shuffle_check
        self.say("# " + shuffle_check.said(self.session.shuffles, self.session.e.packs))

    def card_text(self, card, ph, slot, seat, up):
        """The line of a card taken: slot and seat (Engine.card_seat) as they were before
        it."""
        e = self.session.e
        sc = self.session.shuffles
        if sc is not None:               # (its verdict waits for the card's display)
            if sc.due:
                sc.due = False
                self.due |= _SHUFFLE
                if sc.weak():            # (on the banker's display with this card's)
                    self.ui.note = "Weak shuffle: %d kept" % sc.kept
            elif sc.cards <= 1:
                self.ui.note = ""        # a new pass: the last one's verdict is gone
        name = card_name(card)
        if slot <= -2:
            return "card %s cut for seat %d" % (name, seat)
        if slot < 0:
            slot = 1                     # a deal's first card: the first player's hand
        if seat == 0 or slot == 0:
            if ph == E.PH_BANKER:
                return "card %s to the %s: %s" % (name, V.banker_name(e).lower(),
                                                  V.total_text(e, 0, False))
            return "card to the %s (face down)" % V.banker_name(e).lower()
        flags = e.hand_flags(slot)
        tail = ""
        if flags & E.F_BUST:
            tail = ": bust"
        elif e.ncards(slot) == 2 and e.hand_kind(slot) == 4:
            tail = ": pontoon"
        if up:
            return "card %s to seat %d%s" % (name, seat, tail)
        return "card to seat %d (face down)%s" % (seat, tail)

    def deal_over(self):
        e = self.session.e
        if e.last_void:
            self.say("# deal %d void: every payment reverted (N3)" % e.deals)
            return
        parts = []
        first = 0 if e.casino else 1
        for s in range(first, e.seats + 1):
            parts.append("%s %s" % ("dealer" if s == 0 else s, V.signed(e.deal_net(s))))
        self.say("# deal %d over: %s %s; net %s" % (
            e.deals, V.banker_name(e).lower(),
            V.hand_line(e, 0).split("  ")[0].strip() if e.ncards(0) else "-", ", ".join(parts)))

    def session_over(self, history):
        e = self.session.e
        parts = []
        for s in range(1, e.seats + 1):
            parts.append("%d %s" % (s, V.signed(e.balance(s))))
        self.say("# session over: balances %s; kept as %s" % (", ".join(parts), history))
        self.sealed(history)

    def sealed(self, history):
        """The kept session's seal (seal.py): `replay.py --seal` checks a file by it."""
        self.say("# seal %s (%s)" % (self.session.seal.text, history or "not kept"))

    def prompt(self):
        """'> ' and the table's prompt, when it differs from the last one said."""
        e = self.session.e
        if e is None:
            return
        p = V.prompt(e, self.ui)
        seat = V.acting_seat(e)
        if e.phase == E.PH_PLAY and seat and not e.card_due():
            words, buy = V.actions(e, seat)
            p += ": " + " ".join(words) + (" (%s)" % buy if buy else "")
        if p != self.last_prompt:
            self.last_prompt = p
            self.say("> " + p)

    def status(self):
        s = self.session
        e = s.e
        if e is None:
            return "stopped: " + self.ui.fatal
        bal = []
        for seat in range(1, e.seats + 1):
            bal.append("%d %s" % (seat, V.signed(e.balance(seat))))
        return "status: %d events, deal %d, %s, kitty %d, balances %s; %s" % (
            s.nev, e.deals, "dealer: the house" if e.casino else "banker %d" % e.banker,
            e.kitty, ", ".join(bal), V.prompt(e, self.ui))
