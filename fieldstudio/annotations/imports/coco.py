"""COCO JSON (object detection) in: ``images``, ``annotations`` with ``bbox`` ``[x, y, w, h]``, ``categories``.

An image is matched to a photo by its ``file_name`` (or the name's last part), or to a video frame by the
fields fieldstudio's own export writes: ``fieldstudio_media_id``, ``frame_index`` and ``pts_seconds``, with
the video found by the id or by the ``<video stem>_f<frame>.jpg`` name. ``attributes.track_id`` and
``attributes.keyframe`` (fieldstudio's and CVAT's export) make the box part of a track; a box marked
``keyframe: false`` was interpolated and is left to fieldstudio's interpolation.

The input is a JSON file or a folder: the folder's ``annotations.json`` (what fieldstudio's export writes
when given a folder), else every ``*.json`` in it, else every ``annotations/*.json`` (the COCO layout).
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePath

from fieldstudio.annotations.imports.parsed import ImportFormatError, Parsed, ParsedBox, ParsedMedia, size_problem
from fieldstudio.core.json_limits import JsonLimitError, load_json

_FRAME_NAME = re.compile(r"^(?P<stem>.+)_f(?P<frame>\d{6,})(?:_[0-9a-f]{8})?\.[A-Za-z]+$")


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

    Raises ImportFormatError when the file is not JSON or has no ``images``/``annotations``, when a folder
    holds no JSON file, or when none of a folder's JSON files is COCO. Of a folder's several JSON files,
    one that is not COCO is listed in ``problems`` and the others are read.
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
            one = _parse_file(f)
        except ImportFormatError as exc:
            refused.append(str(exc))
            continue
        out.groups += one.groups
        out.files += one.files
        out.problems += one.problems
    if not out.files:
        raise ImportFormatError(f"{path}: none of its {len(files)} JSON files is COCO: " + "; ".join(refused))
    out.problems += [(msg.split(": ", 1)[0], msg.split(": ", 1)[-1] + "; the file is skipped") for msg in refused]
    return out


def _parse_file(path: Path) -> Parsed:
    """One COCO JSON file; raises ImportFormatError when it is not JSON or not COCO."""
    try:
        doc = load_json(path.read_text(encoding="utf-8"))
    except JsonLimitError as exc:
        raise ImportFormatError(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ImportFormatError(f"{path}: not a readable JSON file ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("images"), list) or not isinstance(
            doc.get("annotations"), list):
        raise ImportFormatError(f"{path}: not COCO JSON (no 'images' and 'annotations' lists)")
    out = Parsed(files=[str(path)])
    names = {c.get("id"): str(c.get("name")) for c in doc.get("categories") or [] if isinstance(c, dict)}
    groups: dict[object, ParsedMedia] = {}
    frames: dict[object, tuple[int | None, float | None]] = {}
    for im in doc["images"]:
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
        groups[im["id"]] = group
        frames[im["id"]] = (None if frame is None else int(frame), None if seconds is None else float(seconds))
    for n, a in enumerate(doc["annotations"], start=1):
        where = f"{path.name} annotation {a.get('id', n) if isinstance(a, dict) else n}"
        if not isinstance(a, dict) or a.get("image_id") not in groups:
            out.problems.append((where, "names no image of the file; skipped"))
            continue
        try:
            x, y, w, h = (float(v) for v in a["bbox"])
        except (KeyError, TypeError, ValueError):
            out.problems.append((where, f"bbox {a.get('bbox')!r} is not [x, y, w, h]; skipped"))
            continue
        problem = size_problem(w, h)
        if problem:
            out.problems.append((where, problem))
            continue
        attrs = dict(a.get("attributes") or {})
        track = attrs.pop("track_id", None)
        keyframe = attrs.pop("keyframe", True)
        frame, seconds = frames[a["image_id"]]
        groups[a["image_id"]].boxes.append(ParsedBox(
            (x, y, x + w, y + h), names.get(a.get("category_id")), frame, seconds,
            None if track is None else str(track), keyframe is not False and str(keyframe).lower() != "false",
            attrs or None, where))
    out.groups = [g for g in groups.values() if g.boxes]
    return out
