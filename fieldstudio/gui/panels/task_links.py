"""The task editor's ground-truth links: linking a task's ground truth to annotations (a ruler's length, a
segment's range or duration, an event's time, a count), the changes the annotations would make shown as pending
until accepted (one undoable edit; Accept all one undo step), and the lock of imported benchmark tasks against
them. ``TaskGroundTruthLinks`` is inherited by ``TaskEditorPanel`` (``gui/panels/tasks.py``), whose form widgets
and ``_push`` / ``after_edit`` it uses; the rules are ``tasks.ground_truth``'s."""

from __future__ import annotations

from PySide6.QtCore import Slot

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts

ERROR_STYLE, WARNING_STYLE = "color: #d93025;", "color: #b06000;"
_LINK_KINDS_OF = {"ruler_distance": ["ruler"], "segment_range": ["segment"], "segment_duration": ["segment"],
                  "event_time": ["event", "box", "ruler"], "polygon_area": ["polygon"], "inside_zone": ["polygon"]}


class TaskGroundTruthLinks:
    """The ground-truth link part of the task editor (module docstring)."""

    def _show_link(self) -> None:
        link = gt.link_of(self.record.ground_truth_extra) if self.record else None
        self.unlink_button.setEnabled(link is not None)
        change = self.pending.get(self.record.id) if self.record is not None else None
        self.pending_label.setText("" if change is None else
                                   f"Pending change from annotations: {change.old!r} → {change.new!r} "
                                   f"({change.explanation}). The ground truth changes only when you accept it.")
        self.pending_label.setStyleSheet(WARNING_STYLE if change else "")
        self.accept_button.setEnabled(change is not None)
        benchmark = self.record is not None and gt.lock_reason(self.record.source, None) is not None
        locked = self.record is not None and gt.lock_reason(self.record.source, self.record.extra) is not None
        self.lock_box.setVisible(benchmark)
        self.lock_box.setChecked(locked)
        self.lock_box.setToolTip(gt.lock_reason(self.record.source, None) + "; untick to let the annotations "
                                 "propose changes (each still needs Accept)" if benchmark else "")
        self.accept_all_button.setEnabled(bool(self.pending))
        self.accept_all_button.setText(f"Accept all ({len(self.pending)})" if self.pending else "Accept all")
        if link is None:
            self.link_label.setText("Not linked: the ground truth is typed in. Link it to a ruler, a segment, "
                                    "an event, a polygon's area, a zone or a count to keep it computed from the "
                                    "annotations.")
            self.link_label.setStyleSheet("")
            return
        value = gt.compute(self.project, link)
        if value.ok and value.text != self.record.ground_truth:
            self.link_label.setText(f"Linked: {value.explanation} → {value.text}; the ground truth is still "
                                    f"{self.record.ground_truth!r} until you accept the change")
            self.link_label.setStyleSheet("")
        elif value.ok:
            self.link_label.setText(f"Linked: {value.explanation} → {value.text}")
            self.link_label.setStyleSheet("")
        else:
            self.link_label.setText(f"Linked, but no value now: {value.explanation}. "
                                    f"The ground truth keeps {self.record.ground_truth!r}.")
            self.link_label.setStyleSheet(WARNING_STYLE)

    def _current_input_media(self) -> str | None:
        row = self.inputs_list.currentRow()
        return self.inputs[row].get("media_id") if 0 <= row < len(self.inputs) else None

    def _fill_link_targets(self) -> None:
        self.link_target.clear()
        kind, _mode = _link_choice(self.link_kind.currentData())
        mid = self._current_input_media()
        if self.project is None or mid is None:
            self.link_button.setEnabled(False)
            return
        if kind == "count":
            self.link_target.addItem("any label", None)
            for lab in labels.list_labels(self.project):
                self.link_target.addItem(lab.name, lab.id)
        else:
            for r in ann.list_annotations(self.project, media_id=mid, kinds=_LINK_KINDS_OF[kind]):
                where = "" if r.frame_index is None else f" frame {r.frame_index}" + (
                    f"–{r.end_frame_index}" if r.end_frame_index is not None else "")
                self.link_target.addItem(f"{r.kind} {r.label_name or ''}{where}".replace("  ", " "), r.id)
        self.link_button.setEnabled(self.link_target.count() > 0)

    @Slot()
    def link_ground_truth(self) -> None:
        """Link the ground truth to the chosen annotation (or count) of the chosen input, as one edit."""
        if self.record is None or self.project is None or (self.dirty and not self.save()):
            return
        kind, mode = _link_choice(self.link_kind.currentData())
        row = self.inputs_list.currentRow()
        item = self.inputs[row] if 0 <= row < len(self.inputs) else {}
        if kind == "count":
            link = gt.GroundTruthLink("count", media_id=item.get("media_id"), label_id=self.link_target.currentData(),
                                      start_frame=item.get("start_frame"), end_frame=item.get("end_frame"), mode=mode)
        elif kind == "inside_zone":
            subject, _, answer = (mode or "points/any").partition("/")
            link = gt.GroundTruthLink(kind, annotation_id=self.link_target.currentData(), subject=subject,
                                      mode=answer or "any", start_frame=item.get("start_frame"),
                                      end_frame=item.get("end_frame"))
        else:
            link = gt.GroundTruthLink(kind, annotation_id=self.link_target.currentData())
        try:
            changes = gt.link_fields(self.project, self.record.ground_truth_extra, link)
        except FieldstudioError as exc:
            self.status.emit(str(exc))
            self.link_label.setText(str(exc))
            self.link_label.setStyleSheet(ERROR_STYLE)
            return
        if self._push(ts.UpdateTask(self.project, self.record.id, "Link ground truth", **changes)):
            self.after_edit(self.record.id)

    @Slot()
    def unlink_ground_truth(self) -> None:
        if self.record is None or self.project is None:
            return
        changes = gt.link_fields(self.project, self.record.ground_truth_extra, None)
        if self._push(ts.UpdateTask(self.project, self.record.id, "Unlink ground truth", **changes)):
            self.after_edit(self.record.id)

    @Slot()
    def refresh_ground_truths(self) -> None:
        """Look for linked ground truths the annotations would change (connect to annotation and calibration
        edits): they are shown as pending, named in the status bar, and change only when accepted."""
        if self.project is None:
            return
        self._find_pending()
        if self.record is not None:
            self._show_link()

    def _find_pending(self) -> None:
        """Read the pending ground-truth changes; the status bar names the tasks whose change is new."""
        self._set_pending([c for c in gt.pending_changes(self.project) if c.ok])

    def _set_pending(self, changes: list[gt.GroundTruthChange]) -> None:
        """Keep ``changes`` (the pending ones that can be made) as pending; the status bar names the tasks whose
        change is new."""
        before = {k: (c.old, c.new) for k, c in self.pending.items()}
        self.pending = {c.task_id: c for c in changes}
        new = [c for k, c in self.pending.items() if before.get(k) != (c.old, c.new)]
        if len(new) == 1:
            self.status.emit(f"Ground truth of task {new[0].text}: pending; accept it in the Tasks tab")
        elif new:
            self.status.emit(f"{len(new)} ground truths would change from annotations (pending; Tasks tab): "
                             + "; ".join(c.text for c in new[:3]) + (" …" if len(new) > 3 else ""))

    @Slot()
    def accept_pending(self) -> None:
        """Store the chosen task's pending ground truth: one undoable edit in the task's history."""
        change = self.pending.get(self.record.id) if self.record is not None else None
        if change is None or self.project is None:
            return
        if self._push(ts.UpdateTask(self.project, change.task_id, "Accept ground truth from annotations",
                                    **change.fields())):
            self.status.emit(f"Ground truth of task {change.text}: accepted")
            self._find_pending()
            self.after_edit(change.task_id)

    @Slot(bool)
    def set_locked(self, locked: bool) -> None:
        """Lock (True) or unlock an imported benchmark task's ground truth against updates from annotations:
        one undoable edit."""
        if self.record is None or self.project is None:
            return
        if self._push(ts.UpdateTask(self.project, self.record.id, "Lock ground truth" if locked else
                                    "Unlock ground truth", **gt.unlock_fields(self.record.extra, not locked))):
            self._find_pending()
            self.after_edit(self.record.id)

    @Slot()
    def accept_all_pending(self) -> None:
        """Store every pending ground truth as one undoable edit (a macro of one edit per task)."""
        changes = list(self.pending.values())
        if not changes or self.project is None:
            return
        self.undo_stack.beginMacro(f"Accept {len(changes)} ground truth(s) from annotations")
        done = [c for c in changes if self._push(ts.UpdateTask(self.project, c.task_id, "Accept ground truth "
                                                                "from annotations", **c.fields()))]
        self.undo_stack.endMacro()
        self.status.emit(f"{len(done)} ground truth(s) accepted from annotations: "
                         + ", ".join(c.external_id or c.task_id for c in done[:5]) + (" …" if len(done) > 5 else ""))
        self._find_pending()
        self.after_edit(self.record.id if self.record else None)


def _link_choice(data: str | None) -> tuple[str | None, str | None]:
    """("count", "objects") from the link-kind combo's data "count/objects", ("inside_zone", "box/all") from
    "inside_zone/box/all"; (kind, None) for the others."""
    kind, _, mode = (data or "").partition("/")
    return kind or None, mode or None
