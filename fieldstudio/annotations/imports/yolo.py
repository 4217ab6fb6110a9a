"""YOLO text labels in: ``class cx cy w h`` per line (fractions of the image size), or a polygon as
``class x1 y1 ... xn yn`` (Ultralytics' segment format, 3 or more vertices), class names from ``classes.txt`` or
``data.yaml``'s ``names``; a pose line ``class cx cy w h x1 y1 v1 ... x17 y17 v17`` is a skeleton of the 17 COCO
body points (v = 0: absent).

The label files are ``labels/<image stem>.txt`` (or ``*.txt`` in the folder itself). A stem is matched to a
photo with that stem, or to a video frame when it reads ``<video stem>_f<frame index>`` (the names
fieldstudio's export gives frames). YOLO has no tracks. A line of 5 values after the class (a detector's box with
its confidence, or a polygon cut short) is kept as a box and reported; one of 7 or more values that are not a pose
line nor whole (x, y) pairs is reported and skipped, never read as a box.
"""

from __future__ import annotations

import re
from pathlib import Path

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
    labels = folder / "labels" if (folder / "labels").is_dir() else folder
    files = sorted(p for p in labels.glob("*.txt") if p.name != "classes.txt")
    if not files:
        raise ImportFormatError(f"{labels}: no label files (*.txt)")
    out = Parsed(files=[str(p) for p in files])
    for f in files:
        m = _FRAME_STEM.match(f.stem)
        frame = int(m.group("frame")) if m else None
        group = ParsedMedia(f"{f.name}", (m.group("stem"),) if m else (f.stem,), "video" if m else "image",
                            normalised=True)
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{f.name} line {n}"
            fields = line.split()
            if len(fields) == 5 + 3 * len(skeletons.COCO_PERSON.points):  # a pose line: a skeleton
                try:
                    k, values = int(fields[0]), [float(v) for v in fields[5:]]
                except ValueError:
                    out.problems.append((where, f"{line!r} is not a pose line; skipped"))
                    continue
                points = tuple(None if values[i + 2] <= 0 else (values[i], values[i + 1])
                               for i in range(0, len(values), 3))
                if not 0 <= k < len(names) or all(p is None for p in points):
                    out.problems.append((where, "a pose line with an unknown class or no point placed; skipped"))
                    continue
                group.boxes.append(skeleton_box(skeletons.COCO_PERSON.name, points, names[k], frame_index=frame,
                                                where=where))
                continue
            if len(fields) >= 7 and len(fields) % 2 == 1:  # a polygon: class and 3 or more (x, y) pairs
                try:
                    k, values = int(fields[0]), [float(v) for v in fields[1:]]
                except ValueError:
                    out.problems.append((where, f"{line!r} is not 'class x1 y1 ... xn yn'; skipped"))
                    continue
                if not 0 <= k < len(names):
                    out.problems.append((where, f"class {k} is not in the {len(names)} class names; skipped"))
                    continue
                vertices = tuple(zip(values[0::2], values[1::2]))
                group.boxes.append(shape_box("polygon", vertices, names[k], frame_index=frame, where=where))
                continue
            if len(fields) > 6:   # neither a box, a box with a confidence, a polygon nor a pose line
                out.problems.append((where, f"{len(fields) - 1} values after the class, an odd number: not the "
                                            "(x, y) pairs of a polygon nor 'cx cy w h'; skipped"))
                continue
            if len(fields) == 6:   # a box with a confidence, as detectors write it, or a polygon cut short
                out.problems.append((where, "5 values after the class: not the 3 or more (x, y) pairs of a "
                                            "polygon; kept as a box from the first four (cx cy w h), the fifth "
                                            f"({fields[5]}) ignored"))
            try:
                c, cx, cy, w, h = line.split()[:5]
                k, cx, cy, w, h = int(c), float(cx), float(cy), float(w), float(h)
            except ValueError:
                out.problems.append((where, f"{line!r} is not 'class cx cy w h'; skipped"))
                continue
            problem = size_problem(w, h)
            if problem:
                out.problems.append((where, problem))
                continue
            if not 0 <= k < len(names):
                out.problems.append((where, f"class {k} is not in the {len(names)} class names; skipped"))
                continue
            group.boxes.append(ParsedBox((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), names[k], frame,
                                         where=where))
        if group.boxes:
            out.groups.append(group)
    return out
