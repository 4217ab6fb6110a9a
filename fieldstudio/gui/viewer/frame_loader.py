"""Decodes frames off the GUI thread; the newest request wins so scrubbing never queues up work.

A request is (media id, frame index, exact). ``exact=False`` is the scrubbing preview: the keyframe at
or before the index, which needs no decode-forward. ``exact=True`` is the frame the frame table names
at that index, the frame an annotation attaches to (DESIGN.md, "Frames").
After a preview the thread goes on decoding the exact frame under the playhead, unless another request comes
first, so that the release of the playhead finds it decoded or partly so (``FrameLoader._decode_ahead``).
An exact frame asked for with the size it takes on screen is shown first at that size, and its full-resolution
picture follows (``FrameLoader.detail_ready``): converting a 1080p frame at full size is 4-7 ms of the wait for a
release or a Go to frame, and painting it scaled down to the canvas 1-2 ms more, that a picture made at the size
shown does not spend.
"""

from __future__ import annotations

import logging
import ctypes
import sys
import threading
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


@dataclass(frozen=True)
class FrameRequest:
    media_id: str
    index: int
    exact: bool
    token: int
    media: object | None = None  # the caller's Media row of media_id, read again from the project when None
    within: tuple[int, int] | None = None  # the first picture is scaled down to fit (W, H) screen pixels


class FrameLoader(QObject):
    """One decoding thread over a ``FrameSource``.

    Signals: ``frame_ready(token, media_id, index, exact, image)`` where ``index`` is the frame actually
    decoded (the keyframe for a preview); ``detail_ready(token, media_id, index, image)``, the full-resolution
    picture of an exact video frame whose ``frame_ready`` gave it scaled down to the size asked for (sent unless a
    newer request came first); ``failed(token, media_id, message)``.
    """

    frame_ready = Signal(int, str, int, bool, QImage)
    detail_ready = Signal(int, str, int, QImage)
    failed = Signal(int, str, str)

    def __init__(self, source: FrameSource, parent: QObject | None = None):
        super().__init__(parent)
        self.source = source
        self._cond = threading.Condition()
        self._pending: FrameRequest | None = None
        self._busy = False
        self._stop = False
        self._free = False
        self._token = 0
        self._painted_token = 0  # the newest request whose picture the window has painted (picture_shown)
        self._thread = threading.Thread(target=self._loop, name="frame-loader", daemon=True)
        self._thread.start()

    def request(self, media_id: str, index: int, *, exact: bool = True, media: Media | None = None,
                within: tuple[int, int] | None = None) -> int:
        """Ask for a frame; an earlier request not yet started is dropped. Returns the request's token.

        ``media``: the Media row of ``media_id`` the caller shows (its columns loaded), which spares the decoding
        thread a query before each frame; without it the row is read from the project. ``within`` (W, H) screen
        pixels, for a preview (``exact=False``) of a video: its picture is made no larger than that, in the
        conversion's one pass. At 1080p a full-size picture's conversion was ~6 ms of fresh memory (the heap gives
        frame-sized buffers back, ``gui.app.bound_the_heap``) that the release of a quick drag waited for when a
        preview was still converting; an exact frame is always made at full size, for drawing on it zoomed in.
        """
        with self._cond:
            self._token += 1
            self._pending = FrameRequest(media_id, index, exact, self._token, media, within)
            self._cond.notify()
            return self._token

    def picture_shown(self, token: int) -> None:
        """The picture of request ``token`` is painted: its full-resolution picture, if one is to follow, may be
        made now (``detail_ready``). Called on the GUI thread; a token not waited for is ignored."""
        with self._cond:
            self._painted_token = max(self._painted_token, token)
            self._cond.notify()

    def free_memory(self) -> None:
        """Close the decoders and drop their cached frames (on the decoding thread); they reopen on demand.

        Called when libVLC takes over playback: the exact-frame cache is then unused and would keep
        up to ``cache_bytes`` of decoded frames resident beside VLC's own buffers.
        """
        with self._cond:
            self._free = True
            self._cond.notify()

    def idle(self) -> bool:
        """True when nothing is queued or decoding."""
        with self._cond:
            return self._pending is None and not self._busy

    def stop(self) -> None:
        """Stop the thread (after the decode in progress) and close the decoders."""
        with self._cond:
            self._stop = True
            self._cond.notify()
        self._thread.join(timeout=5)
        self.source.close()

    def _loop(self) -> None:
        from fieldstudio.media import images, library

        while True:
            with self._cond:
                while self._pending is None and not self._stop and not self._free:
                    self._cond.wait()
                if self._stop:
                    return
                if self._free and self._pending is None:
                    self._free = False
                    self.source.close()
                    _return_freed_memory()
                    continue
                self._free = False
                req, self._pending = self._pending, None
                self._busy = True
            try:
                index = req.index
                media = req.media if req.media is not None else self._media(req.media_id)
                if media.kind == "image":
                    # a reduced decode keeps a 12000 x 12000 photo within memory; the canvas scales it
                    # back so that coordinates stay full-resolution pixels
                    # RGB32: the GUI thread makes its pixmap without a conversion
                    image = screen_image_from_rgb(images.read_image(library.require_file(self.source.project, media),
                                                                    max_side=MAX_DISPLAY_SIDE))
                else:
                    if not req.exact:
                        index = self.source.reader(media).table.keyframe_at_or_before(index)
                        if not self.source.decode(media, index, self._elsewhere(media, index)) or self._pending:
                            continue  # superseded: its picture would be replaced at once
                    # made in the pixmap's format by the decoder's own conversion: no second pass over the picture
                    image = screen_image_from_bgra(self.source.get_bgra(media, index, req.within))
            except Exception as exc:  # noqa: BLE001 - reported to the window, logged with traceback
                log.exception("decoding %s frame %s failed", req.media_id, req.index)
                self.failed.emit(req.token, req.media_id, str(exc))
            else:
                self.frame_ready.emit(req.token, req.media_id, index, req.exact, image)
                if not req.exact and media.kind == "video" and index != req.index:
                    self._decode_ahead(media, req.index)
                elif req.exact and media.kind == "video" and image.width() < (media.width or 0):
                    self._send_detail(req, media, index)
            finally:
                with self._cond:
                    self._busy = False

    def _decode_ahead(self, media: Media, index: int) -> None:
        """After a scrubbing preview (its keyframe shown): decode the exact frame ``index`` under the playhead into
        the reader's cache, so that the release, which asks for it, finds it decoded or on the way. Any new request
        stops it between two frames (``_superseded``); the decoder stays where it got to, and a request in the same
        group of pictures goes on from there rather than seeking back (``FrameReader.decode``)."""
        try:
            self.source.decode(media, index, self._superseded)
        except Exception:  # noqa: BLE001 - speculative: the request of that frame, if one comes, reports the failure
            log.debug("decoding ahead %s frame %s failed", media.id, index, exc_info=True)

    def _send_detail(self, req: FrameRequest, media: Media, index: int) -> None:
        """After an exact frame shown scaled down to the screen: its full-resolution picture (``detail_ready``), for
        zooming in and for ``Canvas.image``, unless a newer request came first (that one's picture replaces it).

        Made once the window has painted the picture (``picture_shown``), or after ``DETAIL_WAIT_S``: converting
        it beside the paint slowed the paint of what the user waits for by 1-3 ms at 1080p (two cores, one memory
        bus), which was most of what the smaller picture saved."""
        with self._cond:
            self._cond.wait_for(lambda: self._painted_token >= req.token or self._superseded(), DETAIL_WAIT_S)
        if self._superseded():
            return
        try:
            image = screen_image_from_bgra(self.source.get_bgra(media, index))
        except Exception:  # noqa: BLE001 - the frame is shown; its picture on screen stays what the user sees
            log.warning("the full-resolution picture of %s frame %s failed", media.id, index, exc_info=True)
            return
        self.detail_ready.emit(req.token, req.media_id, index, image)

    def _elsewhere(self, media: Media, key: int):  # noqa: ANN202 - the stop() of a keyframe preview's decode
        """stop() of the preview of keyframe ``key``: a newer request of another group of pictures (or clip) stops it
        between two packets, so that the release of a quick drag does not wait for the preview of a position the
        playhead has left. A newer request of the same group of pictures lets it finish: that request decodes on
        from this keyframe (``FrameReader._frame``), where a stop would make it seek and decode it again."""
        table = self.source.reader(media).table

        def stop() -> bool:
            req = self._pending  # read without the lock, as _superseded
            if self._stop or self._free:
                return True
            return req is not None and (req.media_id != media.id or table.keyframe_at_or_before(req.index) != key)
        return stop

    def _superseded(self) -> bool:
        # read without the lock: a stale answer costs one frame's decode, and the decoding thread must not wait on
        # the GUI thread between two frames
        return self._pending is not None or self._stop or self._free

    def _media(self, media_id: str):  # noqa: ANN202 - Media row
        from fieldstudio.media import library

        return library.find_media(self.source.project, media_id)


def _return_freed_memory() -> None:
    # glibc keeps freed decoder buffers in its heap (the mmap threshold grows after large frees), so
    # resident memory would not drop; malloc_trim hands the free pages back. No-op elsewhere.
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass
