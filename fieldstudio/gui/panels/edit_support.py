"""What the annotation side panels share: the ``apply_edit`` hook, colour swatches, message styles.

Every write a panel makes is a ``fieldstudio.store.edits.Edit`` handed to ``apply_edit(edit)``. The
window passes a function that does the edit (``edit.do()``, which raises and commits nothing on bad
input) and pushes it on its QUndoStack; without one, :func:`do_now` just does it (no undo).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QColor, QIcon, QPixmap

if TYPE_CHECKING:
    from fieldstudio.store.edits import Edit


ApplyEdit = Callable[["Edit"], None]
ERROR_STYLE = "color: #d93025;"
OK_STYLE = "color: #1e7e34;"


def do_now(edit: Edit) -> None:
    """The default ``apply_edit``: do the edit (committed at once) without an undo stack."""
    edit.do()


def swatch(color: str | None, size: int = 14) -> QIcon:
    """A square icon filled with ``color`` (``#rrggbb``); grey outline, transparent for None."""
    pix = QPixmap(size, size)
    pix.fill(QColor(color) if color else QColor(0, 0, 0, 0))
    return QIcon(pix)
