"""Deleting, restoring and relabelling many annotations at once (an import's undo and redo) goes in bulk
(``bulk_updates``) and leaves the rows as the per-row path would: the same flags and labels, versions raised by
one, one change-log row each, and a restore that would put two keyframes of a track on one frame refused."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import bulk_updates
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.annotation_errors import AnnotationError
from fieldstudio.core.errors import NotFound
from fieldstudio.store import changes
from fieldstudio.store.models import Annotation, ChangeLog
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID


@pytest.fixture
def worker_label(media_project):
    """The id of a label "worker" in ``media_project``."""
    return lab.create_label(media_project, "worker")


@pytest.fixture
def small_chunks(monkeypatch):
    """Two ids a chunk, so that five rows take three reads and three UPDATEs."""
    monkeypatch.setattr(bulk_updates, "READ_CHUNK", 2)
    monkeypatch.setattr(changes, "UPDATE_CHUNK", 2)


def _rows(project, ids):
    with project.read() as s:
        got = {r.id: r for r in s.scalars(select(Annotation).where(Annotation.id.in_(ids)))}
        return [(got[i].deleted, got[i].version, got[i].label_id, got[i].updated_by) for i in ids]


def _logged(project, ids):
    with project.read() as s:
        return sorted((r.row_id, r.action, r.media_id) for r in s.scalars(
            select(ChangeLog).where(ChangeLog.row_id.in_(ids), ChangeLog.action == "update")))


def test_many_deleted_restored_and_relabelled_are_stamped_versioned_and_logged(media_project, worker_label, small_chunks):
    ids = [ann.add_box(media_project, PHOTO_ID, (k, k, 5, 5), worker_label) for k in range(5)]
    me = changes.current_user()
    assert _rows(media_project, ids) == [(False, 1, worker_label, me)] * 5
    ann.delete(media_project, ids[1])                       # already deleted: left as it is by the bulk delete
    ann.delete_many(media_project, ids + ids[:2])          # an id twice is one change
    assert _rows(media_project, ids) == [(True, 2, worker_label, me)] * 5
    assert _logged(media_project, ids) == sorted([(i, "update", PHOTO_ID) for i in ids])
    assert ann.list_annotations(media_project) == []
    ann.restore_many(media_project, ids)
    assert _rows(media_project, ids) == [(False, 3, worker_label, me)] * 5
    vest = lab.create_label(media_project, "vest")
    ann.set_labels(media_project, {ids[0]: vest, ids[3]: None})
    assert [r[1:3] for r in _rows(media_project, ids)] == [(4, vest), (3, worker_label), (3, worker_label), (4, None), (3, worker_label)]
    assert len(_logged(media_project, ids)) == 5 + 5 + 2


def test_an_unknown_id_or_label_changes_nothing(media_project, worker_label, small_chunks):
    ids = [ann.add_box(media_project, PHOTO_ID, (k, k, 5, 5), worker_label) for k in range(3)]
    with pytest.raises(NotFound, match="no annotation with id 'nope'"):
        ann.delete_many(media_project, [*ids, "nope"])      # the unknown id comes in the second chunk
    with pytest.raises(NotFound, match="no label with id 'gone'"):
        ann.set_labels(media_project, {ids[0]: "gone"})
    assert _rows(media_project, ids) == [(False, 1, worker_label, changes.current_user())] * 3


def test_restoring_a_keyframe_onto_a_taken_frame_of_its_track_is_refused(media_project, worker_label, small_chunks):
    first = ann.add_box(media_project, VIDEO_ID, (0, 0, 10, 10), worker_label, frame_index=4, track_id=7)
    others = [ann.add_box(media_project, VIDEO_ID, (0, 0, 10, 10), worker_label, frame_index=f, track_id=7)
              for f in (5, 6)]
    ann.delete_many(media_project, [first, *others])
    ann.add_box(media_project, VIDEO_ID, (5, 5, 10, 10), worker_label, frame_index=4, track_id=7)   # frame 4 taken again
    with pytest.raises(AnnotationError, match="track 7 already has a box on frame 4"):
        ann.restore_many(media_project, [*others, first])
    assert [r[0] for r in _rows(media_project, [first, *others])] == [True, True, True]   # nothing restored
    ann.restore_many(media_project, others)                # the same track on free frames comes back
    assert [r[0] for r in _rows(media_project, others)] == [False, False]
