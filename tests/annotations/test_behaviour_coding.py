"""Coding by key on the exact frame: state events start and stop, exclusive ones stop, point events are one frame;
each key press is one undo step; events are kept per subject and per coder."""

from __future__ import annotations

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import coding
from fieldstudio.annotations.behaviour import ethogram as eth
from tests.support.annotation_fixtures import START_PTS, TIME_BASE, VIDEO_ID, hand_pts


def _code(project, e, name, frame, subject="A", coder="ann", modifiers=()):
    edit, message = coding.code_behaviour(project, e, VIDEO_ID, name, frame, subject=subject, coder=coder,
                                          modifiers=modifiers)
    edit.do()
    return edit, message


def _seconds(frame: int) -> float:
    return float((hand_pts(frame) - START_PTS) * TIME_BASE)


def test_state_starts_and_stops_on_its_key_on_the_frame_given(ethogram_project):
    project, e = ethogram_project
    _, message = _code(project, e, "lift", 3, modifiers=("heavy",))
    assert message == "lift (A) starts on frame 3"
    (running,) = events.list_events(project, VIDEO_ID)
    assert running.is_open and running.modifiers == ("heavy",) and running.coder == "ann"
    # the PTS comes from the frame table (variable rate), seconds after the first frame
    assert running.start_s == pytest.approx(_seconds(3)) == pytest.approx(12000 / 90000)
    _, message = _code(project, e, "lift", 7)
    assert message == "lift (A) stops on frame 7"
    (done,) = events.list_events(project, VIDEO_ID)
    assert (done.frame_index, done.end_frame_index) == (3, 7)
    assert done.duration_s == pytest.approx(_seconds(7) - _seconds(3))


def test_an_exclusive_state_stops_the_running_one_on_the_same_frame_in_one_undo_step(ethogram_project):
    project, e = ethogram_project
    _code(project, e, "lift", 3)
    edit, message = _code(project, e, "walk", 9)
    assert message == "walk (A) starts on frame 9; lift stops (exclusive)"
    lift, walk = events.list_events(project, VIDEO_ID)
    assert (lift.behaviour, lift.end_frame_index, walk.behaviour, walk.frame_index, walk.is_open) == (
        "lift", 9, "walk", 9, True)
    edit.undo()
    (lift,) = events.list_events(project, VIDEO_ID)
    assert lift.behaviour == "lift" and lift.is_open
    edit.do()
    assert [x.behaviour for x in events.list_events(project, VIDEO_ID)] == ["lift", "walk"]


def test_subjects_and_coders_are_apart_and_points_are_one_frame(ethogram_project):
    project, e = ethogram_project
    _code(project, e, "lift", 3, subject="A")
    _code(project, e, "walk", 5, subject="B")           # B's walk does not stop A's lift
    _code(project, e, "lift", 6, subject="A", coder="bob")   # bob's lift starts; ann's keeps running
    _, message = _code(project, e, "enter zone", 8, subject="B")
    assert message == "enter zone (B) on frame 8"
    evs = events.list_events(project, VIDEO_ID)
    point = next(x for x in evs if x.type == "point")
    assert (point.frame_index, point.end_frame_index, point.duration_s) == (8, 8, 0.0)
    assert sum(x.is_open for x in evs) == 3
    assert events.coders(project, VIDEO_ID) == ["ann", "bob"]
    assert [x.behaviour for x in events.list_events(project, VIDEO_ID, coder="bob")] == ["lift"]


def test_refusals_name_the_reason(ethogram_project):
    project, e = ethogram_project
    with pytest.raises(eth.EthogramError, match="unknown modifier"):
        _code(project, e, "lift", 3, modifiers=("medium",))
    with pytest.raises(eth.EthogramError, match="no behaviour 'run'"):
        _code(project, e, "run", 3)
    _code(project, e, "lift", 10)
    with pytest.raises(ann.AnnotationError, match="before it"):
        _code(project, e, "lift", 4)
    with pytest.raises(ann.AnnotationError, match="outside"):
        _code(project, e, "enter zone", 99)


def test_an_event_is_edited_and_undone(ethogram_project):
    project, e = ethogram_project
    _code(project, e, "lift", 3, modifiers=("heavy",))
    _code(project, e, "lift", 7)
    (ev,) = events.list_events(project, VIDEO_ID)
    edit = events.change_edit(project, ev, frame_index=4, subject="B", modifiers=("light",))
    edit.do()
    (changed,) = events.list_events(project, VIDEO_ID)
    assert (changed.frame_index, changed.end_frame_index, changed.subject, changed.modifiers) == (4, 7, "B", ("light",))
    with pytest.raises(ann.AnnotationError, match="before the start"):
        events.change_edit(project, changed, frame_index=9)
    edit.undo()
    (back,) = events.list_events(project, VIDEO_ID)
    assert (back.frame_index, back.subject, back.modifiers) == (3, "A", ("heavy",))


def test_a_key_press_names_the_rows_it_touches_for_the_window_to_read_again(ethogram_project):
    from fieldstudio.annotations.edits import AddBox, annotation_ids_of, annotation_kinds_of

    project, e = ethogram_project
    start, _ = _code(project, e, "lift", 3)
    (lift,) = events.list_events(project, VIDEO_ID)
    assert annotation_ids_of(start) == {lift.id} and annotation_kinds_of(start) == {"behaviour"}
    switch, _ = _code(project, e, "walk", 7)                 # walk starts, lift (same group) stops: one group
    walk = [x for x in events.list_events(project, VIDEO_ID) if x.behaviour == "walk"][0]
    assert annotation_ids_of(switch) == {lift.id, walk.id} and annotation_kinds_of(switch) == {"behaviour"}
    assert events.events_with_ids(project, VIDEO_ID, annotation_ids_of(switch)) == events.list_events(project,
                                                                                                      VIDEO_ID)
    switch.undo()                                            # the rows it names are read again: walk is gone
    (left,) = events.list_events(project, VIDEO_ID)
    assert events.events_with_ids(project, VIDEO_ID, annotation_ids_of(switch)) == [left]
    assert left.id == lift.id and left.is_open
    box = AddBox(project, VIDEO_ID, (1, 1, 5, 5), frame_index=2)
    box.do()
    assert annotation_kinds_of(box) is None                  # a box edit does not say: everything is redrawn
    assert events.events_with_ids(project, VIDEO_ID, annotation_ids_of(box)) == []  # not a behaviour event


def test_coding_on_an_earlier_frame_is_refused_when_it_would_overlap_the_record(ethogram_project):
    """The tester's case: lift 0-20 then walk (same exclusive group) 20-25; walk coded again on frame 3 would make
    walk 3-... overlap lift 0-20; a stop on 27 of a walk started on 22 inside walk 20-25 likewise."""
    project, e = ethogram_project
    _code(project, e, "lift", 0)
    _code(project, e, "walk", 20)          # lift 0-20, walk starts 20
    _code(project, e, "walk", 25)          # walk 20-25
    before = events.list_events(project, VIDEO_ID)
    with pytest.raises(ann.AnnotationError, match=r"A is already lift from frame 0 to 20 \(coded by ann\)"):
        _code(project, e, "walk", 3)
    with pytest.raises(ann.AnnotationError, match="A is already walk from frame 20 to 25"):
        _code(project, e, "lift", 22)      # lift's group holds walk 20-25
    assert events.list_events(project, VIDEO_ID) == before   # nothing stored
    # touching is not overlapping: walk starts on 25, where the last one stopped; another subject or coder is apart
    _, message = _code(project, e, "walk", 25)
    assert message == "walk (A) starts on frame 25"
    _code(project, e, "walk", 3, subject="B")
    _code(project, e, "lift", 3, coder="bob")


def test_an_open_state_swallowing_a_later_interval_is_refused_by_the_store_itself(ethogram_project):
    """An open state started before an interval recorded after it (as a raw write, an import or an old file could
    make it): refused when stored, whatever wrote it, so a stop can never swallow that interval."""
    project, e = ethogram_project
    events.add_event_edit(project, VIDEO_ID, "walk", "state", 10, subject="A", coder="ann",
                          end_frame_index=15).do()
    running = events.add_event_edit(project, VIDEO_ID, "lift", "state", 2, subject="A", coder="ann")
    with pytest.raises(ann.AnnotationError, match="^lift from frame 2 refused: A is already walk from frame 10 to 15"):
        running.do()
    assert [(x.behaviour, x.frame_index, x.end_frame_index) for x in events.list_events(project, VIDEO_ID)] == [
        ("walk", 10, 15)]
    with pytest.raises(ann.AnnotationError, match="^lift from frame 2 refused: A is already walk from frame 10"):
        _code(project, e, "lift", 2)                 # by key too (coding's own check names it first)
    _, message = _code(project, e, "lift", 15)       # starting where walk stops is fine
    assert message == "lift (A) starts on frame 15"


def test_random_codings_never_give_a_subject_over_100_percent_of_a_group(ethogram_project):
    """Random key presses (some refused) on random frames by two coders; each coder's budget per subject: lift and
    walk (one exclusive group) sum to at most 100 % of the observed time."""
    import random

    from fieldstudio.annotations.behaviour import time_budget

    project, e = ethogram_project
    rng = random.Random(32)
    refused = 0
    for _ in range(120):
        try:
            _code(project, e, rng.choice(["lift", "walk", "enter zone"]), rng.randrange(30),
                  subject=rng.choice("AB"), coder=rng.choice(["ann", "bob"]))
        except ann.AnnotationError:
            refused += 1
    assert 0 < refused < 120
    end = _seconds(29)
    for coder in ("ann", "bob"):
        rows = time_budget.time_budget(events.list_events(project, VIDEO_ID, coder=coder), 0.0, end)
        for subject in "AB":
            share = sum(r.percent or 0.0 for r in rows if r.subject == subject and r.behaviour in ("lift", "walk"))
            assert share <= 100.0 + 1e-9


def test_an_edit_moving_a_state_onto_another_is_refused(ethogram_project):
    """The dock's Edit…: ann's A lift 3-7 and walk 7-12; lift's stop moved to 9, or walk moved to subject B where B
    walks 8-10, would overlap; lift's stop moved to 5 is fine."""
    from fieldstudio.annotations.behaviour import state_overlap

    project, e = ethogram_project
    _code(project, e, "lift", 3)
    _code(project, e, "walk", 7)
    _code(project, e, "walk", 12)
    _code(project, e, "walk", 8, subject="B")
    _code(project, e, "walk", 10, subject="B")
    lift, walk, _b = events.list_events(project, VIDEO_ID)
    with pytest.raises(ann.AnnotationError, match="lift from frame 3 to 9 refused: A is already walk from frame 7 "
                                                  "to 12"):
        state_overlap.change_edit(project, e, lift, end_frame_index=9)
    with pytest.raises(ann.AnnotationError, match="B is already walk from frame 8 to 10"):
        state_overlap.change_edit(project, e, walk, subject="B")
    state_overlap.change_edit(project, e, lift, end_frame_index=5).do()
    assert events.list_events(project, VIDEO_ID)[0].end_frame_index == 5


def test_a_key_press_is_one_store_session_and_one_commit_and_reads_back_what_it_stored(ethogram_project):
    from sqlalchemy import event

    project, e = ethogram_project
    _code(project, e, "lift", 3)
    seen = {"connections": 0, "commits": 0}
    for engine in (project.engine, project.read_engine):
        event.listen(engine, "connect", lambda *_a: seen.__setitem__("connections", seen["connections"] + 1))
        event.listen(engine, "commit", lambda *_a: seen.__setitem__("commits", seen["commits"] + 1))
    key = coding.record_key(project, e, VIDEO_ID, "walk", 7, subject="A", coder="ann")  # lift stops, walk starts
    assert seen == {"connections": 1, "commits": 1}
    assert key.message == "walk (A) starts on frame 7; lift stops (exclusive)"
    assert key.events == events.list_events(project, VIDEO_ID)   # both rows, as a later read finds them
    assert [(x.behaviour, x.frame_index, x.end_frame_index) for x in key.events] == [("lift", 3, 7), ("walk", 7, None)]
    assert key.touched == {x.id for x in key.events}
    seen.update(connections=0, commits=0)
    with pytest.raises(ann.AnnotationError, match="lift from frame 5 refused: A is already lift from frame 3 to 7"):
        coding.record_key(project, e, VIDEO_ID, "lift", 5, subject="A", coder="ann")
    assert seen == {"connections": 1, "commits": 0}              # refused: rolled back, nothing stored
    assert events.list_events(project, VIDEO_ID) == key.events
    key.edit.undo()                                               # one undo step, as a key press always was
    (left,) = events.list_events(project, VIDEO_ID)
    assert (left.behaviour, left.frame_index, left.end_frame_index) == ("lift", 3, None)


def test_a_key_starting_a_state_reads_the_coders_states_once_and_writes_without_savepoints(ethogram_project):
    """The running states and what the new one may overlap come from one read; a stop of a state started earlier
    reads again from that start (what it may overlap begins there); the key writes with no savepoint."""
    from sqlalchemy import event

    project, e = ethogram_project
    _code(project, e, "lift", 3, subject="B")
    statements: list[str] = []
    event.listen(project.engine, "before_cursor_execute", lambda _c, _cur, q, *_a: statements.append(q.upper()))

    def states_read() -> int:
        # the key's own reads of the coder's states (not the store's check, which reads by id or by media)
        return sum(1 for q in statements if "FROM ANNOTATION" in q and "ANNOTATION.AUTHOR = " in q
                   and "ANNOTATION.MEDIA_ID = ?" in q.split("WHERE", 1)[1][:60] and "ORDER BY" in q)

    coding.record_key(project, e, VIDEO_ID, "lift", 5, subject="A", coder="ann")
    assert states_read() == 1 and not [q for q in statements if "SAVEPOINT" in q]
    statements.clear()
    key = coding.record_key(project, e, VIDEO_ID, "lift", 9, subject="A", coder="ann")
    assert key.message == "lift (A) stops on frame 9" and states_read() == 2
    assert [(x.subject, x.frame_index, x.end_frame_index) for x in events.list_events(project, VIDEO_ID)] == [
        ("B", 3, None), ("A", 5, 9)]
