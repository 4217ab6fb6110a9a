"""The rule that keeps one coder's state record consistent: for one subject, a behaviour's state intervals never
overlap one another, nor those of a behaviour of the same mutually exclusive group.

Intervals are in frames, ``[start, stop]``; two intervals that only touch (one stops on the frame the next starts,
as a key press stopping one exclusive state and starting the next makes them) do not overlap. A running state
reaches to the end of the video. Point events have no duration and are never in the way. Because of this rule a
time budget can never give one subject more than 100 % of the observed time in one behaviour or one exclusive
group.

Coding (:mod:`coding`), importing events (:mod:`observations`) and changing an event's frames or subject
(:func:`change_edit`, the Behaviour dock's Edit…) call :func:`in_the_way` before they store a start or a stop, and
refuse the event when it names one. Whatever else writes behaviour rows, the store refuses the commit that would
store an overlap (:func:`check_stored`, run by :mod:`store_rule`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from fieldstudio.annotations.annotation_records import AnnotationError
from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.annotations.behaviour.ethogram import SETTING_KEY, Ethogram, EthogramError
from fieldstudio.annotations.edits import UpdateAnnotation
from fieldstudio.store.models import Annotation, ProjectSetting
from fieldstudio.store.project import Project


def sharing(ethogram: Ethogram, behaviour: str) -> set[str]:
    """``behaviour`` and the behaviours of its exclusive group (only itself when the ethogram no longer has it)."""
    try:
        b = ethogram.behaviour(behaviour)
    except EthogramError:
        return {behaviour}
    return {behaviour, *(x.name for x in ethogram.exclusive_with(b))}


def in_the_way(ethogram: Ethogram, stored: Iterable[BehaviourEvent], *, behaviour: str, subject: str, start: int,
               stop: int | None, ignore: Iterable[str] = ()) -> BehaviourEvent | None:
    """The first state event among ``stored`` (one coder's, on one video) that the state interval
    ``[start, stop]`` of ``behaviour`` for ``subject`` would overlap (``stop`` None: still running), or None.
    Events whose id is in ``ignore`` (the event being stopped, the running states a start stops) are skipped."""
    shared = sharing(ethogram, behaviour)
    skip = set(ignore)
    end = float("inf") if stop is None else stop
    for e in stored:
        if e.id in skip or e.type == "point" or e.subject != subject or e.behaviour not in shared:
            continue
        e_end = float("inf") if e.end_frame_index is None else e.end_frame_index
        if e.frame_index < end and start < e_end:
            return e
    return None


def describe(e: BehaviourEvent | StoredState) -> str:
    """The interval in the way, as a refusal names it: "A is already standing from frame 20 to 40"."""
    who = e.subject or "the record"
    until = "on (still running)" if e.end_frame_index is None else f"to {e.end_frame_index}"
    return f"{who} is already {e.behaviour} from frame {e.frame_index} {until} (coded by {e.coder})"


def refuse_overlap(ethogram: Ethogram, stored: Iterable[BehaviourEvent], behaviour: str, subject: str, start: int,
                   stop: int | None, ignore: Iterable[str] = ()) -> None:
    """AnnotationError ("walk from frame 4 refused: A is already lift from frame 2 to 6 ...") when the state
    ``[start, stop]`` would overlap one of ``stored`` (see :func:`in_the_way`); nothing otherwise."""
    if (e := in_the_way(ethogram, stored, behaviour=behaviour, subject=subject, start=start, stop=stop,
                        ignore=ignore)) is not None:
        span = f"from frame {start}" + ("" if stop is None else f" to {stop}")
        raise AnnotationError(f"{behaviour} {span} refused: {describe(e)}")


def change_edit(project: Project, ethogram: Ethogram, event: BehaviourEvent, *, frame_index: int | None = None,
                end_frame_index: int | None = None, subject: str | None = None,
                modifiers: Sequence[str] | None = None) -> UpdateAnnotation:
    """:func:`behaviour_events.change_edit`, refused (AnnotationError naming the interval in the way) when the
    changed state would overlap its coder's record for the subject it ends up with."""
    edit = events.change_edit(project, event, frame_index=frame_index, end_frame_index=end_frame_index,
                              subject=subject, modifiers=modifiers)
    if event.type != "point":
        start = event.frame_index if frame_index is None else frame_index
        stop = event.end_frame_index if end_frame_index is None else end_frame_index
        who = event.subject if subject is None else subject
        stored = events.state_events(project, event.media_id, coder=event.coder, subject=who,
                                     behaviours=sharing(ethogram, event.behaviour), after=start, before=stop)
        refuse_overlap(ethogram, stored, event.behaviour, who, start, stop, [event.id])
    return edit


class StoredState(NamedTuple):
    """A state event's row as the store check reads it (frames only: no seconds are needed to refuse)."""

    id: str
    media_id: str
    coder: str
    behaviour: str
    subject: str
    frame_index: int
    end_frame_index: int | None


def _states(session: Session, where: list) -> list[StoredState]:
    rows = session.execute(select(Annotation.id, Annotation.media_id, Annotation.author, Annotation.attributes,
                                  Annotation.frame_index, Annotation.end_frame_index).where(
        Annotation.kind == events.KIND, Annotation.deleted.is_(False), *where)).all()
    return [StoredState(id_, media, author or "", str((attrs or {}).get("behaviour", "")),
                        str((attrs or {}).get("subject", "")), int(frame or 0), end)
            for id_, media, author, attrs, frame, end in rows if (attrs or {}).get("type", "state") != "point"]


def check_stored(session: Session, ids: Iterable[str]) -> None:
    """The store's own check, in the transaction about to commit: AnnotationError ("walk from frame 4 to 9 refused:
    A is already lift from frame 2 to 6 (coded by ann)") when a live state event among ``ids`` now overlaps another
    state event of the same video, coder and subject whose behaviour is the same or of its exclusive group (the
    project's ethogram); nothing otherwise. One read of the rows ``ids`` and one of their coders' states over the
    frames they span."""
    written = _states(session, [Annotation.id.in_(list(ids))])
    if not written:
        return
    setting = session.get(ProjectSetting, SETTING_KEY)
    try:
        ethogram = Ethogram.from_json(setting.value if setting is not None else None)
    except EthogramError:
        ethogram = Ethogram()
    groups: dict[tuple[str, str], list[StoredState]] = {}
    for row in written:
        groups.setdefault((row.media_id, row.coder), []).append(row)
    for (media_id, coder), mine in groups.items():
        low = min(r.frame_index for r in mine)
        high = None if any(r.end_frame_index is None for r in mine) else max(r.end_frame_index for r in mine)
        where = [Annotation.media_id == media_id, Annotation.author == coder,
                 Annotation.end_frame_index.is_(None) | (Annotation.end_frame_index > low)]
        if high is not None:
            where.append(Annotation.frame_index < high)
        if (clash := first_overlap(ethogram, mine, _states(session, where))) is not None:
            row, other = clash
            span = f"from frame {row.frame_index}" + ("" if row.end_frame_index is None else
                                                      f" to {row.end_frame_index}")
            raise AnnotationError(f"{row.behaviour} {span} refused: {describe(other)}")


def first_overlap(ethogram: Ethogram, rows: Sequence[StoredState],
                  stored: Iterable[StoredState]) -> tuple[StoredState, StoredState] | None:
    """The first of ``rows`` (by start frame) whose state interval overlaps another of ``stored`` (which holds
    ``rows`` as stored, and the states around them) of the same subject and of its behaviour or exclusive group,
    with that other one; None when none does. Intervals ``[start, stop)`` only touching do not overlap; a running
    state reaches the end of the video. Sorted once per subject and group: a batch of thousands is checked in
    O(n log n), not pair by pair."""
    named = {b.name: b for b in ethogram.behaviours}

    def share(r: StoredState) -> tuple[str, str]:
        b = named.get(r.behaviour)
        return r.subject, (f"group {b.group}" if b is not None and b.group and b.is_state else r.behaviour)

    wanted = {r.id for r in rows}
    by_share: dict[tuple[str, str], list[StoredState]] = {}
    for r in {r.id: r for r in (*stored, *rows)}.values():
        by_share.setdefault(share(r), []).append(r)
    found: list[tuple[StoredState, StoredState]] = []
    for states in by_share.values():
        if not wanted.intersection(r.id for r in states):
            continue
        states.sort(key=lambda r: (r.frame_index, r.id))
        starts = [r.frame_index for r in states]
        # per prefix, the two states reaching furthest (one of them is not the row asked about)
        best: list[tuple[StoredState, StoredState | None]] = []
        for r in states:
            first, second = best[-1] if best else (r, None)
            if best:
                if _end(r) > _end(first):
                    first, second = r, first
                elif second is None or _end(r) > _end(second):
                    second = r
            best.append((first, second))
        for r in states:
            if r.id not in wanted:
                continue
            k = bisect.bisect_left(starts, _end(r)) if r.end_frame_index is not None else len(states)
            if k == 0:
                continue
            first, second = best[k - 1]
            other = second if first.id == r.id else first
            if other is not None and _end(other) > r.frame_index:
                found.append((r, other))
    return min(found, key=lambda pair: (pair[0].frame_index, pair[0].id)) if found else None


def _end(r: StoredState) -> float:
    return float("inf") if r.end_frame_index is None else r.end_frame_index
