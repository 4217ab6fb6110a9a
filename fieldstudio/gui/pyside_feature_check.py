"""PySide6 reads the source of every module imported after it; this makes that read a plain file search.

PySide6's ``__feature__`` machinery (``from __feature__ import snake_case``) hooks ``import``: for every module
imported once PySide6 is loaded it asks ``shibokensupport.feature._mod_uses_pyside(module)``, which calls
``inspect.getsource(module)`` (linecache, tokenize's encoding detection, every line split) only to test whether
the text ``PySide6`` occurs in it. The window imports ~110 modules after PySide6 before its first paint, and
those reads took 70-140 ms of a 1.2-1.5 s cold start on two loaded cores (issue 37 item 3; bare QMainWindow
imports almost nothing after PySide6 and pays none of it).

:func:`install` replaces that function by one giving the same answer from the file's bytes (``b"PySide6" in``
the ``.py`` file; ``PySide6`` is ASCII, so any ASCII-compatible source encoding gives the same result), and
leaves every other module (an extension, a zip import, a module without a file) to PySide's own. fieldstudio
uses no PySide feature; the answer only decides whether a module takes part in feature switching at all.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

import PySide6.QtCore  # noqa: F401 - loads shiboken's support modules, feature.py among them

FEATURE_MODULE = "shibokensupport.feature"
_FAST = "_fieldstudio_reads_bytes"  # marks our replacement, so installing twice wraps nothing twice


def mentions_pyside(module: ModuleType, fallback: Callable[[ModuleType], bool]) -> bool:
    """True when the source file of ``module`` contains the bytes ``PySide6``; ``fallback(module)`` (PySide's
    own check) when the module has no ``.py`` file that can be read."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return fallback(module)
    try:
        with open(path, "rb") as f:
            return b"PySide6" in f.read()
    except OSError:  # a zip import's path, a file removed since: PySide's own reads it through the loader
        return fallback(module)


def install() -> bool:
    """Replace PySide's source check by :func:`mentions_pyside`; True when it is in place (now or already),
    False when this PySide has no such check (another version: nothing is changed)."""
    feature = sys.modules.get(FEATURE_MODULE)
    original = getattr(feature, "_mod_uses_pyside", None)
    if not callable(original):
        return False
    if getattr(original, _FAST, False):
        return True

    def _mod_uses_pyside(module: ModuleType) -> bool:
        return mentions_pyside(module, original)

    setattr(_mod_uses_pyside, _FAST, True)
    _mod_uses_pyside.original = original  # type: ignore[attr-defined] - PySide's own, for the tests
    feature._mod_uses_pyside = _mod_uses_pyside
    return True
