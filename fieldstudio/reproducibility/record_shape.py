"""The shape a run record's lines must have before `runs verify` or `runs import` use them.

A record whose ``end`` line matches was not cut or edited by accident, but it may have been written by hand or by
another tool and sealed again. Verify and import read ids, references and times from it; this check finds the first
line that would make them fail (a missing id, an answer of a task the record does not hold, a time that is not
ISO 8601) so the reader is refused with the line and the reason instead of an error deep inside.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

Problem = tuple[dict[str, Any], str]
"""(the offending line, why it is refused)."""

_OPTIONAL_TEXT = {"task": ("external_id", "source", "sha256", "truth_sha256"), "media": ("sha256", "file_name")}
_OPTIONAL_OBJECT = {"header": ("profile",), "session": ("versions", "served"), "scoring": ("judge", "judge_files")}
_TIMES = {"answer": ("created_at",), "score": ("created_at",)}
_FRAME_COUNTS = ("frame_index", "width", "height", "max_side", "quality", "bytes", "request")


def _is_time(value: Any) -> bool:
    if value is None:
        return True
    try:
        datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True


def _fields(line: dict[str, Any]) -> str | None:
    """Why one line's own fields are refused (ids, texts, objects, times), or None."""
    kind = line["type"]
    if kind in ("task", "media", "answer", "score") and (not isinstance(line.get("id"), str) or not line["id"]):
        return "its 'id' is missing or not a text"
    for key in _OPTIONAL_TEXT.get(kind, ()):
        if line.get(key) is not None and not isinstance(line[key], str):
            return f"its {key!r} is not a text"
    for key in _OPTIONAL_OBJECT.get(kind, ()):
        if line.get(key) is not None and not isinstance(line[key], dict):
            return f"its {key!r} is not an object"
    for key in _TIMES.get(kind, ()):
        if not _is_time(line.get(key)):
            return f"its {key!r} is not an ISO 8601 time: {line[key]!r}"
    if kind == "frame":
        for key in _FRAME_COUNTS:
            value = line.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                return f"its {key!r} is not a whole number ≥ 0: {value!r}"
        if line.get("quality") is not None and not 0 <= line["quality"] <= 100:
            return f"its 'quality' is not a JPEG quality from 0 to 100: {line['quality']!r}"
        if not isinstance(line.get("sha256"), (str, type(None))):
            return "its 'sha256' is not a text"
    if kind == "task" and line.get("inputs") is not None and (
            not isinstance(line["inputs"], list) or not all(isinstance(i, dict) for i in line["inputs"])):
        return "its 'inputs' is not a list of objects"
    return None


def _header(line: dict[str, Any]) -> str | None:
    run = line.get("run")
    if not isinstance(run, dict) or not isinstance(run.get("id"), str) or not run["id"]:
        return "its 'run' is not an object with a text 'id'"
    if run.get("params") is not None and not isinstance(run["params"], dict):
        return "its run's 'params' is not an object"
    for key in ("started_at", "finished_at"):
        if not _is_time(run.get(key)):
            return f"its run's {key!r} is not an ISO 8601 time: {run[key]!r}"
    return None


def check_shape(lines: dict[str, list[dict[str, Any]]]) -> Problem | None:
    """The first line of a record (its lines by type, one ``header``: ``RunRecord.lines``) that verify or import
    could not use, with the reason; None when all can be.

    Checks: the header's run (an object with a text id, ISO 8601 times); each task, media, answer and score line's
    text id, unique within its type; optional texts and objects of the right kind; a frame's index, sizes and JPEG
    quality whole numbers (the quality at most 100), as verify makes it again from them; each answer names a task line,
    each frame an answer line and a media line, each score an answer line."""
    header = lines["header"][0]
    reason = _header(header)
    if reason is not None:
        return header, reason
    seen: dict[str, set[str]] = {}
    for kind in ("task", "media", "answer", "score", "session", "scoring", "frame"):
        for line in lines.get(kind, []):
            reason = _fields(line)
            if reason is None and "id" in line and kind in ("task", "media", "answer", "score"):
                if line["id"] in seen.setdefault(kind, set()):
                    reason = f"{kind} {line['id']} appears twice"
                seen[kind].add(line["id"])
            if reason is not None:
                return line, reason
    refs = (("answer", "task_id", "task"), ("frame", "answer_id", "answer"), ("frame", "media_id", "media"),
            ("score", "answer_id", "answer"))
    for kind, key, target in refs:
        for line in lines.get(kind, []):
            if line.get(key) not in seen.get(target, set()):
                return line, f"its {key!r} {line.get(key)!r} names no {target} line of the record"
    return None


__all__ = ["Problem", "check_shape"]
