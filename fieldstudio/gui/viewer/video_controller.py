"""What the transport controls do to a video: step, seek, play, shuttle, loop; and what is shown.

Paused or stepping, the canvas shows the exact frame the frame table names at the current index, and
that index and its PTS are what the status bar reports and what an annotation attaches to. Playing,
libVLC (or, without it, the frame decoder) paces the frames; on pause the exact frame at the reached
index is decoded and shown (DESIGN.md, "Playback").
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QImage

from fieldstudio.gui.viewer.canvas import Canvas
from fieldstudio.gui.viewer.frame_loader import FrameLoader
from fieldstudio.gui.viewer.vlc_playback import VlcPlayback, vlc_unavailable_reason

if TYPE_CHECKING:
    from fieldstudio.media.frame_table import FrameTable
    from fieldstudio.store.models import Media

log = logging.getLogger(__name__)

SPEEDS = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 4.0)
_DECODER_TICK_MS = 10
#: While libVLC plays, the position (status bar, timeline, ViewState) follows the picture at most this often:
#: every picture is drawn, but the widgets that read the position need not repaint 30 times a second.
POSITION_INTERVAL_S = 0.1
#: After a resize or zoom, libVLC's picture size follows once the view has been still for this long.
_RESIZE_SETTLE_MS = 250


class VideoController(QObject):
    """Transport for the video shown in ``canvas``; frames come from ``loader``.

    Signals: ``decoding(index)`` when the exact frame ``index`` is asked of the decoder (a pause, a step, a
    release of the playhead); ``frame_shown(index, seconds, exact)`` after the canvas changed (``exact`` is False for
    scrubbing previews and frames shown while playing; while libVLC plays, at most every
    ``POSITION_INTERVAL_S`` although every picture is drawn), ``playing_changed(bool)``, ``notice(str)``
    for the status bar, ``media_changed()``, ``mode_changed(text, rate)`` when playing starts or stops or the
    speed or direction changes (``text`` as :meth:`mode_text` says it, ``rate`` the speed, 0.1 to 4).

    While libVLC plays, its pictures are scaled by libVLC to the size the frame takes on screen
    (``Canvas.render_size``, followed after a resize or zoom) and drawn without a copy;
    ``playback_stats()`` counts what was delivered and shown.
    """

    decoding = Signal(int)
    frame_shown = Signal(int, float, bool)
    playing_changed = Signal(bool)
    notice = Signal(str)
    media_changed = Signal()
    mode_changed = Signal(str, float)

    def __init__(self, canvas: Canvas, loader: FrameLoader, parent: QObject | None = None):
        super().__init__(parent)
        self.canvas, self.loader = canvas, loader
        self.media: Media | None = None
        self.table: FrameTable | None = None
        # the frame asked for: decoding, or on screen once decoded. The frame on screen is the window's
        # ViewState.frame_index (set from ``frame_shown``); nothing else keeps a copy of it.
        self.target = 0
        self.rate = 1.0
        self.muted = False
        self.loop: tuple[int, int] | None = None
        self.loop_enabled = False
        self._direction = 0  # 0 paused, +1 forward, -1 reverse
        self._vlc: VlcPlayback | None = None
        self._vlc_warned = False
        self._vlc_anchor: tuple[float, float, float] | None = None  # (wall clock, media s, reported s)
        self._vlc_start = 0.0
        self._picture_at: float | None = None  # wall clock when libVLC's newest picture went on the canvas
        self._shown_token = 0
        self._on_canvas = 0  # the request whose picture the canvas was given last (_on_frame)
        self._timer = QTimer(self)
        self._timer.setInterval(_DECODER_TICK_MS)
        self._timer.timeout.connect(self._decoder_tick)
        self._play_start = (0.0, 0.0)  # (wall clock, media seconds)
        self._decoded_index = -1  # the last frame the decoder (not libVLC) drew: playing backward asks for the next
        self._position_at = 0.0  # wall clock of the last frame_shown while libVLC plays
        self._counts = [0, 0]  # pictures libVLC delivered and dropped before they were taken, earlier runs
        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(_RESIZE_SETTLE_MS)
        self._resize_timer.timeout.connect(self._follow_view_size)
        canvas.zoom_changed.connect(self._view_size_changed)
        loader.frame_ready.connect(self._on_frame)
        loader.detail_ready.connect(self._on_detail)
        canvas.picture_painted.connect(self._picture_painted)  # a method: the canvas outlives this controller
        loader.failed.connect(self._on_failed)

    # --- media -----------------------------------------------------------------------------------
    def open(self, media: Media, table: FrameTable, index: int = 0) -> None:
        """Show ``media`` (a video whose frame table is ``table``) at frame ``index``."""
        self.pause(show_exact=False)
        self._release_vlc()
        self.media, self.table = media, table
        self.loop, self.loop_enabled = None, False
        self.target = min(max(0, index), len(table) - 1)
        self._decoded_index = -1
        self.media_changed.emit()
        self.show_index(self.target)

    def close(self) -> None:
        self.pause(show_exact=False)
        self._release_vlc()
        self.media = self.table = None

    @property
    def frame_count(self) -> int:
        return len(self.table) if self.table is not None else 0

    def seconds(self, index: int | None = None) -> float:
        """PTS in seconds of ``index`` (default the current frame)."""
        return self.table.seconds(self.target if index is None else index) if self.table else 0.0

    @property
    def playing(self) -> bool:
        return self._direction != 0

    # --- exact positioning -----------------------------------------------------------------------
    def show_index(self, index: int, *, exact: bool = True) -> None:
        """Go to frame ``index`` (clamped); decode it exactly, or its keyframe for a live preview.

        Either is made at the size it takes on screen; an exact frame's full-resolution picture follows it
        (``FrameLoader.detail_ready``)."""
        if self.table is None:
            return
        self.target = min(max(0, index), len(self.table) - 1)
        self._shown_token = self.loader.request(self.media.id, self.target, exact=exact, media=self.media,
                                                within=self.canvas.render_size(self._full_size()))
        if exact:
            self.decoding.emit(self.target)

    def step(self, frames: int) -> None:
        """Pause and move ``frames`` frames (negative: back)."""
        if self.playing:
            self.pause(show_exact=False)
        self.show_index(self.target + frames)

    def step_seconds(self, seconds: float) -> None:
        """Pause and move by ``seconds`` of PTS time (to the frame shown at that time)."""
        if self.table is None:
            return
        if self.playing:
            self.pause(show_exact=False)
        target = self.seconds() + seconds
        self.show_index(self.table.index_at(target))

    def seek_seconds(self, seconds: float) -> None:
        """Go to the frame shown at PTS ``seconds``."""
        if self.table is not None:
            self.show_index(self.table.index_at(seconds))

    def preview_index(self, index: int) -> None:
        """Live preview while the playhead is dragged (the keyframe at or before ``index``)."""
        if self.playing:
            self.pause(show_exact=False)
        self.show_index(index, exact=False)

    # --- playing ---------------------------------------------------------------------------------
    def toggle_play(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def play(self, direction: int = 1) -> None:
        """Play forward (``direction`` 1) through libVLC when it is available, else through the decoder.

        Reverse play (J) always uses the decoder: libVLC cannot play backwards.
        """
        if self.table is None:
            return
        if self.playing:
            if direction == self._direction:
                return
            self.pause(show_exact=False)
        if direction > 0 and self.target >= len(self.table) - 1:
            self.target = self._loop_start()
        self._direction = direction
        self._play_start = (time.monotonic(), self.seconds())
        self._counts = [0, 0]
        self.canvas.video_item.reset_count()
        if not (direction > 0 and self._start_vlc()):
            self._timer.start()
        self.playing_changed.emit(True)
        self._mode_changed()

    def pause(self, *, show_exact: bool = True) -> None:
        """Stop playing; the exact frame at the reached index is decoded and shown."""
        if not self.playing:
            return
        self._timer.stop()
        self._resize_timer.stop()
        if self._vlc is not None:
            reached = self._vlc_clock() if self._vlc_anchor is not None else None
            self._stop_vlc()
            if reached is not None:
                self.target = self.table.index_at(self.table.seconds(0) + reached)
        self._direction = 0
        self.playing_changed.emit(False)
        self._mode_changed()  # "playing 1x" must not outlive the playing in the status bar
        if show_exact:
            self.show_index(self.target)

    def shuttle(self, key: str) -> None:
        """J/K/L: K pauses; L plays forward, again doubles the speed; J plays backwards likewise."""
        if key == "k":
            self.pause()
            return
        direction = 1 if key == "l" else -1
        if self._direction == direction:
            self.set_rate(min(4.0, self.rate * 2))
        else:
            self.set_rate(1.0)
            self.play(direction)

    def set_rate(self, rate: float) -> None:
        """Playback speed, 0.1x to 4x."""
        rate = min(4.0, max(0.1, rate))
        if self.playing:
            self._play_start = (time.monotonic(), self.seconds())
            if self._vlc is not None and self._vlc_anchor is not None:
                self._vlc_anchor = (time.monotonic(), self._vlc_clock(), self._vlc.time_s())
        self.rate = rate
        if self._vlc is not None and self.playing:
            self._vlc.set_rate(rate)
        if self.playing:
            self._mode_changed()
        else:
            self.notice.emit(f"speed {rate:g}x")
            self.mode_changed.emit(self.mode_text(), self.rate)

    def rate_text(self) -> str:
        """Direction and speed as the status bar shows them: ``2x`` forward, ``-2x`` backward."""
        return f"{'-' if self._direction < 0 else ''}{self.rate:g}x"

    def mode_text(self) -> str:
        """What the transport is doing: ``paused``, ``playing 2x`` or ``playing -1x`` (backward)."""
        return f"playing {self.rate_text()}" if self.playing else "paused"

    def _mode_changed(self) -> None:
        self.notice.emit(self.mode_text())
        self.mode_changed.emit(self.mode_text(), self.rate)

    def playback_stats(self) -> dict[str, int]:
        """Pictures since play started: ``delivered`` by libVLC, ``shown`` (painted by the canvas) and
        ``dropped`` (replaced by a newer picture before the canvas took them). All 0 with the decoder."""
        delivered, dropped = self._counts
        if self._vlc is not None:
            delivered, dropped = delivered + self._vlc.delivered, dropped + self._vlc.dropped
        return {"delivered": delivered, "shown": self.canvas.video_item.painted, "dropped": dropped}

    def set_muted(self, muted: bool) -> None:
        self.muted = muted
        if self._vlc is not None:
            self._vlc.set_muted(muted)

    # --- loop ------------------------------------------------------------------------------------
    def set_loop_start(self) -> None:
        end = self.loop[1] if self.loop else self.frame_count - 1
        self.loop = (self.target, max(self.target, end))
        self.loop_enabled = True
        self.notice.emit(f"loop {self.loop[0]}–{self.loop[1]}")

    def set_loop_end(self) -> None:
        start = self.loop[0] if self.loop else 0
        self.loop = (min(start, self.target), self.target)
        self.loop_enabled = True
        self.notice.emit(f"loop {self.loop[0]}–{self.loop[1]}")

    def toggle_loop(self) -> None:
        if self.loop is None:
            self.loop = (0, max(0, self.frame_count - 1))
        self.loop_enabled = not self.loop_enabled
        self.notice.emit(f"loop {'on' if self.loop_enabled else 'off'}")

    def _loop_start(self) -> int:
        return self.loop[0] if (self.loop and self.loop_enabled) else 0

    # --- backends --------------------------------------------------------------------------------
    def _start_vlc(self) -> bool:
        from fieldstudio.media import library

        reason = vlc_unavailable_reason()
        if reason:
            if not self._vlc_warned:
                self._vlc_warned = True
                self.notice.emit(f"{reason}: playing from the frame decoder, less smoothly")
            return False
        self.loader.free_memory()  # the exact-frame cache is idle until pause; libVLC needs the memory
        size = self.canvas.render_size(self._full_size())
        if self._vlc is None:
            try:
                path = library.require_file(self.loader.source.project, self.media)
                self._vlc = VlcPlayback(path, size, self)
            except Exception as exc:  # noqa: BLE001 - fall back to the decoder, say why once
                log.warning("libVLC playback unavailable: %s", exc)
                if not self._vlc_warned:
                    self._vlc_warned = True
                    self.notice.emit(f"libVLC cannot play this file ({exc}); using the frame decoder")
                return False
            self._vlc.frame_ready.connect(self._on_vlc_frame)
            # emitted on libVLC's thread; Qt queues it to this object's (the GUI) thread
            self._vlc.ended.connect(self._finish_at_end)
            self._vlc.error.connect(self.notice)
        elif size != self._vlc.render_size:
            self._vlc.set_render_size(size)
        self._play_vlc_from(self.seconds() - self.table.seconds(0))
        return True

    def _full_size(self) -> tuple[int, int]:
        """Upright full-resolution (W, H) of the video: what the scene's pixels are."""
        return (self.media.width or 0, self.media.height or 0)

    def _play_vlc_from(self, start: float) -> None:
        self._vlc_anchor = None
        self._picture_at = None
        self._vlc_start = start
        self._position_at = 0.0
        self._vlc.play_from(start, self.rate, self.muted)

    def _stop_vlc(self) -> None:
        """Stop libVLC, keeping its counts for ``playback_stats``."""
        self._vlc.stop()
        self._counts[0] += self._vlc.delivered
        self._counts[1] += self._vlc.dropped
        self._vlc.delivered = self._vlc.dropped = 0

    def _view_size_changed(self, _zoom: float) -> None:
        if self._vlc is not None and self._direction > 0:
            self._resize_timer.start()

    def _follow_view_size(self) -> None:
        """Resized or zoomed while playing: libVLC scales to the new size from the picture reached on."""
        if self._vlc is None or self._direction <= 0 or self.table is None:
            return
        size = self.canvas.render_size(self._full_size())
        if size == self._vlc.render_size:
            return
        reached = self._vlc_clock() if self._vlc_anchor is not None else self._vlc_start
        self._stop_vlc()
        self._vlc.set_render_size(size)
        self._play_vlc_from(reached)

    def played_frame(self) -> int | None:
        """While libVLC plays: the index of the picture on the canvas, the frame its clock had reached when that
        picture was drawn (libVLC's pictures carry no PTS, and the position the window reports follows only every
        ``POSITION_INTERVAL_S``); None when libVLC is not playing (the frame shown is then the state's)."""
        if self.table is None or self._vlc is None or self._direction <= 0 or self._picture_at is None \
                or self._vlc_anchor is None:
            return None
        wall, base, _reported = self._vlc_anchor
        return self.table.index_at(self.table.seconds(0) + base + (self._picture_at - wall) * self.rate)

    def _vlc_clock(self) -> float:
        """Playback time (s from the stream start) of the picture libVLC is showing.

        libVLC updates ``get_time`` only every few hundred milliseconds, so the time is carried forward
        from its last change by the wall clock at the playback rate; before its first change it runs
        from the first displayed picture.
        """
        now = time.monotonic()
        reported = self._vlc.time_s()
        if self._vlc_anchor is None:
            self._vlc_anchor = (now, self._vlc_start, reported)
        wall, base, last_reported = self._vlc_anchor
        if reported > 0 and reported != last_reported:
            self._vlc_anchor = (now, reported, reported)
            return reported
        return base + (now - wall) * self.rate

    def _release_vlc(self) -> None:
        if self._vlc is not None:
            self._vlc.release()
            self._vlc.deleteLater()
            self._vlc = None

    def _on_vlc_frame(self) -> None:
        if self._direction <= 0 or self.table is None or self._vlc is None:
            return  # a frame that arrived after pause
        taken = self._vlc.take()
        if taken is None:
            return
        self.canvas.set_video_frame(taken[0], taken[1], self._full_size())
        now = self._picture_at = time.monotonic()
        report = now - self._position_at >= POSITION_INTERVAL_S
        if not (report or (self.loop_enabled and self.loop)):
            return  # the position is read from libVLC only when it is shown or a loop end may be reached
        index = self.table.index_at(self.table.seconds(0) + self._vlc_clock())
        if self.loop_enabled and self.loop and index > self.loop[1]:
            self._stop_vlc()
            self.target = self.loop[0]
            self._play_vlc_from(self.seconds() - self.table.seconds(0))
            return
        self.target = index
        if report:
            self._position_at = now
            self.frame_shown.emit(index, self.seconds(index), False)

    def _finish_at_end(self) -> None:
        if not self.playing:
            return
        if self.loop_enabled and self.loop:
            self.target = self.loop[0]
            self._play_vlc_from(self.seconds() - self.table.seconds(0))
            return
        self._stop_vlc()
        self._direction = 0
        self.target = len(self.table) - 1
        self.playing_changed.emit(False)
        self.show_index(self.target)

    def _decoder_tick(self) -> None:
        if self.table is None or not self.playing:
            self._timer.stop()
            return
        wall0, media0 = self._play_start
        target = media0 + self._direction * (time.monotonic() - wall0) * self.rate
        index = self.table.index_at(target)  # clamped to the video, so the range end is tested in time
        lo, hi = (self.loop if (self.loop and self.loop_enabled) else (0, len(self.table) - 1))
        past_end = self._direction > 0 and target >= self._end_of(hi)
        if past_end or (self._direction < 0 and target < self.seconds(lo)):
            if self.loop_enabled and self.loop:
                index = lo if self._direction > 0 else hi
                self._play_start = (time.monotonic(), self.table.seconds(index))
            else:
                self.target = hi if self._direction > 0 else lo
                self._timer.stop()
                self._direction = 0
                self.playing_changed.emit(False)
                self.show_index(self.target)
                return
        if self.loader.idle() and index != self._decoded_index:
            self.target = index
            self._shown_token = self.loader.request(self.media.id, index, exact=True, media=self.media)

    def _end_of(self, index: int) -> float:
        """PTS seconds at which frame ``index`` stops being shown: the next frame's PTS, or for the last
        frame its PTS plus the previous frame's duration."""
        if index + 1 < len(self.table):
            return self.seconds(index + 1)
        if index > 0:
            return 2 * self.seconds(index) - self.seconds(index - 1)
        return self.seconds(index)

    # --- results ---------------------------------------------------------------------------------
    def _on_frame(self, token: int, media_id: str, index: int, exact: bool, image: QImage) -> None:
        if self.media is None or media_id != self.media.id or token != self._shown_token:
            return
        if self._vlc is not None and self._direction > 0:
            return  # libVLC is drawing
        self.canvas.set_image(image, (self.media.width, self.media.height), keep_view=True)
        self._on_canvas = token
        if not self.canvas.isVisible():
            self.loader.picture_shown(token)  # no paint will come: the full-resolution picture need not wait
        self._decoded_index = index
        self.frame_shown.emit(index, self.table.seconds(index), exact and not self.playing)

    def _picture_painted(self) -> None:
        # the request whose picture was painted, not the newest: that one's full picture must wait for its own paint
        self.loader.picture_shown(self._on_canvas)

    def _on_detail(self, token: int, media_id: str, index: int, image: QImage) -> None:
        if self.media is None or media_id != self.media.id or token != self._shown_token or index != self._decoded_index:
            return
        if self._vlc is not None and self._direction > 0:
            return  # libVLC is drawing
        self.canvas.set_detail(image)

    def _on_failed(self, token: int, media_id: str, message: str) -> None:
        if self.media is not None and media_id == self.media.id:
            self.notice.emit(message)
