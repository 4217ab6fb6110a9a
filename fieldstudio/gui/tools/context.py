"""What every annotation tool works with: the window's state, the canvas, the marks drawn, the labels, and
the one way to make an edit (built by gui/annotate.py's AnnotationController)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fieldstudio.gui.state import ViewState
    from fieldstudio.gui.tools.labels import MarkLabels
    from fieldstudio.gui.viewer.canvas import Canvas
    from fieldstudio.gui.viewer.frame_marks import FrameMarks
    from fieldstudio.store.edits import Edit


@dataclass(frozen=True)
class ToolContext:
    """``apply(edit) -> bool`` does an edit (committed at once) and puts it on the viewer's undo stack, False
    with the reason in the status bar when it is refused; ``apply_or_raise(edit)`` lets the refusal propagate
    (for dialogs that show it themselves); ``notify(message)`` writes to the status bar."""

    state: ViewState
    canvas: Canvas
    marks: FrameMarks
    labels: MarkLabels
    apply: Callable[[Edit], bool]
    apply_or_raise: Callable[[Edit], None]
    notify: Callable[[str], None]

    @property
    def project(self):  # noqa: ANN201 - Project | None
        return self.state.project

    @property
    def media(self):  # noqa: ANN201 - Media | None
        """The photo or video shown: the only media marks are made on."""
        m = self.state.media
        return m if m is not None and m.kind in ("image", "video") else None

    def frame_index(self) -> int | None:
        """The frame marks attach to: the frame on screen (None on a photo), never one that failed to decode."""
        return self.state.video_frame()

    def pause(self) -> None:
        """Stop playing, so that a mark goes on the exact frame (the viewer follows ``state.playing``)."""
        if self.state.playing:
            self.state.playing = False
