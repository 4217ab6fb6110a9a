"""Edits that ``fieldstudio.store.edits`` lacks: several edits as one undo step.

Used by the calibration dialog, where "calibrate this camera group" may first have to put the media in
a new group (``SetCameraGroup``) and then save the group's calibration (``SaveCalibration``): the user
sees one "Calibrate" in the Edit menu and one Ctrl+Z takes back both.
"""

from __future__ import annotations

from collections.abc import Sequence

from fieldstudio.store.edits import Edit


class EditGroup(Edit):
    """Several edits done in order and undone in reverse order, as one undo step.

    Each member still commits its own transaction (the members are ordinary edits). If a member's
    ``do()`` raises, the members already done in this call are undone (newest first) before the error
    propagates, so a failed group leaves the project as it was. ``undo()`` undoes every member,
    newest first. ``text`` is what the Edit menu shows.
    """

    def __init__(self, text: str, edits: Sequence[Edit]):
        if not edits:
            raise ValueError("an edit group needs at least one edit")
        self.text, self.edits = text, list(edits)

    def do(self) -> None:
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
        for edit in reversed(self.edits):
            edit.undo()
