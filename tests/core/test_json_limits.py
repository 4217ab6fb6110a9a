"""JSON documents too deep or too large are refused with one line, never a RecursionError."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fieldstudio.core.json_limits import JsonLimitError, load_json


def test_depth_and_size_are_refused_with_the_reason():
    assert load_json("[[1]]") == [[1]]
    with pytest.raises(JsonLimitError, match=r"^is nested deeper than [\d,]+ levels; not read$"):
        load_json("[" * 200_000 + "]" * 200_000)
    with pytest.raises(JsonLimitError, match=r"^is larger than 10 bytes; not read$"):
        load_json("[1, 2, 3, 4, 5]", max_bytes=10)


@pytest.mark.parametrize("command", [["tasks", "import"], ["annotations", "import", "--format", "coco"]])
def test_the_command_line_says_so_in_one_line(tmp_path, command):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    project = tmp_path / "p.fieldstudio"
    subprocess.run([sys.executable, "-m", "fieldstudio", "new", str(project)], check=True, capture_output=True)
    args = command[:2] + [str(project), str(deep)] + command[2:]
    done = subprocess.run([sys.executable, "-m", "fieldstudio", *args], capture_output=True, text=True)
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr + done.stdout
    said = done.stdout + done.stderr                  # the import report goes to stdout, an error to stderr
    assert f"{deep}: " in said and "is nested deeper than" in said
