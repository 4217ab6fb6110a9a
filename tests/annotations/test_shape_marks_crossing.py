"""A polygon whose edges cross has no single area (issue 32 item 3 of this stop's list): core.shapes.first_crossing
agrees with shapely's LinearRing.is_simple on random outlines, and a crossing polygon gets no area in the
measurement (Properties), the annotation list, the CSV export and the area ground truth, each naming where its
edges cross."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from shapely.geometry import LinearRing, Point

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import rows, shape_marks
from fieldstudio.annotations.exports.csv_table import annotation_table
from fieldstudio.core import shapes
from fieldstudio.tasks import ground_truth as gt
from tests.support.annotation_fixtures import PHOTO_ID

# edge (0,0)-(300,120) is y = 0.4 x, edge (300,0)-(0,100) is y = 100 - x / 3: they cross at x = 100 / (0.4 + 1/3)
FIGURE_EIGHT = [[0, 0], [300, 120], [300, 0], [0, 100]]
CROSS_X = 100 / (0.4 + 1 / 3)


def test_the_crossing_point_by_hand_and_simple_outlines_have_none():
    x, y = shapes.first_crossing(FIGURE_EIGHT)
    assert (x, y) == pytest.approx((CROSS_X, 0.4 * CROSS_X))
    assert shapes.polygon_area(FIGURE_EIGHT) > 0          # the shoelace's net area: not what it covers
    assert shapes.first_crossing([[100, 300], [400, 290], [420, 420], [90, 430]]) is None
    star = [[500 + (200 if i % 2 else 80) * np.cos(i * np.pi / 100), 500 + (200 if i % 2 else 80) * np.sin(
        i * np.pi / 100)] for i in range(200)]
    assert shapes.first_crossing(star) is None                        # 200 vertices, concave, simple
    # a vertex touching a non-neighbouring edge is a meeting too
    assert shapes.first_crossing([[0, 0], [100, 0], [100, 100], [50, 0], [0, 100]]) == (50.0, 0.0)


def test_it_agrees_with_shapely_on_random_outlines():
    rng = np.random.default_rng(32)
    crossing = simple = 0
    for _ in range(400):
        pts = rng.integers(0, 60, size=(int(rng.integers(4, 9)), 2)).astype(float).tolist()
        if len({tuple(p) for p in pts}) < len(pts):
            continue                                                     # repeated vertices: not an outline
        found = shapes.first_crossing(pts)
        assert (found is None) == LinearRing(pts).is_simple, pts
        if found is None:
            simple += 1
            continue
        crossing += 1
        ring = LinearRing(pts)
        assert ring.distance(Point(found)) < 1e-6                        # the point is on the outline
    assert crossing > 50 and simple > 20


def test_a_crossing_polygon_has_no_area_anywhere(media_project):
    p = media_project
    cal.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0)
    eight = ann.add_shape(p, PHOTO_ID, "polygon", FIGURE_EIGHT)
    m = shape_marks.measure_shape(p, eight)
    where = f"edges cross at ({CROSS_X:.1f}, {0.4 * CROSS_X:.1f})"
    assert (m.area_px, m.area_m2) == (None, None) and m.how.startswith(f"no area: {where}")
    assert m.length_px == pytest.approx(shapes.path_length(FIGURE_EIGHT, closed=True))
    row = next(r for r in rows.annotation_rows(p, PHOTO_ID) if r.record.id == eight)
    assert row.measurement_text == f"no area: {where}"
    table = annotation_table(p)
    line = table[table.kind == "polygon"].iloc[0]
    assert pd.isna(line.area_px) and pd.isna(line.area_m2) and where in line.measured_how
    value = gt.compute(p, gt.GroundTruthLink("polygon_area", annotation_id=eight))
    assert not value.ok and where in value.explanation
    with pytest.raises(gt.LinkError, match="edges cross"):
        gt.link_fields(p, None, gt.GroundTruthLink("polygon_area", annotation_id=eight))
