"""The demo task set: coverage, ground truths the matchers read, links that follow the annotations, and
the sample file in sample_data/tasks that re-imports to the same tasks."""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import select

from fieldstudio.core import matchers
from fieldstudio.core.paths import sample_data_dir
from fieldstudio.demo import tasks as demo_tasks
from tests.support.demo_data import CAMERA_GROUP, FLOOR_QUAD, MANUAL, TASK_IDS
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.media import library
from fieldstudio.store.models import FrameIndexRow, Media
from fieldstudio.store.project import Project
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts
from fieldstudio.tasks.formats.parsed_records import ANSWER_TYPES as IMPORT_TYPES
from fieldstudio.tasks.importing import import_tasks

SAMPLE_FILE = sample_data_dir() / "tasks" / "fieldstudio_sample_tasks.csv"


@pytest.fixture(scope="module")
def demo(demo_file, tmp_path_factory):
    """A copy of the demo project, open, and the report of adding the demo tasks (None: the demo has them)."""
    path = Path(shutil.copyfile(demo_file, tmp_path_factory.mktemp("demo_tasks") / "demo.fieldstudio"))
    project = Project.open(path)
    # once fieldstudio/demo.py calls add_demo_tasks itself, the set is there already and a second call is refused
    if ts.list_tasks(project):
        with pytest.raises(ts.TaskError):
            demo_tasks.add_demo_tasks(project)
        report = None
    else:
        report = demo_tasks.add_demo_tasks(project)
    yield project, report
    project.close()


def _by_external_id(project):
    return {row.external_id: ts.get_task(project, row.id) for row in ts.list_tasks(project)}


def _parses(answer_type: str, text: str) -> bool:
    """The ground truth read with the matcher of its type (free text and lists: any non-empty text)."""
    if answer_type == "yes_no":
        return matchers.parse_yes_no(text) is not None
    if answer_type == "count":
        return matchers.parse_count(text) is not None
    if answer_type == "distance":
        return matchers.parse_length_m(text) is not None
    if answer_type in ("duration", "time"):
        return matchers.parse_time_s(text) is not None
    if answer_type == "time_range":
        rng = matchers.parse_time_range_s(text)
        return rng is not None and rng[0] <= rng[1]
    if answer_type == "choice":
        return matchers.parse_choice(text) is not None
    if answer_type == "json_report":
        return isinstance(matchers.extract_json(text), (dict, list))
    return bool(text.strip())


def test_set_covers_every_answer_type_and_scenario(demo):
    project, report = demo
    tasks = _by_external_id(project)
    assert len(tasks) >= 30
    if report is not None:
        assert len(report.task_ids) == len(tasks) and not report.missing_media and not report.skipped
        assert sum(report.per_answer_type.values()) == len(tasks)
    assert {t.answer_type for t in tasks.values()} == set(ts.ANSWER_TYPES)
    assert {"factory", "warehouse", "retail"} <= {t.scenario for t in tasks.values()}
    for t in tasks.values():
        assert t.category and t.sub_category and t.notes and t.inputs, t.external_id
        assert not t.missing_media, t.external_id


def test_every_ground_truth_parses_as_its_type(demo):
    project, _ = demo
    for t in _by_external_id(project).values():
        assert t.ground_truth and _parses(t.answer_type, t.ground_truth), (t.external_id, t.ground_truth)
        assert ts.ground_truth_issue(t.answer_type, t.ground_truth) is None
        if t.answer_type == "choice":
            options = t.ground_truth_extra["options"]
            assert len(options) == 5
            # the option text stands for its letter
            letter = matchers.parse_choice(t.ground_truth)
            assert matchers.match_choice(options["ABCDE".index(letter)], t.ground_truth, options).matched
        if t.answer_type == "json_report":
            keys = set(matchers.extract_json(t.ground_truth))
            assert keys == set(t.ground_truth_extra["field_schema"]), t.external_id
            assert matchers.match_json_report(t.ground_truth, t.ground_truth).matched is True


def test_document_tasks_quote_the_manual_on_the_page_they_name(demo):
    from fieldstudio.media.documents import probe_document

    pdf = sample_data_dir() / "media" / "docs" / MANUAL
    pages = ["".join(p.text.split()) for p in probe_document(pdf).pages]  # line breaks fall inside words
    project, _ = demo
    doc_tasks = [t for t in _by_external_id(project).values() if "evidence" in (t.ground_truth_extra or {})]
    assert len(doc_tasks) >= 8
    for t in doc_tasks:
        ev = t.ground_truth_extra["evidence"]
        for part in ev["quote"].split(" ... "):
            assert "".join(part.split()) in pages[ev["page"] - 1], (t.external_id, part)


def test_linked_distance_equals_an_independent_measure_and_follows_the_calibration(demo):
    project, _ = demo
    tasks = _by_external_id(project)
    t = tasks["dist-01"]
    ruler = t.ground_truth_annotation_id
    metres = cal.measure_ruler(project, ruler).metres
    assert float(matchers.parse_length_m(t.ground_truth)) == pytest.approx(metres, abs=0.005)
    # the same ruler measured with the homography computed here by OpenCV from the raw points
    import cv2
    import numpy as np

    rec = ann.get_annotation(project, ruler)
    dst = np.float32([[0, 0], [4, 0], [4, 4], [0, 4]])
    h = cv2.getPerspectiveTransform(np.float32(FLOOR_QUAD), dst)
    ends = cv2.perspectiveTransform(np.float32([rec.geometry]), h)[0]
    assert metres == pytest.approx(float(np.hypot(*(ends[1] - ends[0]))), rel=1e-6)

    before = {k: tasks[k].ground_truth for k in ("dist-01", "dist-02", "dist-03", "dist-04")}
    calibration = cal.calibration_for(project, rec.media_id, "floor")
    try:
        cal.save_calibration(project, "floor", FLOOR_QUAD, camera_group=CAMERA_GROUP, width_m=5.0, depth_m=5.0)
        changes = {c.external_id: c for c in gt.refresh_linked(project)}
        after = _by_external_id(project)
        for key, old in before.items():
            assert changes[key].ok and after[key].ground_truth != old
            # a 5 m x 5 m rectangle scales every floor distance by 5/4
            new_m = cal.measure_ruler(project, after[key].ground_truth_annotation_id).metres
            assert float(matchers.parse_length_m(after[key].ground_truth)) == pytest.approx(new_m, abs=0.005)
            assert float(matchers.parse_length_m(old)) * 1.25 == pytest.approx(new_m, abs=0.01)
    finally:
        cal.save_calibration(project, **cal.calibration_fields(calibration))
        gt.refresh_linked(project)
    assert _by_external_id(project)["dist-01"].ground_truth == before["dist-01"]


def _frame_seconds(project, media_id, frame):
    with project.read() as s:
        media = s.get(Media, media_id)
        pts = s.get(FrameIndexRow, (media_id, frame)).pts
        return float(Fraction(pts) * Fraction(media.time_base_num, media.time_base_den))


def test_every_demo_ruler_is_labelled_as_a_distance_not_as_a_box(demo):
    from fieldstudio.annotations import labels

    project, _ = demo
    rulers = ann.list_annotations(project, kinds=["ruler"])
    assert len(rulers) == 4                                   # two from the annotations, two from the task set
    assert {r.label_name for r in rulers} == {"distance"}
    # the ruler list the window offers (keys 1-9, Annotate ▸ Labels…) holds no box label either
    assert [r.name for r in labels.list_labels(project, "ruler")] == ["distance"]
    assert labels.default_label(project, "ruler").name == "distance"


def test_segment_linked_times_are_the_segment_frames_from_the_frame_table(demo):
    project, _ = demo
    tasks = _by_external_id(project)
    t = tasks["time-02"]
    seg = ann.get_annotation(project, t.ground_truth_annotation_id)
    assert (seg.kind, seg.label_name, seg.frame_index, seg.end_frame_index) == ("segment", "standing", 49, 70)
    start, end = (_frame_seconds(project, seg.media_id, f) for f in (49, 70))
    assert start == pytest.approx(49 / 15, abs=1e-3) and end == pytest.approx(70 / 15, abs=1e-3)  # 15 fps clip
    rng = matchers.parse_time_range_s(t.ground_truth)
    assert rng == (pytest.approx(start, abs=5e-4), pytest.approx(end, abs=5e-4))
    assert matchers.parse_time_s(tasks["time-03"].ground_truth) == pytest.approx(end - start, abs=5e-4)
    # moving the segment's end moves the ground truth
    ann.close_segment(project, seg.id, 60)
    try:
        gt.refresh_linked(project)
        moved = matchers.parse_time_range_s(_by_external_id(project)["time-02"].ground_truth)
        assert moved[1] == pytest.approx(_frame_seconds(project, seg.media_id, 60), abs=5e-4)
    finally:
        ann.close_segment(project, seg.id, 70)
        gt.refresh_linked(project)


def test_linked_counts_match_counts_made_by_eye(demo):
    """Shoppers counted frame by frame by a person: 2 on frames 0-10, 3 on 40-66, 3 in all; one worker."""
    project, _ = demo
    tasks = _by_external_id(project)
    assert {k: matchers.parse_count(tasks[k].ground_truth) for k in ("cnt-01", "cnt-02", "cnt-03", "cnt-04",
                                                                     "cnt-05", "cnt-06")} == \
        {"cnt-01": 1, "cnt-02": 1, "cnt-03": 1, "cnt-04": 3, "cnt-05": 2, "cnt-06": 3}
    # the third shopper's first box is on frame 14 of the 15 fps store clip
    assert matchers.parse_time_s(tasks["ret-06"].ground_truth) == pytest.approx(14 / 15, abs=1e-3)


def test_sample_file_is_current_small_and_reimports_to_the_same_tasks(demo, tmp_path):
    project, _ = demo
    out = tmp_path / "tasks.csv"
    n = demo_tasks.write_sample_task_file(project, out)
    assert n == len(ts.list_tasks(project))
    assert SAMPLE_FILE.is_file() and SAMPLE_FILE.stat().st_size < 100_000
    assert out.read_bytes() == SAMPLE_FILE.read_bytes(), "the demo built from the task file must export it unchanged"

    fresh = Project.create(tmp_path / "fresh.fieldstudio", name="re-import")
    try:
        added = library.add_paths(fresh, [sample_data_dir() / "media"])
        assert added.imported_total == 8
        report = import_tasks(fresh, [SAMPLE_FILE])
        assert report.created == n and not report.errors and not report.missing_media
        with fresh.read() as s:
            names = dict(s.execute(select(Media.id, Media.file_name)).all())
        originals = {t.external_id: t for t in demo_tasks.sample_task_records(project)}
        for row in ts.list_tasks(fresh):
            back = ts.get_task(fresh, row.id)
            want = originals[back.external_id]
            kept = back.extra[demo_tasks.FILE_EXTRA_KEY]
            original = _by_external_id(project)[back.external_id]
            assert (back.query, back.ground_truth, back.category, back.sub_category, back.scenario,
                    back.eval_func, back.output_format) == \
                (want.query, want.ground_truth, want.category, want.sub_category, want.scenario,
                 want.eval_func, want.output_format)
            assert [(i["name"], i["start_s"], i["end_s"]) for i in back.inputs] == \
                [(i.name, i.start_s, i.end_s) for i in want.inputs]
            assert all(names[i["media_id"]] == i["name"] for i in back.inputs)
            assert {k: v for k, v in back.extra.items() if k != "imported_from"} == want.extra
            # the fields the CSV has no column for come back from extra["fieldstudio"]
            assert kept["answer_type"] == original.answer_type
            assert kept.get("tolerances") == original.tolerances and kept["notes"] == original.notes
            gt_extra = {k: v for k, v in (original.ground_truth_extra or {}).items()
                        if k not in (gt.LINK_KEY, gt.BASIS_KEY)}        # both made again when linked on import
            assert kept.get("ground_truth_extra", {}) == gt_extra
            assert ("linked_to" in kept) == (original.ground_truth_annotation_id is not None
                                             or gt.link_of(original.ground_truth_extra) is not None)
            if original.answer_type in IMPORT_TYPES:
                assert back.answer_type == original.answer_type
    finally:
        fresh.close()


def test_the_set_uses_exactly_its_declared_ids_and_is_added_once(demo):
    project, _ = demo
    assert sorted(_by_external_id(project)) == sorted(TASK_IDS)
    boxes = len(ann.list_annotations(project, kinds=["box", "ruler"]))
    with pytest.raises(ts.TaskError, match="already"):
        demo_tasks.add_demo_tasks(project)
    assert len(ann.list_annotations(project, kinds=["box", "ruler"])) == boxes
