"""The one undo design of the window: every undoable change is a ``store.edits.Edit`` on a QUndoStack.

An edit is done (and committed) before it is pushed, so the command's first ``redo`` does nothing; later
``redo``/``undo`` calls run ``edit.do``/``edit.undo``, each one committed transaction. Each tab that edits
(the viewer's annotations, the task editor, the rater) owns one stack, and the window's
:class:`QUndoGroup` makes Edit ▸ Undo / Redo act on the stack of the tab in front. What a stack's owner
does after an undo or redo (refresh a view, show a message) is its ``after`` callback. When the store refuses an
undo or a redo (the project is then as it was), QUndoStack has already moved: the next opposite step only moves it
back, touching nothing, so Undo and Redo keep naming what they would do.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.edits import Edit

After = Callable[[Edit, str, "str | None"], None]
"""``after(edit, op, error)``: called after every undo ("undo") and redo ("redo"); ``error`` is the
FieldstudioError's message when the store refused it (the project is then as it was), else None."""


class EditCommand(QUndoCommand):
    """A done :class:`~fieldstudio.store.edits.Edit` on a QUndoStack (see the module docstring)."""

    def __init__(self, edit: Edit, after: After):
        super().__init__(edit.text)
        self.edit, self._after, self._first = edit, after, True
        # "undo" or "redo" when the store refused the last one: QUndoStack had already moved its index, so the
        # project stands where the stack says it does not; the opposite step then only moves the stack back
        self._refused: str | None = None

    def redo(self) -> None:
        if self._first:
            self._first = False
            return
        self._run("redo")

    def undo(self) -> None:
        self._run("undo")

    def _run(self, op: str) -> None:
        error = None
        if self._refused is not None and self._refused != op:
            self._refused = None   # stepping back over the refused step: the project is there already
        else:
            self._refused = None
            try:
                (self.edit.undo if op == "undo" else self.edit.do)()
            except FieldstudioError as exc:
                error = str(exc)
                self._refused = op
        self._after(self.edit, op, error)
