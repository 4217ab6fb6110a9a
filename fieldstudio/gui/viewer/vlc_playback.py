"""Smooth playback with audio through libVLC, rendered into our own canvas by video callbacks.

libVLC decodes and paces the video; its frames arrive in a buffer we own (RV32, i.e. B, G, R, X bytes
per pixel on little-endian machines, Qt's Format_RGB32) and are drawn into the same QGraphicsView as
the annotations, so overlays stay on top while playing (DESIGN.md, "Playback"). When paused, the window
shows the exact decoded frame instead; this module never decides which frame an annotation belongs to.

python-vlc callbacks run on libVLC's threads: they only copy the buffer and emit a Qt signal.

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


def vlc_unavailable_reason() -> str | None:
    """None when libVLC can play; otherwise why not (shown once to the user)."""
    global _instance
    if os.environ.get("FIELDSTUDIO_NO_VLC"):
        return "libVLC is switched off (FIELDSTUDIO_NO_VLC is set)"
    if _load_vlc() is None:
        return f"libVLC could not be loaded ({_IMPORT_ERROR})"
    if _instance is None:
        try:
            _instance = vlc.Instance(["--quiet", "--no-video-title-show", "--no-xlib", "--no-snapshot-preview"])
        except Exception as exc:  # noqa: BLE001 - any libVLC failure means: use the decoder instead
            return f"libVLC could not start ({exc})"
        if _instance is None:
            return "libVLC could not start (no plugins found)"
    return None


class VlcPlayback(QObject):
    """Plays one video file through libVLC into images.

    ``width``, ``height`` are the stream's coded display size in pixels (before rotation);
    ``rotation`` is the stream's counter-clockwise display rotation, as in ``Media.rotation``. libVLC
    applies it, so frames arrive upright: ``frame_size`` (W, H) is the upright size.
    Signals: ``frame(image)`` for each displayed picture (read ``time_s()`` on the receiving thread),
    ``ended()``, ``error(message)``.
    """

    frame = Signal(QImage)
    ended = Signal()
    error = Signal(str)

    def __init__(self, path: Path, width: int, height: int, rotation: int = 0, parent: QObject | None = None):
        super().__init__(parent)
        reason = vlc_unavailable_reason()
        if reason:
            raise RuntimeError(reason)
        self.path = path
        self.frame_size = (height, width) if rotation % 180 else (width, height)
        width, height = self.frame_size
        self._buf = (ctypes.c_ubyte * (width * height * 4))()
        self._buf_ptr = ctypes.cast(self._buf, ctypes.c_void_p)
        self._lock = threading.Lock()
        self.player = _instance.media_player_new()
        # keep references: libVLC calls these for as long as the player lives
        self._cb_lock = vlc.CallbackDecorators.VideoLockCb(self._on_lock)
        self._cb_unlock = vlc.CallbackDecorators.VideoUnlockCb(self._on_unlock)
        self._cb_display = vlc.CallbackDecorators.VideoDisplayCb(self._on_display)
        self.player.video_set_callbacks(self._cb_lock, self._cb_unlock, self._cb_display, None)
        self.player.video_set_format("RV32", width, height, width * 4)
        events = self.player.event_manager()
        self._cb_end = lambda _e: self.ended.emit()
        self._cb_err = lambda _e: self.error.emit(f"{path.name}: libVLC could not play the file")
        events.event_attach(vlc.EventType.MediaPlayerEndReached, self._cb_end)
        events.event_attach(vlc.EventType.MediaPlayerEncounteredError, self._cb_err)

    def _on_lock(self, _opaque, planes):  # noqa: ANN001, ANN202 - ctypes callback
        self._lock.acquire()
        planes[0] = self._buf_ptr
        return None

    def _on_unlock(self, _opaque, _picture, _planes):  # noqa: ANN001, ANN202 - ctypes callback
        self._lock.release()

    def _on_display(self, _opaque, _picture):  # noqa: ANN001, ANN202 - ctypes callback
        w, h = self.frame_size
        with self._lock:  # libVLC rotated the picture already; one copy out of its buffer
            image = QImage(memoryview(self._buf), w, h, 4 * w, QImage.Format.Format_RGB32).copy()
        # never call into libVLC from its own callback thread: stop() on the GUI thread waits for this
        # thread, and get_time() here would wait for stop(); the receiver asks for the time instead
        self.frame.emit(image)

    def play_from(self, seconds: float, rate: float = 1.0, muted: bool = False) -> None:
        """Start playing at ``seconds`` from the start of the stream, at ``rate`` (0.1 to 4)."""
        media = _instance.media_new_path(str(self.path))
        media.add_option(f":start-time={max(0.0, seconds):.3f}")
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
