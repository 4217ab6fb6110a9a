"""The store itself refuses overlapping states (``annotations.behaviour.store_rule``): whatever writes a behaviour
event (a raw insert, an update, an undo's restore, a batch), a state of one coder's subject never overlaps another
of the same behaviour or exclusive group once committed; the refusal names the interval in the way and nothing
is stored."""

from __future__ import annotations

import random

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import coding
from fieldstudio.annotations.behaviour.store_rule import StoredState, first_overlap
from tests.support.annotation_fixtures import VIDEO_ID


def _state(project, name, start, stop=None, subject="A", coder="ann"):
    return events.add_event_edit(project, VIDEO_ID, name, "state", start, subject=subject, coder=coder,
                                 end_frame_index=stop)


def _stored(project):
    return [(x.behaviour, x.subject, x.coder, x.frame_index, x.end_frame_index)
            for x in events.list_events(project, VIDEO_ID)]


def test_raw_inserts_and_updates_that_overlap_are_refused_and_others_are_stored(ethogram_project):
    project, _e = ethogram_project
    _state(project, "lift", 5, 10).do()
    with pytest.raises(ann.AnnotationError, match=r"^walk from frame 8 to 12 refused: A is already lift from frame 5 "
                                                  r"to 10 \(coded by ann\)$"):
        _state(project, "walk", 8, 12).do()                  # the same exclusive group (posture)
    with pytest.raises(ann.AnnotationError, match="^lift from frame 0 refused: A is already lift from frame 5 to 10"):
        _state(project, "lift", 0).do()                      # running: it reaches the end of the video
    for edit in (_state(project, "walk", 10, 12),            # touching is not overlapping
                 _state(project, "lift", 6, 9, subject="B"),  # another subject
                 _state(project, "lift", 6, 9, coder="bob"),  # another coder
                 events.add_event_edit(project, VIDEO_ID, "enter zone", "point", 7, subject="A", coder="ann")):
        edit.do()
    assert len(_stored(project)) == 5
    (lift,) = [x for x in events.list_events(project, VIDEO_ID) if x.subject == "A" and x.behaviour == "lift"
                and x.coder == "ann"]
    with pytest.raises(ann.AnnotationError, match="^lift from frame 5 to 11 refused: A is already walk from frame 10"):
        ann.update(project, lift.id, end_frame_index=11)     # the raw update the dock's Edit… is built on
    (bobs,) = [x for x in events.list_events(project, VIDEO_ID) if x.coder == "bob"]
    with pytest.raises(ann.AnnotationError, match="^lift from frame 6 to 9 refused: A is already lift from frame 5 "
                                                  "to 10"):
        ann.update(project, bobs.id, author="ann")           # bob's lift made ann's: inside ann's lift 5-10
    assert len(_stored(project)) == 5 and ("lift", "A", "ann", 5, 10) in _stored(project)


def test_an_undo_that_would_bring_back_an_overlapping_event_is_refused(ethogram_project):
    project, e = ethogram_project
    first = _state(project, "lift", 2, 10)
    first.do()
    first.undo()                                             # soft-deleted
    _state(project, "walk", 5, 20).do()
    with pytest.raises(ann.AnnotationError, match="^lift from frame 2 to 10 refused: A is already walk from frame 5 "
                                                  "to 20"):
        first.do()                                           # redo: restores the same row
    assert _stored(project) == [("walk", "A", "ann", 5, 20)]


def test_a_unit_of_work_is_judged_where_it_ends_not_step_by_step(ethogram_project):
    """lift 0-10 then walk 10-...: moving lift's stop to 14 first overlaps walk until walk's start moves to 14 as
    well; in one unit of work that is allowed, alone it is refused."""
    project, e = ethogram_project
    coding.record_key(project, e, VIDEO_ID, "lift", 0, subject="A", coder="ann")
    walk = coding.record_key(project, e, VIDEO_ID, "walk", 10, subject="A", coder="ann")
    lift_row, walk_row = walk.events
    with pytest.raises(ann.AnnotationError, match="^lift from frame 0 to 14 refused: A is already walk from frame 10"):
        events.change_edit(project, lift_row, end_frame_index=14).do()
    with project.unit_of_work():
        events.change_edit(project, lift_row, end_frame_index=14).do()
        events.change_edit(project, walk_row, frame_index=14).do()
    assert _stored(project) == [("lift", "A", "ann", 0, 14), ("walk", "A", "ann", 14, None)]


def _brute_force(named, rows, stored):
    """Every (row, other) pair that overlaps, by the definition: same subject, same behaviour or exclusive group,
    start < other's stop and other's start < stop (a running state: no stop)."""
    def shared(a, b):
        ba, bb = named.get(a.behaviour), named.get(b.behaviour)
        return a.behaviour == b.behaviour or (ba is not None and bb is not None and ba.group and ba.group == bb.group)

    inf = float("inf")
    out = []
    for r in rows:
        for o in stored:
            if o.id != r.id and o.subject == r.subject and shared(r, o) and \
                    o.frame_index < (inf if r.end_frame_index is None else r.end_frame_index) and \
                    r.frame_index < (inf if o.end_frame_index is None else o.end_frame_index):
                out.append((r.id, o.id))
    return out


def test_the_sorted_check_finds_an_overlap_exactly_when_a_pairwise_check_does(ethogram_project):
    _project, e = ethogram_project
    named = {b.name: b for b in e.behaviours}
    pick = random.Random(32)
    for trial in range(400):
        stored = []
        for n in range(pick.randint(1, 12)):
            start = pick.randint(0, 40)
            stop = None if pick.random() < 0.15 else start + pick.randint(0, 8)
            stored.append(StoredState(f"s{trial}-{n}", VIDEO_ID, "ann", pick.choice(["lift", "walk", "look"]),
                                      pick.choice("AB"), start, stop))
        rows = pick.sample(stored, pick.randint(1, len(stored)))
        found = first_overlap(e, rows, stored)
        pairs = _brute_force(named, rows, stored)
        assert (found is None) == (not pairs), (trial, stored, rows)
        if found is not None:
            assert (found[0].id, found[1].id) in pairs


def test_a_frame_correction_moving_a_stop_and_the_next_start_forward_is_done_undone_and_redone(ethogram_project):
    """The key pressed while playing stopped lift and started walk on the clock's frame 10; the picture says 14:
    lift's stop moves first (past walk's start until walk's start follows), in one unit of work each way."""
    project, e = ethogram_project
    coding.record_key(project, e, VIDEO_ID, "lift", 0, subject="A", coder="ann")
    key = coding.record_key(project, e, VIDEO_ID, "walk", 10, subject="A", coder="ann", found="clock")
    correction = coding.frame_correction(project, VIDEO_ID, key.edit, 10, 14)
    correction.do()
    assert _stored(project) == [("lift", "A", "ann", 0, 14), ("walk", "A", "ann", 14, None)]
    correction.undo()
    assert _stored(project) == [("lift", "A", "ann", 0, 10), ("walk", "A", "ann", 10, None)]
    correction.do()
    assert _stored(project) == [("lift", "A", "ann", 0, 14), ("walk", "A", "ann", 14, None)]
