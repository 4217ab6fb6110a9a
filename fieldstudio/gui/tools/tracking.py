"""A box followed through a video: tracking it forward or backward (T, Shift+T) with OpenCV's CSRT
(``annotations.tracking``), going to its track's keyframes ([ and ]) and copying boxes to the next frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import workers
from fieldstudio.gui.viewer.overlay import BoxItem, RulerItem
from fieldstudio.gui.viewer.shape_items import VertexItem

if TYPE_CHECKING:
    from fieldstudio.gui.tools.context import ToolContext


class Tracking:
    """Tracks on the video ``ctx`` shows. ``worker`` is the last tracking worker (tests wait on it)."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self.worker: workers.Worker | None = None

    def track(self, direction: int) -> workers.Worker | None:
        """T / Shift+T: follow the selected box forward (1) or backward (-1) to the end of the video.

        ``annotations.tracking.follow_box`` runs on a worker behind a progress dialog with Cancel; its
        keyframes are stored as one edit (one undo removes the stretch), the status bar says how far it
        went and why it stopped, and the last frame tracked is shown with the track's box selected.
        """
        from fieldstudio.annotations import tracking
        from fieldstudio.core import user_settings
        from fieldstudio.gui import settings

        ctx = self.ctx
        project, media, frame = ctx.project, ctx.media, ctx.frame_index()
        boxes = [i for i in ctx.marks.selected_items() if isinstance(i, BoxItem) and i.editable]
        if media is None or media.kind != "video" or frame is None or len(boxes) != 1:
            if any(isinstance(i, VertexItem) for i in ctx.marks.selected_items()):
                # CSRT follows a rectangle; moving a polygon's or skeleton's vertices from it would be a guess
                ctx.notify("the tracker (T) follows boxes; a shape's track is kept by its keyframes: Ctrl+D copies it "
                           "to the next frame, Shift+K on a later frame extends it there, frames between interpolate")
                return None
            ctx.notify("select one box on a video frame to track it (T forward, Shift+T backward)")
            return None
        if project.read_only:
            ctx.notify(f"{project.path.name} is read-only: nothing can be tracked into it")
            return None
        ctx.pause()
        box = boxes[0]
        try:
            start = tracking.track_start(project, media.id, frame, annotation_id=box.annotation_id,
                                         track_id=box.track_id)
        except FieldstudioError as exc:
            ctx.notify(str(exc))
            return None
        target = ctx.state.frame_count - 1 if direction > 0 else 0
        if target == frame:
            ctx.notify("this is the " + ("last" if direction > 0 else "first") + " frame: nothing to track")
            return None
        every = settings.get(user_settings.TRACKING_KEYFRAME_EVERY)

        def done(result: tracking.TrackResult) -> None:
            edit = tracking.stretch_edit(project, result)
            if edit is not None and not ctx.apply(edit):
                return
            ctx.notify(result.message)
            if edit is not None and result.last_frame != frame:
                stored = dict(zip((m.frame_index for m in edit.marks), edit.annotation_ids))
                if result.last_frame in stored:
                    ctx.marks.select_on_refresh(stored[result.last_frame])
                ctx.state.request_frame(media.id, result.last_frame)

        word = "forward" if direction > 0 else "backward"
        self.worker = workers.run_with_progress(
            ctx.canvas.window(), f"Tracking {word} from frame {frame}…", tracking.follow_box, project, start,
            target, every=every, title=f"Track {word}", done=done, failed=lambda m: ctx.notify(f"tracking: {m}"))
        return self.worker

    def jump_keyframe(self, step: int) -> None:
        """[ / ]: show the previous (``step`` -1) or next (+1) keyframe of the selected box's track."""
        from fieldstudio.annotations import box_tracks, shape_tracks

        ctx = self.ctx
        index = ctx.frame_index()
        marks = [i for i in ctx.marks.selected_items() if isinstance(i, (BoxItem, VertexItem)) and i.track_id is not None]
        if index is None or not marks:
            ctx.notify("select a box or shape of a track on a video frame to go to its keyframes")
            return
        track = marks[0].track_id
        keys = box_tracks.track_keyframes if isinstance(marks[0], BoxItem) else shape_tracks.shape_keyframes
        frames = [r.frame_index for r in keys(ctx.project, ctx.media.id, track)]
        target = max((f for f in frames if f < index), default=None) if step < 0 else \
            min((f for f in frames if f > index), default=None)
        if target is None:
            ctx.notify(f"track #{track} has no keyframe {'before' if step < 0 else 'after'} frame {index}")
            return
        ctx.marks.select_track_on(track, target)
        ctx.state.request_frame(ctx.media.id, target)

    def copy_to_next_frame(self) -> None:
        """The selected boxes, polygons, polylines, points and skeletons copied to the next frame, then shown."""
        from fieldstudio.annotations import edits

        ctx = self.ctx
        marks = [i for i in ctx.marks.selected_items() if not isinstance(i, RulerItem) and i.annotation_id]
        index = ctx.frame_index()
        if not marks or index is None:
            ctx.notify("select a box or a shape on a video frame to copy it to the next frame")
            return
        if index + 1 >= ctx.state.frame_count:
            ctx.notify("this is the last frame")
            return
        done = [ctx.apply(edits.CopyBox(ctx.project, m.annotation_id, index + 1) if isinstance(m, BoxItem) else
                          edits.CopyShape(ctx.project, m.annotation_id, index + 1)) for m in marks]
        if any(done):
            ctx.state.request_frame(ctx.media.id, index + 1)
