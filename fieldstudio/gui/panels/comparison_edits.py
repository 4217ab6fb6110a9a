"""A person's edits from the Compare grid: a score set by hand (``OverrideDialog``) and an answer made the ground
truth (``PromoteDialog``), written by ``compare.views`` (``set_score``, ``promote``); the edited cell is shown at
once, then the view is read again in the background. ``GridEdits`` is inherited by ``ComparisonPanel``
(``gui/panels/comparison.py``), whose detail pane, grid model, view and signals it uses."""

from __future__ import annotations

import math

from PySide6.QtWidgets import QMessageBox

from fieldstudio.compare import views as cv
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.panels.comparison_detail import OverrideDialog, PromoteDialog

__all__ = ["GridEdits"]


class GridEdits:
    """The override and promote actions of the Compare panel (see the module docstring)."""

    def open_override_dialog(self) -> OverrideDialog | None:
        """Open the override dialog (non-blocking) for the answer shown; OK writes the new score."""
        d = self.detail.detail
        if d is None or self.view is None or not self.view.scorer:
            return None
        dialog = OverrideDialog(d, self.view.grid.scale, self)
        dialog.accepted.connect(lambda: self._apply_override(d, dialog))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def _apply_override(self, d: cv.AnswerDetail, dialog: OverrideDialog) -> None:
        try:
            cv.set_score(self.project, d.answer_id, self.view.scorer, dialog.chosen_value(), dialog.reason.text(),
                         dialog.person.text())
        except FieldstudioError as exc:
            self._warn("The score was not changed", str(exc))
            return
        self._after_edit(d, f"Score of {d.external_id} / {d.source} set by {dialog.person.text().strip()}")

    def open_promote_dialog(self) -> PromoteDialog | None:
        """Open the promote dialog (non-blocking) for the answer shown; OK makes it the ground truth."""
        d = self.detail.detail
        if d is None:
            return None
        dialog = PromoteDialog(d, self)
        dialog.accepted.connect(lambda: self._apply_promote(d, dialog))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def _apply_promote(self, d: cv.AnswerDetail, dialog: PromoteDialog) -> None:
        try:
            task_id = cv.promote(self.project, d.answer_id, dialog.person.text(), dialog.reason.text())
        except FieldstudioError as exc:
            self._warn("The ground truth was not changed", str(exc))
            return
        self.ground_truth_changed.emit(task_id)
        self._after_edit(d, f"Ground truth of {d.external_id} is now the answer of {d.source}; score again to update")

    def _after_edit(self, d: cv.AnswerDetail, message: str) -> None:
        """Show the edited cell at once, then reload everything (summaries) in the background."""
        g = self.model.grid
        new = cv.answer_detail(self.project, d.answer_id, self.view.scorer)
        try:
            row, k = g.cell_of(d.task_id, self._source_label(d))
        except KeyError:
            row = None
        if row is not None:
            s = new.score or {}
            value = math.nan if s.get("value") is None else float(s["value"])
            correct = math.nan if s.get("correct") is None else float(bool(s["correct"]))
            self.model.update_cell(row, k, value, correct, bool(s.get("author")), s.get("score_id"))
            self.model.update_ground_truth(row, new.ground_truth or "")
        self.detail.show_detail(new, has_media=cv.media_target(self.project, new) is not None,
                                scorer=self.view.scorer, project=self.project)
        self.status.emit(message)
        self._keep_cell = (d.task_id, self._source_label(d))
        self.reload(self.view.scorer)

    def _source_label(self, d: cv.AnswerDetail) -> str:
        """The grid's source label of an answer (run names that repeat carry an id prefix)."""
        g = self.model.grid
        if d.source in g.sources:
            return d.source
        tagged = f"{d.source} ({d.run_id[:6]})"
        return tagged if tagged in g.sources else d.source

    def _warn(self, title: str, text: str) -> None:
        self.status.emit(f"{title}: {text}")
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self)
        box.finished.connect(box.deleteLater)
        box.open()
