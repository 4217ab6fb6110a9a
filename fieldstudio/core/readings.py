"""Readings of documentation fields as exact fractions: lengths in inches, angles in degrees.

Used by the documentation scorer (tolerances in inches and degrees) and by rating records (the
documentation fields a rater fills). Fractions keep an inclusive tolerance boundary exact.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from fieldstudio.core.matchers import parse_lengths_m

_M_PER_IN = Fraction(254, 10000)
_BARE = re.compile(r"^\s*(\d+(?:\.\d+)?(?:[\s-]+\d+/\d+)?|\d+/\d+|\.\d+)\s*$")


def _bare_fraction(text: str) -> Fraction | None:
    m = _BARE.match(text)
    if not m:
        return None
    return sum((Fraction(p) for p in re.split(r"[\s-]+", m.group(1)) if p), Fraction(0))


def parse_inches(text: Any) -> Fraction | None:
    """Length in inches as an exact Fraction: '3 5/8"', '3-5/8 in', '3.625 in', '1 ft 2 in', '92 mm',
    or a bare number (taken as inches). None when there is no single length."""
    s = str(text).strip()
    bare = _bare_fraction(s)
    if bare is not None:
        return bare
    s = re.sub(r"(\d)-(\d+/\d+)", r"\1 \2", s)
    values = set(parse_lengths_m(s))
    return values.pop() / _M_PER_IN if len(values) == 1 else None


def parse_degrees(text: Any) -> Fraction | None:
    """Angle in degrees as an exact Fraction: '12.4', '12.4°', '12.4 deg', '-3 degrees'."""
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(?:°|deg(?:rees?)?)?\s*\.?", str(text), re.IGNORECASE)
    return Fraction(m.group(1)) if m else None
