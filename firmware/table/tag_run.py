# A tag-mode run (write, enrol or check the deck's tags) between deals: while it runs it
# has the reader and the banker's display to itself; at its end the table's screens come
# back. The tag mode (tagmode.py) is made on first use and let go after each run, its
# modules too: heap that a table mostly never needs again.
import sys

from ledger import forget

from .screens import BANKER_DISPLAY



class TagRun:
    def __init__(self, table):
        self.t = table
        self.tm = None                   # tagmode.TagMode while a run lasts
        self.loaded = None               # the modules there were before it was made
        self.busy = False

    def command(self, line):
        """Route a "tags ..." line to the tag mode; the reason when it cannot run now."""
        t = self.t
        e = t.session.e
        if t.ui.fatal:
            return "the table is stopped: " + t.ui.fatal
        if e is not None and e.in_deal() and not (self.tm is not None and self.tm.active):
            return "tag mode is for between deals: finish or void this deal first"
        if self.tm is None:
            self.loaded = tuple(sys.modules)
            from tagging import tagmode
            st = t.settings
            self.tm = tagmode.for_reader(t.reader, t.screens.disp, screen=BANKER_DISPLAY,
                                         uidmap_path=t.root + (st.uid_map or "uidmap.txt"))
        self.tm.command(line, e.packs if e is not None else 1)   # its deck (C1, C4)
        self.busy = t.turn.lent = True   # it has the reader to itself
        return None

    def stop(self):
        self.tm.stop()

    def press(self, b):
        if b == 7:                       # UNDO; other presses wait
            self.stop()

    def step(self):
        """One step of the run (always busy): its next serial line, or its end."""
        t = self.t
        line = self.tm.poll()
        if line is not None:
            t.say(line)
            return True
        if not self.tm.active:
            self.busy = t.turn.lent = False
            t.screens.forget()           # the banker's display showed the tag mode
            t.reader.ignore_field()      # the last tag may still lie on the reader
            t.screens.all_dirty()
            self.tm = None               # its buffers go; made again at the next use
            for name in tuple(sys.modules):
                if name not in self.loaded:  # its code goes too (imported again if needed)
                    forget(name)
            self.loaded = None
            t.house.collect = True
        return True
