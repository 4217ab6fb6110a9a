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
"""

from __future__ import annotations

from collections.abc import Sequence

from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import state_overlap
from fieldstudio.annotations.behaviour.ethogram import Behaviour, Ethogram, EthogramError
from fieldstudio.store.edits import Edit, EditGroup
from fieldstudio.store.project import Project


def code_behaviour(project: Project, ethogram: Ethogram, media_id: str, behaviour: str, frame_index: int, *,
                   subject: str = "", modifiers: Sequence[str] = (), coder: str) -> tuple[Edit, str]:
    """The edit recording ``behaviour`` for ``subject`` on ``frame_index`` by ``coder`` (see the module's rule),
    and its one-line description. Modifiers must be among the behaviour's (EthogramError otherwise); a stopping
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
                                     modifiers=modifiers, coder=coder)
        return edit, f"{b.name}{who} on frame {frame_index}"
    running = [e for e in events.running_events(project, media_id, coder=coder) if e.subject == subject]
    same = [e for e in running if e.behaviour == b.name]
    # what the new state may overlap: the states running past its start (that start is the running one's when
    # this key stops it)
    recorded = events.state_events(project, media_id, coder=coder, subject=subject,
                                   behaviours=state_overlap.sharing(ethogram, b.name),
                                   after=same[0].frame_index if same else frame_index)
    if same:
        stop = events.stop_edit(project, same[0], frame_index)  # refuses a stop before the start first
        state_overlap.refuse_overlap(ethogram, recorded, b.name, subject, same[0].frame_index, frame_index,
                                     [same[0].id])
        return stop, f"{b.name}{who} stops on frame {frame_index}"
    exclusive = {x.name for x in ethogram.exclusive_with(b)}
    stopped = [e for e in running if e.behaviour in exclusive]
    state_overlap.refuse_overlap(ethogram, recorded, b.name, subject, frame_index, None, [e.id for e in stopped])
    start = events.add_event_edit(project, media_id, b.name, "state", frame_index, subject=subject,
                                  modifiers=modifiers, coder=coder)
    message = f"{b.name}{who} starts on frame {frame_index}"
    if not stopped:
        return start, message
    stops = [events.stop_edit(project, e, frame_index) for e in stopped]
    message += "; " + ", ".join(e.behaviour for e in stopped) + " stops (exclusive)"
    return EditGroup(f"Code {b.name}{who}", [*stops, start]), message


def starts_or_records(project: Project, behaviour: Behaviour, media_id: str, *, subject: str, coder: str) -> bool:
    """True when coding ``behaviour`` now would start a state or record a point (modifiers are asked then), False
    when it would stop the running state."""
    if behaviour.type == "point":
        return True
    return not any(e.subject == subject and e.behaviour == behaviour.name
                   for e in events.running_events(project, media_id, coder=coder))
