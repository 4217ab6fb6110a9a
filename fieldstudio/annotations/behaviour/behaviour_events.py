"""Behaviour events: what a coder recorded, as ``annotation`` rows of kind ``"behaviour"`` on a video.

A row holds the start frame (``frame_index``, its PTS read from the frame table), the stop frame
(``end_frame_index``; None while a state event is still running; the start frame for a point event), and in
``attributes``: ``behaviour``, ``subject`` ("" for no focal subject), ``modifiers`` (a list) and ``type``
("state" | "point", kept so an event stays readable after the ethogram changes); for a frame coded while libVLC
played, how it was found: ``frame_found`` (the start) and ``end_frame_found`` (the stop), ``"picture"`` (matched
to the picture on show, ``media.picture_match``) or ``"clock"`` (the playback clock's estimate; absent when the
frame was the one shown paused or stepped). ``author`` is the coder.

Times are seconds after the video's first frame (``start_s``, ``stop_s``): the clock of BORIS's and ELAN's
files, and of every other time fieldstudio shows. Edits go through :mod:`fieldstudio.annotations.edits` (create,
update, soft delete), so undo is the annotations' undo.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import select

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.behaviour.store_rule import KIND
from fieldstudio.annotations.edits import CreateAnnotation, UpdateAnnotation
from fieldstudio.media.video_index import first_frame_seconds
from fieldstudio.core.errors import NotFound
from fieldstudio.store.models import Annotation, FrameIndexRow, Media
from fieldstudio.store.project import Project



@dataclass(frozen=True)
class BehaviourEvent:
    """One coded event. ``start_s`` / ``stop_s``: seconds after the video's first frame (``stop_s`` None while a
    state event runs; equal to ``start_s`` for a point event). ``coder``: who recorded it."""

    id: str
    media_id: str
    behaviour: str
    subject: str
    modifiers: tuple[str, ...]
    type: str
    frame_index: int
    start_s: float
    end_frame_index: int | None
    stop_s: float | None
    coder: str
    version: int = 1
    frame_found: str = ""
    end_frame_found: str = ""

    @property
    def is_open(self) -> bool:
        """A state event started and not stopped yet."""
        return self.end_frame_index is None

    @property
    def duration_s(self) -> float | None:
        """``stop_s - start_s`` (0 for a point event); None while open."""
        return None if self.stop_s is None else self.stop_s - self.start_s


def _event(r: ann.AnnotationRecord, origin: float) -> BehaviourEvent:
    attrs = r.attributes or {}
    return BehaviourEvent(
        id=r.id, media_id=r.media_id, behaviour=str(attrs.get("behaviour", "")), subject=str(attrs.get("subject", "")),
        modifiers=tuple(attrs.get("modifiers") or ()), type=str(attrs.get("type", "state")),
        frame_index=int(r.frame_index or 0), start_s=(r.pts_seconds or 0.0) - origin,
        end_frame_index=r.end_frame_index,
        stop_s=None if r.end_pts_seconds is None else r.end_pts_seconds - origin,
        coder=r.author or "", version=r.version, frame_found=str(attrs.get("frame_found", "")),
        end_frame_found=str(attrs.get("end_frame_found", "")))


def list_events(project: Project, media_id: str, *, coder: str | None = None) -> list[BehaviourEvent]:
    """The live behaviour events on ``media_id`` (of ``coder`` only, if given), by start frame then creation.

    Read as plain rows, not ORM objects: the window reads them when a video is shown, and an hour's coding holds
    thousands."""
    where = [] if coder is None else [Annotation.author == coder]
    return _read_events(project, media_id, where)


def events_with_ids(project: Project, media_id: str, ids: Iterable[str]) -> list[BehaviourEvent]:
    """The live behaviour events on ``media_id`` among ``ids`` (the rows one edit touched), by start frame then
    creation; an id that is deleted, not a behaviour event or on another media is left out. A key press reads its
    own event this way, not the thousands already coded."""
    ids = list(ids)
    return _read_events(project, media_id, [Annotation.id.in_(ids)]) if ids else []


def _read_events(project: Project, media_id: str, where: list) -> list[BehaviourEvent]:
    q = select(Annotation.id, Annotation.attributes, Annotation.frame_index, Annotation.pts,
               Annotation.end_frame_index, Annotation.end_pts, Annotation.author, Annotation.version).where(
        Annotation.media_id == media_id, Annotation.kind == KIND, Annotation.deleted.is_(False), *where)
    q = q.order_by(Annotation.frame_index, Annotation.created_at, Annotation.id)
    with project.read() as s:
        media = s.get(Media, media_id)
        if media is None:
            raise NotFound(f"no media with id {media_id!r}")
        rows = s.execute(q).all()
        tick = float(Fraction(media.time_base_num or 1, media.time_base_den or 1))
        first = s.get(FrameIndexRow, (media_id, 0))  # by key: read once per session (a key press reads several)
    origin = float(first.pts) * tick if first is not None else 0.0
    out = []
    for id_, attrs, frame, pts, end_frame, end_pts, author, version in rows:
        attrs = attrs or {}
        out.append(BehaviourEvent(
            id=id_, media_id=media_id, behaviour=str(attrs.get("behaviour", "")),
            subject=str(attrs.get("subject", "")), modifiers=tuple(attrs.get("modifiers") or ()),
            type=str(attrs.get("type", "state")), frame_index=int(frame or 0),
            start_s=(pts or 0) * tick - origin, end_frame_index=end_frame,
            stop_s=None if end_pts is None else end_pts * tick - origin, coder=author or "", version=version or 1,
            frame_found=str(attrs.get("frame_found", "")), end_frame_found=str(attrs.get("end_frame_found", ""))))
    return out


def state_events(project: Project, media_id: str, *, coder: str, subject: str, behaviours: Iterable[str] | None,
                 after: int, before: int | None = None) -> list[BehaviourEvent]:
    """``coder``'s state events of ``subject`` on ``media_id`` whose behaviour is among ``behaviours`` (None: any)
    and that run past frame ``after`` (a running one always does) and start before frame ``before`` (None: any
    start): what the state ``[after, before]`` may overlap, by start frame. Read alone, the frames first, as a key
    press must not read every event coded."""
    where = [Annotation.author == coder,
             (Annotation.end_frame_index.is_(None)) | (Annotation.end_frame_index > after)]
    if before is not None:
        where.append(Annotation.frame_index < before)
    found = _read_events(project, media_id, where)
    wanted = None if behaviours is None else set(behaviours)
    return [e for e in found
            if e.type != "point" and e.subject == subject and (wanted is None or e.behaviour in wanted)]


def running_events(project: Project, media_id: str, *, coder: str) -> list[BehaviourEvent]:
    """``coder``'s state events on ``media_id`` that are still running (read alone: a key press asks this, and a
    video may hold thousands of closed events)."""
    return _read_events(project, media_id, [Annotation.end_frame_index.is_(None), Annotation.author == coder])


def get_event(project: Project, event_id: str) -> BehaviourEvent:
    """One behaviour event (NotFound when there is none with that id)."""
    r = ann.get_annotation(project, event_id)
    if r.kind != KIND:
        raise ann.AnnotationError(f"annotation {event_id} is a {r.kind}, not a behaviour event")
    return _event(r, first_frame_seconds(project, r.media_id) or 0.0)


def coders(project: Project, media_id: str | None = None) -> list[str]:
    """The coders who recorded behaviour events (on one media, or in the project), sorted."""
    rows = ann.list_annotations(project, media_id=media_id, kinds=[KIND])
    return sorted({r.author or "" for r in rows})


def media_with_events(project: Project) -> list[str]:
    """The ids of the media that have behaviour events."""
    return sorted({r.media_id for r in ann.list_annotations(project, kinds=[KIND])})


def _attributes(behaviour: str, subject: str, modifiers: Iterable[str], type_: str, frame_found: str = "",
                end_frame_found: str = "") -> dict:
    attrs = {"behaviour": behaviour, "subject": subject, "modifiers": list(modifiers), "type": type_}
    if frame_found:
        attrs["frame_found"] = frame_found
    if end_frame_found:
        attrs["end_frame_found"] = end_frame_found
    return attrs


def add_event_edit(project: Project, media_id: str, behaviour: str, type_: str, frame_index: int, *,
                   subject: str = "", modifiers: Sequence[str] = (), coder: str,
                   end_frame_index: int | None = None, frame_found: str = "") -> CreateAnnotation:
    """Edit creating one event on ``frame_index`` (a point event's stop is the same frame; a state event stays
    open when ``end_frame_index`` is None); ``frame_found``: how a frame coded while playing was found (see the
    module). Raises AnnotationError on ``do()`` for a frame outside the video or a stop before the start."""
    if type_ == "point":
        end_frame_index = frame_index
    if end_frame_index is not None and end_frame_index < frame_index:
        raise ann.AnnotationError(f"{behaviour}: the event would stop (frame {end_frame_index}) before it starts "
                                  f"(frame {frame_index})")
    attrs = _attributes(behaviour, subject, modifiers, type_, frame_found,
                        frame_found if type_ == "point" else "")
    text = f"Code {behaviour}" + (f" ({subject})" if subject else "")
    return CreateAnnotation(project, text, lambda: ann.insert_annotation(
        project, media_id, KIND, frame_index=frame_index, frame_required=True, end_frame_index=end_frame_index,
        attributes=attrs, author=coder), kind=KIND)


def stop_edit(project: Project, event: BehaviourEvent, frame_index: int, *, found: str = "") -> UpdateAnnotation:
    """Edit stopping the running state ``event`` on ``frame_index`` (not before its start: AnnotationError);
    ``found``: how a stop coded while playing was found (``end_frame_found``, see the module)."""
    if frame_index < event.frame_index:
        raise ann.AnnotationError(f"{event.behaviour} started on frame {event.frame_index}; it cannot stop on "
                                  f"frame {frame_index}, before it")
    changes: dict = {"end_frame_index": frame_index}
    if found or event.end_frame_found:
        changes["attributes"] = _attributes(event.behaviour, event.subject, event.modifiers, event.type,
                                            event.frame_found, found)
    return UpdateAnnotation(project, event.id, f"Stop {event.behaviour} on frame {frame_index}", kind=KIND,
                            **changes)


def change_edit(project: Project, event: BehaviourEvent, *, frame_index: int | None = None,
                end_frame_index: int | None = None, subject: str | None = None,
                modifiers: Sequence[str] | None = None, behaviour: str | None = None, frame_found: str | None = None,
                end_frame_found: str | None = None) -> UpdateAnnotation:
    """Edit changing an event's start or stop frame, subject, modifiers, behaviour or how its frames were found
    (what is given), refused as a stale edit when the row changed since ``event`` was read. A point event's stop
    follows its start. Raises AnnotationError when the stop would come before the start."""
    start = event.frame_index if frame_index is None else frame_index
    stop = event.end_frame_index if end_frame_index is None else end_frame_index
    if event.type == "point":
        stop = start
    if stop is not None and stop < start:
        raise ann.AnnotationError(f"{event.behaviour}: the stop (frame {stop}) would come before the start "
                                  f"(frame {start})")
    changes: dict = {}
    if start != event.frame_index:
        changes["frame_index"] = start
    if stop != event.end_frame_index:
        changes["end_frame_index"] = stop
    if any(v is not None for v in (subject, modifiers, behaviour, frame_found, end_frame_found)):
        changes["attributes"] = _attributes(event.behaviour if behaviour is None else behaviour,
                                            event.subject if subject is None else subject,
                                            event.modifiers if modifiers is None else modifiers, event.type,
                                            event.frame_found if frame_found is None else frame_found,
                                            event.end_frame_found if end_frame_found is None else end_frame_found)
    return UpdateAnnotation(project, event.id, f"Edit {event.behaviour} event", expected_version=event.version,
                            kind=KIND, **changes)
