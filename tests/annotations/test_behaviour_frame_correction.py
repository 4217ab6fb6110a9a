"""A key pressed while playing is recorded on the clock's estimate ("clock"), then moved to the frame matched to
the picture shown ("picture"), as its own undo step; a state's stop and the exclusive stops move with it."""

from __future__ import annotations

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import coding
from tests.support.annotation_fixtures import VIDEO_ID


def _code(project, e, name, frame, subject="A", found="clock"):
    edit, _ = coding.code_behaviour(project, e, VIDEO_ID, name, frame, subject=subject, coder="ann", found=found)
    edit.do()
    return edit


def test_a_point_coded_on_the_clock_moves_to_the_matched_frame_in_its_own_undo_step(ethogram_project):
    project, e = ethogram_project
    key = _code(project, e, "enter zone", 12)
    (point,) = events.list_events(project, VIDEO_ID)
    assert (point.frame_index, point.frame_found, point.end_frame_found) == (12, "clock", "clock")
    fix = coding.frame_correction(project, VIDEO_ID, key, 12, 9)
    assert fix is not None and fix.text == "Frame corrected: 12 to 9"
    fix.do()
    (point,) = events.list_events(project, VIDEO_ID)
    assert (point.frame_index, point.end_frame_index, point.frame_found, point.end_frame_found) == (
        9, 9, "picture", "picture")
    fix.undo()  # the correction alone: the key's event is back on the estimate
    (point,) = events.list_events(project, VIDEO_ID)
    assert (point.frame_index, point.frame_found) == (12, "clock")


def test_a_stop_and_the_exclusive_stops_move_with_the_key_and_a_start_is_not_touched(ethogram_project):
    project, e = ethogram_project
    _code(project, e, "lift", 3, found="")                  # started paused: exact, not marked
    key = _code(project, e, "walk", 20)                     # walk starts, lift stops (exclusive), both at 20
    fix = coding.frame_correction(project, VIDEO_ID, key, 20, 17)
    fix.do()
    lift, walk = events.list_events(project, VIDEO_ID)
    assert (lift.frame_index, lift.frame_found, lift.end_frame_index, lift.end_frame_found) == (3, "", 17, "picture")
    assert (walk.frame_index, walk.frame_found, walk.is_open) == (17, "picture", True)
    key = _code(project, e, "walk", 25)                     # walk stops on its own key
    coding.frame_correction(project, VIDEO_ID, key, 25, 26).do()
    walk = events.get_event(project, walk.id)
    assert (walk.frame_index, walk.end_frame_index, walk.end_frame_found) == (17, 26, "picture")


def test_nothing_to_correct_once_the_key_is_undone_or_its_event_edited(ethogram_project):
    project, e = ethogram_project
    key = _code(project, e, "enter zone", 12)
    key.undo()
    assert coding.frame_correction(project, VIDEO_ID, key, 12, 9) is None
    key.do()
    (point,) = events.list_events(project, VIDEO_ID)
    events.change_edit(project, point, frame_index=14).do()  # the coder moved it by hand before the match came
    assert coding.frame_correction(project, VIDEO_ID, key, 12, 9) is None


def test_a_correction_that_would_stop_a_state_before_its_start_is_refused(ethogram_project):
    project, e = ethogram_project
    _code(project, e, "lift", 10, found="")
    key = _code(project, e, "lift", 11)
    with pytest.raises(ann.AnnotationError):
        coding.frame_correction(project, VIDEO_ID, key, 11, 8)


def test_an_event_edited_by_hand_keeps_how_its_frames_were_found(ethogram_project):
    project, e = ethogram_project
    _code(project, e, "enter zone", 12)
    (point,) = events.list_events(project, VIDEO_ID)
    events.change_edit(project, point, subject="B").do()
    (point,) = events.list_events(project, VIDEO_ID)
    assert (point.subject, point.frame_found) == ("B", "clock")
