"""Marks in time on a video: segments (I starts one, O ends it, their ends dragged on the timeline) and
events (E), each on the frame on screen; and, before a project closes, the question about segments left open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fieldstudio.gui.tools.context import ToolContext


class TimeMarks:
    """Segments and events on the video ``ctx`` shows.

    ``just_marked`` is (kind, annotation id, frame index) of the segment or event the user marked last on
    this media: a label key pressed next gives it that label (the label can be picked after the mark).
    """

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self.just_marked: tuple[str, str, int] | None = None
        ctx.state.events.media.connect(lambda _m: setattr(self, "just_marked", None))

    def _video_frame(self, what: str) -> int | None:
        media = self.ctx.media
        if media is None or media.kind != "video":
            self.ctx.notify(f"open a video to {what}")
            return None
        self.ctx.pause()
        return self.ctx.state.frame_index

    def start_segment(self) -> None:
        """I: a segment of the segment kind's current label starts on the frame shown."""
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.annotations import edits

        ctx = self.ctx
        index = self._video_frame("start a segment")
        if index is None:
            return
        ctx.state.mark_kind = "segment"
        label_id = ctx.labels.label_of("segment")
        if any(r.frame_index == index and r.label_id == label_id
               for r in ann.open_segments(ctx.project, ctx.media.id)):
            ctx.notify(f"a segment of this label already starts on frame {index} (O ends it)")
            return
        edit = edits.AddSegment(ctx.project, ctx.media.id, label_id, index)
        if ctx.apply(edit):
            self.just_marked = ("segment", edit.annotation_id, index)

    def end_segment(self) -> None:
        """O: the open segment of the current label (else the latest open one) ends on the frame shown."""
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.annotations import edits

        ctx = self.ctx
        index = self._video_frame("end a segment")
        if index is None:
            return
        ctx.state.mark_kind = "segment"
        open_ = [r for r in ann.open_segments(ctx.project, ctx.media.id) if r.frame_index <= index]
        mine = [r for r in open_ if r.label_id == ctx.labels.label_of("segment")] or open_
        if not mine:
            ctx.notify("no open segment starts at or before this frame (I starts one)")
            return
        target = max(mine, key=lambda r: r.frame_index)
        ctx.apply(edits.CloseSegment(ctx.project, target.id, index))

    def mark_event(self) -> None:
        """E: an event of the event kind's current label on the frame shown (once per label and frame)."""
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.annotations import edits

        ctx = self.ctx
        index = self._video_frame("mark an event")
        if index is None:
            return
        ctx.state.mark_kind = "event"
        label_id = ctx.labels.label_of("event")
        if any(r.label_id == label_id for r in ann.list_annotations(
                ctx.project, media_id=ctx.media.id, kinds=["event"], frame_index=index)):
            ctx.notify(f"an event of this label is already marked on frame {index}")
            return
        edit = edits.AddEvent(ctx.project, ctx.media.id, index, label_id)
        if ctx.apply(edit):
            self.just_marked = ("event", edit.annotation_id, index)

    def move_segment_end(self, annotation_id: str, which: str, index: int) -> None:
        """A segment's ``which`` end ("start" or "end") dragged on the timeline to frame ``index``."""
        from fieldstudio.annotations import edits

        if which == "start":
            self.ctx.apply(edits.MoveSegmentStart(self.ctx.project, annotation_id, index))
        else:
            self.ctx.apply(edits.CloseSegment(self.ctx.project, annotation_id, index))

    def confirm_open_segments(self) -> bool:
        """Before the project closes: offer to end open segments. False when the user cancels."""
        from PySide6.QtWidgets import QMessageBox

        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.annotations import edits

        project = self.ctx.project
        if project is None or project.read_only:
            return True
        open_ = ann.open_segments(project)
        if not open_:
            return True
        names = ", ".join(f"{r.label_name or 'segment'} from frame {r.frame_index}" for r in open_[:5])
        box = QMessageBox(QMessageBox.Icon.Question, "Open segments",
                          f"{len(open_)} segment(s) are still open ({names}).\n\n"
                          "End them on the last frame of their video, or keep them open to finish later?",
                          parent=self.ctx.canvas.window())
        end = box.addButton("End them", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Keep open", QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() is cancel:
            return False
        if box.clickedButton() is end:
            from fieldstudio.media import library, video_index

            for r in open_:
                table = video_index.load_frame_table(project, library.find_media(project, r.media_id))
                last = len(table) - 1 if table is not None else r.frame_index
                self.ctx.apply(edits.CloseSegment(project, r.id, last))
        return True
