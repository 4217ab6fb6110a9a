"""Helpers shared by the run tests: media and tasks in a project, a profile on the fake server, frame decoding."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.media import library, video_index
from fieldstudio.store.models import Task, TaskInput
from fieldstudio.store.project import Project
from tests.support.fake_openai import FakeOpenAI, RecordedRequest


def add_media(project: Project, *paths: Path) -> dict[str, str]:
    """Add files to the project and index their videos; returns file name -> media id."""
    report = library.add_paths(project, list(paths))
    assert not report.unreadable, report.unreadable
    video_index.index_videos(project, report.media_ids)
    ids = {}
    for media_id in report.media_ids:
        ids[library.find_media(project, media_id).file_name] = media_id
    return ids


def add_task(project: Project, query: str, inputs: list[tuple[str, str | None]] | None = None, *,
             ranges: dict[int, tuple[float | None, float | None]] | None = None, **fields: Any) -> str:
    """A task with inputs [(name, media id or None)], optional time ranges per position; returns its id."""
    with project.write() as s:
        task = Task(query=query, source=fields.pop("source", "manual"), **fields)
        s.add(task)
        s.flush()
        for position, (name, media_id) in enumerate(inputs or []):
            start, end = (ranges or {}).get(position, (None, None))
            s.add(TaskInput(task_id=task.id, position=position, name=name, media_id=media_id, start_s=start, end_s=end))
        return task.id


def fake_profile(server: FakeOpenAI, **kw: Any) -> ModelProfile:
    """A profile on the fake server: no key, temperature 0, prices $2 / $8 per million tokens by default."""
    values: dict[str, Any] = {"name": "fake", "base_url": server.base_url, "model": "fake-vlm",
                              "price_input_per_mtok": 2.0, "price_output_per_mtok": 8.0, "retries": 0}
    values.update(kw)
    return ModelProfile(**values)


def parts(request: RecordedRequest, role: str = "user") -> list[dict[str, Any]]:
    """Content parts of the (last) message with this role in a recorded request."""
    message = [m for m in request.body["messages"] if m["role"] == role][-1]
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def jpeg_of(url: str) -> bytes:
    """The bytes of a ``data:image/jpeg;base64,...`` URL (checked to be a JPEG)."""
    prefix = "data:image/jpeg;base64,"
    assert url.startswith(prefix), url[:40]
    data = base64.b64decode(url[len(prefix):])
    assert data[:3] == b"\xff\xd8\xff"
    return data


def decode_rgb(data: bytes) -> np.ndarray:
    """Decode JPEG bytes with OpenCV to an RGB array."""
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
