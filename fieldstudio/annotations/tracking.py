"""Following a box through a video with OpenCV's CSRT tracker, the keyframes it leaves, and their one edit.

A tracked stretch starts from a track's box on one frame (a keyframe, or the interpolated box there) and
runs frame by frame, forward or backward, over the exact frames of the video's frame table
(``media.frame_reader.FrameReader``). It ends on the frame asked for, at the end of the video, just before the
track's next keyframe in that direction (a box a person drew is never overwritten or passed), on a
cancel, or when the target is lost:

* **lost**: CSRT's ``update`` reports failure (the peak-to-sidelobe ratio of its correlation response fell
  under ``psr_threshold``), or the box no longer looks like the target: the normalised cross-correlation
  of the box's blurred 16 x 16 grey patch with the target's template falls under ``MIN_SIMILARITY``.
  OpenCV's ``getTrackingScore`` is not implemented for CSRT (it returns -1), so this similarity is the
  confidence. The template is the start box's patch, slowly updated (weight ``TEMPLATE_RATE``) on frames
  that match well, so gradual changes of pose and light are followed; only the part of the box inside the
  image is compared.
* **left the frame**: less than ``MIN_INSIDE`` of the box's area lies inside the image, or the box is lost
  while it touches the image border.

The tracker sees frames scaled (one swscale pass from the decoder) so that the start box's
geometric-mean side is about ``TRACKER_BOX_PX`` pixels, never enlarged; boxes are scaled back to
full-resolution pixels, which is all CSRT needs since it resamples its search window to
``template_size`` anyway. CSRT runs with ``template_size`` 120 and 9 scales (OpenCV's defaults are 200
and 33): about 3x faster, and more accurate on the test clip. Decoding runs on a second thread ahead of
the tracker.

Keyframes stored: the start frame (when its box was interpolated), every ``every``-th frame from it, and
the last frame followed; the frames between are interpolated by the track's usual rule
(``core/tracks.py``), so the stored track stays small and can be corrected like a drawn one.
:func:`stretch_edit` makes them one undoable edit. Nothing here imports Qt: the command line
(``fieldstudio track``) and the window's Track forward / backward run the same :func:`follow_box`.
"""

from __future__ import annotations

import dataclasses
import math
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from fieldstudio.annotations import edits
from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import mark_batches
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core import tracks
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.media import library
from fieldstudio.media.frames import FrameSource
from fieldstudio.store.project import Project

DEFAULT_EVERY = 5
TRACKER_BOX_PX = 80.0
MIN_TRACKER_SIDE_PX = 320  # the scaled frame's longer side is never smaller than this
MIN_INSIDE = 0.5
MIN_SIMILARITY = 0.3
TEMPLATE_RATE = 0.05
PATCH = 16
BACK_BLOCK = 32  # frames decoded forward at a time when tracking backward
_QUEUE = 12


class TrackingError(FieldstudioError):
    """A box cannot be tracked as asked (not a video box, bad frame range)."""


@dataclass(frozen=True)
class TrackStart:
    """Where a tracked stretch starts: the track's box ``box`` ``(x1, y1, x2, y2)`` pixels on ``frame_index``.

    ``annotation_id`` is the stored keyframe on that frame, None when the box there is interpolated;
    ``track_id`` None for a video box that belongs to no track yet (the edit gives it one).
    """

    media_id: str
    frame_index: int
    box: tracks.Box
    track_id: int | None
    annotation_id: str | None
    label_id: str | None
    attributes: dict[str, Any] | None


def track_start(project: Project, media_id: str, frame_index: int, *, annotation_id: str | None = None,
                track_id: int | None = None) -> TrackStart:
    """The box to track on ``frame_index``: the stored box ``annotation_id``, or track ``track_id``'s box there.

    Raises TrackingError when no such box is drawn on that frame.
    """
    for b in box_tracks.boxes_on_frame(project, media_id, frame_index):
        if (annotation_id is not None and b.annotation_id == annotation_id) or (
                annotation_id is None and track_id is not None and b.track_id == track_id):
            return TrackStart(media_id, frame_index, tuple(b.box), b.track_id, b.annotation_id, b.label_id,
                              b.attributes)
    what = f"box {annotation_id}" if annotation_id is not None else f"track {track_id}"
    raise TrackingError(f"{what} has no box on frame {frame_index}")


def start_of_box(project: Project, annotation_id: str, frame_index: int | None = None) -> TrackStart:
    """The start for ``fieldstudio track --box ID [--from FRAME]``: that box, or its track's box on FRAME.

    Raises NotFound for an unknown id, TrackingError for a mark that is not a box on a video frame.
    """
    rec = ann.get_annotation(project, annotation_id)
    if rec.kind != "box" or rec.frame_index is None or rec.deleted:
        raise TrackingError(f"{annotation_id} is not a live box on a video frame (it is a {rec.kind}"
                            f"{', deleted' if rec.deleted else ''}); `fieldstudio annotations list` shows the ids")
    if frame_index is None or frame_index == rec.frame_index:
        return track_start(project, rec.media_id, rec.frame_index, annotation_id=rec.id)
    if rec.track_id is None:
        raise TrackingError(f"box {annotation_id} belongs to no track, so it has no box on frame {frame_index}")
    return track_start(project, rec.media_id, frame_index, track_id=rec.track_id)


@dataclass(frozen=True)
class Step:
    """One frame of :class:`BoxFollower`: the box found (tracker pixels), why it stops (None: it goes on)
    and the appearance similarity (-1..1)."""

    box: tracks.Box | None
    stop: str | None
    similarity: float


def _inside_fraction(box: tracks.Box, width: int, height: int) -> float:
    x1, y1, x2, y2 = box
    area = (x2 - x1) * (y2 - y1)
    if area <= 0:
        return 0.0
    iw = max(0.0, min(x2, width) - max(x1, 0.0))
    ih = max(0.0, min(y2, height) - max(y1, 0.0))
    return iw * ih / area


def _patch(frame: np.ndarray, box: tracks.Box) -> tuple[np.ndarray, np.ndarray]:
    """(PATCH x PATCH grey patch of ``box``, blurred to about one patch cell; mask of cells inside the image)."""
    x1, y1, x2, y2 = box
    w, h = max(x2 - x1, 1e-3), max(y2 - y1, 1e-3)
    height, width = frame.shape[:2]
    margin = 2.0 * max(w, h) / PATCH + 2.0
    cx1, cy1 = max(0, int(x1 - margin)), max(0, int(y1 - margin))
    cx2, cy2 = min(width, int(x2 + margin) + 1), min(height, int(y2 + margin) + 1)
    xs = x1 + (np.arange(PATCH) + 0.5) * w / PATCH
    ys = y1 + (np.arange(PATCH) + 0.5) * h / PATCH
    mask = ((ys >= 0) & (ys < height))[:, None] & ((xs >= 0) & (xs < width))[None, :]
    if cx2 - cx1 < 2 or cy2 - cy1 < 2:
        return np.zeros((PATCH, PATCH), np.float32), np.zeros((PATCH, PATCH), bool)
    crop = cv2.cvtColor(frame[cy1:cy2, cx1:cx2], cv2.COLOR_BGR2GRAY).astype(np.float32)
    # blurring to the cell size keeps a half-cell misalignment from swinging the score on fine texture
    crop = cv2.GaussianBlur(crop, (0, 0), sigmaX=max(w / PATCH / 1.5, 0.3), sigmaY=max(h / PATCH / 1.5, 0.3))
    m = np.float32([[PATCH / w, 0, -(x1 - cx1) * PATCH / w], [0, PATCH / h, -(y1 - cy1) * PATCH / h]])
    patch = cv2.warpAffine(crop, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return patch, mask


def _ncc(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> float:
    """Normalised cross-correlation of ``a`` and ``b`` over ``mask`` (0 when a quarter or less is left)."""
    if mask.sum() <= mask.size // 4:
        return 0.0
    va, vb = a[mask].astype(np.float64), b[mask].astype(np.float64)
    va, vb = va - va.mean(), vb - vb.mean()
    d = math.sqrt(float((va * va).sum() * (vb * vb).sum()))
    return float((va * vb).sum() / d) if d > 1e-9 else 0.0


class BoxFollower:
    """CSRT on a sequence of frames (BGR uint8, all one size) from a start box, with the stop rules above.

    ``step(frame)`` returns a :class:`Step` in the frames' own pixels. Pure computation: no project.
    """

    def __init__(self, frame: np.ndarray, box: tracks.Box):
        params = cv2.TrackerCSRT_Params()
        params.template_size = 120
        params.number_of_scales = 9
        self._tracker = cv2.TrackerCSRT_create(params)
        x1, y1, x2, y2 = box
        rect = (int(round(x1)), int(round(y1)), max(2, int(round(x2 - x1))), max(2, int(round(y2 - y1))))
        self._tracker.init(frame, rect)
        self._ref, self._ref_mask = _patch(frame, box)

    def step(self, frame: np.ndarray) -> Step:
        ok, (x, y, w, h) = self._tracker.update(frame)
        if not ok or w <= 0 or h <= 0:
            return Step(None, "lost", 0.0)
        box = (float(x), float(y), float(x + w), float(y + h))
        height, width = frame.shape[:2]
        if _inside_fraction(box, width, height) < MIN_INSIDE:
            return Step(box, "left_frame", 0.0)
        patch, mask = _patch(frame, box)
        similarity = _ncc(patch, self._ref, mask & self._ref_mask)
        if similarity < MIN_SIMILARITY:
            at_border = box[0] <= 1 or box[1] <= 1 or box[2] >= width - 1 or box[3] >= height - 1
            return Step(box, "left_frame" if at_border else "lost", similarity)
        if similarity >= 2 * MIN_SIMILARITY and mask.all():
            self._ref = (1 - TEMPLATE_RATE) * self._ref + TEMPLATE_RATE * patch
        return Step(box, None, similarity)


@dataclass(frozen=True)
class TrackResult:
    """What :func:`follow_box` found. ``boxes``: every frame followed (the start included), full-resolution
    ``(x1, y1, x2, y2)``; ``keyframes``: the frames to store (a subset of ``boxes``, see the module).

    ``stop`` is "reached" (the frame asked for), "end" (the first or last frame of the video, asked for or
    not), "keyframe"
    (just before the track's next keyframe), "lost", "left_frame" or "cancelled"; ``stop_frame`` is the
    frame it could not follow (None unless lost, left the frame or cancelled). ``seconds`` is the time taken.
    """

    start: TrackStart
    direction: int
    boxes: dict[int, tracks.Box]
    keyframes: dict[int, tracks.Box]
    stop: str
    stop_frame: int | None
    message: str
    seconds: float
    similarity: dict[int, float] = field(default_factory=dict)

    @property
    def frames_followed(self) -> int:
        """Frames tracked after the start frame."""
        return len(self.boxes) - 1

    @property
    def last_frame(self) -> int:
        """The last frame with a tracked box (the start frame when nothing could be followed)."""
        return max(self.boxes) if self.direction > 0 else min(self.boxes)


def _scaled_frames(source: FrameSource, media, frames: range, scale: float,  # noqa: ANN001 - Media
                   halt: threading.Event) -> Iterator[tuple[int, np.ndarray]]:
    """``(index, scaled BGR frame)`` for ``frames`` in their order, decoded on a second thread ahead.

    Backward ranges are decoded forward in blocks of BACK_BLOCK frames (one seek per block) and handed
    out in reverse. The decoder's errors are raised here.
    """
    reader = source.reader(media)
    q: queue.Queue = queue.Queue(maxsize=_QUEUE)
    done = object()

    def put(item: object) -> bool:
        while not halt.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            if frames.step > 0:
                for i in frames:
                    if not put((i, reader.get_scaled(i, scale))):
                        return
            else:
                order = list(frames)
                for k in range(0, len(order), BACK_BLOCK):
                    block = order[k:k + BACK_BLOCK]
                    decoded = [(i, reader.get_scaled(i, scale)) for i in reversed(block)]
                    for item in reversed(decoded):
                        if not put(item):
                            return
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            put(exc)
        finally:
            put(done)

    thread = threading.Thread(target=produce, name="track-decode", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        halt.set()
        thread.join()


def follow_box(project: Project, start: TrackStart, to_frame: int, *, every: int = DEFAULT_EVERY,
               progress: Callable[[int, int], None] = lambda done, total: None,
               cancelled: Callable[[], bool] = lambda: False, source: FrameSource | None = None) -> TrackResult:
    """Track ``start``'s box frame by frame towards ``to_frame`` (forward or backward); nothing is stored.

    ``to_frame`` outside the video is taken as its first or last frame. ``every`` (>= 1) is the keyframe
    spacing. ``progress(done, total)`` counts frames; ``cancelled()`` is checked on every frame. A
    ``source`` shares open decoders (one thread at a time); by default one is opened and closed here.
    Raises TrackingError (not a video, ``to_frame`` is the start frame, ``every`` < 1), MediaError when
    the video cannot be decoded.
    """
    t0 = time.perf_counter()
    if every < 1:
        raise TrackingError(f"keyframes every {every} frames: give 1 or more")
    media = library.find_media(project, start.media_id)
    if media.kind != "video":
        raise TrackingError(f"{media.file_name} is a {media.kind}; only boxes on video frames can be tracked")
    own = source is None
    source = source or FrameSource(project, max_readers=1)
    try:
        n = len(source.reader(media).table)
        f0 = start.frame_index
        target = min(max(int(to_frame), 0), n - 1)
        if target == f0:
            raise TrackingError(f"frame {to_frame} is the start frame {f0}: nothing to track")
        direction = 1 if target > f0 else -1
        limit, at_limit = target, "end" if target in (0, n - 1) else "reached"
        if start.track_id is not None:
            ahead = [r.frame_index for r in box_tracks.track_keyframes(project, start.media_id, start.track_id)
                     if (r.frame_index - f0) * direction > 0]
            if ahead:
                nearest = min(ahead, key=lambda f: abs(f - f0))
                if (target - nearest) * direction >= 0:
                    limit, at_limit = nearest - direction, "keyframe"
        boxes: dict[int, tracks.Box] = {f0: tuple(start.box)}
        similarity: dict[int, float] = {}
        stop, stop_frame = at_limit, None
        if limit != f0:
            stop, stop_frame = _run(source, media, start, range(f0 + direction, limit + direction, direction),
                                    boxes, similarity, progress, cancelled, at_limit)
    finally:
        if own:
            source.close()
    keyframes = _keyframes(boxes, f0, direction, every, start.annotation_id is not None)
    result = TrackResult(start, direction, boxes, keyframes if stop != "cancelled" else {}, stop, stop_frame, "",
                         time.perf_counter() - t0, similarity)
    return dataclasses.replace(result, message=describe(result, limit))


def _run(source: FrameSource, media, start: TrackStart, frames: range, boxes: dict,  # noqa: ANN001 - Media
         similarity: dict, progress: Callable[[int, int], None], cancelled: Callable[[], bool],
         at_limit: str) -> tuple[str, int | None]:
    width, height = int(media.width or 0), int(media.height or 0)
    x1, y1, x2, y2 = start.box
    side = math.sqrt(max((x2 - x1) * (y2 - y1), 1.0))
    scale = min(1.0, TRACKER_BOX_PX / side)
    if width and height:
        scale = max(scale, min(1.0, MIN_TRACKER_SIDE_PX / max(width, height)))
    first = source.reader(media).get_scaled(start.frame_index, scale)
    sx, sy = first.shape[1] / (width or first.shape[1]), first.shape[0] / (height or first.shape[0])
    follower = BoxFollower(first, (x1 * sx, y1 * sy, x2 * sx, y2 * sy))
    halt = threading.Event()
    total = len(frames)
    decoded = _scaled_frames(source, media, frames, scale, halt)
    try:
        for done, (i, frame) in enumerate(decoded, start=1):
            if cancelled():
                return "cancelled", i
            step = follower.step(frame)
            similarity[i] = step.similarity
            if step.stop is not None:
                return step.stop, i
            bx1, by1, bx2, by2 = step.box
            boxes[i] = (bx1 / sx, by1 / sy, bx2 / sx, by2 / sy)
            progress(done, total)
    finally:
        decoded.close()  # stops the decoding thread now, not when the generator is collected
    return at_limit, None


def _keyframes(boxes: dict[int, tracks.Box], f0: int, direction: int, every: int,
               start_is_keyframe: bool) -> dict[int, tracks.Box]:
    followed = sorted(boxes, key=lambda f: (f - f0) * direction)
    if len(followed) < 2:
        return {}
    last = followed[-1]
    keep = {f for f in followed if abs(f - f0) % every == 0} | {last}
    if start_is_keyframe:
        keep.discard(f0)
    return {f: boxes[f] for f in sorted(keep)}


def describe(result: TrackResult, limit: int | None = None) -> str:
    """One line for the status bar and the command line: how far it went and why it stopped."""
    s = result.start
    who = f"track {s.track_id}" if s.track_id is not None else "the box"
    span = (f"frames {min(s.frame_index, result.last_frame)}-{max(s.frame_index, result.last_frame)}"
            if result.frames_followed else "no frame")
    kept = f"{who}: followed {result.frames_followed} frame(s) ({span}), {len(result.keyframes)} new keyframe(s)"
    why = {
        "reached": f"reached frame {result.last_frame}",
        "end": "reached the " + ("last" if result.direction > 0 else "first") + " frame of the video",
        "keyframe": f"stopped before the track's keyframe on frame {(limit or result.last_frame) + result.direction}",
        "lost": f"lost the target on frame {result.stop_frame} (the tracker's match fell below its threshold)",
        "left_frame": f"the box left the image on frame {result.stop_frame}",
        "cancelled": f"cancelled on frame {result.stop_frame}; nothing is stored",
    }[result.stop]
    rate = result.frames_followed / result.seconds if result.seconds > 0 else 0.0
    return f"{why}; {kept} ({rate:.0f} frames/s)"


def stretch_edit(project: Project, result: TrackResult) -> edits.CreateMany | None:
    """The one undoable edit that stores ``result``'s keyframes (None when there is nothing to store).

    A start box without a track gets a new track id in the same edit; one undo removes the stretch.
    """
    if not result.keyframes:
        return None
    s = result.start
    before: list = []
    track_id = s.track_id
    if track_id is None:
        track_id = box_tracks.next_track_id(project, s.media_id)
        before.append(edits.UpdateAnnotation(project, s.annotation_id, "Give a track", track_id=track_id))
    marks = [mark_batches.NewMark(s.media_id, "box", frame_index=f, geometry=list(box), label_id=s.label_id,
                         track_id=track_id, is_keyframe=True, attributes=s.attributes)
             for f, box in sorted(result.keyframes.items())]
    text = f"Track {'forward' if result.direction > 0 else 'backward'} ({result.frames_followed} frames)"
    return edits.CreateMany(project, text, marks, before)
