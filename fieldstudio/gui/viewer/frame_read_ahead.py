"""The rows of the exact frame the viewer's decoder is making, read once for every part that shows them.

When the viewer asks its decoder for an exact video frame (``ViewState.frame_decoding``), the marks drawn over the
picture (``frame_marks.py``) and the tags panel (``panels/tags.py``) both need that frame's rows. They are read
here once, in one session (``annotations.frame_contents.read_frame``), while the decoder works on its own thread;
each part takes the read once when the picture is shown. A part that redraws after an edit drops it (:meth:`drop`),
so a read older than the last edit is never shown: the next part reads the project again.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fieldstudio.annotations.frame_contents import FrameContents
    from fieldstudio.gui.state import ViewState
    from fieldstudio.store.project import Project

_BY_STATE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class FrameReadAhead:
    """The read-ahead of one window's ``ViewState``: use :meth:`of` (one per state, made on first use)."""

    def __init__(self, state: ViewState):
        # weak: the state's event holds this object, and the registry's entry must go with the state
        self._state = weakref.ref(state)
        # ((project, media id, frame), contents, the parts that took it)
        self._ahead: tuple[tuple, FrameContents, set[str]] | None = None
        state.events.frame_decoding.connect(self._decoding)

    @classmethod
    def of(cls, state: ViewState) -> FrameReadAhead:
        """The read-ahead of ``state``'s window, shared by every part that follows that state."""
        ahead = _BY_STATE.get(state)
        if ahead is None:
            ahead = _BY_STATE[state] = cls(state)
        return ahead

    def _decoding(self, index: int | None) -> None:
        from fieldstudio.annotations.frame_contents import read_frame

        state = self._state()
        media, project = (state.media, state.project) if state is not None else (None, None)
        if index is None or media is None or project is None or media.kind != "video":
            return
        self._ahead = None  # a failed read leaves nothing of the frame before
        self._ahead = ((project, media.id, index), read_frame(project, media.id, index), set())

    def take(self, part: str, project: Project | None, media_id: str | None, frame: int | None) -> FrameContents | None:
        """The rows read ahead for ``frame`` of ``media_id`` in ``project``, the first time ``part`` (a name) asks
        for them after that read; None when none match (the caller reads the project itself)."""
        ahead = self._ahead
        if ahead is None or ahead[0] != (project, media_id, frame) or part in ahead[2]:
            return None
        ahead[2].add(part)
        return ahead[1]

    def drop(self) -> None:
        """Forget the read (an edit was made, or the media changed): every part reads the project again."""
        self._ahead = None
