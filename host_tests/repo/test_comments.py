"""Comments say why, briefly: no measured figure in a firmware comment or docstring (a time,
a heap or flash size, a percentage). Figures go in `make bench`'s output and docs/, where a
fresh run can check them; in the code they go stale the first time the code moves.

Two kinds of number with a unit stay allowed, each a fact of a format or of the code, not a
measurement:
  - a width written as one word, "a 7-byte UID", "8-byte records" (a format's field);
  - the value of the constant defined on the same line ("_POLL_MS = const(5)  # 5 ms").
"""
import ast
import io
import os
import re
import tokenize

import pytest

from conftest import FIRMWARE

UNITS = r"(?:ms|µs|us|s|KB|kB|KiB|MB|bytes|B|%)"
# a number and its unit: "45 ms", "0.4 ms", "1,044 µs", "3 KB", "0.1 s", "30 bytes", "5%";
# not "8-seat", "7-byte" (one word: a format's width) nor "v1.28"
FIGURE = re.compile(r"(?<![\w.,-])~?(\d[\d,]*(?:\.\d+)?)(?:\s+" + UNITS + r"|%)(?![\w-])")
CONSTANT = re.compile(r"^\s*_?[A-Z][A-Z0-9_]*\s*=\s*(?:const\()?\s*(\d+)")


def firmware_files():
    out = []
    for dirpath, dirs, files in os.walk(FIRMWARE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out += [os.path.join(dirpath, f) for f in sorted(files) if f.endswith(".py")]
    return sorted(out)


def texts(source):
    """(line, text) of every comment and docstring of a module's source."""
    lines = source.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string, lines[tok.start[0] - 1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.body and isinstance(node.body[0], ast.Expr) and isinstance(
                    getattr(node.body[0], "value", None), ast.Constant) and isinstance(
                    node.body[0].value.value, str):
                yield node.body[0].lineno, node.body[0].value.value, ""


def figures(source):
    """The measured figures quoted in `source`'s comments: [(line, "45 ms"), ...]."""
    out = []
    for line, text, code in texts(source):
        own = CONSTANT.match(code)
        for m in FIGURE.finditer(text):
            if own and m.group(1).replace(",", "") == own.group(1):
                continue                 # the constant's own value, said with its unit
            out.append((line, m.group(0).lstrip("~").strip()))
    return sorted(out, key=lambda x: x[0])


@pytest.mark.parametrize("path", firmware_files(), ids=lambda p: os.path.relpath(p, FIRMWARE))
def test_no_measured_figure_in_a_firmware_comment(path):
    with open(path, encoding="utf-8") as f:
        found = figures(f.read())
    assert not found, "%s quotes measured figures (put them in make bench and docs/, say "\
        "why instead): %s" % (os.path.relpath(path, FIRMWARE), found)


def test_the_figure_check_can_fail():
    src = ('# a collection 19 ms, each heap figure another 8 ms\n'
           'X = 1  # 1.3 KB of a Pico\'s heap\n'
           'def f():\n    """About 0.4 ms on a Pico; 30 bytes instead of 130, 5% less."""\n'
           'T = 2  # up to ~0.1 s\n')
    assert [f for _, f in figures(src)] == ["19 ms", "8 ms", "1.3 KB", "0.4 ms", "30 bytes",
                                            "5%", "0.1 s"]


def test_format_widths_and_a_constants_own_value_are_allowed():
    src = ('# a 7-byte UID, sorted 8-byte records; an 8-seat table; MicroPython v1.28\n'
           '_POLL_MS = const(5)  # 5 ms: the buttons\' sampling period\n'
           'LONG = 600  # a press of 600 ms or more is long\n')
    assert figures(src) == []
