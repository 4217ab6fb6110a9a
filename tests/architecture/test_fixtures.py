"""Each pytest fixture name is defined once in tests/ (issue 35 item 6).

A second definition under the same name silently overrides the first for the files below it, so two tests
asking for ``window`` or ``project`` may get different things. A fixture used by the tests of several
packages lives in tests/conftest.py, one used by several files of a package in tests/<package>/conftest.py,
one used by one file in that file. Read from the source with ``ast``, not by importing the test modules.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _fixture_name(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name pytest registers for ``node`` if it is decorated as a fixture (``name=`` wins), else None."""
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call else decorator
        if ast.unparse(target) in ("pytest.fixture", "fixture"):
            for keyword in call.keywords if call else ():
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return keyword.value.value
            return node.name
    return None


def fixture_definitions(root: Path) -> dict[str, list[str]]:
    """Fixture name -> ["path:line", ...] of every module-level fixture definition in the .py files under root."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (name := _fixture_name(node)):
                found[name].append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
    return found


def test_every_fixture_name_is_defined_once():
    twice = {name: where for name, where in fixture_definitions(TESTS).items() if len(where) > 1}
    assert not twice, "fixtures defined more than once (keep one, or give each a name that says how it differs): " + \
        "; ".join(f"{name} in {', '.join(where)}" for name, where in sorted(twice.items()))


def test_the_check_sees_a_fixture_defined_twice(tmp_path):
    """The check itself: two files defining ``window`` (one under another name= spelling) are both found."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef window():\n    pass\n")
    (tmp_path / "test_b.py").write_text("import pytest\n\n@pytest.fixture(name='window')\ndef w():\n    pass\n\n"
                                        "@pytest.fixture(scope='module')\ndef only_here():\n    pass\n")
    found = fixture_definitions(tmp_path)
    assert found["window"] == ["a/conftest.py:4", "test_b.py:4"]
    assert found["only_here"] == ["test_b.py:8"]
