"""The time budget, computed by hand: counts, durations clipped to the observed interval, % of it."""

from __future__ import annotations

import pytest

from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.annotations.behaviour.time_budget import budget_csv, time_budget
from fieldstudio.core.errors import FieldstudioError


def ev(behaviour: str, start: float, stop: float | None, subject: str = "A", type_: str = "state") -> BehaviourEvent:
    return BehaviourEvent(id=f"{behaviour}{start}", media_id="m", behaviour=behaviour, subject=subject, modifiers=(),
                          type=type_, frame_index=0, start_s=start, end_frame_index=None if stop is None else 1,
                          stop_s=stop, coder="ann")


def test_budget_by_hand():
    events = [ev("walk", 2, 5), ev("walk", 8, 12), ev("lift", 9, None), ev("look", 3, 3, type_="point"),
              ev("look", 11, 11, type_="point"), ev("walk", 12, 13), ev("walk", 1, 4, subject="B")]
    rows = time_budget(events, 0.0, 10.0, order=["walk", "lift", "look"])
    got = [r.cells() for r in rows]
    assert got == [
        ("A", "walk", "state", 2, 5.0, 2.5, 50.0),       # 3 s + 2 s (8..10 of 8..12); 12..13 is outside
        ("A", "lift", "state", 1, 1.0, 1.0, 10.0),       # still running: counted to the end, 9..10
        ("A", "look", "point", 1, None, None, None),     # 11 s is outside
        ("B", "walk", "state", 1, 3.0, 3.0, 30.0)]
    assert budget_csv(rows).splitlines()[2] == "A,lift,state,1,1.0,1.0,10.0"
    assert budget_csv(rows).splitlines()[3] == "A,look,point,1,,,"


def test_chosen_interval_clips_and_an_empty_one_is_refused():
    rows = time_budget([ev("walk", 2, 5)], 4.0, 6.0)
    assert rows[0].cells() == ("A", "walk", "state", 1, 1.0, 1.0, 50.0)
    with pytest.raises(FieldstudioError, match="empty"):
        time_budget([], 5.0, 5.0)
