"""A task's inputs as a prompt sees them: the task with its media, document text and encoded frames.

Frames come from the frame table through `fieldstudio.media.frames` (exact frames, PTS in seconds) and
are JPEG-encoded through `fieldstudio.media.images`; each encoded image carries the SHA-256 of its
bytes so every request can record exactly what it sent. `FrameEncoder` is shared by the threads of a
run: each thread decodes with its own `FrameSource` (a decoder serves one thread at a time), and
encoded JPEGs are kept in a small shared cache because tasks often share a video.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import select

from fieldstudio.core.errors import MediaError, NotFound
from fieldstudio.store.models import DocumentPage, Media, Task, TaskInput
from fieldstudio.store.project import Project

if TYPE_CHECKING:
    from fieldstudio.media.frames import FrameSource

# The decoders (PyAV, OpenCV: ~40 MB and 0.1 s) are imported where a frame is made, not here: every command
# line start imports this module through the strategies, and most commands never make a frame.


@dataclass(frozen=True)
class TaskInputSpec:
    """One input of a task: its name, its media row (None when no media matched the name), a time range."""

    position: int
    name: str
    media: Media | None
    start_s: float | None = None
    end_s: float | None = None

    @property
    def kind(self) -> str | None:
        """``image``, ``video``, ``document`` or None when the media is missing."""
        return self.media.kind if self.media is not None else None


@dataclass(frozen=True)
class TaskSpec:
    """A task as strategies read it (detached from the database session)."""

    id: str
    external_id: str | None
    source: str
    query: str
    answer_type: str
    output_format: str | None
    category: str | None
    scenario: str | None
    extra: dict[str, Any]
    inputs: tuple[TaskInputSpec, ...] = ()

    @property
    def label(self) -> str:
        """The benchmark id when there is one, else the first 8 characters of the task's own id."""
        return self.external_id or self.id[:8]

    @property
    def rejected_inputs(self) -> list[tuple[str, str]]:
        """(name, reason) of inputs the task import rejected (a name that leaves the dataset folder); never stored."""
        return [(r.get("name", ""), r.get("reason", "")) for r in self.extra.get("rejected_inputs") or []]

    @property
    def missing_inputs(self) -> list[str]:
        """Names of inputs that match no media in the project, or whose media is unreadable."""
        return [i.name for i in self.inputs if i.media is None or i.media.status != "ok"]


def load_tasks(project: Project, task_ids: list[str]) -> list[TaskSpec]:
    """The tasks with these ids, in the given order, with their inputs and media. Raises NotFound."""
    with project.read() as s:
        tasks = {t.id: t for t in s.scalars(select(Task).where(Task.id.in_(task_ids)))}
        rows = s.execute(select(TaskInput, Media).outerjoin(Media, TaskInput.media_id == Media.id)
                         .where(TaskInput.task_id.in_(task_ids)).order_by(TaskInput.task_id, TaskInput.position)).all()
    inputs: dict[str, list[TaskInputSpec]] = {}
    for ti, media in rows:
        inputs.setdefault(ti.task_id, []).append(TaskInputSpec(ti.position, ti.name, media, ti.start_s, ti.end_s))
    out = []
    for task_id in task_ids:
        t = tasks.get(task_id)
        if t is None:
            raise NotFound(f"no task {task_id!r} in {project.path.name}")
        out.append(TaskSpec(t.id, t.external_id, t.source, t.query, t.answer_type, t.output_format, t.category,
                            t.scenario, dict(t.extra or {}), tuple(inputs.get(task_id, []))))
    return out


def load_task(project: Project, task_id: str) -> TaskSpec:
    """One task with its inputs; raises NotFound."""
    return load_tasks(project, [task_id])[0]


def document_text(project: Project, media: Media) -> str:
    """The document's text: its pages in order (reading order, ligatures expanded) joined with a newline.

    FieldWorkArena joins PyPDFLoader pages with "\\n" (benchmarks.md §1.8); pages without a text layer
    contribute an empty string.
    """
    with project.read() as s:
        pages = s.scalars(select(DocumentPage.text).where(DocumentPage.media_id == media.id)
                          .order_by(DocumentPage.page_number)).all()
    return "\n".join(p or "" for p in pages)


def document_page_text(project: Project, media: Media, page_number: int) -> str:
    """The text of one page (0-based) of a document: its text layer's, or OCR's for a scanned page read; "" when
    the page has none. Raises IndexError when the document has no such page."""
    with project.read() as s:
        row = s.get(DocumentPage, (media.id, page_number))
    if row is None:
        raise IndexError(f"{media.file_name} has no page {page_number + 1}")
    return row.text or ""


@dataclass(frozen=True)
class EncodedImage:
    """One JPEG sent to a model.

    Attributes:
        media_id, file_name: the media it comes from.
        frame_index: index in the frame table (0 for a photo); pts: in the stream's time base (None for photos);
        pts_s: seconds (None for photos).
        sha256: hex digest of `jpeg`; width, height: pixels of the encoded image; quality: JPEG quality used;
        max_side: the longest side asked for (None: full size), so the same frame can be made again.
        redaction: what the privacy gate did to these pixels before they were encoded (``{"gate": "blur-faces",
            "detector": version, "boxes": [[x0, y0, x1, y1, score], ...]}``, pixels of the encoded image), or None
            when the frame went through unchanged.
    """

    media_id: str
    file_name: str
    frame_index: int
    pts: int | None
    pts_s: float | None
    sha256: str
    jpeg: bytes = field(repr=False)
    width: int
    height: int
    quality: int
    max_side: int | None = None
    redaction: dict[str, Any] | None = None

    def data_url(self) -> str:
        """``data:image/jpeg;base64,...``."""
        return "data:image/jpeg;base64," + base64.b64encode(self.jpeg).decode("ascii")

    def record(self, request: int = 0) -> dict[str, Any]:
        """What an answer stores about this image: media, frame index, PTS, SHA-256, size sent (pixels), JPEG
        quality and bytes, the longest side asked for, the request number, and the privacy gate's ``redaction``
        (the boxes blurred and the detector's version) when it changed the pixels."""
        out = {"media_id": self.media_id, "file_name": self.file_name, "frame_index": self.frame_index,
               "pts": self.pts, "pts_s": self.pts_s, "sha256": self.sha256, "width": self.width,
               "height": self.height, "quality": self.quality, "bytes": len(self.jpeg), "max_side": self.max_side,
               "request": request}
        if self.redaction is not None:
            out["redaction"] = self.redaction
        return out


def encode_limited(rgb: np.ndarray, *, quality: int, max_bytes: int | None = None, step: int = 5,
                   min_quality: int = 10) -> tuple[bytes, int]:
    """JPEG bytes of an RGB frame and the quality used.

    With `max_bytes`, the quality is lowered by `step` while the JPEG is larger than `max_bytes`, stopping
    once it would fall below `min_quality` (icpr2026: start 90, step 5, 250 000 bytes; benchmarks.md §1.8).
    """
    from fieldstudio.media import images

    data = images.encode_jpeg(rgb, quality)
    while max_bytes is not None and len(data) > max_bytes and quality - step >= min_quality:
        quality -= step
        data = images.encode_jpeg(rgb, quality)
    return data, quality


class FrameEncoder:
    """Exact frames of a project's media, resized and JPEG-encoded, for several threads at once.

    `encode` is thread-safe. Call `close` when the run ends (it closes every thread's decoders). With a
    `redactor` (the privacy gate's `fieldstudio.privacy.gate.FaceRedactor`) every frame's faces are blurred after
    the resize and before the JPEG is made, and the image carries the redaction's record.
    """

    def __init__(self, project: Project, *, cache_items: int = 256, redactor: Any = None):
        self.project = project
        self.redactor = redactor
        self._local = threading.local()
        self._sources: list[FrameSource] = []
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple, EncodedImage] = OrderedDict()
        self._cache_items = cache_items
        self._seconds: dict[str, np.ndarray] = {}

    def _source(self) -> FrameSource:
        source = getattr(self._local, "source", None)
        if source is None:
            from fieldstudio.media.frames import FrameSource

            source = FrameSource(self.project, max_readers=2)
            self._local.source = source
            with self._lock:
                self._sources.append(source)
        return source

    def seconds(self, media: Media) -> np.ndarray:
        """PTS in seconds of every frame of a video, from its frame table (built and stored if missing).

        Raises MediaError when the file is missing or cannot be decoded.
        """
        with self._lock:
            cached = self._seconds.get(media.id)
        if cached is None:
            cached = self._source().reader(media).table.seconds_array()
            with self._lock:
                self._seconds[media.id] = cached
        return cached

    def encode(self, media: Media, index: int = 0, *, max_side: int | None, quality: int,
               max_bytes: int | None = None) -> EncodedImage:
        """Frame `index` of a video (or a photo, index 0), upright, longest side at most `max_side`, as JPEG.

        Raises MediaError (missing or undecodable file), IndexError (index outside the video) or, with a redactor,
        `fieldstudio.privacy.gate.GateRefused` (no face detector, or a frame too large for it).
        """
        key = (media.id, index, max_side, quality, max_bytes)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        from fieldstudio.media import images

        if media.kind == "image":
            from fieldstudio.media import library

            rgb = images.read_image(library.require_file(self.project, media), max_side=max_side)
            pts, pts_s = None, None
        elif media.kind == "video":
            frame = self._source().get(media, index)
            rgb, pts, pts_s = frame.rgb, frame.pts, frame.pts_seconds
        else:
            raise MediaError(media.path, "is a document; it is sent as text, not as an image")
        if max_side:
            rgb = images.fit_within(rgb, max_side)
        redaction = None
        if self.redactor is not None:       # on the pixels sent: the frame as resized, never the media file
            rgb, redaction = self.redactor.redact(rgb)
        jpeg, used = encode_limited(rgb, quality=quality, max_bytes=max_bytes)
        out = EncodedImage(media.id, media.file_name, index, pts, pts_s, hashlib.sha256(jpeg).hexdigest(), jpeg,
                           int(rgb.shape[1]), int(rgb.shape[0]), used, max_side, redaction)
        with self._lock:
            self._cache[key] = out
            while len(self._cache) > self._cache_items:
                self._cache.popitem(last=False)
        return out

    def close(self) -> None:
        """Close the decoders of every thread."""
        with self._lock:
            sources, self._sources = self._sources, []
        for source in sources:
            source.close()


__all__ = ["TaskInputSpec", "TaskSpec", "load_tasks", "load_task", "document_text", "document_page_text", "EncodedImage",
           "encode_limited", "FrameEncoder", "NotFound"]
