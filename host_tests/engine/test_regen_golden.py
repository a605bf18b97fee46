"""host_tests/regen_golden.py: it shows the diff of a golden it would change, writes only
the goldens named (--write GOLDEN ..., --accept LIST) and refuses a blanket rewrite."""
import os
import shutil

from conftest import HERE

import importlib.util

_spec = importlib.util.spec_from_file_location("regen_golden",
                                               os.path.join(HERE, "regen_golden.py"))
G = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(G)

SCENARIO = os.path.join(HERE, "scenarios", "table", "basic_stand.txt")


def _stale_copy(tmp_path):
    path = str(tmp_path / "basic_stand.txt")
    shutil.copyfile(SCENARIO, path)
    with open(SCENARIO + ".json", "rb") as f:
        good = f.read()
    bad = good.replace(b'"finished"', b'"finished_once"', 1)
    assert bad != good
    with open(path + ".json", "wb") as f:
        f.write(bad)
    return path, good, bad


def _golden(path):
    with open(path + ".json", "rb") as f:
        return f.read()


def test_a_stale_golden_is_shown_as_a_diff_and_left_alone(tmp_path):
    path, good, bad = _stale_copy(tmp_path)
    said = []
    assert G.main([path], out=said.append) == 1
    text = "\n".join(said)
    assert '-  "finished_once"' in text or '-"finished_once"' in text.replace(" ", ""), text
    assert "(golden)" in text and "(replayed now)" in text
    assert "1 golden(s) stale" in text
    assert _golden(path) == bad


def test_no_blanket_rewrite(tmp_path):
    path, good, bad = _stale_copy(tmp_path)
    said = []
    assert G.main(["--write"], out=said.append) == 2
    assert "no blanket rewrite" in said[0]
    assert G.main(["--bless-all"], out=said.append) == 2
    assert _golden(path) == bad


def test_only_the_goldens_named_are_written(tmp_path):
    path, good, bad = _stale_copy(tmp_path)
    other = str(tmp_path / "other.txt")
    shutil.copyfile(path, other)
    shutil.copyfile(path + ".json", other + ".json")
    said = []
    assert G.main(["--write", path + ".json"], out=said.append) == 0
    assert _golden(path) == good and _golden(other) == bad
    assert any(s.startswith("wrote ") for s in said) and "(golden)" in "\n".join(said)
    listed = tmp_path / "reviewed.txt"
    listed.write_text("# reviewed: the key's name is right\n%s\n" % other)
    assert G.main(["--accept", str(listed)], out=said.append) == 0
    assert _golden(other) == good
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing reviewed\n")
    assert G.main(["--accept", str(empty)], out=said.append) == 2
