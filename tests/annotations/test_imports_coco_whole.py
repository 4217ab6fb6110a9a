"""A small COCO file is decoded whole (``coco._whole``) instead of streamed in two passes: the boxes, shapes, problems
and templates read are the streamed reader's, and every file where ``json.loads`` and the streaming parser (yajl)
would differ is streamed (a repeated top-level key, NaN, an escaped surrogate, a byte-order mark)."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from fieldstudio.annotations.imports import coco
from fieldstudio.annotations.imports.parsed import ImportFormatError


def document() -> dict:
    """Photos and a video frame with a box, a polygon, a polyline, keypoints of a 3-point category, an RLE mask, a
    track's attributes and hostile records (no image, an odd polygon, a bad bbox)."""
    return {
        "images": [{"id": 1, "file_name": "site.jpg", "width": 400, "height": 300}, 17,
                   {"id": 2, "file_name": "walk_f000004.jpg", "frame_index": 4, "pts_seconds": 0.4}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 20.5, 30, 40]},
            {"id": 2, "image_id": 1, "category_id": 2, "segmentation": [[1, 2, 30.25, 2, 30, 40.5]], "bbox": [0, 0, 1, 1]},
            {"id": 3, "image_id": 2, "category_id": 3, "keypoints": [5, 6, 2, 0, 0, 0, 7.5, 8, 1], "bbox": [0, 0, 1, 1],
             "attributes": {"track_id": 4, "keyframe": False, "colour": "red"}},
            {"id": 4, "image_id": 1, "category_id": 1, "fieldstudio_polyline": [1, 1, 9, 9.5], "bbox": [1, 1, 8, 8]},
            {"id": 5, "image_id": 1, "category_id": 1, "segmentation": {"counts": "x", "size": [3, 3]},
             "bbox": [1, 1, 2, 2]},
            {"id": 6, "image_id": 99, "category_id": 1, "bbox": [1, 1, 2, 2]},
            {"id": 7, "image_id": 1, "category_id": 2, "segmentation": [[1, 2, 3]], "bbox": [1, 1, 2, 2]},
            {"id": 8, "image_id": 1, "category_id": 1, "bbox": [1, 1, -2, 2]},
        ],
        "categories": [{"id": 1, "name": "person"}, {"id": 2, "name": "spill"},
                       {"id": 3, "name": "hand", "keypoints": ["wrist", "thumb", "index"], "skeleton": [[1, 2]]}],
    }


def read(path: Path) -> tuple:
    """Everything a parse gives, in order: each (group, box) as plain values, the problems, the templates."""
    parsed = coco.parse_coco(path)
    boxes = [((g.source, g.names, g.kind, g.media_id), b) for g, b in parsed.boxes()]
    return boxes, parsed.problems, {name: (t.points, t.edges) for name, t in parsed.templates.items()}


def streamed(path: Path, monkeypatch) -> tuple:
    with monkeypatch.context() as m:
        m.setattr(coco, "WHOLE_BYTES", -1)
        assert coco._whole(path) is None
        return read(path)


def test_a_small_file_decoded_whole_reads_what_streaming_it_reads(tmp_path, monkeypatch):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(document()))
    assert coco._whole(path) is not None
    whole = read(path)
    assert whole == streamed(path, monkeypatch)
    boxes, problems, templates = whole
    assert [b.shape[0] if b.shape else "box" for _g, b in boxes] == ["box", "polygon", "skeleton", "polyline", "box",
                                                                    "box"]
    assert boxes[1][1].shape[1] == ((1.0, 2.0), (30.25, 2.0), (30.0, 40.5))
    assert boxes[2][1].track == "4" and boxes[2][1].keyframe is False and boxes[2][1].attributes == {"colour": "red"}
    assert len(problems) == 4 and templates == {"hand": (("wrist", "thumb", "index"), ((0, 1),))}


@pytest.mark.parametrize("case", ["repeated annotations", "surrogate", "nan", "bom", "deeper than the limit"])
def test_a_file_json_loads_would_read_otherwise_is_streamed(case, tmp_path, monkeypatch):
    doc = document()
    text = json.dumps(doc)
    if case == "repeated annotations":   # streaming reads both copies; json.loads would keep the last
        text = text[:-1] + ', "annotations": [{"id": 9, "image_id": 1, "category_id": 1, "bbox": [2, 2, 3, 3]}]}'
    elif case == "surrogate":
        text = text.replace('"spill"', '"sp\\ud800ill"')
    elif case == "nan":
        text = text.replace("[10, 20.5, 30, 40]", "[NaN, 20.5, 30, 40]")
    elif case == "deeper than the limit":
        text = text[:-1] + ', "x": ' + "[" * 1200 + "]" * 1200 + "}"
    data = (codecs.BOM_UTF8 if case == "bom" else b"") + text.encode()
    path = tmp_path / "odd.json"
    path.write_bytes(data)
    assert coco._whole(path) is None
    if case in ("nan", "bom", "deeper than the limit"):
        with pytest.raises(ImportFormatError, match="odd.json: (not a readable JSON file|is nested deeper)"):
            read(path)
        return
    boxes, _problems, _templates = read(path)
    if case == "repeated annotations":
        assert len(boxes) == 7 and boxes[-1][1].box == (2.0, 2.0, 5.0, 5.0)
    else:
        assert boxes[1][1].label == "sp?ill"       # what the streaming parser makes of it
