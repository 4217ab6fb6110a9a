"""The timeline's ruler and thumbnail strip, kept painted (``Timeline._backdrop``): a move of the playhead paints
neither again, a change of what they show does, and the timeline shows the same pixels as one painted afresh."""

from __future__ import annotations

import math

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from fieldstudio.gui.timeline import RULER_H, STRIP_H, Timeline

FRAMES = 1800


def _thumbs(shade: int) -> list[tuple[int, QImage]]:
    out = []
    for k, index in enumerate(range(0, FRAMES, 75)):
        image = QImage(80, 45, QImage.Format.Format_RGB32)
        image.fill(QColor((shade + 37 * k) % 256, (90 + 11 * k) % 256, 140))
        out.append((index, image))
    return out


def _timeline(qtbot, index: int, shade: int = 0) -> Timeline:  # noqa: ANN001 - pytest-qt's qtbot
    timeline = Timeline()
    qtbot.addWidget(timeline)
    timeline.resize(1100, timeline.height())
    timeline.set_video([f / 30 for f in range(FRAMES)])
    timeline.set_thumbnails(_thumbs(shade))
    timeline.set_index(index)
    return timeline


def test_a_playhead_move_paints_the_ruler_and_strip_only_when_they_change(qtbot, monkeypatch):
    timeline = _timeline(qtbot, 100)
    painted: list[int] = []
    real = Timeline._paint_strip
    monkeypatch.setattr(Timeline, "_paint_strip", lambda self, p: (painted.append(1), real(self, p)))
    timeline.grab()
    assert len(painted) == 1
    for index in (150, 900, 1700):
        timeline.set_index(index)
        timeline.grab()
    assert len(painted) == 1
    timeline.set_thumbnails(_thumbs(60))         # new thumbnails
    timeline.grab()
    assert len(painted) == 2
    timeline.zoom(4.0)                           # another view of the time axis
    timeline.grab()
    assert len(painted) == 3
    timeline.resize(900, timeline.height())      # another width
    timeline.grab()
    assert len(painted) == 4
    timeline.set_loop((200, 400))                # the loop's band is on the ruler
    timeline.grab()
    assert len(painted) == 5


def test_the_kept_backdrop_shows_what_a_fresh_paint_shows(qtbot):
    moved = _timeline(qtbot, 100)
    moved.grab()
    moved.set_thumbnails(_thumbs(60))
    moved.grab()
    for index in (700, 1200):
        moved.set_index(index)
        moved.grab()
    fresh = _timeline(qtbot, 1200, shade=60)
    a, b = moved.grab().toImage(), fresh.grab().toImage()
    assert a.size() == b.size()
    assert a == b
    # and the strip does show the thumbnails: the second set is not the first
    assert _timeline(qtbot, 1200, shade=0).grab().toImage() != a


def test_the_backdrop_covers_the_ruler_and_strip_at_a_fractional_scale(qtbot, monkeypatch):
    # At 150 % and 175 % a widget's edge falls inside a screen pixel: a picture rounded down to whole pixels left
    # the strip's last row (every width at 175 %) or column (odd widths at 150 %) in the timeline's background
    # colour, where a fresh paint covers it.
    for dpr in (1.25, 1.5, 1.75, 2.5):
        timeline = _timeline(qtbot, 0)
        timeline.resize(863, timeline.height())
        monkeypatch.setattr(timeline, "devicePixelRatioF", lambda dpr=dpr: dpr)
        size = timeline._backdrop().deviceIndependentSize()
        assert size.width() >= timeline.width() and size.height() >= RULER_H + STRIP_H, dpr
        shown, painted = (QImage(math.ceil(timeline.width() * dpr), math.ceil(timeline.height() * dpr),
                                 QImage.Format.Format_RGB32) for _ in range(2))
        for image in (shown, painted):
            image.setDevicePixelRatio(dpr)
        timeline.render(shown)
        p = QPainter(painted)          # the ruler and strip painted straight on, as before they were kept
        p.setFont(timeline.font())
        p.setClipRect(QRectF(timeline.rect()))  # a widget's painter is clipped to the widget
        p.fillRect(QRectF(timeline.rect()), QColor("#2b2d31"))
        timeline._paint_ruler(p, timeline.width())
        timeline._paint_strip(p)
        p.end()
        # right of the playhead; the last column, which the widget's edge cuts, is left to the size's check above
        band = QRect(20, 0, shown.width() - 21, math.ceil((RULER_H + STRIP_H) * dpr))
        assert shown.copy(band) == painted.copy(band), dpr


def test_the_playhead_and_loop_set_again_where_they_are_paint_nothing(qtbot):
    """The frame shown after a release is where the release put the playhead: setting it there again (and the loop
    as it is) schedules no paint, which was 0.6 ms of the paint that brings that frame to the screen; a move does."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    timeline = _timeline(qtbot, 100)
    timeline.set_loop((200, 400))
    timeline.show()
    qtbot.waitExposed(timeline)

    class Paints(QObject):
        count = 0

        def eventFilter(self, _obj, event):  # noqa: ANN001, ANN201, N802 - Qt override
            if event.type() == QEvent.Type.Paint:
                self.count += 1
            return False

    paints = Paints()
    timeline.installEventFilter(paints)
    QApplication.processEvents()
    paints.count = 0
    timeline.set_index(100)
    timeline.set_loop((200, 400))
    QApplication.processEvents()
    assert paints.count == 0
    timeline.set_index(101)
    QApplication.processEvents()
    assert paints.count == 1
    timeline.set_loop(None)
    QApplication.processEvents()
    assert paints.count == 2
