# What happened, kept: the session (the engine and its journal), the journal on flash
# (files, or the raw flash region of the shoe's UF2) and its recovery, the snapshots, the
# settings.
import sys


def forget(name):
    """Let the module `name` (dotted) go: out of sys.modules and off its package, which an
    import binds it on too, so that its code is collected; imported anew when next needed."""
    sys.modules.pop(name, None)
    pkg, _, leaf = name.rpartition(".")
    if pkg in sys.modules:
        try:
            delattr(sys.modules[pkg], leaf)
        except AttributeError:
            pass
