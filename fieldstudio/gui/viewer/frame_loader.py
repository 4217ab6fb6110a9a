"""Decodes frames off the GUI thread; the newest request wins so scrubbing never queues up work.

A request is (media id, frame index, exact). ``exact=False`` is the scrubbing preview: the keyframe at
or before the index, which needs no decode-forward. ``exact=True`` is the frame the frame table names
at that index, the frame an annotation attaches to (DESIGN.md, "Frames").
Two threads: one decodes exact frames (and photos), the other the previews, on a decoder of its own
(``FrameSource.preview_bgra``) and at a lower priority, so that the release of a quick drag neither waits for a
preview of a place the playhead has left nor shares the processor with it. Once a preview has stayed on screen for
``AHEAD_DELAY_S`` with nothing newer asked for, the exact thread decodes the frame under the playhead, so that the
release of a held playhead finds it decoded or partly so (``FrameLoader._decode_ahead``).
An exact frame asked for with the size it takes on screen is shown first at that size, and its full-resolution
picture follows (``FrameLoader.detail_ready``): converting a 1080p frame at full size is 4-7 ms of the wait for a
release or a Go to frame, and painting it scaled down to the canvas 1-2 ms more, that a picture made at the size
shown does not spend.
"""

from __future__ import annotations

import logging
import ctypes
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from fieldstudio.gui.imaging import screen_image_from_bgra, screen_image_from_rgb

if TYPE_CHECKING:
    from fieldstudio.media.frames import FrameSource
    from fieldstudio.store.models import Media

log = logging.getLogger(__name__)

MAX_DISPLAY_SIDE = 8192  # pixels; larger photos are shown from a reduced decode
DETAIL_WAIT_S = 0.1  # seconds an exact frame's full-resolution picture waits for the paint of its smaller one
AHEAD_DELAY_S = 0.05
"""Seconds a preview stays on screen, with nothing newer asked for, before the exact frame under the playhead is
decoded ahead: a playhead still moving asks again sooner (a mouse moves every 8-16 ms), and a decode ahead stopped
by the release would keep the release waiting for the frames it had in flight (1-4 ms at 1080p)."""
PREVIEW_NICE = 10
"""Nice increment of the preview thread and of the decoder threads it starts (Linux, where nice is per thread and
inherited by the threads a thread creates): at the release, the exact frame's decode gets the processor, and a
preview still in flight (a keyframe's decode cannot be stopped) runs in what is left."""


@dataclass(frozen=True)
class FrameRequest:
    media_id: str
    index: int
    exact: bool
    token: int
    media: object | None = None  # the caller's Media row of media_id, read again from the project when None
    within: tuple[int, int] | None = None  # the first picture is scaled down to fit (W, H) screen pixels


class FrameLoader(QObject):
    """Two decoding threads over a ``FrameSource``: exact frames and photos on one, previews on the other.

    Signals: ``frame_ready(token, media_id, index, exact, image)`` where ``index`` is the frame actually
    decoded (the keyframe for a preview); ``detail_ready(token, media_id, index, image)``, the full-resolution
    picture of an exact video frame whose ``frame_ready`` gave it scaled down to the size asked for (sent unless a
    newer request came first); ``failed(token, media_id, message)``. A request superseded before its picture is
    made sends nothing.
    """

    frame_ready = Signal(int, str, int, bool, QImage)
    detail_ready = Signal(int, str, int, QImage)
    failed = Signal(int, str, str)

    def __init__(self, source: FrameSource, parent: QObject | None = None):
        super().__init__(parent)
        self.source = source
        self._cond = threading.Condition()
        self._pending: FrameRequest | None = None  # the exact thread's next request (exact frames, photos)
        self._preview: FrameRequest | None = None  # the preview thread's next request
        self._ahead: tuple[FrameRequest, Media, float] | None = None  # a preview shown; decode ahead from (monotonic s)
        self._busy = False
        self._preview_busy = False
        self._stop = False
        self._free = False
        self._token = 0
        self._painted_token = 0  # the newest request whose picture the window has painted (picture_shown)
        self._thread = threading.Thread(target=self._loop, name="frame-loader", daemon=True)
        self._preview_thread = threading.Thread(target=self._preview_loop, name="frame-preview", daemon=True)
        self._thread.start()
        self._preview_thread.start()

    def request(self, media_id: str, index: int, *, exact: bool = True, media: Media | None = None,
                within: tuple[int, int] | None = None) -> int:
        """Ask for a frame; an earlier request not yet started is dropped, and one in progress is stopped where it
        can be (``_preview_stop``, ``_decode_ahead``). Returns the request's token.

        ``media``: the Media row of ``media_id`` the caller shows (its columns loaded), which spares the decoding
        thread a query before each frame; without it the row is read from the project. ``within`` (W, H) screen
        pixels: the picture is made no larger than that, in the conversion's one pass (an exact video frame's full
        picture follows, ``detail_ready``). At 1080p a full-size picture's conversion was ~6 ms of fresh memory
        (the heap gives frame-sized buffers back, ``gui.app.bound_the_heap``).
        """
        with self._cond:
            self._token += 1
            req = FrameRequest(media_id, index, exact, self._token, media, within)
            if exact:
                self._pending, self._preview = req, None
            else:
                self._preview, self._pending = req, None
            self._ahead = None
            self._cond.notify_all()
            return self._token

    def picture_shown(self, token: int) -> None:
        """The picture of request ``token`` is painted: its full-resolution picture, if one is to follow, may be
        made now (``detail_ready``). Called on the GUI thread; a token not waited for is ignored."""
        with self._cond:
            self._painted_token = max(self._painted_token, token)
            self._cond.notify_all()

    def free_memory(self) -> None:
        """Close the decoders and drop their cached frames (on the decoding thread); they reopen on demand.

        Called when libVLC takes over playback: the exact-frame cache is then unused and would keep
        up to ``cache_bytes`` of decoded frames resident beside VLC's own buffers.
        """
        with self._cond:
            self._free = True
            # a newer request: the exact thread clears ``_free`` when it takes the free, possibly before the preview
            # thread has looked, and a preview in flight must not then decode again into the readers just closed nor
            # arm a decode ahead that reopens the exact decoder while libVLC plays
            self._token += 1
            self._ahead = None
            self._cond.notify_all()

    def idle(self) -> bool:
        """True when nothing is queued, waiting to be decoded ahead, or decoding."""
        with self._cond:
            return (self._pending is None and self._preview is None and self._ahead is None
                    and not self._busy and not self._preview_busy)

    def stop(self) -> None:
        """Stop the threads (after the decodes in progress) and close the decoders."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=5)
        self._preview_thread.join(timeout=5)
        self.source.close()

    # --- the exact thread ---------------------------------------------------------------------------------------
    def _loop(self) -> None:
        while (job := self._next_job()) is not None:
            kind, what = job
            try:
                if kind == "free":
                    self.source.close()
                    _return_freed_memory()
                elif kind == "ahead":
                    self._decode_ahead(*what)
                else:
                    self._serve(what)
            finally:
                with self._cond:
                    self._busy = False

    def _next_job(self) -> tuple[str, object] | None:
        """The exact thread's next job, waited for: ("request", FrameRequest), ("free", None) or ("ahead", (request,
        Media)) once its delay is over; None when stopping."""
        with self._cond:
            while True:
                if self._stop:
                    return None
                if self._pending is not None:
                    req, self._pending = self._pending, None
                    self._free = False  # the request reopens what a free would close
                    self._busy = True
                    return "request", req
                if self._free:
                    self._free = False
                    self._busy = True
                    return "free", None
                if self._ahead is not None:
                    req, media, at = self._ahead
                    wait = at - time.monotonic()
                    if wait <= 0:
                        self._ahead = None
                        self._busy = True
                        return "ahead", (req, media)
                    self._cond.wait(wait)
                    continue
                self._cond.wait()

    def _serve(self, req: FrameRequest) -> None:
        try:
            media = req.media if req.media is not None else self._media(req.media_id)
            if media.kind == "image":
                image = self._photo(media)
            else:
                # made in the pixmap's format by the decoder's own conversion: no second pass over the picture
                image = screen_image_from_bgra(self.source.get_bgra(media, req.index, req.within))
        except Exception as exc:  # noqa: BLE001 - reported to the window, logged with traceback
            log.exception("decoding %s frame %s failed", req.media_id, req.index)
            self.failed.emit(req.token, req.media_id, str(exc))
            return
        self.frame_ready.emit(req.token, req.media_id, req.index, req.exact, image)
        if media.kind == "video" and image.width() < (media.width or 0):
            self._send_detail(req, media)

    def _decode_ahead(self, req: FrameRequest, media: Media) -> None:
        """After a scrubbing preview stayed on screen ``AHEAD_DELAY_S``: decode the exact frame under the playhead
        (``req.index``) into the reader's cache, so that the release, which asks for it, finds it decoded or on the
        way. Any newer request stops it between two frames; the decoder stays where it got to, and a request in
        the same group of pictures goes on from there rather than seeking back (``FrameReader.decode``)."""
        try:
            self.source.decode(media, req.index, lambda: self._superseded(req.token))
        except Exception:  # noqa: BLE001 - speculative: the request of that frame, if one comes, reports the failure
            log.debug("decoding ahead %s frame %s failed", media.id, req.index, exc_info=True)

    def _send_detail(self, req: FrameRequest, media: Media) -> None:
        """After an exact frame shown scaled down to the screen: its full-resolution picture (``detail_ready``), for
        zooming in and for ``Canvas.image``, unless a newer request came first (that one's picture replaces it).

        Made once the window has painted the picture (``picture_shown``), or after ``DETAIL_WAIT_S``: converting
        it beside the paint slowed the paint of what the user waits for by 1-3 ms at 1080p (two cores, one memory
        bus), which was most of what the smaller picture saved."""
        with self._cond:
            self._cond.wait_for(lambda: self._painted_token >= req.token or self._superseded(req.token),
                                DETAIL_WAIT_S)
        if self._superseded(req.token):
            return
        try:
            image = screen_image_from_bgra(self.source.get_bgra(media, req.index))
        except Exception:  # noqa: BLE001 - the frame is shown; its picture on screen stays what the user sees
            log.warning("the full-resolution picture of %s frame %s failed", media.id, req.index, exc_info=True)
            return
        self.detail_ready.emit(req.token, req.media_id, req.index, image)

    # --- the preview thread -------------------------------------------------------------------------------------
    def _preview_loop(self) -> None:
        _lower_this_threads_priority()
        while True:
            with self._cond:
                while self._preview is None and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                req, self._preview = self._preview, None
                self._preview_busy = True
            try:
                self._serve_preview(req)
            finally:
                with self._cond:
                    self._preview_busy = False

    def _serve_preview(self, req: FrameRequest) -> None:
        index = req.index
        try:
            media = req.media if req.media is not None else self._media(req.media_id)
            if media.kind == "image":
                image = self._photo(media)
            else:
                made = self.source.preview_bgra(media, req.index, req.within, self._preview_stop(req, media))
                if made is None or self._superseded(req.token):
                    return  # superseded: its picture would be replaced at once
                index, bgra = made
                image = screen_image_from_bgra(bgra)
        except Exception as exc:  # noqa: BLE001 - reported to the window, logged with traceback
            log.exception("previewing %s frame %s failed", req.media_id, req.index)
            self.failed.emit(req.token, req.media_id, str(exc))
            return
        self.frame_ready.emit(req.token, req.media_id, index, False, image)
        if media.kind == "video" and index != req.index:
            with self._cond:
                if not self._superseded(req.token):
                    self._ahead = (req, media, time.monotonic() + AHEAD_DELAY_S)
                    self._cond.notify_all()

    def _preview_stop(self, req: FrameRequest, media: Media):  # noqa: ANN202 - the stop() of a preview's decode
        """stop() of the preview of ``req``: any newer request stops it between two packets (an exact frame's, or a
        preview's of another group of pictures or clip), except a preview of the same keyframe, which then finds
        this one's keyframe decoded (the preview reader keeps it)."""
        table = self.source.reader(media).table
        key = table.keyframe_at_or_before(req.index)

        def stop() -> bool:
            if self._stop or self._free:
                return True
            if self._token == req.token:
                return False
            newer = self._preview  # read without the lock, as _superseded
            return newer is None or newer.media_id != media.id or table.keyframe_at_or_before(newer.index) != key
        return stop

    # --- both ---------------------------------------------------------------------------------------------------
    def _superseded(self, token: int) -> bool:
        # read without the lock: a stale answer costs one frame's decode, and a decoding thread must not wait on
        # the GUI thread between two frames
        return self._token != token or self._stop or self._free

    def _photo(self, media: Media) -> QImage:
        from fieldstudio.media import images, library

        # a reduced decode keeps a 12000 x 12000 photo within memory; the canvas scales it back so that coordinates
        # stay full-resolution pixels. RGB32: the GUI thread makes its pixmap without a conversion
        return screen_image_from_rgb(images.read_image(library.require_file(self.source.project, media),
                                                       max_side=MAX_DISPLAY_SIDE))

    def _media(self, media_id: str):  # noqa: ANN202 - Media row
        from fieldstudio.media import library

        return library.find_media(self.source.project, media_id)


def _lower_this_threads_priority() -> None:
    """Add ``PREVIEW_NICE`` to the calling thread's nice value (Linux only: elsewhere nice is per process)."""
    if sys.platform.startswith("linux"):
        try:
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + PREVIEW_NICE))
        except OSError:
            log.debug("the preview thread keeps its priority", exc_info=True)


def _return_freed_memory() -> None:
    # glibc keeps freed decoder buffers in its heap (the mmap threshold grows after large frees), so
    # resident memory would not drop; malloc_trim hands the free pages back. No-op elsewhere.
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass
