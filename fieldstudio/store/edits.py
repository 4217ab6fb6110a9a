"""The one undo design: an :class:`Edit` is a command whose ``do()`` and ``undo()`` each commit one transaction.

Every undoable change in fieldstudio (annotations, calibrations, labels, tasks, ratings) is an Edit; the
GUI wraps each in one QUndoCommand type (``gui/undo.py``) on one QUndoGroup. Nothing is held back: an
edit, its undo and its redo are committed to the project before the call returns, so there is no
unsaved state. ``do()`` raises (and commits nothing) on bad input; the errors are
:class:`fieldstudio.core.errors.FieldstudioError` subclasses, never a bare ``ValueError``.

:class:`EditGroup` makes several edits one undo step. It is used by the calibration dialog, where "calibrate this camera group" may first have to put the media in
a new group (``SetCameraGroup``) and then save the group's calibration (``SaveCalibration``): the user
sees one "Calibrate" in the Edit menu and one Ctrl+Z takes back both.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:
    from fieldstudio.store.project import Project


class Edit:
    """One undoable edit. ``text`` is what the Edit menu shows ("Add box", "Move box")."""

    text = "Edit"

    def do(self) -> None:
        """Apply (or re-apply) the edit in one committed transaction."""
        raise NotImplementedError

    def undo(self) -> None:
        """Revert the edit in one committed transaction."""
        raise NotImplementedError



class EditGroup(Edit):
    """Several edits done in order and undone in reverse order, as one undo step.

    Each member commits its own transaction (the members are ordinary edits; but see ``project``). If a member's
    ``do()`` raises, the members already done in this call are undone (newest first) before the error
    propagates, so a failed group leaves the project as it was. ``undo()`` undoes every member,
    newest first. ``text`` is what the Edit menu shows. Given the ``project`` its members write to, the group is
    done and undone in one unit of work (``Project.unit_of_work``): one commit, and the store's checks judge
    where the members end together, not each step (moving a stop and the next start past each other).
    """

    def __init__(self, text: str, edits: Sequence[Edit], *, project: Project | None = None):
        if not edits:
            raise FieldstudioError("an edit group needs at least one edit")
        self.text, self.edits, self.project = text, list(edits), project

    def _unit(self) -> contextlib.AbstractContextManager:
        return self.project.unit_of_work() if self.project is not None else contextlib.nullcontext()

    def do(self) -> None:
        with self._unit():
            self._do()

    def _do(self) -> None:
        done: list[Edit] = []
        try:
            for edit in self.edits:
                edit.do()
                done.append(edit)
        except Exception:
            for edit in reversed(done):
                edit.undo()
            raise

    def undo(self) -> None:
        with self._unit():
            for edit in reversed(self.edits):
                edit.undo()
