"""Which test files exercise a module: ``python -m tests.support.tests_of fieldstudio/gui/media_view.py``.

A module's tests are found in three ways, in this order (tests/README.md, "Where the tests of a module are"):

1. by name: ``tests/**/test_<module>*.py`` (the layout rule);
2. by import: test files that import the module itself;
3. through a caller: test files that import a fieldstudio module which imports it (up to ``MAX_STEPS`` imports
   up), e.g. a widget of the window tested through ``gui/main_window.py``; printed with the chain of callers.

Imports are read with ``ast`` (inside functions too), never executed. ``tests/architecture/test_layout.py`` checks
that every module is found in one of the three ways.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def dotted(path: Path) -> str:
    """``fieldstudio/gui/media_view.py`` -> ``fieldstudio.gui.media_view`` (a package's ``__init__`` is the package)."""
    parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a.b import c`` counts as ``a.b`` and ``a.b.c``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@cache
def _graph() -> tuple[dict[str, set[str]], dict[Path, set[str]]]:
    modules = {dotted(p): imports_of(p) for p in (ROOT / "fieldstudio").rglob("*.py")}
    tests = {p: imports_of(p) for p in (ROOT / "tests").rglob("test_*.py")}
    return modules, tests


MAX_STEPS = 3
"""How many imports up a caller may be (a timeline widget is tested through the media view, through the window)."""


def _callers(name: str, modules: dict[str, set[str]], steps: int) -> dict[str, list[str]]:
    """The modules that import ``name`` within ``steps`` imports, each with its chain (nearest first)."""
    chains: dict[str, list[str]] = {}
    frontier = {name: [name]}
    for _ in range(steps):
        nxt = {}
        for m, imported in modules.items():
            if m in chains or m == name:
                continue
            via = next((f for f in sorted(frontier) if f in imported), None)
            if via is not None:
                nxt[m] = frontier[via][1:] + [m] if via == name else frontier[via] + [m]
        chains.update(nxt)
        frontier = nxt
    return chains


@dataclass
class Found:
    """The test files of one module: by name, by import, and through a caller (test file -> caller module)."""

    by_name: list[Path] = field(default_factory=list)
    by_import: list[Path] = field(default_factory=list)
    through: dict[Path, str] = field(default_factory=dict)   # test file -> "caller <- its caller …"

    def __bool__(self) -> bool:
        return bool(self.by_name or self.by_import or self.through)


def tests_of(module: Path) -> Found:
    """The test files that exercise ``module`` (a path under ``fieldstudio/``). Raises ValueError for a path
    outside the repository."""
    modules, tests = _graph()
    name = dotted(module)
    stem = name.rsplit(".", 1)[-1]
    found = Found(by_name=sorted(p for p in tests if p.stem == f"test_{stem}" or p.stem.startswith(f"test_{stem}_")))
    found.by_import = sorted(p for p, imported in tests.items() if name in imported and p not in found.by_name)
    chains = _callers(name, modules, MAX_STEPS)
    for p in sorted(tests):
        if p in found.by_name or p in found.by_import:
            continue
        caller = next((c for c in sorted(chains, key=lambda c: (len(chains[c]), c)) if c in tests[p]), None)
        if caller:
            found.through[p] = " <- ".join(chains[caller])
    return found


def main(argv: list[str]) -> int:
    """Print the test files of each module named on the command line; exit 1 if one has none."""
    missing = 0
    for arg in argv:
        found = tests_of(Path(arg))
        print(f"{arg}:")
        for p in found.by_name:
            print(f"  {p.relative_to(ROOT)}  (by name)")
        for p in found.by_import:
            print(f"  {p.relative_to(ROOT)}  (imports it)")
        for p, caller in found.through.items():
            print(f"  {p.relative_to(ROOT)}  (through {caller})")
        if not found:
            print("  no test file found")
            missing += 1
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
