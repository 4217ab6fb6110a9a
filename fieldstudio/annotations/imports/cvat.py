"""CVAT 1.1 XML in, both layouts: "for video" (``<track>`` elements, below) and "for images" (``<image id name>``
elements holding ``<box label xtl ytl xbr ybr>``, ``<polygon>``, ``<polyline>``, ``<points label points>`` and
``<skeleton label>`` marks, each image matched to a photo by its name, the name's last part, or its stem).

For video: ``<track id label>`` elements of ``<box frame keyframe outside xtl ytl xbr ybr>``.

CVAT writes every frame of a track, ``keyframe="1"`` on the frames a person set; the rest were interpolated
and are left to fieldstudio's interpolation (the same linear rule). ``outside="1"`` ends a visible run: a
track that leaves and comes back becomes one fieldstudio track per run, since a fieldstudio track has a
box on every frame between its keyframes. ``<attribute name>`` children become box attributes. A track holding one box is imported as a plain box
(fieldstudio writes a box outside any track that way). The video
is matched by ``meta/task/source`` (or ``meta/source``), else the task name, else the file's stem. The
input is one .xml file or a folder of them. ``<polygon>``, ``<polyline>`` and ``<points>`` elements (``points="x1,y1;
x2,y2;..."``) of a track become a shape track (``annotations.shape_tracks``): its ``keyframe="1"`` elements are
keyframes, and of the ``keyframe="0"`` ones (frames CVAT interpolated, by its own rule, which for polygons resamples
the outline) those that fieldstudio's per-vertex interpolation between the kept ones does not give back within the
file's rounding are kept as keyframes too, so every frame shows what the file shows. ``outside="1"`` ends a visible
run; the next run is another track unless its first shape has another vertex count than the last one before (then
nothing is interpolated across the gap anyway, and the track goes on). A track of one visible shape is that shape
alone. A ``<skeleton>`` becomes a skeleton of its label's template: the one ``<meta>`` declares (points as
sub-labels, limbs in its ``<svg>``: ``annotations.cvat_labels``), else the one its ``<points label>`` children name
(the 17 COCO body points), else one of those names; a point ``outside="1"`` or missing is absent, and a skeleton
all of whose points are outside is the track leaving (CVAT gives a ``<skeleton>`` no ``outside`` of its own). A ``<polyline>`` of three points with the attribute
``fieldstudio_kind`` "angle" (fieldstudio's export) becomes an angle, measured again with the calibration in use,
and a track of ``<points>`` with ``fieldstudio_kind`` "stopwatch" a stopwatch from its first shown frame to its last.
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path, PurePath

from fieldstudio.annotations import cvat_labels
from fieldstudio.annotations.imports.parsed import (ImportFormatError, Parsed, ParsedBox, ParsedMedia, shape_box,
                                                    size_problem, skeleton_box)
from fieldstudio.core import skeletons

ANGLE_KIND_ATTRIBUTE = "fieldstudio_kind"
"""The attribute that marks a ``<polyline>`` as a fieldstudio angle (``exports.cvat`` writes it)."""

SHAPE_TAGS = ("polygon", "polyline", "points")


def _text(root: ET.Element, *paths: str) -> str | None:
    for p in paths:
        node = root.find(p)
        if node is not None and node.text and node.text.strip():
            return node.text.strip()
    return None


def parse_cvat_file(path: Path, problems: list[tuple[str, str]] | None = None,
                    templates: dict | None = None) -> list[ParsedMedia]:
    """One CVAT XML file's groups: its video's tracks as one group (CVAT for video), one group per ``<image>`` with
    marks (CVAT for images); a mark that cannot be read is skipped, its reason added to `problems`; ``templates``
    gets label name -> the skeleton template its points name (when not the built-in one: ``Parsed.templates``).
    The file is read with ``iterparse``, each ``<track>`` and ``<image>`` dropped once read, so the tree of a large
    file is never held whole. Raises ImportFormatError."""
    problems = [] if problems is None else problems
    templates = {} if templates is None else templates
    boxes: list[ParsedBox] = []
    images: list[ParsedMedia] = []
    names: list[str] = []
    declared: dict[str, skeletons.SkeletonTemplate] = {}
    try:
        events = ET.iterparse(path, events=("start", "end"))
        _event, root = next(events)
        if root.tag != "annotations":
            raise ImportFormatError(f"{path}: not a CVAT annotation file (the root is <{root.tag}>)")
        for event, node in events:
            if event != "end":
                continue
            if node.tag == "meta":
                names = [n for n in (_text(node, "task/source", "source"), _text(node, "task/name")) if n]
                declared = cvat_labels.read_skeletons(node)
                node.clear()
            elif node.tag in ("track", "image"):
                if node.tag == "track":
                    _read_track(path, node, boxes, problems, templates, declared)
                else:
                    images.append(_read_image(path, node, problems, templates, declared))
                node.clear()
                if len(root) and root[-1] is node:
                    root.remove(node)  # the root keeps its children: drop each track once read
    except (OSError, ET.ParseError, StopIteration) as exc:
        raise ImportFormatError(f"{path}: not readable XML ({exc})") from None
    names = [*names, path.stem]
    names += [PurePath(n).stem for n in names]
    group = ParsedMedia(path.name, tuple(dict.fromkeys(names)), "video", boxes=boxes)
    return [g for g in (group, *images) if g.boxes]


def _read_image(path: Path, image: ET.Element, problems: list[tuple[str, str]], templates: dict,
                declared: dict[str, skeletons.SkeletonTemplate]) -> ParsedMedia:
    """An ``<image id name>`` of CVAT for images as the group of its marks: ``<box>``, ``<polygon>``,
    ``<polyline>``, ``<points>`` (an angle as in a track) and ``<skeleton>``, each with its own ``label``; found by
    its name, the name's last part and stem."""
    name = image.get("name", "")
    here = f"{path.name} image {image.get('id', '')} ({name})"
    marks: list[ParsedBox] = []
    for el in image:
        label = el.get("label") or None
        where = f"{here} {el.tag}"
        if el.tag == "box":
            attrs = {a.get("name"): (a.text or "") for a in el if a.tag == "attribute" and a.get("name")}
            try:
                box = tuple(float(el.get(k, "")) for k in ("xtl", "ytl", "xbr", "ybr"))
            except ValueError:
                problems.append((where, "a box needs xtl, ytl, xbr and ybr numbers; skipped"))
                continue
            problem = size_problem(box[2] - box[0], box[3] - box[1], names=("width (xbr - xtl)", "height (ybr - ytl)"))
            if problem:
                problems.append((where, problem))
                continue
            marks.append(ParsedBox(box, label, attributes=attrs or None, where=where))
        elif el.tag in (*SHAPE_TAGS, "skeleton"):
            found = _skeleton(where, label, el, None, problems, templates, declared) if el.tag == "skeleton" else \
                _shape(where, label, el, None, problems)
            if found is not None:
                marks.append(found)
    names = (name, PurePath(name).name, PurePath(name).stem)
    return ParsedMedia(here, tuple(dict.fromkeys(n for n in names if n)), "image", boxes=marks)


def _read_track(path: Path, track: ET.Element, boxes: list[ParsedBox], problems: list[tuple[str, str]],
                templates: dict, declared: dict[str, skeletons.SkeletonTemplate]) -> None:
    """A ``<track>``'s visible runs added to ``boxes`` (see the module text); ``declared``: the skeleton labels of
    the file's ``<meta>`` (``cvat_labels.read_skeletons``)."""
    tid = track.get("id", "")
    label = track.get("label") or None
    _read_shape_track(path, track, tid, label, boxes, problems, templates, declared)
    shapes = sorted((b for b in track if b.tag == "box"), key=lambda b: int(b.get("frame", "0")))
    any_keyframe_flag = any(b.get("keyframe") is not None for b in shapes)
    run = 1
    run_boxes: list[ParsedBox] = []
    first = len(boxes)
    for b in shapes:
        where = f"{path.name} track {tid} frame {b.get('frame')}"
        if b.get("outside") == "1":
            if run_boxes:
                boxes.extend(_close(run_boxes))
                run_boxes, run = [], run + 1
            continue
        try:
            frame = int(b.get("frame", ""))
            box = tuple(float(b.get(k, "")) for k in ("xtl", "ytl", "xbr", "ybr"))
        except ValueError:
            raise ImportFormatError(f"{where}: a box needs frame, xtl, ytl, xbr and ybr numbers") from None
        problem = size_problem(box[2] - box[0], box[3] - box[1], names=("width (xbr - xtl)", "height (ybr - ytl)"))
        if problem:
            problems.append((where, problem))
            continue
        attrs = {a.get("name"): (a.text or "") for a in b if a.tag == "attribute" and a.get("name")}
        keyframe = b.get("keyframe") == "1" if any_keyframe_flag else True
        run_boxes.append(ParsedBox(box, label, frame, track=f"{tid}" if run == 1 else f"{tid}#{run}",
                                   keyframe=keyframe or not run_boxes, attributes=attrs or None, where=where))
    boxes.extend(_close(run_boxes))
    if len(boxes) - first == 1:
        # a track of one visible box (then "outside") is how a box outside any track is written (ours,
        # and CVAT's own shapes exported for video): it comes back as that plain box
        boxes[first] = dataclasses.replace(boxes[first], track=None)


def _frame_of(el: ET.Element) -> int:
    try:
        return int(el.get("frame", ""))
    except ValueError:
        return -1  # read (and reported) by the element's own parser


def _outside(el: ET.Element) -> bool:
    """Whether a track's element is not shown: ``outside="1"``, or a ``<skeleton>`` all of whose points are (CVAT
    writes a skeleton track's end that way: its ``<skeleton>`` has no ``outside``)."""
    if el.tag == "skeleton" and el.get("outside") is None:
        parts = [p for p in el if p.tag == "points"]
        return bool(parts) and all(p.get("outside") == "1" for p in parts)
    return el.get("outside") == "1"


def _read_shape_track(path: Path, track: ET.Element, tid: str, label: str | None, boxes: list[ParsedBox],
                      problems: list[tuple[str, str]], templates: dict,
                      declared: dict[str, skeletons.SkeletonTemplate]) -> None:
    """A ``<track>``'s polygons, polylines, points and skeletons added to ``boxes`` as one shape track per visible
    run (see the module text); a track of one visible shape as that shape alone."""
    if any(e.tag == "points" and _attributes(e).get(ANGLE_KIND_ATTRIBUTE) == "stopwatch" for e in track):
        _read_stopwatch(path, track, tid, label, boxes, problems)
        return
    first = len(boxes)
    run, last, after_outside = 1, None, False
    for el in sorted((e for e in track if e.tag in (*SHAPE_TAGS, "skeleton")), key=_frame_of):
        if _outside(el):
            after_outside = last is not None
            continue
        where = f"{path.name} track {tid} {el.tag} frame {el.get('frame')}"
        if _frame_of(el) < 0:
            problems.append((where, "its frame is not a whole number; skipped"))
            continue
        found = _skeleton(where, label, el, _frame_of(el), problems, templates, declared) if el.tag == "skeleton" \
            else _shape(where, label, el, _frame_of(el), problems)
        if found is None:
            continue
        # fieldstudio interpolates between keyframes of one vertex count only: across an "outside" gap between two
        # such keyframes the object really left, so what follows is another track; between keyframes of different
        # counts nothing is interpolated anyway, so the track goes on (as fieldstudio's own export writes it)
        if after_outside and len(found.shape[1]) == len(last.shape[1]):
            run += 1
        after_outside, last = False, found
        boxes.append(dataclasses.replace(found, track=tid if run == 1 else f"{tid}#{run}",
                                         keyframe=el.get("keyframe") != "0"))
    if len(boxes) - first == 1:
        boxes[first] = dataclasses.replace(boxes[first], track=None, keyframe=True)


def _attributes(el: ET.Element) -> dict[str, str]:
    return {a.get("name"): (a.text or "") for a in el if a.tag == "attribute" and a.get("name")}


def _read_stopwatch(path: Path, track: ET.Element, tid: str, label: str | None, boxes: list[ParsedBox],
                    problems: list[tuple[str, str]]) -> None:
    """A stopwatch track (fieldstudio's export: a ``<points>`` track with ``fieldstudio_kind`` "stopwatch", shown
    from its start frame to its end frame) added to ``boxes`` as a stopwatch from its first shown frame to its last
    (its ``text`` attribute kept)."""
    shown = [e for e in track if e.tag == "points" and e.get("outside") != "1"]
    frames = sorted(f for f in map(_frame_of, shown) if f >= 0)
    where = f"{path.name} track {tid} stopwatch"
    if not frames:
        problems.append((where, "it is shown on no frame; skipped"))
        return
    text = _attributes(shown[0]).get("text")
    boxes.append(ParsedBox((0.0, 0.0, 1e-3, 1e-3), label, frame_index=frames[0], shape=("stopwatch", ()),
                           end_frame_index=frames[-1], attributes={"text": text} if text else None, where=where))


def _shape(where: str, label: str | None, el: ET.Element, frame: int | None,
           problems: list[tuple[str, str]]) -> ParsedBox | None:
    """A visible ``<polygon>``, ``<polyline>`` or ``<points>`` (of a track on ``frame``, or of an image: None) as a
    ParsedBox carrying that shape."""
    try:
        vertices = tuple((float(x), float(y)) for x, y in (p.split(",") for p in el.get("points", "").split(";")))
    except ValueError:
        problems.append((where, f"points {el.get('points')!r} are not x,y;x,y;...; skipped"))
        return None
    attrs = {a.get("name"): (a.text or "") for a in el if a.tag == "attribute" and a.get("name")}
    if el.tag == "polyline" and attrs.get(ANGLE_KIND_ATTRIBUTE) == "angle":
        if len(vertices) != 3:
            problems.append((where, f"an angle needs 3 points (arm, vertex, arm), got {len(vertices)}; skipped"))
            return None
        # degrees, plane and measured_how were measured when written: the angle is measured again when read, and
        # the import says where that differs from the file's degrees
        try:
            written = float(attrs["degrees"]) if attrs.get("degrees") else None
        except ValueError:
            problems.append((where, f"degrees {attrs['degrees']!r} is not a number; the angle is measured again"))
            written = None
        return shape_box("angle", vertices, label, frame_index=frame, where=where, written_degrees=written)
    return shape_box(el.tag, vertices, label, frame_index=frame, attributes=attrs or None, where=where)


def _skeleton(where: str, label: str | None, el: ET.Element, frame: int | None, problems: list[tuple[str, str]],
              templates: dict, declared: dict[str, skeletons.SkeletonTemplate]) -> ParsedBox | None:
    """A visible ``<skeleton>`` (of a track on ``frame``, or of an image: None) as a ParsedBox carrying a skeleton of
    its label's template: the one the file's ``<meta>`` declares (``declared``: its points and limbs), else the
    built-in one its points name, else one of its points in their order (no limbs) given to its label
    (``templates``, the first one read per label)."""
    parts = [p for p in el if p.tag == "points"]
    tmpl = declared.get(label or "")
    if tmpl is not None and tmpl is not skeletons.COCO_PERSON:
        tmpl = templates.setdefault(label, tmpl)
    tmpl = tmpl or next((t for t in skeletons.TEMPLATES.values()
                         if {p.get("label") for p in parts} <= set(t.points)), None)
    if tmpl is None and label is not None:
        try:
            tmpl = templates.setdefault(label, skeletons.make_template(
                skeletons.LABEL_OWN, [p.get("label") or "" for p in parts], ()))
        except skeletons.ShapeError as exc:
            problems.append((where, f"its points make no skeleton template ({exc}); skipped"))
            return None
    if tmpl is None:
        problems.append((where, "its points name no known skeleton template (the 17 COCO body points) and it has "
                         "no label to give one; skipped"))
        return None
    if {p.get("label") for p in parts} - set(tmpl.points):
        problems.append((where, f"its points are not those of the other skeletons of {label} "
                         f"({', '.join(tmpl.points)}); skipped"))
        return None
    by_name: dict[str, tuple[float, float]] = {}
    try:
        for p in parts:
            if p.get("outside") != "1":
                x, y = p.get("points", "").split(";")[0].split(",")
                by_name[p.get("label")] = (float(x), float(y))
    except ValueError:
        problems.append((where, "a point is not x,y; skipped"))
        return None
    points = tuple(by_name.get(name) for name in tmpl.points)
    if not by_name:
        problems.append((where, "no point of it is visible; skipped"))
        return None
    attrs = {a.get("name"): (a.text or "") for a in el if a.tag == "attribute" and a.get("name")}
    return skeleton_box(tmpl.name, points, label, frame_index=frame, attributes=attrs or None, where=where)


def _close(run: list[ParsedBox]) -> list[ParsedBox]:
    """A run's last box is kept as a keyframe: CVAT holds the last keyframe's box up to the run's end."""
    return run[:-1] + [dataclasses.replace(run[-1], keyframe=True)] if run else run


def parse_cvat(path: Path) -> Parsed:
    """Read a CVAT XML file (for video or for images) or every ``*.xml`` in a folder. Raises ImportFormatError."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(path.glob("*.xml"))
    if not files:
        raise ImportFormatError(f"{path}: no CVAT .xml file")
    out = Parsed(files=[str(f) for f in files])
    for f in files:
        groups = parse_cvat_file(f, out.problems, out.templates)
        if not groups:
            out.problems.append((f.name, "has no <track> or <image> with boxes or shapes"))
        out.groups += groups
    return out
