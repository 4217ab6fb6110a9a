"""The stopwatch between two frames (Annotate ▸ Stopwatch start / stop, Alt+W and Alt+Shift+W): the start is the
frame on screen when it is started, the end the frame on screen when it is stopped; the time between them comes
from the frames' PTS (``annotations.stopwatch``) and is kept as a measurement, one undoable edit. While it runs
the status bar gives the time since the start on every frame shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fieldstudio.gui.tools.context import ToolContext


class StopwatchKeys:
    """``started``: (media id, start frame, its PTS in seconds) while the stopwatch runs, else None.
    ``last_id``: the stopwatch kept last (tests read it)."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self.started: tuple[str, int, float] | None = None
        self.last_id: str | None = None
        ctx.state.events.media.connect(lambda _m: self._reset())
        ctx.state.events.project.connect(lambda _p: self._reset())
        ctx.state.events.frame.connect(lambda _f: self._tick())

    def _reset(self) -> None:
        self.started = None

    def _frame(self) -> int | None:
        media = self.ctx.media
        if media is None or media.kind != "video" or self.ctx.frame_index() is None:
            self.ctx.notify("open a video to time between two frames")
            return None
        self.ctx.pause()
        return self.ctx.frame_index()

    def start(self) -> None:
        """Alt+W: the stopwatch starts on the frame shown."""
        frame = self._frame()
        if frame is None:
            return
        self.started = (self.ctx.media.id, frame, self.ctx.state.pts_seconds)
        self.ctx.notify(f"stopwatch started on frame {frame}: step or play to the end frame, then Alt+Shift+W")

    def stop(self) -> None:
        """Alt+Shift+W: the stopwatch stops on the frame shown and is kept (one undo removes it)."""
        from fieldstudio.annotations import edits, stopwatch

        ctx = self.ctx
        frame = self._frame()
        if frame is None:
            return
        if self.started is None or self.started[0] != ctx.media.id:
            ctx.notify("start the stopwatch first (Alt+W on the start frame)")
            return
        if frame == self.started[1]:
            ctx.notify(f"the stopwatch started on this frame ({frame}): go to the end frame first")
            return
        edit = edits.AddStopwatch(ctx.project, ctx.media.id, self.started[1], frame)
        if ctx.apply(edit):
            self.started = None
            self.last_id = edit.annotation_id
            ctx.notify(f"stopwatch: {stopwatch.read_stopwatch(ctx.project, edit.annotation_id).text()}")

    def _tick(self) -> None:
        if self.started is None or self.ctx.media is None or self.ctx.media.id != self.started[0]:
            return
        frame = self.ctx.frame_index()
        if frame is None:
            return
        _m, f0, t0 = self.started
        self.ctx.notify(f"stopwatch running: {self.ctx.state.pts_seconds - t0:.3f} s, {frame - f0} frame(s) since "
                        f"frame {f0} (Alt+Shift+W stops it here)")
