"""Local tools the agent may call when a run asks for them (``local_tools="on"``), computed on this machine with
what the supervisor already has: the calibrations, OCR and the annotations (issue 34 item 4).

* ``measure_distance(path, frame, points)``: metres between two image points ``"x1,y1,x2,y2"`` (upright full-
  resolution pixels) on a photo or a video frame, through the floor calibration of the input's camera group (the
  homography; the scale calibration when ``on_floor`` is "no"), as a ruler drawn there would read.
* ``read_text(path, frame, region)``: the text OCR reads in a region ``"x,y,w,h"`` of a photo or video frame (""
  for the whole frame), or on a document's page (``frame`` is then the 1-based page number).
* ``follow_object(path, frame, box, to_frame)``: the tracker (CSRT, ``annotations.tracking``) follows the box
  ``"x,y,w,h"`` from ``frame`` to ``to_frame``; its box there, or where and why it lost the object.
* ``detect_people(path, frame)``: the people OpenCV's HOG detector finds on a photo or video frame (``media.people``,
  as "Detect people" in the window): each box ``x,y,w,h`` in upright full-resolution pixels with its score.
* ``list_annotations(path)``: the events and segments annotated on a clip, with their labels and times.

Arguments are strings, as the FieldWorkArena actions' are. A tool's result is a short text for the planner; a
tool that cannot answer (no calibration, a point beyond the horizon, no such frame) says why in its result.
Each call and its result are the agent's trace steps (``action``, ``args``, ``result``, ``local: true``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.inference.inputs import TaskInputSpec

#: name -> (string arguments, description for the planner)
LOCAL_TOOLS: dict[str, tuple[tuple[str, ...], str]] = {
    "measure_distance": (("path", "frame", "points", "on_floor"),
                         "Distance in metres between two points of a photo or video frame, measured on this "
                         "machine through the camera's calibration. frame: the 0-based frame index (0 for a "
                         "photo); points: \"x1,y1,x2,y2\" in image pixels; on_floor: \"yes\" for two points on the "
                         "floor (the floor homography), \"no\" for a length in the picture's scale."),
    "read_text": (("path", "frame", "region"),
                  "Text read by OCR on this machine in a photo or video frame (frame: 0-based index; region: "
                  "\"x,y,w,h\" in pixels, or \"\" for the whole frame) or on a document page (frame: the "
                  "1-based page number; region \"\")."),
    "follow_object": (("path", "frame", "box", "to_frame"),
                      "Follow an object through a video with the tracker on this machine: box \"x,y,w,h\" in pixels "
                      "on frame (0-based); gives its box on to_frame, or where and why it was lost."),
    "detect_people": (("path", "frame"),
                      "People found on this machine by a HOG people detector in a photo or video frame (frame: "
                      "0-based index, 0 for a photo): one line per person, its box \"x,y,w,h\" in pixels and a "
                      "score (higher is surer; it misses people much smaller than 100 px or seen from above)."),
    "list_annotations": (("path",),
                         "The events and segments annotated on a video, with their labels and times."),
}


def run_tool(project, name: str, inp: TaskInputSpec, args: dict[str, str]) -> str:  # noqa: ANN001 - Project
    """The result text of local tool ``name`` on input ``inp``; a problem with the arguments or the media is said
    in the result (never raised), so the planner can try again."""
    try:
        return _TOOLS[name](project, inp, args)
    except (FieldstudioError, ValueError, IndexError) as exc:
        return f"{name} failed: {exc}"


def _numbers(text: str, n: int, what: str) -> list[float]:
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    if len(parts) != n:
        raise ValueError(f"{what} must be {n} numbers separated by commas, got {text!r}")
    return [float(p) for p in parts]


def _frame(inp: TaskInputSpec, text: str) -> int:
    index = int(float(text or 0))
    if inp.kind == "image":
        return 0
    if index < 0:
        raise ValueError(f"frame must be 0 or more, got {text!r}")
    return index


def _measure(project, inp: TaskInputSpec, args: dict[str, str]) -> str:  # noqa: ANN001
    from fieldstudio.annotations.calibrations import measure_points

    if inp.kind not in ("image", "video"):
        return f"{inp.name} is a {inp.kind}: measure_distance needs a photo or a video frame"
    x1, y1, x2, y2 = _numbers(args.get("points", ""), 4, "points")
    on_floor = args.get("on_floor", "yes").strip().lower() not in ("no", "false", "0")
    m = measure_points(project, inp.media.id, (x1, y1), (x2, y2), on_floor=on_floor)
    if m.metres is None:
        return f"{m.pixels:.1f} pixels; no distance in metres: {m.how}"
    return f"{m.metres:.3f} m ({m.pixels:.1f} pixels; {m.how})"


def _read(project, inp: TaskInputSpec, args: dict[str, str]) -> str:  # noqa: ANN001
    if inp.kind == "document":
        from fieldstudio.inference.inputs import document_page_text

        page = int(float(args.get("frame") or 1))
        return document_page_text(project, inp.media, page - 1) or f"page {page} holds no text"
    from fieldstudio.media.frame_text import read_frame_text

    region = args.get("region", "").strip()
    box = tuple(_numbers(region, 4, "region")) if region else None
    read = read_frame_text(project, inp.media.id, _frame(inp, args.get("frame", "0")), box)
    return read.text or "no text found there"


def _follow(project, inp: TaskInputSpec, args: dict[str, str]) -> str:  # noqa: ANN001
    from fieldstudio.annotations.tracking import TrackStart, follow_box

    if inp.kind != "video":
        return f"{inp.name} is a {inp.kind}: follow_object needs a video"
    x, y, w, h = _numbers(args.get("box", ""), 4, "box")
    frame, to_frame = _frame(inp, args.get("frame", "0")), _frame(inp, args.get("to_frame", "0"))
    start = TrackStart(inp.media.id, frame, (x, y, x + w, y + h), None, None, None, None)
    result = follow_box(project, start, to_frame)
    last = result.last_frame
    x1, y1, x2, y2 = result.boxes[last]
    where = f"on frame {last}: {x1:.0f},{y1:.0f},{x2 - x1:.0f},{y2 - y1:.0f} (x,y,w,h)"
    return where if result.stop == "reached" else f"{result.stop}: {result.message}; last box {where}"


def _people(project, inp: TaskInputSpec, args: dict[str, str]) -> str:  # noqa: ANN001
    from fieldstudio.media import people
    from fieldstudio.media.frames import get_frame

    if inp.kind not in ("image", "video"):
        return f"{inp.name} is a {inp.kind}: detect_people needs a photo or a video frame"
    index = _frame(inp, args.get("frame", "0"))
    found = people.detect_people(get_frame(project, inp.media.id, index).rgb)
    if not found:
        return f"no person found on frame {index} ({people.detector_version()})"
    lines = [f"{len(found)} {'person' if len(found) == 1 else 'people'} on frame {index} "
             f"({people.detector_version()}; x,y,w,h score):"]
    lines += [f"{b.x0:.0f},{b.y0:.0f},{b.x1 - b.x0:.0f},{b.y1 - b.y0:.0f} {b.score:.2f}" for b in found]
    return "\n".join(lines)


def _annotations(project, inp: TaskInputSpec, args: dict[str, str]) -> str:  # noqa: ANN001, ARG001
    from fieldstudio.annotations.annotation_records import list_annotations

    rows = list_annotations(project, media_id=inp.media.id, kinds=("event", "segment"))
    if not rows:
        return f"no events or segments are annotated on {inp.name}"
    lines = []
    for r in rows:
        label = r.label_name or "(no label)"
        start = f"{r.pts_seconds:.2f} s" if r.pts_seconds is not None else f"frame {r.frame_index}"
        if r.kind == "event":
            lines.append(f"event {label} at {start} (frame {r.frame_index})")
        else:
            end = (f"{r.end_pts_seconds:.2f} s" if r.end_pts_seconds is not None else "open")
            lines.append(f"segment {label} from {start} to {end} (frames {r.frame_index}-{r.end_frame_index})")
    return "\n".join(lines)


_TOOLS: dict[str, Callable[[Any, TaskInputSpec, dict[str, str]], str]] = {
    "measure_distance": _measure, "read_text": _read, "follow_object": _follow, "detect_people": _people,
    "list_annotations": _annotations}
