"""The tests mirror the packages (issue 35 item 6; the rule is written out in tests/README.md).

Every test file lives in ``tests/<package>/`` and is named ``test_<module>[_<what>].py`` after the module (or
subpackage) of ``fieldstudio/<package>/`` it mainly exercises, so that the tests of ``media/decoded_table.py``
are ``tests/media/test_decoded_table*.py``. ``tests/launch/`` mirrors ``fieldstudio/launch.py``,
``tests/installers/`` the repository's ``installers/``; ``tests/architecture/`` holds the checks on the whole code
base (import cycles, this layout) and ``tests/support/`` the shared helpers, fakes and clips, with no tests of its
own.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
FREE = {"architecture"}
"""Folders of checks on the whole code base, named for what they check rather than after one module."""
SUPPORT = "support"


def mirrored_names(folder: str, root: Path = ROOT) -> set[str] | None:
    """The module and subpackage names a test file in ``tests/<folder>/`` may be named after, or None when the
    folder mirrors nothing: every module and subpackage of ``fieldstudio/<folder>/`` (at any depth), the module
    ``fieldstudio/<folder>.py`` itself, or every Python file of the repository folder ``<folder>/``."""
    package = root / "fieldstudio" / folder
    if (package / "__init__.py").is_file():
        return {p.stem for p in package.rglob("*.py") if p.stem != "__init__"} | \
            {d.name for d in package.rglob("*") if (d / "__init__.py").is_file()}
    if package.with_suffix(".py").is_file():
        return {folder}
    if (root / folder).is_dir() and folder not in ("fieldstudio", "tests"):
        return {p.stem for p in (root / folder).rglob("*.py")} or None
    return None


def misnamed(test_file: Path, names: set[str]) -> bool:
    """True when ``test_file`` is not ``test_<name>.py`` or ``test_<name>_<what>.py`` for one of ``names``."""
    stem = test_file.stem
    return not any(stem == f"test_{n}" or stem.startswith(f"test_{n}_") for n in names)


def test_no_python_file_sits_directly_in_tests():
    loose = sorted(p.name for p in TESTS.glob("*.py") if p.name not in ("__init__.py", "conftest.py"))
    assert not loose, f"move these into tests/<package>/ (tests) or tests/support/ (helpers): {loose}"


def test_every_test_folder_is_a_package_named_after_what_it_tests():
    folders = sorted({p.parent for p in TESTS.rglob("*.py")} - {TESTS})
    assert [f for f in folders if not (f / "__init__.py").is_file()] == []   # else two test_tasks.py collide
    assert [f.name for f in folders if f.parent != TESTS] == []              # one level: tests/<package>/
    unknown = [f.name for f in folders if f.name not in FREE | {SUPPORT} and mirrored_names(f.name) is None]
    assert unknown == [], "a folder of tests/ names a fieldstudio package, a module or a repository folder"
    assert list((TESTS / SUPPORT).glob("test_*.py")) == []                 # support holds no tests


def test_every_test_file_is_named_after_a_module_of_its_package():
    wrong = []
    for path in sorted(TESTS.glob("*/test_*.py")):
        names = mirrored_names(path.parent.name)
        if path.parent.name not in FREE and names is not None and misnamed(path, names):
            wrong.append(path.relative_to(TESTS).as_posix())
    assert wrong == [], f"name each after the module it mainly exercises (test_<module>[_<what>].py): {wrong}"


def imported_test_modules(source: str) -> list[str]:
    """The test modules (``tests.<folder>.test_*``) a Python source imports."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return sorted({n for n in names if n.startswith("tests.") and n.split(".")[-1].startswith("test_")})


def test_no_test_file_imports_another():
    """What several test files share is in tests/support/, so that a test file can move or split alone."""
    found = {p.relative_to(TESTS).as_posix(): imported_test_modules(p.read_text(encoding="utf-8"))
             for p in sorted(TESTS.rglob("*.py"))}
    assert {path: names for path, names in found.items() if names} == {}
    assert imported_test_modules("from tests.ratings.test_rating_records import add_media\n"
                                 "from tests.core import test_atomic\nfrom tests.support.rating_media import PHOTOS") == \
        ["tests.core.test_atomic", "tests.ratings.test_rating_records"]


def test_both_backends_names_test_modules_that_exist():
    """tests/conftest.py runs the ``project`` of the modules in BOTH_BACKENDS on PostgreSQL too, by module
    name: a module moved or renamed without it would silently lose its PostgreSQL runs."""
    from tests.conftest import BOTH_BACKENDS

    missing = sorted(m for m in BOTH_BACKENDS if not (ROOT / (m.replace(".", "/") + ".py")).is_file())
    assert missing == []


def test_the_naming_rule_on_known_names():
    media = mirrored_names("media")
    assert {"video", "frames", "library"} <= media and "__init__" not in media
    assert {"scorers", "fs_match", "official"} <= mirrored_names("scoring")      # subpackages and their modules
    assert mirrored_names("launch") == {"launch"}
    assert "slim_bundle" in mirrored_names("installers")
    assert mirrored_names("nosuch") is None and mirrored_names("tests") is None
    assert not misnamed(Path("test_video.py"), media) and not misnamed(Path("test_video_truncated.py"), media)
    assert misnamed(Path("test_videos.py"), media) and misnamed(Path("test_truncated_video.py"), media)


def test_every_module_has_test_files_that_find_it():
    """tests/README.md: a module's tests are found by name, by import or through a caller
    (``python -m tests.support.tests_of MODULE``). Alembic loads the migrations by path (their tests are
    tests/store/test_migrations*.py) and ``python -m fieldstudio`` runs ``__main__`` in a subprocess."""
    from tests.support.tests_of import tests_of

    unfound = []
    for path in sorted((ROOT / "fieldstudio").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("fieldstudio/store/migrations/") or rel == "fieldstudio/__main__.py":
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        if path.name == "__init__.py" and all(isinstance(n, (ast.Expr, ast.ImportFrom)) for n in body) and not any(
                isinstance(n, ast.ImportFrom) and n.module != "__future__" for n in body):
            continue   # a package marker: a docstring at most
        if not tests_of(path):
            unfound.append(rel)
    assert unfound == []


def test_tests_of_finds_by_name_by_import_and_through_a_caller():
    """Three modules whose test files are known by hand: one by name, one only through the window."""
    from tests.support.tests_of import tests_of

    by_name = tests_of(ROOT / "fieldstudio/scoring/scorers/llm_match.py").by_name
    assert ROOT / "tests/scoring/test_llm_match.py" in by_name
    transport = tests_of(ROOT / "fieldstudio/gui/transport.py")
    assert transport.by_name == [] and transport.by_import == []
    assert transport.through[ROOT / "tests/gui/test_main_window.py"].endswith("fieldstudio.gui.main_window")
