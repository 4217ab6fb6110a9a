"""The same export read back two ways (issue 32 item 1): shapes on video frames exported to COCO and to CVAT for video
and imported into two fresh projects give the same marks (kind, frame, label, template and vertices within CVAT's
2 decimals), including a 5-point hand skeleton with a hidden point and a shape track's keyframes."""

from __future__ import annotations

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import skeleton_templates as st
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media

HAND = ["wrist", "thumb", "index", "middle", "little"]


def marks_of(project: Project) -> list[tuple]:
    """Every stored shape as (kind, frame, track keyframe or not, label name, template's points, vertices)."""
    names = {r.id: r.name for r in lab.list_labels(project)}
    out = []
    for r in ann.list_annotations(project, kinds=["polygon", "polyline", "points", "skeleton"]):
        points = st.template_of(project, r.text).points if r.kind == "skeleton" else ()
        out.append((r.kind, r.frame_index, r.track_id is not None, names.get(r.label_id), points, r.geometry))
    return sorted(out, key=repr)


def test_coco_and_cvat_of_one_export_give_the_same_marks(media_project, tmp_path):
    p = media_project
    spill, hand = lab.create_label(p, "spill"), lab.create_label(p, "hand")
    st.SetSkeletonTemplate(p, hand, HAND, [(0, 1), (0, 2)]).do()
    ann.add_shape(p, VIDEO_ID, "polygon", [[10.25, 20.5], [60.125, 22], [40, 70.75]], frame_index=3, label_id=spill)
    ann.add_shape(p, VIDEO_ID, "polyline", [[5, 5], [100.5, 40.25], [150, 41]], frame_index=7, label_id=spill)
    ann.add_shape(p, VIDEO_ID, "points", [[12, 13], [14.5, 15.5]], frame_index=9, label_id=spill)
    ann.add_skeleton(p, VIDEO_ID, [[200, 100], None, [230, 90.5], [240, 88], [255, 102]], frame_index=4, label_id=hand)
    ann.add_skeleton(p, VIDEO_ID, [[20 + 3 * i, 30 + 4 * i] for i in range(17)], frame_index=11)
    ann.add_shape(p, VIDEO_ID, "polygon", [[100, 100], [140, 100], [120, 130]], frame_index=12, label_id=spill,
                  track_id=7)
    ann.add_shape(p, VIDEO_ID, "polygon", [[110, 104], [150, 104], [130, 134]], frame_index=20, label_id=spill,
                  track_id=7)
    export_annotations(p, "coco", tmp_path / "coco.json")
    export_annotations(p, "cvat", tmp_path / "cvat.xml")
    got = {}
    for fmt, source in (("coco", tmp_path / "coco.json"), ("cvat", tmp_path / "cvat.xml")):
        target = Project.create(tmp_path / f"{fmt}.fieldstudio")
        add_test_media(target)
        report = import_annotations(target, source, fmt)
        assert not report.problems, (fmt, report.problems)
        got[fmt] = marks_of(target)
    assert len(got["coco"]) == len(got["cvat"]) == 7
    for a, b in zip(got["coco"], got["cvat"]):
        assert a[:5] == b[:5]
        assert len(a[5]) == len(b[5])
        for u, v in zip(a[5], b[5]):
            assert (u is None) == (v is None)
            if u is not None:
                assert u == pytest.approx(v, abs=0.0051)      # CVAT writes 2 decimals
    assert got["coco"] == sorted(marks_of(p), key=repr)       # COCO writes the vertices unrounded
