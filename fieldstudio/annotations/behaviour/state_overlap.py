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

from collections.abc import Iterable, Sequence

from fieldstudio.annotations.annotation_records import AnnotationError
from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.annotations.behaviour.ethogram import Ethogram, EthogramError
from fieldstudio.annotations.behaviour.store_rule import describe
from fieldstudio.annotations.edits import UpdateAnnotation
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
