"""A step the store refuses leaves the undo stack meaning what it says: the next opposite step only moves the stack
back (the last stop's fresh-eyes tester: after a refused redo of an import, Undo ran the import's undo again and
failed with "no label with id ...", and Redo stayed greyed out)."""

from __future__ import annotations

from PySide6.QtGui import QUndoStack

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.undo import EditCommand
from fieldstudio.store.edits import Edit


class Counting(Edit):
    """An edit that counts the store calls it gets and refuses the do()s it is told to."""

    text = "Import"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.refuse_do = False

    def do(self) -> None:
        if self.refuse_do:
            raise FieldstudioError("track 2 already has a box on frame 50")
        self.calls.append("do")

    def undo(self) -> None:
        self.calls.append("undo")


def test_a_refused_redo_is_stepped_back_over_without_touching_the_store(qapp):
    edit, seen = Counting(), []
    stack = QUndoStack()
    stack.push(EditCommand(edit, lambda _e, op, error: seen.append((op, error))))
    stack.undo()
    edit.refuse_do = True
    stack.redo()                                   # refused: the project stays undone, the stack moved on
    assert seen[-1] == ("redo", "track 2 already has a box on frame 50") and stack.canUndo()
    stack.undo()                                   # only the stack moves back: no second undo in the store
    assert edit.calls == ["undo"] and seen[-1] == ("undo", None)
    assert stack.canRedo() and stack.redoText() == "Import"
    edit.refuse_do = False
    stack.redo()                                   # the retry reaches the store
    assert edit.calls == ["undo", "do"] and not stack.canRedo()
