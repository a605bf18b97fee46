# The replayer's JSON document (TRANSCRIPT.md), written by hand so that CPython and
# MicroPython print the same bytes and keys keep their contract order.
from cards import card_name
from hands import KIND_NAMES

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


def seat_map(engine, value_of):
    first = 0 if engine.casino else 1
    parts = []
    for s in range(first, engine.seats + 1):
        parts.append('"%d": %d' % (s, value_of(s)))
    return "{" + ", ".join(parts) + "}"


def _cards(engine, slot):
    names = []
    for i in range(engine.ncards(slot)):
        names.append(jstr(card_name(engine.card(slot, i))))
    return "[" + ", ".join(names) + "]"


def _hand_head(engine, slot):
    return '"cards": %s, "total": %d, "kind": %s' % (
        _cards(engine, slot), engine.hand_total(slot), jstr(KIND_NAMES[engine.hand_kind(slot)]))


def deal_json(engine, settled):
    """The current (or just ended) deal as one JSON object, in the contract's layout."""
    void = settled and engine.last_void
    counted = settled and engine.last_counted
    out = '    {"number": %d, "counted": %s, "void": %s, "banker": %d,\n' % (
        engine.deals, jbool(counted), jbool(void), engine.hand_seat(0))
    out += '     "banker_hand": {%s},\n' % _hand_head(engine, 0)
    hand_texts = []
    for i in range(engine.norder):
        slot = engine.slot_at(i)
        text = '       {"seat": %d, %s,\n        "stake": %d' % (
            engine.hand_seat(slot), _hand_head(engine, slot), engine.hand_stake(slot))
        if settled:
            text += ', "net": %d' % engine.hand_net(slot)
        hand_texts.append(text + "}")
    if hand_texts:
        out += '     "hands": [\n' + ",\n".join(hand_texts) + "\n     ]"
    else:
        out += '     "hands": []'
    if settled:
        out += ',\n     "net": %s' % seat_map(engine, engine.deal_net)
    return out + "}"


def winners(engine):
    if not engine.finished():
        return []
    best = None
    for s in range(1, engine.seats + 1):
        if best is None or engine.balance(s) > best:
            best = engine.balance(s)
    return [s for s in range(1, engine.seats + 1) if engine.balance(s) == best]


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
    out.write(('  "deals": [\n' if first else ",\n") + deal_json(engine, settled))


def write_tail(out, engine, no_deals):
    out.write('  "deals": [],\n' if no_deals else "\n  ],\n")
    out.write('  "balances": %s,\n' % seat_map(engine, engine.balance))
    out.write('  "kitty": %d,\n' % engine.kitty)
    out.write('  "banker": %d,\n' % engine.banker)
    out.write('  "finished": %s,\n' % jbool(engine.finished()))
    out.write('  "winners": [%s]\n}\n' % ", ".join(["%d" % s for s in winners(engine)]))
