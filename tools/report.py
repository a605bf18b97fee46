# The replayer's JSON document (docs/TRANSCRIPT.md), written by hand so that CPython and
# MicroPython print the same bytes and keys keep their contract order. A tool's (replay.py,
# night.py): the shoe never writes it, so it is not frozen into the UF2.
from game.cards import card_name
from game.hands import KIND_NAMES

def jstr(text):
    out = '"'
    for ch in text:
        if ch == '"' or ch == "\\":
            out += "\\" + ch
        elif ch < " ":
            out += "\\u%04x" % ord(ch)
        else:
            out += ch
    return out + '"'


def jbool(flag):
    return "true" if flag else "false"


def write_seat_map(out, engine, value_of):
    first = 0 if engine.casino else 1
    out.write("{")
    for s in range(first, engine.seats + 1):
        out.write('%s"%d": %d' % (", " if s > first else "", s, value_of(s)))
    out.write("}")


def _write_cards(out, engine, slot):
    out.write("[")
    for i in range(engine.ncards(slot)):
        out.write(', "%s"' % card_name(engine.card(slot, i)) if i else '"%s"' % card_name(
            engine.card(slot, i)))
    out.write("]")


def _write_hand_head(out, engine, slot):
    out.write('"cards": ')
    _write_cards(out, engine, slot)
    out.write(', "total": %d, "kind": "%s"' % (
        engine.hand_total(slot), KIND_NAMES[engine.hand_kind(slot)]))


def write_deal_object(out, engine, settled):
    """The current (or just ended) deal as one JSON object, in the contract's layout,
    written piece by piece so that no large string is built."""
    void = settled and engine.last_void
    counted = settled and engine.last_counted
    out.write('    {"number": %d, "counted": %s, "void": %s, "banker": %d,\n' % (
        engine.deals, jbool(counted), jbool(void), engine.hand_seat(0)))
    out.write('     "banker_hand": {')
    _write_hand_head(out, engine, 0)
    out.write("},\n")
    if engine.norder:
        out.write('     "hands": [\n')
        for i in range(engine.norder):
            slot = engine.slot_at(i)
            out.write('       {"seat": %d, ' % engine.hand_seat(slot))
            _write_hand_head(out, engine, slot)
            out.write(',\n        "stake": %d' % engine.hand_stake(slot))
            if settled:
                out.write(', "net": %d' % engine.hand_net(slot))
            out.write("},\n" if i + 1 < engine.norder else "}\n")
        out.write("     ]")
    else:
        out.write('     "hands": []')
    if settled:
        out.write(',\n     "net": ')
        write_seat_map(out, engine, engine.deal_net)
    out.write("}")


def write_head(out, engine, rejected):
    """Everything before the deals; rejected: list of (line, text, error)."""
    out.write('{\n  "rules": %s,\n' % jstr(engine.rules.name))
    if not rejected:
        out.write('  "events": [],\n')
    else:
        out.write('  "events": [\n')
        last = len(rejected) - 1
        for i in range(len(rejected)):
            line, text, error = rejected[i]
            out.write('    {"line": %d, "event": %s, "ok": false, "error": %s}%s\n' % (
                line, jstr(text), jstr(error), "," if i < last else ""))
        out.write("  ],\n")


def write_deal(out, engine, settled, first):
    out.write('  "deals": [\n' if first else ",\n")
    write_deal_object(out, engine, settled)


def write_tail(out, engine, no_deals):
    out.write('  "deals": [],\n' if no_deals else "\n  ],\n")
    out.write('  "balances": ')
    write_seat_map(out, engine, engine.balance)
    out.write(",\n")
    out.write('  "kitty": %d,\n' % engine.kitty)
    out.write('  "banker": %d,\n' % engine.banker)
    out.write('  "finished": %s,\n' % jbool(engine.finished()))
    won = engine.winners() if engine.finished() else ()
    out.write('  "winners": [%s]\n}\n' % ", ".join(["%d" % s for s in won]))
