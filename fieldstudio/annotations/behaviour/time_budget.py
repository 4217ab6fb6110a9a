"""The time budget: per subject and behaviour, how often and how long, over an observed interval.

For an interval ``[start_s, end_s]`` (the media's duration by default, or the one chosen), each event is clipped
to it: a state event counts once if it overlaps the interval, and its duration is the part inside it (a state
still running counts to ``end_s``); a point event counts when its time is inside the interval and has no
duration. ``percent`` = total duration / (end_s - start_s) x 100, as BORIS's time budget gives "% of total
length". Rows are ordered by subject, then by the behaviours' order in the ethogram (names not in it last).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.core.errors import FieldstudioError

COLUMNS = ("subject", "behaviour", "type", "count", "total_duration_s", "mean_duration_s", "percent_of_observed")


@dataclass(frozen=True)
class BudgetRow:
    """One subject x behaviour: ``count`` events, ``total_s`` / ``mean_s`` seconds (None for a point event) and
    ``percent`` of the observed time (None for a point event)."""

    subject: str
    behaviour: str
    type: str
    count: int
    total_s: float | None
    mean_s: float | None
    percent: float | None

    def cells(self) -> tuple:
        """The row in :data:`COLUMNS`' order (durations to the millisecond, percent to 0.01)."""
        def r(v: float | None, n: int) -> float | None:
            return None if v is None else round(v, n)
        return (self.subject, self.behaviour, self.type, self.count, r(self.total_s, 3), r(self.mean_s, 3),
                r(self.percent, 2))


def time_budget(events: Sequence[BehaviourEvent], start_s: float, end_s: float,
                order: Sequence[str] = ()) -> list[BudgetRow]:
    """The budget of ``events`` over ``[start_s, end_s]`` seconds (see the module's rule); ``order``: behaviour
    names in the ethogram's order. Raises FieldstudioError when the interval is empty."""
    if not end_s > start_s:
        raise FieldstudioError(f"the observed interval is empty ({start_s:.3f} s to {end_s:.3f} s); "
                               "choose an end after the start")
    observed = end_s - start_s
    found: dict[tuple[str, str], list] = {}
    for e in events:
        key = (e.subject, e.behaviour)
        slot = found.setdefault(key, [e.type, 0, 0.0])
        if e.type == "point":
            if start_s <= e.start_s <= end_s:
                slot[1] += 1
            continue
        stop = end_s if e.stop_s is None else e.stop_s
        inside = min(stop, end_s) - max(e.start_s, start_s)
        if inside > 0 or (inside == 0 and start_s <= e.start_s <= end_s):
            slot[1] += 1
            slot[2] += max(inside, 0.0)
    rank = {name: n for n, name in enumerate(order)}
    rows = []
    for (subject, behaviour), (type_, count, total) in sorted(
            found.items(), key=lambda kv: (kv[0][0], rank.get(kv[0][1], len(rank)), kv[0][1])):
        if type_ == "point":
            rows.append(BudgetRow(subject, behaviour, type_, count, None, None, None))
        else:
            rows.append(BudgetRow(subject, behaviour, type_, count, total, total / count if count else None,
                                  100.0 * total / observed))
    return rows


def budget_csv(rows: Sequence[BudgetRow]) -> str:
    """The budget as CSV text with :data:`COLUMNS` as header (empty cells for a point event's durations)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(["" if c is None else c for c in row.cells()])
    return out.getvalue()
