"""`annotations list` shows what a polygon and a polyline measure (issue 32 item 1, the fresh-eyes check: the area was
only in the CSV export): px² always, m² through the calibration in use; values by hand."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.cli.app import app
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID

ZONE = [[100, 300], [400, 290], [420, 420], [90, 430]]


def test_a_polygon_is_listed_with_its_area_and_perimeter(media_project, wide_console):
    """Scale 1 m over 100 px on the photo: the 150 x 60 px rectangle is 9,000 px² = 0.90 m², perimeter 420 px =
    4.20 m. The video has no calibration: the zone is 41,000 px² (shoelace by hand) and no m²."""
    p = media_project
    cal.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0)
    spill = ann.add_shape(p, PHOTO_ID, "polygon", [[10, 10], [160, 10], [160, 70], [10, 70]])
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=10)
    edge = ann.add_shape(p, PHOTO_ID, "polyline", [[0, 0], [30, 40]])
    runner = CliRunner()
    res = runner.invoke(app, ["annotations", "list", str(p.path), "--kind", "polygon"])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith(spill))
    assert line.endswith("area 9,000 px² = 0.90 m², perimeter 420.0 px = 4.20 m")
    line = next(x for x in res.output.splitlines() if x.startswith(zone))
    assert "area 41,000 px², perimeter" in line and "m²" not in line.replace("px²", "")
    res = runner.invoke(app, ["annotations", "list", str(p.path), "--json"])
    rows = {r["id"]: r for r in json.loads(res.output)}
    assert rows[spill]["measurement"]["area_px"] == pytest.approx(9000.0)
    assert rows[spill]["measurement"]["area_m2"] == pytest.approx(0.9)
    assert rows[zone]["measurement"]["area_m2"] is None
    assert rows[edge]["measurement"]["length_m"] == pytest.approx(0.5)      # 3-4-5: 50 px = 0.50 m
    assert rows[edge]["measurement"]["text"] == "length 50.0 px = 0.50 m"
