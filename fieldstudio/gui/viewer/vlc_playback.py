"""Smooth playback with audio through libVLC, rendered into our own canvas by video callbacks.

libVLC decodes and paces the video; its frames arrive in a buffer we own (RV32, i.e. B, G, R, X bytes
per pixel on little-endian machines, Qt's Format_RGB32) and are drawn into the same QGraphicsView as
the annotations, so overlays stay on top while playing (DESIGN.md, "Playback"). When paused, the window
shows the exact decoded frame instead; this module never decides which frame an annotation belongs to.

python-vlc callbacks run on libVLC's threads: they only hand libVLC a buffer, swap buffers and emit a
Qt signal; nothing is copied on the way to the canvas (issue 21).

Rotation: libVLC 3 applies a stream's display rotation itself before a picture reaches the video
callbacks (measured with libVLC 3.0.24: the upright picture equals ffmpeg's decode), so the buffer has
the upright size and nothing here rotates again. A buffer of the stored size squeezed the rotated
picture into it and a second rotation turned it upside down (issue 23).
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

log = logging.getLogger(__name__)

vlc = None  # python-vlc, imported on first use: loading libVLC is not part of the window's start-up
_IMPORT_ERROR: str | None = None  # None until the import was tried, then "" or why it failed
_instance = None
MAX_DECODER_THREADS = 4
# libVLC decodes this far ahead of the picture on screen (its default is 300 ms); at 4K every 33 ms ahead is a
# 12 MB picture waiting in its queue. 100 ms kept 4K playback at 490 MB resident instead of 645 MB (two cores,
# load 4-6) with every delivered picture shown; a local file never needs more read-ahead than that.
FILE_CACHING_MS = 100


def _load_vlc():  # noqa: ANN202 - the vlc module or None
    global vlc, _IMPORT_ERROR
    if _IMPORT_ERROR is None:
        try:  # python-vlc raises at import when libVLC itself is missing
            import vlc as module
        except (ImportError, OSError) as exc:  # pragma: no cover - depends on the machine
            _IMPORT_ERROR = str(exc)
        else:
            vlc, _IMPORT_ERROR = module, ""
    return vlc


def decoder_threads() -> int:
    """libVLC's decoding threads: one per core, at most :data:`MAX_DECODER_THREADS`.

    Each frame thread holds pictures of its own: libVLC's default on two cores kept 680 MB resident while playing
    4K on a loaded machine, two threads about 520 MB; four decode 4K30 in real time on a current laptop.
    """
    return max(1, min(MAX_DECODER_THREADS, os.cpu_count() or 1))


def vlc_unavailable_reason() -> str | None:
    """None when libVLC can play; otherwise why not (shown once to the user)."""
    global _instance
    if os.environ.get("FIELDSTUDIO_NO_VLC"):
        return "libVLC is switched off (FIELDSTUDIO_NO_VLC is set)"
    if _load_vlc() is None:
        return f"libVLC could not be loaded ({_IMPORT_ERROR})"
    if _instance is None:
        try:
            _instance = vlc.Instance(["--quiet", "--no-video-title-show", "--no-xlib", "--no-snapshot-preview",
                                      f"--avcodec-threads={decoder_threads()}",
                                      f"--file-caching={FILE_CACHING_MS}"])
        except Exception as exc:  # noqa: BLE001 - any libVLC failure means: use the decoder instead
            return f"libVLC could not start ({exc})"
        if _instance is None:
            return "libVLC could not start (no plugins found)"
    return None


class VlcPlayback(QObject):
    """Plays one video file through libVLC into three preallocated images, scaled to ``render_size``.

    ``render_size`` (W, H) pixels is the size libVLC scales each picture to (the canvas asks for the
    physical size the picture takes on screen, so a 4K frame is never copied at 4K); it is the upright
    size: libVLC applies the stream's display rotation before scaling. ``set_render_size`` changes it
    (takes effect at the next ``play_from``).

    Frames are handed over without copying: libVLC writes into the *back* image, and each displayed
    picture swaps back and *ready*; ``take()`` on the GUI thread swaps ready and *front* and returns the
    front image, which libVLC never touches until the next ``take``. A picture displayed while the
    previous one was not yet taken replaces it and is counted in ``dropped``.

    Signals: ``frame_ready()`` once per picture waiting to be taken (queued to the receiver's thread;
    call ``take`` there, and read ``time_s()`` then), ``ended()``, ``error(message)``.
    Counters: ``delivered`` pictures libVLC displayed since ``play_from``, ``dropped`` of them replaced
    before they were taken.
    """

    frame_ready = Signal()
    ended = Signal()
    error = Signal(str)

    def __init__(self, path: Path, render_size: tuple[int, int], parent: QObject | None = None):
        super().__init__(parent)
        reason = vlc_unavailable_reason()
        if reason:
            raise RuntimeError(reason)
        self.path = path
        self._lock = threading.Lock()
        self.delivered = 0
        self.dropped = 0
        self._serial = 0
        self._fresh = False  # a picture is waiting in the ready slot
        self._signalled = False  # frame_ready was emitted and take() has not run since
        self.player = _instance.media_player_new()
        # keep references: libVLC calls these for as long as the player lives
        self._cb_lock = vlc.CallbackDecorators.VideoLockCb(self._on_lock)
        self._cb_display = vlc.CallbackDecorators.VideoDisplayCb(self._on_display)
        # no unlock callback (libVLC allows NULL): one call into Python less per picture, each of which
        # waits for the interpreter lock
        self.player.video_set_callbacks(self._cb_lock, None, self._cb_display, None)
        self.set_render_size(render_size)
        events = self.player.event_manager()
        self._cb_end = lambda _e: self.ended.emit()
        self._cb_err = lambda _e: self.error.emit(f"{path.name}: libVLC could not play the file")
        events.event_attach(vlc.EventType.MediaPlayerEndReached, self._cb_end)
        events.event_attach(vlc.EventType.MediaPlayerEncounteredError, self._cb_err)

    def set_render_size(self, size: tuple[int, int]) -> None:
        """Scale pictures to ``size`` (W, H) pixels from the next ``play_from`` on; call while stopped."""
        w, h = max(2, int(size[0])) & ~1, max(2, int(size[1])) & ~1  # even sizes: libVLC's chroma converters
        self.render_size = (w, h)
        self._bufs = [(ctypes.c_ubyte * (w * h * 4))() for _ in range(3)]
        self._ptrs = [ctypes.cast(b, ctypes.c_void_p) for b in self._bufs]
        # the images share the buffers' memory (no copy); _bufs keeps the memory alive as long as they are
        self._images = [QImage(memoryview(b), w, h, 4 * w, QImage.Format.Format_RGB32) for b in self._bufs]
        self._front, self._ready, self._back = 0, 1, 2
        self._fresh = self._signalled = False
        self.player.video_set_format("RV32", w, h, w * 4)

    def _on_lock(self, _opaque, planes):  # noqa: ANN001, ANN202 - ctypes callback
        with self._lock:
            planes[0] = self._ptrs[self._back]
        return None

    def _on_display(self, _opaque, _picture):  # noqa: ANN001, ANN202 - ctypes callback
        # never call into libVLC from its own callback thread: stop() on the GUI thread waits for this
        # thread, and get_time() here would wait for stop(); the receiver asks for the time instead
        with self._lock:
            self._back, self._ready = self._ready, self._back
            self.delivered += 1
            self._serial += 1
            if self._fresh:
                self.dropped += 1  # the picture waiting was never taken: this one replaces it
            self._fresh = True
            signal = not self._signalled
            self._signalled = True
        if signal:  # one queued signal at a time: a busy GUI thread never gets a backlog of them
            self.frame_ready.emit()

    def take(self) -> tuple[QImage, int] | None:
        """The newest displayed picture and its serial number (1, 2, ... since ``play_from``), or None when
        nothing new arrived. The image stays unchanged until the next ``take``; copy it to keep it longer."""
        with self._lock:
            self._signalled = False
            if not self._fresh:
                return None
            self._front, self._ready = self._ready, self._front
            self._fresh = False
            return self._images[self._front], self._serial

    def play_from(self, seconds: float, rate: float = 1.0, muted: bool = False) -> None:
        """Start playing at ``seconds`` from the start of the stream, at ``rate`` (0.1 to 4)."""
        media = _instance.media_new_path(str(self.path))
        media.add_option(f":start-time={max(0.0, seconds):.3f}")
        with self._lock:
            self.delivered = self.dropped = self._serial = 0
            self._fresh = self._signalled = False
        self.player.set_media(media)
        self.player.audio_set_mute(muted)
        self.player.play()
        self.player.set_rate(rate)

    def set_rate(self, rate: float) -> None:
        self.player.set_rate(rate)

    def set_muted(self, muted: bool) -> None:
        self.player.audio_set_mute(muted)

    def time_s(self) -> float:
        """Current playback time in seconds from the start of the stream (0 before the first frame)."""
        return max(0.0, self.player.get_time() / 1000.0)

    def stop(self) -> None:
        """Stop playing; safe to call twice."""
        self.player.stop()

    def release(self) -> None:
        self.player.stop()
        self.player.release()
