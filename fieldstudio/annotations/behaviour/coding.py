"""Coding by key: what one key press records, decided without Qt (the window and the tests call the same rule).

The window looks a key up in the ethogram (``Ethogram.by_key``): a subject's key makes that subject the current one
(nothing is recorded); a behaviour's key records on the frame given (the frame on screen when it was pressed):

* a point event: one event on that frame;
* a state event: if the same behaviour is running for the current subject (and this coder), it stops on that
  frame; otherwise it starts there, and every running state of the same mutually exclusive group for that
  subject stops on that same frame first.

Either is refused (AnnotationError naming the interval in the way, nothing stored) when the state would overlap
another of the same behaviour, or of its exclusive group, for that subject and coder (:mod:`state_overlap`): coding
on an earlier frame never rewrites what is already recorded.

The result is one :class:`~fieldstudio.store.edits.Edit` (one undo step) with a line saying what it did.

While libVLC plays, the frame given is the playback clock's estimate (``found="clock"``, kept in the events'
attributes); once the picture shown at the key press has been matched to its exact frame
(``media.picture_match``), ``frame_correction`` gives the separate undo step "Frame corrected" that moves what
the key recorded (a start, a point, a stop, the exclusive stops) to that frame, marked ``"picture"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import state_overlap
from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.annotations.behaviour.ethogram import Behaviour, Ethogram, EthogramError
from fieldstudio.annotations.edits import CreateAnnotation, UpdateAnnotation, annotation_ids_of
from fieldstudio.store.edits import Edit, EditGroup
from fieldstudio.store.project import Project


def code_behaviour(project: Project, ethogram: Ethogram, media_id: str, behaviour: str, frame_index: int, *,
                   subject: str = "", modifiers: Sequence[str] = (), coder: str,
                   found: str = "") -> tuple[Edit, str]:
    """The edit recording ``behaviour`` for ``subject`` on ``frame_index`` by ``coder`` (see the module's rule),
    and its one-line description. ``found``: how the frame was found while playing ("clock"; "" paused). Modifiers must be among the behaviour's (EthogramError otherwise); a stopping
    state keeps the modifiers it started with. Raises EthogramError for an unknown behaviour, AnnotationError
    for a stop before the running state's start."""
    b = ethogram.behaviour(behaviour)
    bad = [m for m in modifiers if m not in b.modifiers]
    if bad:
        raise EthogramError(f"{b.name}: unknown modifier(s) {', '.join(bad)}; choose among "
                            f"{', '.join(b.modifiers) or 'none'}")
    who = f" ({subject})" if subject else ""
    if b.type == "point":
        edit = events.add_event_edit(project, media_id, b.name, "point", frame_index, subject=subject,
                                     modifiers=modifiers, coder=coder, frame_found=found)
        return edit, f"{b.name}{who} on frame {frame_index}"
    sharing = state_overlap.sharing(ethogram, b.name)
    # one read for a start: the coder's states running past this frame hold both the running ones and what a
    # state started here may overlap (a stop reads again from the running state's start, below)
    past = events.state_events(project, media_id, coder=coder, subject=subject, behaviours=None, after=frame_index)
    running = [e for e in past if e.is_open]
    same = [e for e in running if e.behaviour == b.name]
    # what the new state may overlap: the states running past its start (that start is the running one's when
    # this key stops it)
    if same and same[0].frame_index < frame_index:
        recorded = events.state_events(project, media_id, coder=coder, subject=subject, behaviours=sharing,
                                       after=same[0].frame_index)
    else:
        recorded = [e for e in past if e.behaviour in sharing]
    if same:
        stop = events.stop_edit(project, same[0], frame_index, found=found)  # refuses a stop before the start first
        state_overlap.refuse_overlap(ethogram, recorded, b.name, subject, same[0].frame_index, frame_index,
                                     [same[0].id])
        return stop, f"{b.name}{who} stops on frame {frame_index}"
    exclusive = {x.name for x in ethogram.exclusive_with(b)}
    stopped = [e for e in running if e.behaviour in exclusive]
    state_overlap.refuse_overlap(ethogram, recorded, b.name, subject, frame_index, None, [e.id for e in stopped])
    start = events.add_event_edit(project, media_id, b.name, "state", frame_index, subject=subject,
                                  modifiers=modifiers, coder=coder, frame_found=found)
    message = f"{b.name}{who} starts on frame {frame_index}"
    if not stopped:
        return start, message
    stops = [events.stop_edit(project, e, frame_index, found=found) for e in stopped]
    message += "; " + ", ".join(e.behaviour for e in stopped) + " stops (exclusive)"
    return EditGroup(f"Code {b.name}{who}", [*stops, start], project=project), message


@dataclass(frozen=True)
class KeyRecord:
    """What one key press stored (:func:`record_key`): ``edit`` (done: one undo step), ``message`` (its one line),
    ``touched`` (the ids of the events it created or changed) and ``events`` (those events as stored, read back in
    the same transaction)."""

    edit: Edit
    message: str
    touched: frozenset[str]
    events: list[BehaviourEvent]


def record_key(project: Project, ethogram: Ethogram, media_id: str, behaviour: str, frame_index: int, *,
               subject: str = "", modifiers: Sequence[str] = (), coder: str, found: str = "") -> KeyRecord:
    """:func:`code_behaviour` and its edit done, in one store session and one commit (``Project.unit_of_work``):
    what the state may overlap is read, checked and written under one write lock, and the touched events are
    read back in the same transaction (a window redraws only them). Raises as :func:`code_behaviour` (nothing
    stored), and ProjectReadOnly."""
    # no savepoints: every error below ends the unit (an EditGroup undoes and raises again), rolling all of it back
    with project.unit_of_work(savepoints=False):
        edit, message = code_behaviour(project, ethogram, media_id, behaviour, frame_index, subject=subject,
                                       modifiers=modifiers, coder=coder, found=found)
        edit.do()
        touched = annotation_ids_of(edit) or frozenset()
        read = events.events_with_ids(project, media_id, touched)
    return KeyRecord(edit, message, touched, read)


def starts_or_records(project: Project, behaviour: Behaviour, media_id: str, *, subject: str, coder: str) -> bool:
    """True when coding ``behaviour`` now would start a state or record a point (modifiers are asked then), False
    when it would stop the running state."""
    if behaviour.type == "point":
        return True
    return not any(e.subject == subject and e.behaviour == behaviour.name
                   for e in events.running_events(project, media_id, coder=coder))


def frame_correction(project: Project, media_id: str, key_edit: Edit, estimate: int,
                     frame_index: int) -> Edit | None:
    """The edit "Frame corrected" moving what ``key_edit`` (a ``code_behaviour`` edit on ``media_id``, done)
    recorded on the clock's ``estimate`` to ``frame_index``, the frame matched to the picture shown, marked ``"picture"``: the
    start of the events it created (a point's stop follows), the stop of the events it stopped. None when
    nothing is left to move (the key's edit was undone, or its events were edited since: their frame or how it
    was found is no longer the estimate's). Raises AnnotationError when a stop would come before its start."""
    starts, stops = _recorded_by(key_edit)
    edits: list[Edit] = []
    for e in events.events_with_ids(project, media_id, starts | stops):
        if e.id in starts and e.frame_index == estimate and e.frame_found == "clock":
            edits.append(events.change_edit(project, e, frame_index=frame_index, frame_found="picture",
                                            end_frame_found="picture" if e.type == "point" else None))
        elif e.id in stops and e.end_frame_index == estimate and e.end_frame_found == "clock":
            edits.append(events.change_edit(project, e, end_frame_index=frame_index, end_frame_found="picture"))
    if not edits:
        return None
    for edit in edits:
        edit.text = f"Frame corrected: {estimate} to {frame_index}"
    return edits[0] if len(edits) == 1 else EditGroup(f"Frame corrected: {estimate} to {frame_index}", edits,
                                                      project=project)


def _recorded_by(edit: Edit) -> tuple[set[str], set[str]]:
    """The ids of the events ``edit`` created and of those it stopped."""
    members = edit.edits if isinstance(edit, EditGroup) else [edit]
    starts = {m.annotation_id for m in members if isinstance(m, CreateAnnotation) and m.annotation_id}
    stops = {m.annotation_id for m in members if isinstance(m, UpdateAnnotation)}
    return starts, stops

