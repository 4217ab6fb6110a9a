"""QUndoStack's behaviour without Qt, for store-level tests of fieldstudio.store.edits.Edit objects."""

from __future__ import annotations

from fieldstudio.store.edits import Edit


class UndoStack:
    """QUndoStack's behaviour without Qt: ``push`` does the edit, ``undo``/``redo`` walk the history.

    A push after undos drops the undone edits. An edit whose ``do``/``undo`` raises leaves the stack
    where it was (nothing was committed, since each is one transaction) and the error propagates.
    """

    def __init__(self) -> None:
        self._edits: list[Edit] = []
        self._index = 0

    def push(self, edit: Edit) -> Edit:
        """Do ``edit`` and put it on the stack; returns it."""
        edit.do()
        del self._edits[self._index:]
        self._edits.append(edit)
        self._index += 1
        return edit

    def can_undo(self) -> bool:
        """True when an edit can be undone."""
        return self._index > 0

    def can_redo(self) -> bool:
        """True when an undone edit can be redone."""
        return self._index < len(self._edits)

    def undo(self) -> Edit:
        """Undo the last done edit; returns it. Raises IndexError when there is nothing to undo."""
        if not self.can_undo():
            raise IndexError("nothing to undo")
        edit = self._edits[self._index - 1]
        edit.undo()
        self._index -= 1
        return edit

    def redo(self) -> Edit:
        """Redo the last undone edit; returns it. Raises IndexError when there is nothing to redo."""
        if not self.can_redo():
            raise IndexError("nothing to redo")
        edit = self._edits[self._index]
        edit.do()
        self._index += 1
        return edit

    def __len__(self) -> int:
        return len(self._edits)

    @property
    def index(self) -> int:
        """Number of edits currently done (QUndoStack.index)."""
        return self._index
