"""Reading order of the lines OCR reads on a page set in columns (issue 34: the text sent to models mixed the two
columns of a scanned page row by row).

Qt-free. RapidOCR gives lines top to bottom and, within a row, left to right, which reads across a gutter. The
rule, applied to the lines of one page or picture:

- a *gutter* is an x position, in the middle 60 % of the x range the lines cover, that at most a quarter of the
  lines cross, with at least ``MIN_COLUMN_LINES`` lines wholly on each side whose median width is at least a
  quarter of that range (text columns, not a table's narrow label and value cells, which read better by row);
  among the candidates (each line's edges) the one crossed by the fewest lines wins, then the most even split;
- a line that crosses the gutter (a title, a full-width paragraph or figure caption) is read in its place and
  closes the block above it; within each block the left column is read top to bottom, then the right one;
- each column is ordered again by the same rule (three columns), and a page with no gutter keeps RapidOCR's order.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Protocol


class _Boxed(Protocol):
    box: tuple[float, float, float, float]


#: Fewest lines wholly on each side of a gutter.
MIN_COLUMN_LINES = 3
#: A gutter lies in this middle share of the lines' x range, and at most this share of the lines cross it.
_MIDDLE = (0.2, 0.8)
_MAX_CROSSING = 0.25
_MIN_COLUMN_WIDTH = 0.25


def reading_order(lines: Sequence[_Boxed]) -> list:
    """`lines` (anything with ``box`` = (x0, y0, x1, y1), y down, in RapidOCR's row order) in reading order by
    columns (see the module's rule); the same objects, none dropped or added."""
    gutter = find_gutter(lines)
    if gutter is None:
        return list(lines)
    out: list = []
    left: list = []
    right: list = []
    for line in lines:
        x0, _, x1, _ = line.box
        if x0 < gutter < x1:                      # across the gutter: the block above ends here
            out += reading_order(left) + reading_order(right)
            left, right = [], []
            out.append(line)
        elif x1 <= gutter:
            left.append(line)
        else:
            right.append(line)
    return out + reading_order(left) + reading_order(right)


def find_gutter(lines: Sequence[_Boxed]) -> float | None:
    """The x of the gutter between two columns of `lines` by the module's rule, or None when there is none."""
    if len(lines) < 2 * MIN_COLUMN_LINES:
        return None
    lo = min(line.box[0] for line in lines)
    hi = max(line.box[2] for line in lines)
    span = hi - lo
    if span <= 0:
        return None
    first, last = lo + _MIDDLE[0] * span, lo + _MIDDLE[1] * span
    best: tuple[int, int] | None = None
    chosen = None
    for x in sorted({edge for line in lines for edge in (line.box[0], line.box[2]) if first <= edge <= last}):
        left = [line for line in lines if line.box[2] <= x]
        right = [line for line in lines if line.box[0] >= x]
        crossing = len(lines) - len(left) - len(right)
        if len(left) < MIN_COLUMN_LINES or len(right) < MIN_COLUMN_LINES or crossing > _MAX_CROSSING * len(lines):
            continue
        if min(statistics.median(ln.box[2] - ln.box[0] for ln in side) for side in (left, right)) \
                < _MIN_COLUMN_WIDTH * span:
            continue
        rank = (crossing, -min(len(left), len(right)))
        if best is None or rank < best:
            best, chosen = rank, x
    return chosen
