"""YOLO text labels in: ``class cx cy w h`` per line (fractions of the image size), or a polygon as
``class x1 y1 ... xn yn`` (Ultralytics' segment format, 3 or more vertices), class names from ``classes.txt`` or
``data.yaml``'s ``names``; a pose line ``class cx cy w h`` followed by the points is a skeleton.

Pose lines follow Ultralytics' pose layout: ``data.yaml``'s ``kpt_shape: [N, D]`` gives how many points a line
holds (N) and how many values each (D = 3: x y v, v = 0 absent; D = 2: x y, every point placed), one shape for the
whole set; ``kpt_names`` (``{class index: [point names]}``, as fieldstudio's export and others write it) may name
them. Without ``kpt_shape`` a line of 17 (x, y, v) points is a skeleton of the 17 COCO body points, as before. The
skeletons of a class whose points are named take those names as their label's template (a label whose own template
names other points keeps it, and the import says so); unnamed, they take the label's own template when it has N
points (a line of another count is refused, naming the file and line), else the 17 COCO body points when N is 17,
else a template of N points named "1" to "N" given to the label.

The label files are ``labels/<image stem>.txt`` (or ``*.txt`` in the folder itself). A stem is matched to a
photo with that stem, or to a video frame when it reads ``<video stem>_f<frame index>`` (the names
fieldstudio's export gives frames). YOLO has no tracks. A line of 5 values after the class (a detector's box with
its confidence, or a polygon cut short) is kept as a box and reported; one of 7 or more values that are not a pose
line nor whole (x, y) pairs is reported and skipped, never read as a box.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Iterator
from pathlib import Path

import yaml

from fieldstudio.annotations.imports.parsed import (ImportFormatError, Parsed, ParsedBox, ParsedMedia, shape_box,
                                                    size_problem, skeleton_box)
from fieldstudio.core import skeletons

_FRAME_STEM = re.compile(r"^(?P<stem>.+)_f(?P<frame>\d{6,})(?:_[0-9a-f]{8})?$")


def _names_from_yaml(text: str) -> list[str]:
    """``names`` of a data.yaml: a flow list ``[a, b]``, a block list, or an ``index: name`` mapping."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("names:"):
            continue
        rest = line[len("names:"):].strip()
        if rest.startswith("["):
            return [v.strip().strip("'\"") for v in rest.strip("[]").split(",") if v.strip()]
        out: dict[int, str] = {}
        items: list[str] = []
        for sub in lines[i + 1:]:
            if not sub.startswith((" ", "\t")) or not sub.strip():
                break
            s = sub.strip()
            if s.startswith("- "):
                items.append(s[2:].strip().strip("'\""))
            elif ":" in s:
                k, v = s.split(":", 1)
                out[int(k.strip())] = v.strip().strip("'\"")
        return items or [out[k] for k in sorted(out)]
    return []


def parse_yolo(folder: Path) -> Parsed:
    """Read a YOLO folder. Raises ImportFormatError without class names or label files."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ImportFormatError(f"{folder}: a YOLO import is a folder (with classes.txt or data.yaml)")
    if (folder / "classes.txt").is_file():
        names = [n.strip() for n in (folder / "classes.txt").read_text(encoding="utf-8").splitlines() if n.strip()]
    elif (folder / "data.yaml").is_file():
        names = _names_from_yaml((folder / "data.yaml").read_text(encoding="utf-8"))
    else:
        raise ImportFormatError(f"{folder}: no classes.txt or data.yaml with the class names")
    pose = _pose_shape(folder / "data.yaml", names, out_problems := [])
    labels = folder / "labels" if (folder / "labels").is_dir() else folder
    files = sorted(p for p in labels.glob("*.txt") if p.name != "classes.txt")
    if not files:
        raise ImportFormatError(f"{labels}: no label files (*.txt)")
    out = Parsed(files=[str(p) for p in files], problems=out_problems)
    count, dims, point_names = pose.count, pose.dims, pose.named
    for k, named in point_names.items():
        if named.name == skeletons.LABEL_OWN:    # names of no built-in template: the label's own
            out.templates[names[k]] = named
    templates = {}   # class index -> the template name its skeletons carry
    for k, name in enumerate(names):
        if k in point_names:
            templates[k] = point_names[k].name
        elif count == len(skeletons.COCO_PERSON.points) and dims == 3 and not pose.declared:
            templates[k] = skeletons.COCO_PERSON.name     # no kpt_shape: the 17 COCO body points, as before
        else:
            templates[k] = skeletons.LABEL_OWN
            out.point_counts[name] = count
    sizes = [p.stat().st_size for p in files]
    position = [0]   # bytes of the label files read

    def boxes() -> Iterator[tuple[ParsedMedia, ParsedBox]]:
        for f, size in zip(files, sizes):
            m = _FRAME_STEM.match(f.stem)
            frame = int(m.group("frame")) if m else None
            group = ParsedMedia(f"{f.name}", (m.group("stem"),) if m else (f.stem,), "video" if m else "image",
                                normalised=True)
            first = True
            for box in file_boxes(f, frame):
                if first:   # a file without boxes names no media, as before; ``out`` keeps the group (matched by id)
                    out.groups.append(group)
                    first = False
                yield group, box
            position[0] += size

    def file_boxes(f: Path, frame: int | None) -> Iterator[ParsedBox]:
        problems = out.problems
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{f.name} line {n}"
            fields = line.split()
            if len(fields) == 5 + count * dims:  # a pose line: a skeleton
                try:
                    k, values = int(fields[0]), [float(v) for v in fields[5:]]
                except ValueError:
                    problems.append((where, f"{line!r} is not a pose line; skipped"))
                    continue
                points = tuple((values[i], values[i + 1]) if dims == 2 or values[i + 2] > 0 else None
                               for i in range(0, len(values), dims))
                if not 0 <= k < len(names) or all(p is None for p in points):
                    problems.append((where, "a pose line with an unknown class or no point placed; skipped"))
                    continue
                yield skeleton_box(templates[k], points, names[k], frame_index=frame, where=where)
                continue
            if len(fields) >= 7 and len(fields) % 2 == 1:  # a polygon: class and 3 or more (x, y) pairs
                try:
                    k, values = int(fields[0]), [float(v) for v in fields[1:]]
                except ValueError:
                    problems.append((where, f"{line!r} is not 'class x1 y1 ... xn yn'; skipped"))
                    continue
                if not 0 <= k < len(names):
                    problems.append((where, f"class {k} is not in the {len(names)} class names; skipped"))
                    continue
                vertices = tuple(zip(values[0::2], values[1::2]))
                yield shape_box("polygon", vertices, names[k], frame_index=frame, where=where)
                continue
            if len(fields) > 6:   # neither a box, a box with a confidence, a polygon nor a pose line
                problems.append((where, f"{len(fields) - 1} values after the class, an odd number: not the "
                                 "(x, y) pairs of a polygon nor 'cx cy w h'; skipped"))
                continue
            if len(fields) == 6:   # a box with a confidence, as detectors write it, or a polygon cut short
                problems.append((where, "5 values after the class: not the 3 or more (x, y) pairs of a "
                                 "polygon; kept as a box from the first four (cx cy w h), the fifth "
                                 f"({fields[5]}) ignored"))
            try:
                c, cx, cy, w, h = line.split()[:5]
                k, cx, cy, w, h = int(c), float(cx), float(cy), float(w), float(h)
            except ValueError:
                problems.append((where, f"{line!r} is not 'class cx cy w h'; skipped"))
                continue
            problem = size_problem(w, h)
            if problem:
                problems.append((where, problem))
                continue
            if not 0 <= k < len(names):
                problems.append((where, f"class {k} is not in the {len(names)} class names; skipped"))
                continue
            yield ParsedBox((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), names[k], frame, where=where)

    # read as the import places the boxes, a file at a time: 10^6 boxes held as parsed boxes first peaked at 752 MB
    out.streams.append((boxes, lambda: (position[0], sum(sizes) or 1)))
    return out


@dataclass
class PoseLayout:
    """How a set's pose lines are laid out: ``count`` points of ``dims`` values each (2: x y; 3: x y v), the
    templates of the classes whose points ``kpt_names`` names (class index -> template), and whether ``data.yaml``
    declared ``kpt_shape`` at all."""

    count: int = len(skeletons.COCO_PERSON.points)
    dims: int = 3
    named: dict[int, skeletons.SkeletonTemplate] = field(default_factory=dict)
    declared: bool = False


def _pose_shape(path: Path, names: list[str], problems: list[tuple[str, str]]) -> PoseLayout:
    """The pose layout ``data.yaml`` declares (Ultralytics' ``kpt_shape: [N, 2 | 3]``, and ``kpt_names``), or the
    17 COCO points of 3 values when it declares none. A ``kpt_shape`` that is not two whole numbers N >= 1 and 2 or 3,
    or ``kpt_names`` of a class that are not N distinct names, is reported (pose lines are then read as if undeclared,
    or unnamed)."""
    default = PoseLayout()
    if not path.is_file():
        return default
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        problems.append((path.name, f"is not YAML ({str(exc).splitlines()[0]}): kpt_shape not read"))
        return default
    shape = data.get("kpt_shape") if isinstance(data, dict) else None
    if shape is None:
        return default
    if not (isinstance(shape, list) and len(shape) == 2 and all(type(v) is int for v in shape)
            and shape[0] >= 1 and shape[1] in (2, 3)):
        problems.append((path.name, f"kpt_shape {shape!r} is not [points, 2 or 3]; pose lines read as 17 COCO body "
                                    "points of (x, y, v)"))
        return default
    named: dict[int, skeletons.SkeletonTemplate] = {}
    listed = data.get("kpt_names")
    for k, points in (listed.items() if isinstance(listed, dict) else ()):
        if not (type(k) is int and 0 <= k < len(names)):
            continue
        try:
            if not isinstance(points, list) or len(points) != shape[0]:
                raise skeletons.ShapeError(f"not {shape[0]} names")
            named[k] = (skeletons.template_named([str(p) for p in points])
                        or skeletons.make_template(skeletons.LABEL_OWN, [str(p) for p in points], []))
        except skeletons.ShapeError as exc:
            problems.append((path.name, f"kpt_names of class {k} ({names[k]}): {exc}; its points are not named"))
    return PoseLayout(shape[0], shape[1], named, declared=True)
