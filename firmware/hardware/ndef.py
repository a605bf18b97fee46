# NDEF on an NTAG213's user memory (docs/DEVICES.md): walking the TLVs to the NDEF message, and
# finding a Text record in it. Shared by the shoe reader and the tag mode; nothing here
# allocates (results go into a caller's preallocated array), so it may run under
# micropython.heap_lock(), but text_of(), which makes the text a string.
from micropython import const


NO_NDEF = const(0)  # a terminator TLV, or memory ends, before any NDEF TLV
NEED_MORE = const(1)  # the bytes read so far end inside a TLV: read more pages
FOUND = const(2)  # out[0]..out[1]: the NDEF message
EMPTY = const(3)  # an NDEF TLV of length 0
_TOO_BIG = const(4)  # the message goes past `cap`


def find_message(buf, off, have, cap, out):
    """TLVs in buf[off:off + have] (user memory from page 4). Writes into out (3 ints):
    out[0]..out[1] the NDEF message's bounds (relative to off) and out[2] where an NDEF TLV
    is or would go (after the TLVs that precede it). Returns one of the constants above.
    NULL TLVs are skipped, lock and memory control TLVs stepped over (phone apps and
    factory tags may put them first)."""
    i = 0
    out[2] = 0
    while i < have:
        t = buf[off + i]
        if t == 0x00:
            i += 1
            continue
        if t == 0xFE:
            return NO_NDEF
        if i + 1 >= have:
            return NEED_MORE
        ln = buf[off + i + 1]
        hl = 2
        if ln == 0xFF:
            if i + 3 >= have:
                return NEED_MORE
            ln = (buf[off + i + 2] << 8) | buf[off + i + 3]
            hl = 4
        if t == 0x03:
            out[2] = i
            if ln == 0:
                return EMPTY
            out[0] = i + hl
            out[1] = i + hl + ln
            if out[1] > cap:
                return _TOO_BIG
            return FOUND if out[1] <= have else NEED_MORE
        i += hl + ln
        out[2] = i
    return NEED_MORE if have < cap else NO_NDEF


def find_text(buf, a, end, out):
    """The first NDEF Text record (UTF-8) in the message buf[a:end]: its text's bounds go to
    out[0]..out[1]; returns False when there is none (short and long records both walked)."""
    i = a
    while i + 3 <= end:
        h = buf[i]
        tl = buf[i + 1]
        if h & 0x10:                   # short record
            pl = buf[i + 2]
            j = i + 3
        else:
            if i + 6 > end:
                return False
            pl = (buf[i + 2] << 24) | (buf[i + 3] << 16) | (buf[i + 4] << 8) | buf[i + 5]
            j = i + 6
        il = 0
        if h & 0x08:
            il = buf[j]
            j += 1
        p = j + tl + il
        if p + pl > end:
            return False
        if h & 7 == 1 and tl == 1 and buf[j] == 0x54 and pl >= 1:
            st = buf[p]
            if st & 0x80:              # UTF-16 text: not how cards are written
                return False
            out[0] = p + 1 + (st & 0x3F)
            out[1] = p + pl
            return out[0] <= out[1]
        if h & 0x40:                   # ME: the last record
            return False
        i = p + pl
    return False


NOT_UTF8 = "(not UTF-8)"   # text_of()'s answer for a Text record whose bytes are not UTF-8


def text_of(buf, a, end, out):
    """The text of the first Text record in the message buf[a:end], the whitespace around it
    dropped (out: 2 ints, as find_text); None when there is none; NOT_UTF8 when its bytes
    are not UTF-8 (a sticker written badly is never the table's fault)."""
    if not find_text(buf, a, end, out):
        return None
    try:
        return bytes(buf[out[0]:out[1]]).decode().strip()
    except ValueError:                # (UnicodeError, on every runtime)
        return NOT_UTF8
