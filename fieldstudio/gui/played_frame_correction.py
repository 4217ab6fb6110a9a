"""A behaviour key pressed while libVLC plays: its frame corrected from the picture that was on show.

The key's event is recorded at once on the playback clock's estimate (marked ``"clock"``). The picture the canvas
showed at the key press is kept; a worker decodes the exact frames around the estimate with a reader of its own
(not the viewer's, which keeps decoding for the screen) and matches them (``media.picture_match``). On a unique
match the window applies ``coding.frame_correction``, a separate undo step "Frame corrected: E to F": a second
Ctrl+Z takes the key's event away. Without one, the event stays on the estimate, "(clock)" in the Events list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:
    import numpy as np  # not at import: the window's cold start imports no numpy

    from fieldstudio.media.frames import FrameSource
    from fieldstudio.media.picture_match import PictureMatch
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.models import Media
    from fieldstudio.store.project import Project


class PlayedFrameCorrection(QObject):
    """Corrects the frames of keys pressed while playing, for ``window`` (its annotator applies the edits, its
    status bar says what was found). ``pending``: matches still running (tests wait for 0)."""

    def __init__(self, window):  # noqa: ANN001 - MainWindow
        super().__init__(window)
        self.window = window
        self.pending = 0
        self._source: FrameSource | None = None

    def submit(self, project: Project, media: Media, key_edit: Edit, estimate: int, picture: np.ndarray) -> None:
        """Match ``picture`` (RGB, the canvas's at the key press) to the frames around ``estimate`` on a worker,
        then move what ``key_edit`` recorded there."""
        from fieldstudio.gui import workers

        source = self._frames(project)
        worker = workers.Worker(_match, source, media, picture, estimate)
        self.pending += 1
        worker.signals.result.connect(lambda m: self._apply(project, media.id, key_edit, estimate, m))
        worker.signals.error.connect(lambda msg: self.window.notify(f"frame {estimate} kept (clock): {msg}"))
        worker.signals.finished.connect(self._finished)
        workers.start(worker)

    def close(self) -> None:
        """Close the decoder of the project left (a match still running finishes on its own reader)."""
        self._source = None

    def _frames(self, project: Project) -> FrameSource:
        from fieldstudio.media.frames import FrameSource

        if self._source is None or self._source.project is not project:
            self._source = FrameSource(project, max_readers=1, cache_bytes=64 * 1024 * 1024)
        return self._source

    def _finished(self) -> None:
        self.pending -= 1

    def _apply(self, project: Project, media_id: str, key_edit: Edit, estimate: int, match: PictureMatch) -> None:
        from fieldstudio.annotations.behaviour import coding

        if self.window.state.project is not project:
            return
        if match.found != "picture":
            self.window.notify(f"frame {estimate} kept (clock): {match.why}")
            return
        try:
            edit = coding.frame_correction(project, media_id, key_edit, estimate, match.frame_index)
            if edit is not None:
                self.window.annotator.apply_or_raise(edit)
        except FieldstudioError as exc:
            self.window.notify(f"frame {estimate} kept (clock): {exc}")
            return
        if edit is not None and match.frame_index != estimate:
            self.window.notify(f"frame corrected: {estimate} to {match.frame_index} (the picture shown)")


def _match(source: FrameSource, media: Media, picture: np.ndarray, estimate: int, *, progress, cancelled) -> PictureMatch:  # noqa: ANN001, ARG001
    from fieldstudio.media.picture_match import match_picture

    reader = source.reader(media)
    return match_picture(picture, reader.get, estimate, len(reader))
