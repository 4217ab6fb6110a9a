"""ELAN's tab-delimited text: one line per annotation with its tier, begin, end and duration.

ELAN imports this with File ▸ Import ▸ CSV / Tab-delimited Text (columns chosen in its dialog; the first line is a
header it can skip). Columns: ``Tier`` (the subject, "no subject" when none), ``Begin Time - ss.msec``,
``End Time - ss.msec``, ``Duration - ss.msec`` (seconds after the first frame, to the millisecond; the names ELAN
gives them in its own tab-delimited export), ``Annotation`` (the behaviour, its modifiers after it in brackets).
ELAN refuses an annotation of no length, so a point event lasts 1 ms; a state event still running is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent

HEADER = ("Tier", "Begin Time - ss.msec", "End Time - ss.msec", "Duration - ss.msec", "Annotation")
POINT_LENGTH_S = 0.001


def elan_lines(events: Sequence[BehaviourEvent]) -> list[tuple[str, ...]]:
    """The header and one row per closed event, by tier then begin time."""
    rows = []
    for e in events:
        if e.is_open:
            continue
        stop = e.start_s + POINT_LENGTH_S if e.type == "point" else e.stop_s
        begin, end = round(e.start_s, 3), round(stop, 3)
        annotation = e.behaviour + (f" [{', '.join(e.modifiers)}]" if e.modifiers else "")
        rows.append((e.subject or "no subject", f"{begin:.3f}", f"{end:.3f}", f"{end - begin:.3f}", annotation))
    rows.sort(key=lambda r: (r[0], float(r[1])))
    return [HEADER, *rows]


def elan_text(events: Sequence[BehaviourEvent]) -> str:
    """:func:`elan_lines` as tab-delimited text, one line each, ending with a newline."""
    return "".join("\t".join(row) + "\n" for row in elan_lines(events))
