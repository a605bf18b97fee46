# CPython's stand-ins for MicroPython's code emitters, so that one source runs on both. On
# MicroPython the compiler itself turns a function decorated @micropython.viper into machine
# code (the decorator is never looked up) and reads ptr8 in its annotations as "the bytes of
# this buffer" (ptr16/ptr32 casts: its halfwords, words). Here the function runs as Python: a str argument is passed as its UTF-8
# bytes and the NUL after them, which is what a viper ptr8 of a str reads on MicroPython.
def ptr8(buf):
    """viper's cast of a buffer to its bytes (ptr16, ptr32: to its halfwords, words): here
    the buffer itself, read as Python reads it. In an annotation only its name counts."""
    return buf


ptr16 = ptr32 = ptr8


def uint(x):
    """viper's cast to a machine word read unsigned."""
    return x & 0xFFFFFFFF


def _as_bytes(a):
    return a.encode() + b"\0" if isinstance(a, str) else a


class _Emitters:
    @staticmethod
    def viper(fn):
        def run(*args):
            return fn(*[_as_bytes(a) for a in args])
        run.__name__ = fn.__name__
        run.__doc__ = fn.__doc__
        return run

    @staticmethod
    def native(fn):
        return fn


micropython = _Emitters()
