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
    assert not A.defined("table.app:Table.no_such_method")


def test_a_module_in_no_part_is_refused(monkeypatch):
    monkeypatch.setattr(A, "modules", lambda: ["game.engine", "brand_new.thing"])
    with pytest.raises(A.ArchitectureError, match="brand_new"):
        A.part_of()


def test_the_parts_are_the_folders_and_every_folder_is_a_package():
    folders = sorted(d for d in os.listdir(A.FIRMWARE)
                     if os.path.isdir(os.path.join(A.FIRMWARE, d)) and d != "__pycache__")
    assert folders == sorted(p for p, _ in A.PARTS if p != A.TOP)
    for d in folders:
        assert os.path.exists(os.path.join(A.FIRMWARE, d, "__init__.py")), d
    where = A.part_of()
    assert where["game.engine"] == [p for p, _ in A.PARTS].index("game")
    assert A.part_name("main") == A.TOP


def test_the_top_holds_only_main_the_import_index_and_the_drivers_shims():
    top = sorted(m for m in A.modules() if A.part_name(m) == A.TOP)
    assert top == ["busio", "digitalio", "import_index", "main"]


def test_the_import_index_lists_every_package_all_the_way_down():
    import import_index
    assert sorted(import_index.DEEP) == sorted(["lib"] + [p for p, _ in A.PARTS if p])


def test_the_game_imports_nothing_outside_the_rules():
    game = [p for p, _ in A.PARTS].index("game")
    assert [a for a, b in A.edges() if a == game] == []


def test_only_the_known_design_points_run_back_up():
    assert set(A.upward()) == set(A.DESIGN_POINTS)


def test_relative_imports_are_resolved():
    known = set(A.modules())
    assert "game.hands" in A.imports("game.engine", known)        # from . import hands
    assert "game.cards" in A.imports("hardware.shoe_reader", known)  # from game.cards import


@pytest.mark.parametrize("name", A.modules())
def test_no_class_is_longer_than_400_lines(name):
    with open(A._path(name)) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            lines = node.end_lineno - node.lineno + 1
            assert lines <= MAX_CLASS_LINES, "%s.%s: %d lines" % (name, node.name, lines)
