"""COCO JSON in: ``images``, ``annotations`` with ``bbox`` ``[x, y, w, h]``, ``categories``; an annotation with
``segmentation`` polygons becomes a polygon, one with ``keypoints`` a points mark (``_shape``), or a skeleton when
its category names its keypoints: the 17 COCO body points, or other names, which become the label's own skeleton
template (``annotations.skeleton_templates``, set by the import).

An image is matched to a photo by its ``file_name`` (or the name's last part), or to a video frame by the
fields fieldstudio's own export writes: ``fieldstudio_media_id``, ``frame_index`` and ``pts_seconds``, with
the video found by the id or by the ``<video stem>_f<frame>.jpg`` name. ``attributes.track_id`` and
``attributes.keyframe`` (fieldstudio's and CVAT's export) make the box, polygon, polyline, points mark or skeleton
part of a track; one marked ``keyframe: false`` was interpolated and is left to fieldstudio's interpolation (a
shape's is kept as a keyframe only where interpolation would not give it back).

The file is streamed (``ijson``): ``images`` and ``categories`` are read first (one pass that keeps those lists only
and checks the document's nesting), then ``annotations`` one at a time while the import places and stores them, so a file of 10^6 boxes is never
held whole (a ``json.load`` of it takes about 1 GB). The input is a JSON file or a folder: the folder's
``annotations.json`` (what fieldstudio's export writes when given a folder), else every ``*.json`` in it, else every
``annotations/*.json`` (the COCO layout).
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path, PurePath

import ijson
from ijson.common import ObjectBuilder

from fieldstudio.annotations.imports.parsed import (ImportFormatError, Parsed, ParsedBox, ParsedMedia, shape_box,
                                                    size_problem, skeleton_box)
from fieldstudio.core import skeletons
from fieldstudio.core.json_limits import MAX_JSON_DEPTH

_FRAME_NAME = re.compile(r"^(?P<stem>.+)_f(?P<frame>\d{6,})(?:_[0-9a-f]{8})?\.[A-Za-z]+$")
# what ijson raises for a document that is not JSON (yajl's errors, a truncated file, bad UTF-8)
_NOT_JSON = (ijson.JSONError, ijson.IncompleteJSONError, UnicodeDecodeError, ValueError)


def _json_files(folder: Path) -> list[Path]:
    if (folder / "annotations.json").is_file():
        return [folder / "annotations.json"]
    found = sorted(p for p in folder.glob("*.json") if p.is_file())
    if not found:
        found = sorted(p for p in folder.glob("annotations/*.json") if p.is_file())
    if not found:
        raise ImportFormatError(f"{folder}: no COCO JSON in the folder (looked for annotations.json, *.json "
                                "and annotations/*.json)")
    return found


def parse_coco(path: Path) -> Parsed:
    """Read a COCO JSON file, or the COCO JSON files of a folder (see the module text).

    The images and categories are read now; the boxes come from ``Parsed.boxes()``, which reads the annotations as
    it is iterated (once). Raises ImportFormatError when the file is not JSON or has no ``images`` list, or when a
    folder holds no JSON file, or none that is COCO; ``Parsed.boxes()`` raises it when the file turns out to be
    broken further on. Of a folder's several JSON files, one that is not COCO is listed in ``problems`` and the
    others are read.
    """
    path = Path(path)
    if not path.is_dir():
        return _parse_file(path)
    files = _json_files(path)
    if len(files) == 1:
        return _parse_file(files[0])
    out, refused = Parsed(), []
    for f in files:
        try:
            out.add(_parse_file(f))
        except ImportFormatError as exc:
            refused.append(str(exc))
    if not out.files:
        raise ImportFormatError(f"{path}: none of its {len(files)} JSON files is COCO: " + "; ".join(refused))
    out.problems += [(msg.split(": ", 1)[0], msg.split(": ", 1)[-1] + "; the file is skipped") for msg in refused]
    return out


_STARTS = ("start_map", "start_array")
_ENDS = ("end_map", "end_array")


def _head(path: Path) -> tuple[list, list]:
    """(images, categories) of the file, read in one streaming pass that also checks the whole document's nesting.

    The depth is checked here, before the annotations are read by ``ijson.items``, whose prefixes grow with the
    depth (a document nested 200,000 deep would take them quadratic memory). Raises ImportFormatError: not JSON,
    not an object with an ``images`` list, or nested deeper than ``MAX_JSON_DEPTH``.
    """
    images: list = []
    categories: list = []
    lists = {"images": images, "categories": categories}
    depth, top, into, builder, has_images = 0, None, None, None, False
    try:
        with path.open("rb") as fh:
            for event, value in ijson.basic_parse(fh, use_float=True):
                if event in _STARTS:
                    depth += 1
                    if depth > MAX_JSON_DEPTH:
                        raise ImportFormatError(f"{path}: is nested deeper than {MAX_JSON_DEPTH:,} levels; not read")
                    if depth == 2 and event == "start_array" and top in lists:
                        into, has_images = lists[top], has_images or top == "images"
                    elif depth == 3 and into is not None:
                        builder = ObjectBuilder()
                elif event in _ENDS:
                    depth -= 1
                    if builder is not None and depth == 2:
                        builder.event(event, value)
                        into.append(builder.value)
                        builder = None
                        continue
                    if depth == 1:
                        into = None
                elif depth == 1 and event == "map_key":
                    top = value
                if builder is not None:
                    builder.event(event, value)
    except OSError as exc:
        raise ImportFormatError(f"{path}: not a readable JSON file ({exc})") from None
    except _NOT_JSON as exc:
        raise ImportFormatError(f"{path}: not a readable JSON file ({exc})") from None
    if not has_images:
        raise ImportFormatError(f"{path}: not COCO JSON (no 'images' list)")
    return images, categories


#: A file up to this size is decoded whole by ``json.loads`` (about 10x its size in memory: 320 MB at most), where
#: the two streamed passes took four times as long (100,000 polygons, 23 MB: 1.1 s of 0.3 s); a larger one streams.
WHOLE_BYTES = 32 * 1024 * 1024
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_TOP_KEYS = (b'"images"', b'"annotations"', b'"categories"')


def _whole(path: Path) -> dict | None:
    """The document of a small COCO file decoded whole, when that reads exactly what streaming it would; None (the
    caller streams it, and says what is wrong with it) otherwise.

    It is taken only when every difference between ``json.loads`` and the streaming parser (yajl) is ruled out:
    the file is strict UTF-8 without a byte-order mark (``json.loads`` of bytes takes UTF-16 and a mark), holds no
    escaped surrogate (yajl reads ``\\ud800`` as "?"), no NaN or Infinity (``json.loads`` reads them, yajl refuses),
    names each of ``images``, ``annotations`` and ``categories`` at most once as a string anywhere (streaming reads
    every copy of a repeated top-level key, ``json.loads`` the last), and decodes without reaching the recursion
    limit, which is at most ``MAX_JSON_DEPTH`` (so its nesting is within the streamed limit too)."""
    try:
        if path.stat().st_size > WHOLE_BYTES or sys.getrecursionlimit() > MAX_JSON_DEPTH:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if data.startswith(codecs.BOM_UTF8) or _SURROGATE_ESCAPE.search(data) or \
            any(data.count(key) > 1 for key in _TOP_KEYS):
        return None
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError):     # UnicodeDecodeError is a ValueError
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("images"), list) else None


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _parse_file(path: Path) -> Parsed:
    """One COCO JSON file: its images (as groups) and categories now, its annotations streamed by ``boxes()`` (read
    from the document decoded whole, for a small file: ``_whole``)."""
    doc = _whole(path)
    if doc is None:
        images, categories = _head(path)
    else:   # as ``_head`` keeps them: the objects and arrays of a top-level list
        images = [im for im in doc["images"] if isinstance(im, (dict, list))]
        listed = doc.get("categories")
        categories = [c for c in listed if isinstance(c, (dict, list))] if isinstance(listed, list) else []
    names = {c.get("id"): str(c.get("name")) for c in categories if isinstance(c, dict)}
    point_counts = {c.get("id"): len(c["keypoints"]) for c in categories
                    if isinstance(c, dict) and isinstance(c.get("keypoints"), list) and c["keypoints"]}
    out = Parsed(files=[str(path)])
    # keypoint categories: their keypoints are skeletons, of a built-in template or of the label's own
    skeleton_of = {c.get("id"): _category_template(c, names, out) for c in categories
                   if isinstance(c, dict) and isinstance(c.get("keypoints"), list)}
    groups: dict[object, tuple[ParsedMedia, int | None, float | None]] = {}
    for im in images:
        if not isinstance(im, dict) or "id" not in im:
            out.problems.append((f"{path.name} image", "an image without an id is skipped"))
            continue
        name = str(im.get("file_name") or "")
        frame = im.get("frame_index")
        seconds = im.get("pts_seconds")
        m = _FRAME_NAME.match(PurePath(name).name)
        if frame is None and seconds is None and m is not None:
            frame = int(m.group("frame"))  # the frame names fieldstudio's export gives
        if frame is not None or seconds is not None:
            stems = (m.group("stem"),) if m else ()
            group = ParsedMedia(f"{path.name}: {name}", stems, "video", im.get("fieldstudio_media_id"))
        else:
            group = ParsedMedia(f"{path.name}: {name}", (name, PurePath(name).name), "image",
                                im.get("fieldstudio_media_id"))
        groups[im["id"]] = (group, None if frame is None else int(frame), None if seconds is None else float(seconds))
    del images
    size = max(path.stat().st_size, 1)
    position = [0]
    file_name = path.name

    def decoded() -> Iterator[tuple[ParsedMedia, ParsedBox]]:
        listed = doc.pop("annotations", None)
        listed = listed if isinstance(listed, list) else []
        for n, a in enumerate(listed, start=1):
            if n % 1024 == 0:
                position[0] = size * n // len(listed)
            found = _box(path, n, a, groups, names, out.problems, skeleton_of, point_counts, file_name)
            if found is not None:
                yield found
        position[0] = size

    def boxes() -> Iterator[tuple[ParsedMedia, ParsedBox]]:
        if doc is not None:
            yield from decoded()
            return
        try:
            with path.open("rb") as fh:
                for n, a in enumerate(ijson.items(fh, "annotations.item", use_float=True), start=1):
                    if n % 1024 == 0:
                        position[0] = fh.tell()
                    found = _box(path, n, a, groups, names, out.problems, skeleton_of, point_counts, file_name)
                    if found is not None:
                        yield found
        except OSError as exc:
            raise ImportFormatError(f"{path}: not a readable JSON file ({exc})") from None
        except _NOT_JSON as exc:
            raise ImportFormatError(f"{path}: not a readable JSON file ({exc})") from None
        position[0] = size

    out.streams.append((boxes, lambda: (position[0], size)))
    return out


def _pairs(flat: object, step: int) -> tuple[tuple[float, float], ...] | None:
    """``[x1, y1, (v1,) x2, y2, ...]`` as ((x, y), ...) of the points kept (a keypoint with v = 0 is not
    labelled); None when the list is not numbers in whole groups of ``step``."""
    if not isinstance(flat, list) or len(flat) % step:
        return None
    try:
        values = list(map(float, flat))
    except (TypeError, ValueError):
        return None
    if step == 2:   # a polygon: one zip in C (10^5 polygons are read through here)
        return tuple(zip(values[0::2], values[1::2]))
    return tuple((values[i], values[i + 1]) for i in range(0, len(values), step) if values[i + 2] > 0)


def _category_template(category: dict, names: dict, out: Parsed) -> skeletons.SkeletonTemplate | None:
    """The skeleton template of a keypoint category: the built-in one its ``keypoints`` names, else one made of its
    names and ``skeleton`` (1-based pairs), given to its label (``out.templates``); None when they make none (the
    keypoints are then points marks)."""
    found = skeletons.template_named(category["keypoints"])
    if found is not None or not category["keypoints"]:
        return found
    try:
        limbs = [(int(a) - 1, int(b) - 1) for a, b in category.get("skeleton") or ()]
        made = skeletons.make_template(skeletons.LABEL_OWN, category["keypoints"], limbs)
    except (skeletons.ShapeError, TypeError, ValueError):
        return None
    out.templates[names.get(category.get("id"))] = made
    return made


def _skeleton_points(flat: list, n: int) -> tuple | None:
    """``n`` (x, y, v) triples as points, None where v = 0 (not labelled); None when malformed or none placed."""
    if len(flat) != 3 * n:
        return None
    try:
        values = [float(v) for v in flat]
    except (TypeError, ValueError):
        return None
    points = tuple(None if values[i + 2] <= 0 else (values[i], values[i + 1]) for i in range(0, 3 * n, 3))
    return points if any(p is not None for p in points) else None


SKIP = ("skip", ())   # what ``_shape`` gives for an annotation refused whole


def _shape(a: dict, where: str, problems: list[tuple[str, str]], named: int | None = None) -> tuple[str, tuple] | None:
    """(kind, vertices) of an annotation that is a polygon (``segmentation`` polygons: the first one; an RLE mask
    stays a box, reported), a points mark (``keypoints``, the labelled ones) or fieldstudio's
    ``fieldstudio_polyline``; None for a plain box; ``SKIP`` (and a problem) for keypoints that are not whole
    (x, y, v) triples, or not the ``named`` points its category lists."""
    seg, keypoints, line = a.get("segmentation"), a.get("keypoints"), a.get("fieldstudio_polyline")
    if isinstance(seg, dict):
        problems.append((where, "segmentation is an RLE mask: kept as a box from its bbox, not as a polygon"))
    if line is not None and (pts := _pairs(line, 2)) and len(pts) >= 2:
        return "polyline", pts
    if isinstance(seg, list) and seg and isinstance(seg[0], list):
        pts = _pairs(seg[0], 2)
        if pts is None or len(pts) < 3:
            n = len(seg[0])
            why = (f"has {n} values, an odd number (x, y pairs expected)" if n % 2 else
                   "is not 3 or more (x, y) number pairs")
            problems.append((where, f"segmentation's first polygon {why}: kept as a box from its bbox, "
                                    "not as a polygon"))
            return None
        if len(seg) > 1:
            problems.append((where, f"segmentation has {len(seg)} polygons; the first is kept"))
        return "polygon", pts
    if keypoints is not None:
        n = len(keypoints) if isinstance(keypoints, list) else None
        if n is None or n % 3:
            problems.append((where, f"keypoints hold {n if n is not None else 'no list of'} values, not (x, y, v) "
                                    "triples; skipped"))
            return SKIP
        if named is not None and n != 3 * named:
            problems.append((where, f"keypoints hold {n // 3} (x, y, v) triples, its category names {named} points; "
                                    "skipped"))
            return SKIP
        pts = _pairs(keypoints, 3)
        if pts:
            return "points", pts
        problems.append((where, "keypoints hold no labelled point (x, y, v > 0); its box is kept"))
    return None


def _box(path: Path, n: int, a: object, groups: dict, names: dict, problems: list[tuple[str, str]],
         skeleton_of: dict | None = None, point_counts: dict | None = None,
         file_name: str | None = None) -> tuple[ParsedMedia, ParsedBox] | None:
    """The n-th annotation ``a`` as (its image's group, the box or shape), or None with a problem added.
    ``point_counts``: {category id: how many keypoints the category names}; ``file_name``: ``path.name``, given
    by a caller that reads many annotations of one file."""
    where = f"{file_name or path.name} annotation {a.get('id', n) if isinstance(a, dict) else n}"
    if not isinstance(a, dict) or a.get("image_id") not in groups:
        problems.append((where, "names no image of the file; skipped"))
        return None
    attrs = a.get("attributes")
    if attrs and isinstance(attrs, dict):
        attrs = dict(attrs)
        track = attrs.pop("track_id", None)
        keyframe = attrs.pop("keyframe", True)
        track = None if track is None else str(track)
        keyframe = keyframe is not False and str(keyframe).lower() != "false"
    else:   # most annotations: no attributes, so no track and a keyframe
        attrs, track, keyframe = None, None, True
    group, frame, seconds = groups[a["image_id"]]
    tmpl = (skeleton_of or {}).get(a.get("category_id"))
    if tmpl is not None and isinstance(a.get("keypoints"), list):
        points = _skeleton_points(a["keypoints"], len(tmpl.points))
        if points is None:
            problems.append((where, f"keypoints are not {len(tmpl.points)} (x, y, v) triples with a point placed; "
                             "skipped"))
            return None
        return group, skeleton_box(tmpl.name, points, names.get(a.get("category_id")), frame_index=frame,
                                   pts_seconds=seconds, attributes=attrs or None, where=where, track=track,
                                   keyframe=keyframe)
    shape = _shape(a, where, problems, (point_counts or {}).get(a.get("category_id")))
    if shape is SKIP:
        return None
    if shape is not None:
        return group, shape_box(*shape, names.get(a.get("category_id")), frame_index=frame, pts_seconds=seconds,
                                attributes=attrs or None, where=where, track=track, keyframe=keyframe)
    try:
        x, y, w, h = (float(v) for v in a["bbox"])
    except (KeyError, TypeError, ValueError):
        problems.append((where, f"bbox {a.get('bbox')!r} is not [x, y, w, h]; skipped"))
        return None
    problem = size_problem(w, h)
    if problem:
        problems.append((where, problem))
        return None
    return group, ParsedBox.made((x, y, x + w, y + h), names.get(a.get("category_id")), frame_index=frame,
                                 pts_seconds=seconds, track=track, keyframe=keyframe, attributes=attrs or None,
                                 where=where)
