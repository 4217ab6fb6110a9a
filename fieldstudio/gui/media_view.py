"""The Media tab: the canvas with its transport bar and timeline, the document view, the welcome page.

:class:`MediaView` shows what :class:`~fieldstudio.gui.state.ViewState` names and serves its requests: a
``state.request_frame(media_id, frame_index)`` from any part of the window opens that media (setting
``state.media``) or steps the open video to that frame, and every frame put on the canvas goes through
``state.show_frame``, so the status bar, the timeline, the annotation overlay, the library and the side
panels all follow the one frame on screen (they subscribe to the state; this module never calls them).
Paused or stepping, that frame is the exact one the frame table names; playing, libVLC's picture (``exact``
False). Setting ``state.playing`` to False pauses the video.

The frame loader and the video controller live as long as a project is open (``state.project``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import workers
from fieldstudio.gui.imaging import format_pts, parse_time_or_frame, qimage_from_rgb
from fieldstudio.gui.viewer.canvas import Canvas

if TYPE_CHECKING:
    from PySide6.QtGui import QAction

    from fieldstudio.gui.state import ViewState
    from fieldstudio.gui.timeline import Timeline
    from fieldstudio.gui.transport import TransportBar
    from fieldstudio.gui.viewer.document_view import DocumentView
    from fieldstudio.gui.viewer.frame_loader import FrameLoader
    from fieldstudio.gui.viewer.video_controller import VideoController
    from fieldstudio.gui.welcome import WelcomePage
    from fieldstudio.store.models import Media
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

#: Decoded frames kept for stepping: about 40 frames of 1080p (one 2 s GOP at 20 fps), which keeps
#: stepping backward cheap within a GOP while the window stays under 600 MB playing 1080p.
VIEWER_CACHE_BYTES = 128 * 1024 * 1024

EMPTY_TEXT = "Choose a photo, video or document in the library,\nor drop files and folders here."


READ_OUT_WAIT_MS = 100
"""The longest the read-out of a frame shown waits for the paint of its picture (``MediaView._frame_on_screen``)."""


class MediaView(QObject):
    """The Media tab's widgets (``stack``) and the showing of media in them.

    Signals: ``notice(message)`` for the status bar; ``position_text(frame_text, time_text)`` for the
    status bar's frame and time read-outs; ``media_shown(media, missing)`` after another media is shown
    (the properties panel); ``pointer_moved(x, y)`` and ``zoom_changed(canvas, zoom)`` from the canvas
    in front; ``segment_end_moved(annotation_id, which, index)`` from the timeline.
    """

    notice = Signal(str)
    position_text = Signal(str, str)
    media_shown = Signal(object, bool)
    pointer_moved = Signal(float, float)
    zoom_changed = Signal(object, float)
    segment_end_moved = Signal(str, str, int)
    welcome_made = Signal(object)  # gui.welcome.WelcomePage, once, when first built

    def __init__(self, state: ViewState, actions: dict[str, QAction], parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.actions = state, actions
        self.loader: FrameLoader | None = None
        self.video: VideoController | None = None
        self._strip_worker: workers.Worker | None = None
        self.canvas = Canvas()
        self.media_page = QWidget()
        lay = QVBoxLayout(self.media_page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.canvas, 1)
        # the transport bar and the timeline follow under the canvas with the first project (``_controls``)
        self._controls: tuple[TransportBar, Timeline] | None = None
        self._document: DocumentView | None = None  # built on the first document shown (``document``)
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._welcome: WelcomePage | None = None  # built when first shown (``welcome``): a project given at start
        self.stack = QStackedWidget()                # never shows it, and its first build is ~16 ms of the start
        for w in (self.empty, self.media_page):
            self.stack.addWidget(w)
        self.canvas.pointer_moved.connect(self.pointer_moved)
        self.canvas.zoom_changed.connect(lambda z: self.zoom_changed.emit(self.canvas, z))
        state.events.frame.connect(self._frame_on_screen)
        # the read-out of the frame shown waits for its picture's paint while this runs, READ_OUT_WAIT_MS at most: a
        # canvas that is not painted (another tab in front, the window minimized while frames are decoded) must not
        # leave the read-out on an older frame
        self._read_out_timer = QTimer(self)
        self._read_out_timer.setSingleShot(True)
        self._read_out_timer.setInterval(READ_OUT_WAIT_MS)
        self._read_out_timer.timeout.connect(self._read_out_now)
        self.canvas.picture_painted.connect(self._read_out_after_paint)
        state.events.project.connect(lambda p: self.set_project(p) if p is not None else self.close_project())
        state.events.requested.connect(lambda request: request is not None and self.serve_request())
        state.events.playing.connect(self._playing_set)

    # --- lazily built views ----------------------------------------------------------------------
    @property
    def welcome(self) -> WelcomePage:
        """The welcome page (recent projects, demo, new/open), built on first use; ``welcome_made`` announces it."""
        if self._welcome is None:
            from fieldstudio.gui.welcome import WelcomePage

            self._welcome = WelcomePage()
            self.stack.insertWidget(0, self._welcome)
            self.welcome_made.emit(self._welcome)
        return self._welcome

    def _media_controls(self) -> tuple[TransportBar, Timeline]:
        """The transport bar and the timeline under the canvas, built and wired on first use."""
        if self._controls is None:
            from fieldstudio.gui.timeline import Timeline
            from fieldstudio.gui.transport import TransportBar

            transport, timeline = self._controls = (TransportBar(self.actions), Timeline())
            self.media_page.layout().addWidget(transport)
            self.media_page.layout().addWidget(timeline)
            timeline.scrubbed.connect(lambda i: self.video and self.video.preview_index(i))
            timeline.released.connect(lambda i: self.video and self.video.show_index(i))
            transport.speed_chosen.connect(lambda r: self.video and self.video.set_rate(r))
            timeline.segment_end_moved.connect(self.segment_end_moved)
        return self._controls

    @property
    def transport(self) -> TransportBar:
        """Play, speed, mute and loop buttons with the position read-out."""
        return self._media_controls()[0]

    @property
    def timeline(self) -> Timeline:
        """The timeline: thumbnails, playhead, segments and events."""
        return self._media_controls()[1]

    @property
    def document(self) -> DocumentView:
        """The PDF and text view (pages, zoom, search), built and wired on first use."""
        if self._document is None:
            from fieldstudio.gui.viewer.document_view import DocumentView

            doc = self._document = DocumentView()
            self.stack.addWidget(doc)
            doc.canvas.pointer_moved.connect(self.pointer_moved)
            doc.canvas.zoom_changed.connect(lambda z: self.zoom_changed.emit(doc.canvas, z))
            doc.notice.connect(self.notice)
            doc.page_shown.connect(lambda p, n: self.position_text.emit(f"page {p + 1} / {n}", doc.page_note(p)))
        return self._document

    def showing_document(self) -> bool:
        return self._document is not None and self.stack.currentWidget() is self._document

    def active_canvas(self) -> Canvas:
        """The canvas in front: the document's page or the photo/video canvas."""
        return self.document.canvas if self.showing_document() else self.canvas

    # --- project ---------------------------------------------------------------------------------
    def set_project(self, project: Project) -> None:
        """Make the frame loader and the video controller of ``project``; the empty page in front."""
        from fieldstudio.gui.viewer.frame_loader import FrameLoader
        from fieldstudio.gui.viewer.video_controller import VideoController
        from fieldstudio.media.frames import FrameSource

        self.loader = FrameLoader(FrameSource(project, cache_bytes=VIEWER_CACHE_BYTES), self)
        self.video = VideoController(self.canvas, self.loader, self)
        self.video.frame_shown.connect(self.state.show_frame)
        self.video.decoding.connect(lambda i: setattr(self.state, "frame_decoding", i))
        self.video.playing_changed.connect(self.transport.set_playing)
        self.video.playing_changed.connect(lambda on: setattr(self.state, "playing", on))
        self.video.notice.connect(self.notice)
        self.video.media_changed.connect(lambda: (self.transport.set_speed(self.video.rate),
                                                  self.transport.set_mode(self.video.mode_text())))
        self.video.mode_changed.connect(self._transport_mode)
        self.loader.frame_ready.connect(self._on_image_ready)
        self.loader.failed.connect(self._frame_failed)
        self.empty.setText(EMPTY_TEXT)
        self.stack.setCurrentWidget(self.empty)

    def close_project(self) -> None:
        """Stop the video and the loader; nothing shown."""
        if self.video is not None:
            self.video.close()
            self.video.deleteLater()
            self.video = None
        if self.loader is not None:
            self.loader.stop()
            self.loader.deleteLater()
            self.loader = None
        self.state.media = None
        self.state.playing = False
        self.canvas.clear_image()
        if self._controls is not None:
            self.timeline.clear()

    def connect_actions(self, actions: dict) -> None:  # noqa: ANN001 - {action id: QAction} (gui/shortcuts.py)
        """Connect the Video menu's actions: play, step, first/last frame, shuttle, go to, loop, mute."""
        video = {
            "play": lambda v: v.toggle_play(),
            "next_frame": lambda v: v.step(1), "prev_frame": lambda v: v.step(-1),
            "next_second": lambda v: v.step_seconds(1.0), "prev_second": lambda v: v.step_seconds(-1.0),
            "next_10s": lambda v: v.step_seconds(10.0), "prev_10s": lambda v: v.step_seconds(-10.0),
            "shuttle_back": lambda v: v.shuttle("j"), "shuttle_stop": lambda v: v.shuttle("k"),
            "shuttle_fwd": lambda v: v.shuttle("l"),
            "loop_start": lambda v: self._loop_set(v.set_loop_start),
            "loop_end": lambda v: self._loop_set(v.set_loop_end),
            "loop_toggle": lambda v: self._loop_set(v.toggle_loop),
            "mute": lambda v: v.set_muted(actions["mute"].isChecked()),
            "go_to": lambda v: self.go_to_dialog(),
            "first_frame": lambda v: v.show_index(0),
            "last_frame": lambda v: v.show_index(v.frame_count - 1),
        }
        for aid, fn in video.items():
            actions[aid].triggered.connect(lambda _=False, fn=fn: self.play_control(fn))

    def _loop_set(self, change) -> None:  # noqa: ANN001 - the VideoController's loop method to call
        """Ctrl+[, Ctrl+] or Ctrl+L: the timeline draws the loop range (or no range) at once, not with the next frame
        shown (the read-out's ``set_loop``), which left a range just set unseen until the playhead moved."""
        change()
        self._show_loop()

    def _show_loop(self) -> None:
        self.timeline.set_loop(self.video.loop if self.video.loop_enabled else None)

    def play_control(self, fn) -> None:  # noqa: ANN001 - callable(VideoController)
        """Run ``fn(video)`` when a video is in front (the Video menu's actions)."""
        if self.video is not None and self.video.media is not None and self.stack.currentWidget() is self.media_page:
            fn(self.video)

    def _playing_set(self, playing: bool) -> None:
        # ``state.playing = False`` from a tool that needs the exact frame: pause (a no-op when the video's own
        # stop set it)
        if not playing and self.video is not None and self.video.playing:
            self.video.pause()

    # --- showing media ---------------------------------------------------------------------------
    def serve_request(self) -> None:
        """Show what ``state.requested`` asks for, and clear it; with no project open yet it waits there.

        The media shown already: its video steps to the frame (a video whose frame index is still being built
        keeps the request for when it opens; a photo or document has no other frame). Another media (or a
        request without a frame, as the library makes) is opened, a video at the frame asked for.
        """
        request = self.state.requested
        if request is None or self.loader is None:
            return
        media = self.state.media
        if media is None or media.id != request.media_id or request.frame_index is None:
            self._open_media(request.media_id)
        elif self.video is not None and self.video.media is not None and self.video.media.id == media.id:
            self.state.requested = None
            self.video.show_index(min(max(request.frame_index, 0), self.video.frame_count - 1))
        elif media.kind != "video" or self.stack.currentWidget() is not self.media_page:
            self.state.requested = None

    def _take_request(self, media_id: str) -> int:
        """The frame requested of ``media_id`` (0 without one); the request is served by showing it."""
        request = self.state.requested
        if request is None or request.media_id != media_id:
            return 0
        self.state.requested = None
        return request.frame_index or 0

    def _open_media(self, media_id: str) -> None:
        """Show one media: a video at the frame requested (else frame 0), a photo fitted, a document at page 1.
        A media that cannot be read says why on the empty page."""
        project = self.state.project
        from fieldstudio.media import document_ocr, library, video_index

        try:
            media = library.find_media(project, media_id)
        except FieldstudioError as exc:
            self._take_request(media_id)
            self.notice.emit(str(exc))
            return
        if self.video is not None and self.video.media is not None:
            self.video.close()
        self.state.frame_count = 0
        self.state.frame_index = 0
        self.state.media = media
        try:
            path = library.media_path(project, media)
            missing = not path.is_file()
        except FieldstudioError:  # its media root is not mapped on this machine
            path, missing = None, True
        self.media_shown.emit(media, missing)
        self.canvas.clear_highlights()
        if media.kind != "video" or media.status != "ok" or missing:
            self._take_request(media.id)  # nothing to step to: the media shown is the request served
        if media.status != "ok" or missing:
            reason = "is missing (moved or deleted); File ▸ Relink media… finds it again" if missing else media.error
            self.empty.setText(f"{media.file_name}\n{reason}")
            self.stack.setCurrentWidget(self.empty)
            self.position_text.emit("", "")
            return
        if media.kind == "document":
            self.stack.setCurrentWidget(self.document)
            try:
                self.document.open(path, media.page_count, document_ocr.page_words(project, media.id))
            except FieldstudioError as exc:
                self.notice.emit(str(exc))
            return
        self.stack.setCurrentWidget(self.media_page)
        if media.kind == "image":
            # a photo has no frames: no timeline, and a transport that says so instead of the last video's
            # position (the canvas snaps the photo to whole pixels after the layout change)
            self.timeline.clear()
            self.timeline.hide()
            self.transport.show_still("photo: no frames to play or step")
            self.position_text.emit("photo", f"{media.width} × {media.height} px")
            self.loader.request(media.id, 0)
            return
        self.transport.setEnabled(True)
        self.timeline.show()
        table = video_index.load_frame_table(project, media)
        if table is None:
            # the packet index (demuxing only) opens even hours of footage at once: shown as soon as it is
            # built, stored next; the background indexer (gui/indexing.py) verifies it later
            self.notice.emit(f"indexing the frames of {media.file_name}…")
            worker = workers.Worker(lambda *, progress, cancelled: video_index.first_frame_table(project, media))
            worker.signals.result.connect(lambda r, m=media: self._open_first_index(m, *r))
            worker.signals.error.connect(self.notice)
            workers.start(worker)
            return
        self._open_video(media, table)

    def _open_first_index(self, media: Media, table, status: str) -> None:  # noqa: ANN001 - FrameTable
        from fieldstudio.media import video_index

        project = self.state.project
        if project is None or self.loader is None:
            return
        if not project.read_only:
            store = workers.Worker(lambda *, progress, cancelled: video_index.store_frame_table(
                project, media.id, table, status=status, if_missing=True))
            store.signals.error.connect(self.notice)
            workers.start(store)
        shown = self.state.media
        if shown is None or shown.id != media.id or self.stack.currentWidget() is not self.media_page:
            return
        media.index_status, media.frame_count = status, len(table)
        self.loader.source.adopt(media, table)
        self._open_video(media, table)

    def _open_video(self, media: Media, table, start: int | None = None) -> None:  # noqa: ANN001 - FrameTable
        """Open the video ``media`` on ``table`` at frame ``start`` (None: the frame requested, else 0)."""
        self.timeline.set_video(table.seconds_array())
        start = min(max(self._take_request(media.id) if start is None else start, 0), len(table) - 1)
        self.state.frame_count = len(table)
        self.video.open(media, table, start)
        self.transport.set_position(0, len(table), table.seconds(0), media.duration_s)
        self.transport.set_index_source(media.index_status)
        self._start_strip(media.id)

    def ocr_page_read(self, media_id: str) -> None:
        """OCR read a scanned page of a document in the background (gui/indexing.py): the document on screen
        searches its words from now on."""
        from fieldstudio.media import document_ocr

        media = self.state.media
        if media is not None and media.id == media_id and self.showing_document():
            self.document.set_ocr_words(document_ocr.page_words(self.state.project, media_id))

    def index_changed(self, step) -> None:  # noqa: ANN001 - media.video_index.IndexStep
        """A video's frame index was built or replaced in the background (gui/indexing.py): the video on
        screen follows its new index on the same picture (``frame_table.remap_indices``)."""
        from fieldstudio.media import frame_table

        if self.loader is not None and step.replaced:
            self.loader.source.forget(step.media_id)
        media = self.state.media
        if media is None or media.id != step.media_id or step.table is None:
            return
        media.index_status = step.status
        if self.video is None or self.video.table is None or self.video.media is None:
            return  # not open yet: opening reads the stored index
        self.transport.set_index_source(step.status)
        if step.replaced:
            start = int(frame_table.remap_indices(self.video.table, step.table, [self.video.target])[0])
            self.video.close()
            self._open_video(media, step.table, start)

    def _start_strip(self, media_id: str) -> None:
        from fieldstudio.media import thumbnails

        if self._strip_worker is not None:
            self._strip_worker.cancel()
        worker = workers.Worker(thumbnails.timeline_strip, self.state.project, media_id)
        worker.signals.result.connect(lambda strip, mid=media_id: self._on_strip(mid, strip))
        worker.signals.error.connect(lambda msg: log.warning("timeline strip: %s", msg))
        self._strip_worker = workers.start(worker)

    def _on_strip(self, media_id: str, strip: list) -> None:
        if self.state.media is not None and self.state.media.id == media_id:
            self.timeline.set_thumbnails([(i, qimage_from_rgb(rgb)) for i, rgb in strip])

    def _on_image_ready(self, _token: int, media_id: str, _index: int, _exact: bool, image: QImage) -> None:
        media = self.state.media
        if media is not None and media.id == media_id and media.kind == "image":
            self.canvas.set_image(image, (media.width or image.width(), media.height or image.height()))
            self.state.show_frame(0, 0.0, True)

    def _frame_on_screen(self, frame: tuple[int, float, bool]) -> None:
        """The status read-out, the timeline and the transport follow the video frame on screen, in the event loop's
        turn after its picture is painted when that picture is on its way (``Canvas.picture_on_its_way``): painted
        in the same pass as the picture, they were 1-1.5 ms more between the decoded frame and the screen (issue 37
        item 6); a pass later they trail the picture by that much, unseen."""
        if self.canvas.picture_on_its_way():
            if not self._read_out_timer.isActive():  # not restarted: frames coming faster must not hold it off
                self._read_out_timer.start()
            return
        self._read_out(frame)

    def _read_out_after_paint(self) -> None:
        if self._read_out_timer.isActive():  # a read-out waits for this paint
            self._read_out_timer.stop()
            self._read_out_now()

    def _read_out_now(self) -> None:
        self._read_out((self.state.frame_index, self.state.pts_seconds, self.state.frame_exact))

    def _read_out(self, frame: tuple[int, float, bool]) -> None:
        index, seconds, exact = frame
        media = self.state.media
        if media is None or media.kind != "video" or self.video is None or self.video.table is None:
            return
        n = self.video.frame_count
        playing = f"  playing {self.video.rate_text()}" if self.video.playing else ""
        self.position_text.emit(f"frame {index} / {n - 1}" + ("" if exact else " ~") + playing, format_pts(seconds))
        self.timeline.set_index(index)
        self._show_loop()
        self.transport.set_position(index, n, seconds, media.duration_s)

    def _transport_mode(self, text: str, rate: float) -> None:
        """Playing started or stopped, or the speed or direction changed (K, L, J, the speed box): the
        transport bar and the status bar's read-out say so at once, not at the next frame."""
        self.transport.set_mode(text)
        self.transport.set_speed(rate)
        self._frame_on_screen((self.state.frame_index, self.state.pts_seconds, self.state.frame_exact))

    def _frame_failed(self, _token: int, media_id: str, message: str) -> None:
        # the picture stays on the last frame shown, so the position does too: marks must attach to it
        self.notice.emit(message)
        media = self.state.media
        if self.video is not None and media is not None and media.id == media_id \
                and media.kind == "video" and not self.video.playing:
            self.video.target = self.state.frame_index
            self.timeline.set_index(self.state.frame_index)

    # --- going to a frame ------------------------------------------------------------------------
    def go_to_dialog(self) -> None:
        """Ctrl+G: a frame number (``120``, ``#120``) or a time (``0:01:02.5``, ``62.5s``)."""
        from PySide6.QtWidgets import QInputDialog

        if self.video is None or self.video.table is None:
            return
        text, ok = QInputDialog.getText(self.stack.window(), "Go to",
                                        "Frame number or time (e.g. 120, 0:01:02.5, 62.5s):")
        if ok:
            self.go_to(text)

    def go_to(self, text: str) -> None:
        """Jump to what ``text`` names; a bad entry is explained in the status bar."""
        try:
            kind, value = parse_time_or_frame(text)
        except ValueError as exc:
            self.notice.emit(str(exc))
            return
        video = self.video
        if kind == "frame":
            if not 0 <= value < video.frame_count:
                self.notice.emit(f"frame {int(value)} is outside 0..{video.frame_count - 1}")
                return
            self.state.request_frame(video.media.id, int(value))
        elif video.table is not None:
            self.state.request_frame(video.media.id, video.table.index_at(video.table.seconds(0) + value))
