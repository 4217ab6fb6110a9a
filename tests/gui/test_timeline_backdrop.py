"""The timeline's ruler and thumbnail strip, kept painted (``Timeline._backdrop``): a move of the playhead paints
neither again, a change of what they show does, and the timeline shows the same pixels as one painted afresh."""

from __future__ import annotations

from PySide6.QtGui import QColor, QImage

from fieldstudio.gui.timeline import Timeline

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
