"""The behaviour lanes' kept layers (gui/behaviour_lane_paint.py): a key press paints again only the columns of the
marks it changed, and the timeline then shows the same pixels as one painted afresh."""

from __future__ import annotations

from PySide6.QtGui import QImage

from fieldstudio.gui.timeline import EventMarker, Lane, SegmentMarker, Timeline

FRAMES = 3600


def _lanes(extra_bar: bool = False, stop_running: bool = False, extra_tick: bool = False) -> list[Lane]:
    """Two subjects' lanes, dense as an hour's coding on 2 minutes: a closed bar every 3 frames in the first
    half, a tick between, one running state."""
    colours = ("#e6194b", "#3cb44b")
    lanes = []
    for s, subject in enumerate(("A", "B")):
        bars = [SegmentMarker(f, f + 1, colours[(f // 3) % 2], ("lift", "walk")[(f // 3) % 2])
                for f in range(s, 1800, 3)]
        bars.append(SegmentMarker(2000 + s, 2100 if stop_running and s == 0 else None, colours[0], "lift"))
        if extra_bar and s == 0:
            bars.append(SegmentMarker(2500, 2540, colours[1], "walk"))
        ticks = [EventMarker(f + 2, "#4363d8", "look") for f in range(s, 1800, 6)]
        if extra_tick and s == 0:
            ticks.append(EventMarker(2600, "#4363d8", "look"))
        lanes.append(Lane(subject, "#000000", 0, tuple(bars), tuple(sorted(ticks, key=lambda t: t.index)),
                          heading=subject))
    return lanes


def _timeline(qtbot, lanes: list[Lane]) -> Timeline:  # noqa: ANN001 - pytest-qt's qtbot
    timeline = Timeline()
    qtbot.addWidget(timeline)
    timeline.resize(1280, timeline.height())
    timeline.set_video([f / 30 for f in range(FRAMES)])
    timeline.set_index(2300)
    timeline.set_behaviour_lanes(lanes)
    return timeline


def _picture(timeline: Timeline) -> QImage:
    return timeline.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)


def test_a_changed_lane_is_painted_again_only_where_its_marks_changed_and_looks_as_painted_afresh(qtbot):
    timeline = _timeline(qtbot, _lanes())
    _picture(timeline)  # the layers painted whole once
    changed = _lanes(extra_bar=True, stop_running=True, extra_tick=True)
    timeline.set_behaviour_lanes(changed)
    kept = _picture(timeline)
    a, b = timeline._lane_layers[("A", 0)], timeline._lane_layers[("B", 0)]
    assert b.repainted == []  # subject B's lane did not change: its layers were only put on screen
    assert a.repainted is not None and len(a.repainted) == 2  # bars and ticks: each over a narrow span
    x0, x1 = timeline.x_of_index(2000), timeline.x_of_index(2610)
    assert all(x0 - 5 <= left and right <= x1 + 5 for left, right in a.repainted)
    fresh = _picture(_timeline(qtbot, changed))
    assert kept == fresh
    # and not the same picture as before the change (the test would pass on a lane that never repaints)
    assert kept != _picture(_timeline(qtbot, _lanes()))


def test_moving_the_frame_shown_outlines_its_bar_without_painting_the_layers_again(qtbot):
    timeline = _timeline(qtbot, _lanes())
    _picture(timeline)
    timeline.set_index(900)  # on a closed bar of subject A (frames 900-901)
    moved = _picture(timeline)
    assert timeline._lane_layers[("A", 0)].repainted == []
    fresh = _timeline(qtbot, _lanes())
    fresh.set_index(900)
    assert moved == _picture(fresh)
    timeline.zoom(4.0)  # another view: painted whole again
    _picture(timeline)
    assert timeline._lane_layers[("A", 0)].repainted is None


def test_the_rows_found_changed_hold_every_mark_added_or_removed():
    import random

    import numpy as np

    from fieldstudio.gui.behaviour_lane_paint import _changed

    rng = random.Random(37)
    for _ in range(300):
        old = sorted(rng.sample(range(60), rng.randint(0, 12)))
        new = sorted(set(old) - set(rng.sample(old, min(len(old), rng.randint(0, 2))))
                     | set(rng.sample(range(60), rng.randint(0, 2))))
        was, now = _changed([np.array(old, dtype=np.int64)], [np.array(new, dtype=np.int64)])
        assert old[:was.start] == new[:now.start] and old[was.stop:] == new[now.stop:]
        assert set(old) ^ set(new) <= set(old[was]) | set(new[now])


def test_lanes_laid_out_again_with_the_markers_made_before_equal_lanes_laid_out_afresh():
    from dataclasses import replace

    from fieldstudio.annotations.behaviour import ethogram as eth
    from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
    from fieldstudio.gui.behaviour_coding import subject_lanes

    ethogram = eth.Ethogram((eth.Behaviour("lift", "l", "#e6194b", "state"), eth.Behaviour("look", "k", "#4363d8",
                                                                                          "point")), ())
    before = [BehaviourEvent(f"s{k}", "v", "lift", "A", (), "state", k * 10, k / 3, k * 10 + 5, k / 3 + 0.2, "ann")
              for k in range(20)]
    before += [BehaviourEvent(f"p{k}", "v", "look", "A", (), "point", k * 10 + 7, k / 3, k * 10 + 7, k / 3, "ann")
               for k in range(20)]
    made: dict = {}
    first = subject_lanes("A", before, ethogram, 999, made)
    assert first == subject_lanes("A", before, ethogram, 999)
    # a key press: one state stopped later (a new object for the same id), one running state and one point added
    after = [replace(e, end_frame_index=9) if e.id == "s0" else e for e in before]
    after += [BehaviourEvent("s-new", "v", "lift", "A", (), "state", 300, 10.0, None, None, "ann"),
              BehaviourEvent("p-new", "v", "look", "A", (), "point", 301, 10.0, 301, 10.0, "ann")]
    again = subject_lanes("A", after, ethogram, 999, made)
    assert again == subject_lanes("A", after, ethogram, 999)
    assert again != first
    bars = {m.start: m for lane in again for m in lane.segments}
    old_bars = {m.start: m for lane in first for m in lane.segments}
    assert bars[10] is old_bars[10]          # an event object met again keeps its marker
    assert bars[0] is not old_bars[0] and bars[0].end == 8  # the stopped one is made again
    assert bars[300].end is None
