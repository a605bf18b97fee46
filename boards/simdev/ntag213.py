# NTAG213 tag model: 45 pages of 4 bytes, 7-byte UID (first byte 0x04), NDEF in TLVs.
PAGES = 45            # 00h..2Ch
USER_FIRST = 4        # 04h..27h user memory (144 bytes)
USER_LAST = 0x27
ATQA = b"\x00\x44"    # SENS_RES as sent in InListPassiveTarget answers
SAK = 0x00

# tag states (ISO/IEC 14443-3)
IDLE = 0
ACTIVE = 1
HALT = 2


class NTAG213:
    def __init__(self, uid, user=b""):
        if len(uid) != 7 or uid[0] != 0x04:
            raise ValueError("NTAG213 UID is 7 bytes starting 0x04")
        self.uid = bytes(uid)
        m = self.mem = bytearray(PAGES * 4)
        u = self.uid
        m[0:3] = u[0:3]
        m[3] = 0x88 ^ u[0] ^ u[1] ^ u[2]            # BCC0
        m[4:8] = u[3:7]
        m[8] = u[3] ^ u[4] ^ u[5] ^ u[6]            # BCC1
        m[9] = 0x48                                  # internal
        m[12:16] = b"\xe1\x10\x12\x00"              # capability container
        m[0x28 * 4:0x28 * 4 + 4] = b"\x00\x00\x00\xbd"   # dynamic lock
        m[0x29 * 4:0x29 * 4 + 4] = b"\x04\x00\x00\xff"   # CFG0 (AUTH0 = FF: no password)
        m[0x2A * 4:0x2A * 4 + 4] = b"\x00\x05\x00\x00"   # CFG1
        if len(user) > (USER_LAST - USER_FIRST + 1) * 4:
            raise ValueError("user data larger than 144 bytes")
        m[16:16 + len(user)] = user
        self.state = IDLE
        self.reads = 0
        self.writes = 0

    def command(self, data):
        """One ISO14443-3 exchange. Returns (ok, response bytes); ok False is a NAK."""
        if not data:
            return False, b""
        c = data[0]
        if c == 0x30 and len(data) == 2:                     # READ: 4 pages, wraps
            p = data[1]
            if p >= PAGES:
                return False, b""
            self.reads += 1
            out = bytearray(16)
            for i in range(4):
                q = (p + i) % PAGES
                out[i * 4:i * 4 + 4] = self.mem[q * 4:q * 4 + 4]
            return True, out
        if c == 0xA2 and len(data) == 6:                     # WRITE one page
            p = data[1]
            if p < 2 or p >= PAGES:
                return False, b""
            self.writes += 1
            o = p * 4
            if p == 2:        # only the lock bytes are writable; bits only ever set
                self.mem[o + 2] |= data[4]
                self.mem[o + 3] |= data[5]
            elif p == 3:      # capability container is OTP
                for i in range(4):
                    self.mem[o + i] |= data[2 + i]
            else:
                self.mem[o:o + 4] = data[2:6]
            return True, b""
        return False, b""

    def user(self):
        return bytes(self.mem[16:(USER_LAST + 1) * 4])


def ndef_text_record(text, lang="en"):
    t = text.encode()
    lg = lang.encode()
    payload = bytes([len(lg)]) + lg + t
    return bytes([0xD1, 0x01, len(payload), 0x54]) + payload


def ndef_tlv(message):
    n = len(message)
    if n < 0xFF:
        return bytes([0x03, n]) + message
    return bytes([0x03, 0xFF, n >> 8, n & 0xFF]) + message


LOCK_CONTROL_TLV = b"\x01\x03\xa0\x0c\x34"   # as factory-formatted tags carry it


def uid_for(n, salt=0):
    """A deterministic, valid-looking NTAG UID for tag number n."""
    return bytes([0x04, 0x5A ^ salt, (n * 37 + 11) & 0xFF, (n * 101 + 7) & 0xFF,
                  n & 0xFF, (n >> 8) & 0xFF, 0x80 | (n * 13 & 0x7F)])


def text_tag(text, uid=None, n=0, lock_tlv=False):
    """A tag holding one NDEF Text record, as NFC Tools writes it."""
    user = (LOCK_CONTROL_TLV if lock_tlv else b"") + ndef_tlv(ndef_text_record(text)) + b"\xfe"
    return NTAG213(uid or uid_for(n), user)


def blank_tag(uid=None, n=0):
    """A factory-fresh tag: empty NDEF TLV, terminator."""
    return NTAG213(uid or uid_for(n), b"\x03\x00\xfe")
