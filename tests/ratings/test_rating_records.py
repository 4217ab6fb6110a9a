"""The rating service on real sample photos and a real video: sets, the queue, ratings, one commit each."""

from __future__ import annotations

import pytest

from fieldstudio.core.errors import NotFound
from fieldstudio.media import library
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.project import Project
from tests.support.rating_media import PHOTOS, SAMPLE, VIDEO, add_media

FIELDS = [{"name": "tape", "type": "number", "unit": "in", "tolerance": 0.125},
          {"name": "label", "type": "text"},
          {"name": "state", "type": "choice", "choices": ["on", "off"]},
          {"name": "tagged", "type": "yes_no"}]


@pytest.fixture
def rated(project):
    ids = add_media(project)
    info = ratings.create_rating_set(project, "panels", "The panel label is readable", fields=FIELDS)
    items = [ids[PHOTOS[0]], ids[PHOTOS[1]], (ids[VIDEO], 10), ids[PHOTOS[2]], (ids[VIDEO], 30)]
    report = ratings.add_items(project, "panels", items)
    assert len(report.added) == 5
    return project, info, ids


def test_create_set_validates_name_and_fields(project):
    info = ratings.create_rating_set(project, "s1", "req", fields=FIELDS)
    assert info.reasons == list(ratings.REASONS) and info.fields[0]["tolerance"] == 0.125
    with pytest.raises(ratings.RatingError, match="already exists"):
        ratings.create_rating_set(project, "s1")
    with pytest.raises(ratings.RatingError, match="type 'colour'"):
        ratings.create_rating_set(project, "s2", fields=[{"name": "c", "type": "colour"}])
    with pytest.raises(ratings.RatingError, match="choices"):
        ratings.create_rating_set(project, "s3", fields=[{"name": "c", "type": "choice"}])
    with pytest.raises(NotFound, match="s1"):
        ratings.get_rating_set(project, "nope")


def test_items_photos_and_frames_in_queue_order(rated):
    project, info, ids = rated
    items = ratings.list_items(project, "panels")
    assert [i.label for i in items] == [PHOTOS[0], PHOTOS[1], f"{VIDEO}#10", PHOTOS[2], f"{VIDEO}#30"]
    assert items[0].sha256 == library.sha256_file(SAMPLE / "images" / PHOTOS[0])[0]
    assert [i.position for i in items] == [0, 1, 2, 3, 4] and items[0].total == 5
    # duplicates are skipped; bad frames are refused with the file named
    again = ratings.add_items(project, "panels", [ids[PHOTOS[0]], (ids[VIDEO], 10)])
    assert again.added == [] and len(again.duplicates) == 2
    frames = library.find_media(project, VIDEO).frame_count
    with pytest.raises(ratings.RatingError, match=f"{VIDEO}: frame {frames}"):
        ratings.add_items(project, "panels", [(ids[VIDEO], frames)])
    with pytest.raises(ratings.RatingError, match="a photo has only frame 0"):
        ratings.add_items(project, "panels", [(ids[PHOTOS[0]], 3)])
    with pytest.raises(NotFound):
        ratings.add_items(project, "panels", ["0" * 32])


def test_queue_next_skip_and_resume(rated):
    project, info, _ = rated
    first = ratings.next_item(project, "panels", "ana")
    assert first.position == 0
    ratings.record_rating(project, first.id, "ana", "accept")
    second = ratings.next_item(project, "panels", "ana")
    assert second.position == 1
    skipped_to = ratings.next_item(project, "panels", "ana", after=1)      # skip item 1
    assert skipped_to.position == 2
    ratings.record_rating(project, skipped_to.id, "ana", "reject", reasons=["blurry"])
    assert ratings.rater_progress(project, "panels", "ana") == (2, 5)
    # resume: the first unrated item is the skipped one
    assert ratings.next_item(project, "panels", "ana").position == 1
    # skipping past the end wraps around to the skipped item
    assert ratings.next_item(project, "panels", "ana", after=4).position == 1
    # another rater's queue is independent (blind): they start at the beginning
    assert ratings.next_item(project, "panels", "ben").position == 0
    for item in ratings.list_items(project, "panels"):
        ratings.record_rating(project, item.id, "ana", "unsure")
    assert ratings.next_item(project, "panels", "ana") is None
    assert ratings.item_at(project, "panels", 3).label == PHOTOS[2]
    with pytest.raises(IndexError):
        ratings.item_at(project, "panels", 5)


def test_record_rating_fields_time_and_comment(rated):
    project, info, _ = rated
    item = ratings.item_at(project, "panels", 0)
    view = ratings.record_rating(project, item.id, "ana", "Accept", reasons=["other"],
                                 fields={"tape": '3 5/8"', "label": "B12", "state": "on", "tagged": "yes"},
                                 comment="label half covered", seconds_spent=2.5)
    assert view.verdict == "accept"
    assert view.fields == {"tape": 3.625, "label": "B12", "state": "on", "tagged": True}
    assert view.comment == "label half covered" and view.seconds_spent == 2.5
    # rating again replaces the answer and adds the time of this visit
    view = ratings.record_rating(project, item.id, "ana", "reject", reasons=["too far"], seconds_spent=1.5)
    assert (view.verdict, view.reasons, view.seconds_spent, view.fields) == ("reject", ["too far"], 4.0, {})
    assert len(ratings.list_ratings(project, "panels")) == 1
    for bad, match in [({"verdict": "maybe"}, "not one of"), ({"reasons": ["smudge"]}, "not in the checklist"),
                       ({"fields": {"tape": "long"}}, "expects a number"),
                       ({"fields": {"state": "half"}}, "expects one of on, off"),
                       ({"fields": {"tagged": "perhaps"}}, "yes or no"),
                       ({"fields": {"colour": "red"}}, "no documentation field 'colour'")]:
        kwargs = {"verdict": "accept", **bad}
        with pytest.raises(ratings.RatingError, match=match):
            ratings.record_rating(project, item.id, "ana", kwargs.pop("verdict"), **kwargs)
    with pytest.raises(ratings.RatingError, match="rater"):
        ratings.record_rating(project, item.id, "  ", "accept")


def test_each_rating_is_committed_at_once(rated):
    project, info, _ = rated
    item = ratings.item_at(project, "panels", 2)
    ratings.record_rating(project, item.id, "ana", "reject", reasons=["blurry", "too far"])
    other = Project.open(project.path)          # a second connection sees it without any close or flush
    try:
        seen = ratings.get_rating(other, item.id, "ana")
    finally:
        other.close()
    assert seen.verdict == "reject" and seen.reasons == ["blurry", "too far"]
    assert seen.item_label == f"{VIDEO}#10"


def test_verdict_tables_keep_scorers_apart(rated):
    project, info, _ = rated
    items = ratings.list_items(project, "panels")
    ratings.record_rating(project, items[0].id, "ana", "accept", fields={"tape": 3})
    ratings.record_rating(project, items[0].id, "ben", "reject", fields={"tape": "3.25"})
    ratings.record_source_verdicts(project, "panels", "scorer:acceptability-rules",
                                   {items[0].id: ("reject", ["blurry"], {"_failing_terms": ["sharpness_norm >= 50"]}),
                                    items[1].id: ("unsure", [], {})})
    humans, sources = ratings.verdict_tables(project, "panels")
    assert humans[items[0].id] == {"ana": "accept", "ben": "reject"} and humans[items[1].id] == {}
    assert sources == {"scorer:acceptability-rules": {items[0].id: "reject", items[1].id: "unsure"}}
    assert ratings.numeric_field_tables(project, "panels")["tape"] == {items[0].id: {"ana": 3.0, "ben": 3.25}}
    assert ratings.get_rating_set(project, "panels").raters == ["ana", "ben"]
    with pytest.raises(ratings.RatingError, match="scorer:"):
        ratings.record_source_verdicts(project, "panels", "ana", {})
