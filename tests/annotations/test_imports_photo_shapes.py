"""Shapes on photos are checked a batch at a time (``imports.photo_shapes``): what a batch stores and reports is what
the one-at-a-time path stores and reports, for random and hostile shapes (outside the image, repeated and closing
vertices, too few, collinear, tiny, crossing, not finite, integers), in the file's order."""

from __future__ import annotations

import json
import math
import random

import pytest

from fieldstudio.annotations.imports import importing, photo_shapes
from tests.support.annotation_fixtures import add_test_media


def hostile_shapes(rng: random.Random, n: int) -> list[dict]:
    """``n`` COCO annotations on image 7 (site.jpg, 400 x 300): polygons, polylines and keypoints, a third of them
    bent into one of the cases the checks refuse or change."""
    out = []
    for k in range(n):
        m = rng.choice([3, 4, 5, 8])
        cx, cy, r = rng.uniform(-30, 430), rng.uniform(-30, 330), rng.uniform(0.001, 60)
        pts = [[round(cx + r * math.cos(2 * math.pi * v / m), rng.choice([0, 2, 6])),
                round(cy + r * math.sin(2 * math.pi * v / m), rng.choice([0, 2, 6]))] for v in range(m)]
        case = rng.randrange(12)
        if case == 0:
            pts.append(list(pts[0]))                      # closed by repeating the first vertex
        elif case == 1:
            pts.insert(1, list(pts[0]))                   # a vertex repeated
        elif case == 2:
            pts = [[10 + v, 20 + 2 * v] for v in range(m)]   # on one line
        elif case == 3:
            pts = [[1e6, 5], [1e6 + 3, 9], [1e6 + 1, 2]]  # far outside
        elif case == 4:
            pts = [[100, 100], [100 + 1e-6, 100], [100, 100 + 1e-6]]   # an area of 5e-13 px²
        elif case == 5:
            pts = [[0, 0], [10, 10], [10, 0], [0, 10]]    # a bowtie: its lobes cancel
        elif case == 6:
            pts = [[int(x), int(y)] for x, y in pts]       # integers
        elif case == 7:
            pts = pts[:2]                                 # two vertices
        kind = rng.choice(["polygon", "polygon", "polyline", "points"])
        flat = [c for p in pts for c in p]
        a = {"id": k + 1, "image_id": 7, "category_id": 1 + k % 2, "bbox": [0, 0, 1, 1]}
        if kind == "polygon":
            a["segmentation"] = [flat]
        elif kind == "polyline":
            a["fieldstudio_polyline"] = flat
        else:
            a["keypoints"] = [c for p in pts for c in (*p, 2)]
        if k % 97 == 5:
            a = {**a, "bbox": [1, 1, -2, 2]} if kind == "points" else {**a, "image_id": 99}   # records placed badly
        out.append(a)
    return out


def plan_of(project, path, monkeypatch, batched: bool):
    with monkeypatch.context() as m:
        if not batched:
            m.setattr(photo_shapes.PhotoShapes, "takes", staticmethod(lambda *a: False))
        plan = importing.plan_import(project, path, "coco")
    plain = plan.plain
    rows = [(plain.media_id(i), plain.frame[i], tuple(plain.coords[4 * i:4 * i + 4]), plain.labels[plain.label[i]],
             plain.shapes.get(i)) for i in range(len(plain))]
    return rows, plan.report.problems, plan.report.kinds


@pytest.mark.parametrize("seed", [1, 2])
def test_a_batch_stores_and_reports_what_one_at_a_time_does(project, tmp_path, monkeypatch, seed):
    add_test_media(project)
    annotations = hostile_shapes(random.Random(seed), 3000)
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps({"images": [{"id": 7, "file_name": "site.jpg", "width": 400, "height": 300}],
                                "annotations": annotations,
                                "categories": [{"id": 1, "name": "spill"}, {"id": 2, "name": "zone"}]}))
    monkeypatch.setattr(photo_shapes, "BATCH", 700)      # several batches, one part full at the end
    proven: list[int] = []
    real = photo_shapes._proven

    def counted(items):
        out = real(items)
        proven.append(sum(out[0]) if out else 0)
        return out

    monkeypatch.setattr(photo_shapes, "_proven", counted)
    batched = plan_of(project, path, monkeypatch, batched=True)
    one_at_a_time = plan_of(project, path, monkeypatch, batched=False)
    assert batched == one_at_a_time
    rows, problems, kinds = batched
    assert 0 < sum(proven) < len(rows) < len(annotations)      # both ways taken, some refused
    assert any("far outside" in why for _w, why in problems) and any("one line" in why for _w, why in problems)
    assert set(kinds) >= {"polygon", "polyline", "points"}
