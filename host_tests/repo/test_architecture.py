"""The firmware's shape: docs/architecture.png is drawn from firmware/ (tools/architecture.py),
every module has its part, the engine stays pure, and no class grows into several jobs."""
import ast
import os

import pytest

import architecture as A

MAX_CLASS_LINES = 400


def test_the_picture_in_docs_is_the_code():
    assert A.stale() is None


def test_every_step_of_the_event_flow_is_a_function_of_the_firmware():
    for _, target in A.FLOW:
        assert A.defined(target), target
    assert not A.defined("app:Table.no_such_method")


def test_a_module_in_no_part_is_refused(monkeypatch):
    monkeypatch.setattr(A, "modules", lambda: ["engine", "brand_new"])
    with pytest.raises(A.ArchitectureError, match="brand_new"):
        A.part_of()


def test_the_engine_imports_nothing_outside_the_rules():
    engine_part = 0
    assert [a for a, b in A.edges() if a == engine_part] == []
    where = A.part_of()
    for m in ("engine", "hands", "cards", "rules"):
        assert where[m] == engine_part


@pytest.mark.parametrize("name", A.modules())
def test_no_class_is_longer_than_400_lines(name):
    with open(os.path.join(A.FIRMWARE, name + ".py")) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            lines = node.end_lineno - node.lineno + 1
            assert lines <= MAX_CLASS_LINES, "%s.%s: %d lines" % (name, node.name, lines)
