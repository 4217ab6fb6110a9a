""""Detect people": boxes proposed by the HOG people detector (``media.people``) on a frame or a frame range, which
the supervisor accepts (as ordinary boxes with a label, one undo step), edits or rejects (issue 34 item 3).

Qt-free; the window (Annotate ▸ Detect people) and ``fieldstudio detect-people`` call it. Proposals are not stored:
only the boxes accepted become annotations, which the tracker then continues like any box (``annotations track``,
T in the window). A proposal overlapping a box already on its frame by IoU >= `KNOWN_IOU` is not proposed again, so
a second pass over the same frames proposes only what is new.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels, mark_batches
from fieldstudio.annotations.edits import CreateMany
from fieldstudio.core.box_overlap import box_iou
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.progress import Cancelled, Progress, never_cancelled, no_progress
from fieldstudio.media import library, people
from fieldstudio.media.frames import FrameSource
from fieldstudio.store.project import Project

#: The label accepted boxes get unless the supervisor chooses another.
DEFAULT_LABEL = "person"
#: A proposal overlapping a box already on its frame by this much (IoU) is that box: not proposed again.
KNOWN_IOU = 0.5


class DetectPeopleError(FieldstudioError):
    """A frame range that cannot be read: a document, frames outside the video, a step below 1."""


@dataclass(frozen=True)
class PersonProposal:
    """One proposed person: the media, the frame (0 for a photo), the box ``(x0, y0, x1, y1)`` in upright
    full-resolution pixels, and the detector's score (SVM margin, higher is surer)."""

    media_id: str
    frame_index: int
    box: tuple[float, float, float, float]
    score: float

    def record(self) -> dict:
        """JSON-ready: ``{"media_id", "frame_index", "box": [x0, y0, x1, y1], "score"}`` (0.1 px, 0.001)."""
        return {"media_id": self.media_id, "frame_index": self.frame_index,
                "box": [round(v, 1) for v in self.box], "score": round(self.score, 3)}


@dataclass(frozen=True)
class PeopleFound:
    """What one pass found: the proposals (by frame, best first within a frame), the frames read, whether it was
    cancelled before the last, and the detector's version (``media.people.detector_version``)."""

    proposals: tuple[PersonProposal, ...]
    frames_read: tuple[int, ...]
    cancelled: bool
    detector: str
    already_boxed: int = 0
    """People the detector found that a box on their frame already holds (IoU >= ``KNOWN_IOU``): not proposed."""


def frames_to_read(frame_count: int, first: int | None = None, last: int | None = None, every: int = 1) -> range:
    """Frames ``first``..``last`` (inclusive; default the whole video) every ``every``-th frame.

    Raises DetectPeopleError when ``every`` < 1, the range is empty or reaches outside ``0..frame_count-1``."""
    if every < 1:
        raise DetectPeopleError(f"every must be 1 or more, got {every}")
    first = 0 if first is None else first
    last = frame_count - 1 if last is None else last
    if not 0 <= first <= last < frame_count:
        raise DetectPeopleError(f"frames {first}-{last} are not within the video's 0-{frame_count - 1}")
    return range(first, last + 1, every)


def parse_frames(text: str) -> tuple[int, int]:
    """``"A-B"`` (or ``"A"``: that frame alone) as ``(A, B)``, 0-based frame indexes. Raises DetectPeopleError."""
    parts = text.replace(" ", "").split("-")
    try:
        first, last = (int(parts[0]), int(parts[-1])) if len(parts) in (1, 2) else (None, None)
    except ValueError:
        first = last = None
    if first is None or last is None or first > last:
        raise DetectPeopleError(f"frames must be A-B (0-based, A <= B) or one frame A, not {text!r}")
    return first, last


def frames_of(project: Project, media_id: str, first: int | None = None, last: int | None = None,
              every: int = 1) -> range:
    """`frames_to_read` on a video of the project (its frame index built first when it has none); ``range(1)`` for
    a photo, which takes no range (``first`` and ``last`` None). Raises DetectPeopleError (a document, a range on a
    photo, a range outside the video), NotFound, MediaError."""
    from fieldstudio.media.video_index import index_videos

    media = library.find_media(project, media_id)
    if media.kind == "image":
        if first is not None or last is not None:
            raise DetectPeopleError(f"{media.file_name} is a photo: it has no frames to choose (frames are for videos)")
        return range(1)
    if media.kind != "video":
        raise DetectPeopleError(f"{media.file_name} is a {media.kind}: people are detected on photos and videos")
    if media.frame_count is None:
        index_videos(project, [media.id])
        media = library.find_media(project, media_id)
    return frames_to_read(media.frame_count or 0, first, last, every)


def propose_people(project: Project, media_id: str, frames: Iterable[int] | None = None, *,
                   min_score: float = people.MIN_SCORE, progress: Progress = no_progress,
                   cancelled: Cancelled = never_cancelled) -> PeopleFound:
    """Run the people detector on ``frames`` of a video (default: frame 0) or on a photo; nothing is stored.

    ``progress(done, total)`` counts frames; ``cancelled()`` is polled between frames (the proposals of the frames
    read so far are kept). Raises DetectPeopleError (a document, a ``min_score`` that is not a number),
    PeopleDetectorUnavailable, PeopleImageTooLarge,
    MediaError / IndexError (a frame that cannot be decoded), NotFound (unknown media).
    """
    if not math.isfinite(min_score):
        raise DetectPeopleError(f"the minimum score must be a number, not {min_score}")
    media = library.find_media(project, media_id)
    if media.kind not in ("image", "video"):
        raise DetectPeopleError(f"{media.file_name} is a {media.kind}: people are detected on photos and videos")
    todo = [0] if media.kind == "image" or frames is None else list(frames)
    found: list[PersonProposal] = []
    read: list[int] = []
    boxed = 0
    stopped = False
    source = FrameSource(project, max_readers=1)
    try:
        for n, index in enumerate(todo):
            if cancelled():
                stopped = True
                break
            frame = source.get(media, index)
            known = [r.geometry for r in ann.list_annotations(project, media_id=media.id, kinds=("box",),
                                                               frame_index=None if media.kind == "image" else index)
                     if r.geometry]
            for b in people.detect_people(frame.rgb, min_score=min_score):
                if all(box_iou(b.xyxy, k) < KNOWN_IOU for k in known):
                    found.append(PersonProposal(media.id, index, b.xyxy, b.score))
                else:
                    boxed += 1
            read.append(index)
            progress(n + 1, len(todo))
    finally:
        source.close()
    return PeopleFound(tuple(found), tuple(read), stopped, people.detector_version(), boxed)


def accept_edit(project: Project, proposals: Sequence[PersonProposal], label_id: str | None = None,
                *, author: str | None = None) -> CreateMany:
    """The undoable edit that stores ``proposals`` as ordinary boxes with ``label_id`` (default: the label
    `DEFAULT_LABEL`, made for boxes if missing), all in one undo step ("Accept N people").

    The boxes carry the attribute ``{"proposed_by": <detector version>, "score": s}`` so where a box came from stays
    visible. Raises DetectPeopleError when ``proposals`` is empty.
    """
    if not proposals:
        raise DetectPeopleError("no proposal to accept")
    if label_id is None:
        label_id = labels.ensure_label(project, DEFAULT_LABEL, kind="box")
    kinds = {m.id: m.kind for m in (library.find_media(project, mid) for mid in {p.media_id for p in proposals})}
    version = people.detector_version()
    marks = [mark_batches.NewMark(media_id=p.media_id, kind="box",
                                  frame_index=None if kinds[p.media_id] == "image" else p.frame_index,
                                  geometry=list(p.box), label_id=label_id,
                                  attributes={"proposed_by": version, "score": round(p.score, 3)}, author=author)
             for p in proposals]
    noun = "person" if len(marks) == 1 else "people"
    return CreateMany(project, f"Accept {len(marks)} {noun}", marks)
