"""One area as a person writes it ("0.78 m²", "7800 cm2", "0.78 square metres"), read in square metres: the grammar
the ``fs-area`` scorer reads answers and ground truths with, and the task editor checks an area ground truth by.

The WHOLE text must be one area: a number (ASCII digits, up to nine, up to four decimals) and an area unit, a space
between them optional, an optional final period. Units: square metres (``m²``, ``m2``, ``m^2``, ``sq m``, ``sqm``,
``square metre(s)``, ``square meter(s)``), square centimetres (``cm²``, ``cm2``, ``cm^2``, ``sq cm``,
``square centimetre(s)``), square millimetres (``mm²``, ``mm2``, ``mm^2``, ``sq mm``, ``square millimetre(s)``)
and square feet (``ft²``, ``ft2``, ``ft^2``, ``sq ft``, ``square foot``/``feet``), any case. Anything else ("about
0.8 m²", "0.78", "0.78 m", two areas, "3 x 4 m") is not an area: the caller leaves it to a person or a judge.
"""

from __future__ import annotations

import re

SQUARE_METRES_PER = {"m": 1.0, "cm": 1e-4, "mm": 1e-6, "ft": 0.3048 ** 2}
"""Square metres in one square unit (1 ft = 0.3048 m exactly)."""
_UNIT_WORDS = {
    "m": r"m²|m2|m\^2|sq ?m|square met(?:re|er)s?",
    "cm": r"cm²|cm2|cm\^2|sq ?cm|square centimet(?:re|er)s?",
    "mm": r"mm²|mm2|mm\^2|sq ?mm|square millimet(?:re|er)s?",
    "ft": r"ft²|ft2|ft\^2|sq ?ft|square f(?:oo|ee)t",
}
_AREA = re.compile(r"^(?P<num>[0-9]{1,9}(?:\.[0-9]{1,4})?) ?(?:" + "|".join(
    f"(?P<{unit}>{words})" for unit, words in _UNIT_WORDS.items()) + r")\.?$")

__all__ = ["SQUARE_METRES_PER", "parse_area"]


def parse_area(text: str | None) -> tuple[float, str, str] | None:
    """(square metres, unit ("m", "cm", "mm" or "ft"), the area as written) when the whole of ``text`` is one area
    (module docstring), else None."""
    if text is None:
        return None
    written = " ".join(str(text).strip().split())
    found = _AREA.match(written.lower())
    if not found:
        return None
    unit = next(u for u in SQUARE_METRES_PER if found[u])
    return float(found["num"]) * SQUARE_METRES_PER[unit], unit, written.rstrip(".")
