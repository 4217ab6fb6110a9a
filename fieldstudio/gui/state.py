"""What the window is showing, in one Qt-free object that widgets read, set and subscribe to.

napari's ``ViewerModel`` idea: the viewer, the timeline, the status bar, the annotation controller and
the panels never reach into each other or into the main window for the current project, media, frame
or tool; they read :class:`ViewState` and listen to its events. Setting a field emits that field's
event once, after the value changed (setting the same value again emits nothing). The object holds no
Qt type, so it is tested without a display.

The frame fields are the frame **on screen**: ``frame_index`` is its index in the frame table (decoder
output order) and ``pts_seconds`` its presentation time; ``frame_exact`` is False while playing or
scrubbing shows an approximate picture; ``frame_count`` is the video's number of frames (0 otherwise). An
annotation attaches to ``frame_index``, which is by construction the picture the user sees.

A part that wants another frame shown (the Tasks tab, Compare, the rater, the annotation list, Go to frame,
the tracker) asks the state, ``state.request_frame(media_id, frame_index)``; the viewer (gui/media_view.py)
serves the request and the library panel follows ``media`` to select its row. A request made while the project
is still opening waits in ``requested`` until the viewer can serve it. Nothing else keeps a copy of the media
or the frame shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fieldstudio.gui.opened_reads import OpenedReads
    from fieldstudio.store.models import Media
    from fieldstudio.store.project import Project


class Event:
    """A list of callbacks called with the new value; ``connect`` returns the callback (usable as a decorator)."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[Any], None]] = []

    def connect(self, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[[Any], None]) -> None:
        self._callbacks.remove(callback)

    def emit(self, value: Any) -> None:
        for callback in list(self._callbacks):
            callback(value)


@dataclass(frozen=True)
class FrameRequest:
    """A request to show frame ``frame_index`` of the media ``media_id``; ``frame_index`` None opens the media
    from its start (a video at frame 0, a photo fitted, a document at page 1), as choosing it in the library does."""

    media_id: str
    frame_index: int | None = None


@dataclass(eq=False)
class ViewState:
    """The project, media, frame on screen, tool and selection the window shows.

    ``mark_kind`` is the kind of mark ("box", "ruler", "segment", "event") whose label list the keys 1-9
    and the status bar's label read-out apply to: the box or ruler tool's, or the kind last marked (I, O,
    E) or selected.

    ``playing`` is set by the viewer when playback starts and stops; setting it to False (a tool that needs the
    exact frame, such as drawing a box) pauses the video, since the viewer listens to it.

    ``requested`` is a :class:`FrameRequest` not yet served (see :meth:`request_frame`), else None.

    ``frame_decoding`` is the index of the exact video frame the viewer has asked its decoder for and not shown
    yet, else None: the parts that read the project for each frame (the marks, the tags) read that frame's rows
    while the decoder works on its own thread, instead of after the picture arrived. :meth:`show_frame` sets
    it back to None without an event.

    ``opened_reads`` holds what the worker that opened ``project`` read of it (gui/opened_reads.py), set by the
    project's session only while ``project`` is handed over to the parts (None otherwise).

    ``events.<field>`` is an :class:`Event` per field; ``events.frame`` fires once per frame shown with
    ``(frame_index, pts_seconds, frame_exact)`` after those three were set together by :meth:`show_frame`.
    """

    project: Project | None = None
    media: Media | None = None
    frame_index: int = 0
    pts_seconds: float = 0.0
    frame_exact: bool = True
    frame_count: int = 0
    playing: bool = False
    tool: str = "select"
    mark_kind: str = "box"
    selection: tuple[str, ...] = ()
    requested: FrameRequest | None = None
    frame_decoding: int | None = None
    opened_reads: OpenedReads | None = None
    events: _Events = field(default_factory=lambda: _Events(), repr=False)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "events" or "events" not in self.__dict__:
            object.__setattr__(self, name, value)
            return
        if self.__dict__.get(name, _MISSING) is value or self.__dict__.get(name, _MISSING) == value:
            return
        object.__setattr__(self, name, value)
        getattr(self.events, name).emit(value)

    def show_frame(self, index: int, seconds: float, exact: bool = True) -> None:
        """The picture of frame ``index`` (PTS ``seconds``) is on screen; emits ``events.frame`` once."""
        object.__setattr__(self, "frame_index", int(index))
        object.__setattr__(self, "pts_seconds", float(seconds))
        object.__setattr__(self, "frame_exact", bool(exact))
        object.__setattr__(self, "frame_decoding", None)
        self.events.frame.emit((self.frame_index, self.pts_seconds, self.frame_exact))

    def request_frame(self, media_id: str, frame_index: int | None = None) -> None:
        """Ask for frame ``frame_index`` of ``media_id`` to be shown (None: the media from its start).

        Sets ``requested`` (emitting ``events.requested``); the viewer serves it and sets ``requested`` back to
        None. A frame outside the video is clamped to its first or last frame.
        """
        self.requested = FrameRequest(media_id, None if frame_index is None else int(frame_index))

    def shown_position(self) -> tuple[str, int] | None:
        """(media id, frame index) of the video frame shown, (media id, 0) for a photo; None for a document or
        with nothing shown. What "Use current frame" takes."""
        if self.media is None or self.media.kind not in ("image", "video"):
            return None
        return self.media.id, self.frame_index if self.media.kind == "video" else 0

    def video_frame(self) -> int | None:
        """The frame marks attach to: ``frame_index`` on a video, None on a photo or with nothing shown."""
        if self.media is None or self.media.kind != "video":
            return None
        return self.frame_index


_MISSING = object()


class _Events:
    """One :class:`Event` per :class:`ViewState` field, and ``frame`` for :meth:`ViewState.show_frame`."""

    def __init__(self) -> None:
        for f in fields(ViewState):
            if f.name != "events":
                setattr(self, f.name, Event())
        self.frame = Event()
