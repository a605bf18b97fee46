"""A card or a play within a deal's phase marks only the displays it may change (app.py
`after_event`'s `few`: the seat it concerns, the seat the next card goes to, whoever acts
now, the deal's banker, the banker display); the other seats' lines are not built again.
Every display must still show what a fresh build of its lines says: checked after every
pass that followed an event or a mark, through whole scripted sessions of each preset."""
import pytest

import runner as R
import simtable as S

CLASSIC_ALL = ("shoot=on", "burn=13", "banker_doubling=on")


def _stale_displays(table):
    """[(display, its lines now)] of every display whose drawn hash is not its lines' now."""
    sc = table.screens
    out = []
    for i in range(len(sc.hashes)):
        if sc.hashes[i] == 0:            # unknown: it will be drawn whole
            continue
        hl = sc.lines(i)
        if sc._hash(hl) != sc.hashes[i]:
            out.append((i, list(sc.buf)))
        sc._let_go()
    return out


@pytest.mark.parametrize("preset,seats,seed,options", [
    ("table", 8, 1, ()),
    ("table", 5, 3, ()),
    ("classic", 6, 4, CLASSIC_ALL),
    ("casino", 5, 2, ()),
])
def test_every_display_shows_what_its_lines_say(tmp_path, preset, seats, seed, options):
    head, events = S.script_session(preset, seats, seed, deals=6, options=options)
    driver = S.Driver(head, events, seed=seed)
    flash = str(tmp_path / "flash")
    S.fresh_flash(flash, S.settings_text(preset, seats, options=options))
    run = R.CPython(flash, driver)
    run.boot()
    t = run.table
    sc = t.screens
    seen = [-1, -1]
    checks = []
    stale = []

    def check(now):
        if sc.dirty or sc.held >= 0 or (sc.gen, t.session.nev) == tuple(seen):
            return
        seen[:] = [sc.gen, t.session.nev]
        checks.append(t.session.nev)
        for i, lines in _stale_displays(t):
            stale.append((now, t.session.nev, i, lines))
    run.on_tick = check
    run.run()
    assert driver.done and driver.errors == [] and driver.retries == 0
    assert not stale, stale[:3]
    assert len(set(checks)) > len(events) // 2      # most events were followed by a check
