"""The transport bar under the video: play, speed, mute, loop and the timeline zoom."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QStyle, QToolButton, QWidget

from fieldstudio.gui.imaging import format_pts
from fieldstudio.gui.viewer.video_controller import SPEEDS


class ElidingLabel(QLabel):
    """A one-line label that may be narrower than its text: the text then ends in "…". Its minimum width is
    a few characters, so a long read-out never widens the window (the position read-out's full width pushed a
    1280 px window past a laptop's screen once a video opened)."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.fontMetrics().horizontalAdvance("frame 0000…")), hint.height())

    def paintEvent(self, event) -> None:  # noqa: ANN001 - QPaintEvent
        painter = QPainter(self)
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(self.alignment()), text)


class TransportBar(QWidget):
    """Buttons bound to the window's actions, a speed box and the position read-out.

    Signal ``speed_chosen(rate)``.
    """

    speed_chosen = Signal(float)

    def __init__(self, actions: dict, parent: QWidget | None = None):  # noqa: ANN001 - QAction by id
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(4)  # beside a 1280 px window's docks the whole read-out still fits, not elided
        sp = QStyle.StandardPixmap
        icons = {"prev_10s": sp.SP_MediaSeekBackward, "prev_frame": sp.SP_MediaSkipBackward,
                 "play": sp.SP_MediaPlay, "next_frame": sp.SP_MediaSkipForward, "next_10s": sp.SP_MediaSeekForward,
                 "mute": sp.SP_MediaVolume, "loop_toggle": sp.SP_BrowserReload}
        self._icons = {k: self.style().standardIcon(v) for k, v in icons.items()}
        self._pause_icon = self.style().standardIcon(sp.SP_MediaPause)
        for aid in ("prev_10s", "prev_frame", "play", "next_frame", "next_10s"):
            b = QToolButton()
            b.setDefaultAction(actions[aid])
            actions[aid].setIcon(self._icons[aid])
            b.setAutoRaise(True)
            layout.addWidget(b)
            if aid == "play":
                self.play_button = b
        self.speed = QComboBox()
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}x", s)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.setToolTip("Playback speed (J/K/L shuttle also changes it)")
        self.speed.currentIndexChanged.connect(lambda i: self.speed_chosen.emit(self.speed.itemData(i)))
        layout.addWidget(self.speed)
        self.mode = QLabel("paused")
        self.mode.setObjectName("play_mode")
        self.mode.setToolTip("Paused, or playing at a speed (a minus: backward, J)")
        layout.addWidget(self.mode)
        for aid in ("mute", "loop_toggle"):
            b = QToolButton()
            b.setDefaultAction(actions[aid])
            actions[aid].setIcon(self._icons[aid])
            b.setAutoRaise(True)
            layout.addWidget(b)
        self.position = ElidingLabel("")
        self.position.setToolTip("Frame index and PTS time of the frame shown")
        layout.addWidget(self.position, 1)
        self.index_source = ElidingLabel("")
        self.index_source.setObjectName("index_source")
        layout.addWidget(self.index_source)
        for aid, text in (("timeline_zoom_out", "−"), ("timeline_zoom_in", "+")):
            # the button shows the action's icon text: set on the action, it survives the action's changes
            # (setText on the button was overwritten by the action's full text when it was disabled)
            actions[aid].setIconText(text)
            b = QToolButton()
            b.setDefaultAction(actions[aid])
            b.setAutoRaise(True)
            layout.addWidget(b)

    def clear_position(self) -> None:
        """No video shown (a photo or a document): no frame read-out."""
        self.position.setText("")
        self.set_index_source(None)

    def set_index_source(self, status: str | None) -> None:
        """Say which frame index the frame numbers come from: the packet index (from the container, until
        the decoded index has verified it) or the decoded index."""
        if status == "packets":
            self.index_source.setText("packet index · verifying")
            self.index_source.setToolTip("Frame numbers come from the container's packets (no decoding yet). The "
                                         "decoded index verifies them in the background; annotations stay on "
                                         "their pictures if it differs.")
        elif status == "ready":
            self.index_source.setText("decoded index")
            self.index_source.setToolTip("Frame numbers come from decoding every frame (verified)")
        else:
            self.index_source.setText("")
            self.index_source.setToolTip("")

    def show_still(self, text: str) -> None:
        """A photo or a document: the buttons disabled and ``text`` (neutral, no frame numbers) instead
        of the position."""
        self.setEnabled(False)
        self.position.setText(text)
        self.set_index_source(None)  # the video shown before had one; a photo has no frame index

    def set_playing(self, playing: bool) -> None:
        self.play_button.defaultAction().setIcon(self._pause_icon if playing else self._icons["play"])

    def set_mode(self, text: str) -> None:
        """``paused``, ``playing 2x``, ``playing -1x``: what the transport does, beside the speed box."""
        self.mode.setText(text)

    def set_speed(self, rate: float) -> None:
        best = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - rate))
        self.speed.blockSignals(True)
        self.speed.setCurrentIndex(best)
        self.speed.blockSignals(False)

    def set_position(self, index: int, count: int, seconds: float, duration: float | None) -> None:
        self.position.setText(f"frame {index} / {max(count - 1, 0)}   {format_pts(seconds)} / {format_pts(duration)}")
