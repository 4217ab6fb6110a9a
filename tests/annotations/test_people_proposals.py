""""Detect people" (annotations/people_proposals.py, issue 34 item 3): proposals on a photo and on a frame range of
a real clip, accepted as one undo step with the "person" label, not proposed again once accepted, continued by the
tracker; the frame range and cancelling."""

from __future__ import annotations

import shutil

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels, people_proposals as pp, tracking
from fieldstudio.core.box_overlap import box_iou
from fieldstudio.media import library
from fieldstudio.media.video_index import index_videos
from tests.support.people_frames import MARKED_PEOPLE, NO_HOG_REASON, WORKER_CLIP, hog_available, worker_photo
from tests.support.shared_data import SHARED_DATA

needs_hog = pytest.mark.skipif(not hog_available(), reason=NO_HOG_REASON)


def test_frames_to_read():
    assert list(pp.frames_to_read(10)) == list(range(10))
    assert list(pp.frames_to_read(100, 10, 40, every=15)) == [10, 25, 40]
    with pytest.raises(pp.DetectPeopleError, match="0-9"):
        pp.frames_to_read(10, 5, 10)
    with pytest.raises(pp.DetectPeopleError, match="every"):
        pp.frames_to_read(10, every=0)


@needs_hog
def test_photo_proposal_accepted_undone_and_not_proposed_twice(project, tmp_path):
    media_id = library.add_paths(project, [worker_photo(tmp_path)]).media_ids[0]
    found = pp.propose_people(project, media_id)
    (marked,) = MARKED_PEOPLE[(WORKER_CLIP, 45)]
    assert [p.frame_index for p in found.proposals] == [0] and found.frames_read == (0,)
    assert box_iou(found.proposals[0].box, marked) >= 0.5 and found.detector.startswith("opencv-hog")
    edit = pp.accept_edit(project, found.proposals)
    edit.do()
    (box,) = ann.list_annotations(project, media_id=media_id, kinds=("box",))
    assert box.label_id == labels.find_label(project, "person").id and edit.text == "Accept 1 person"
    assert box.geometry == pytest.approx(list(found.proposals[0].box), abs=0.01)
    assert box.attributes["proposed_by"] == found.detector
    assert pp.propose_people(project, media_id).proposals == ()          # the accepted box is that person
    edit.undo()
    assert ann.list_annotations(project, media_id=media_id, kinds=("box",)) == []
    assert len(pp.propose_people(project, media_id).proposals) == 1
    with pytest.raises(pp.DetectPeopleError, match="no proposal"):
        pp.accept_edit(project, [])


@needs_hog
def test_frame_range_every_n_cancel_and_the_tracker_continues(project, tmp_path):
    clip = tmp_path / "worker.mp4"
    shutil.copy(SHARED_DATA / "media" / WORKER_CLIP, clip)
    media_id = library.add_paths(project, [clip]).media_ids[0]
    index_videos(project)
    seen = []
    found = pp.propose_people(project, media_id, pp.frames_to_read(71, 15, 45, every=15),
                              progress=lambda d, t: seen.append((d, t)))
    assert found.frames_read == (15, 30, 45) and seen == [(1, 3), (2, 3), (3, 3)] and not found.cancelled
    on_45 = [p for p in found.proposals if p.frame_index == 45]
    assert any(box_iou(p.box, MARKED_PEOPLE[(WORKER_CLIP, 45)][0]) >= 0.5 for p in on_45)
    asked = iter([False, True])
    stopped = pp.propose_people(project, media_id, [15, 30, 45], cancelled=lambda: next(asked))
    assert stopped.cancelled and stopped.frames_read == (15,)
    best = max(on_45, key=lambda p: p.score)
    pp.accept_edit(project, [best]).do()
    (box,) = ann.list_annotations(project, media_id=media_id, kinds=("box",))
    result = tracking.follow_box(project, tracking.start_of_box(project, box.id), 50, every=5)
    assert result.frames_followed == 5 and result.stop == "reached"
