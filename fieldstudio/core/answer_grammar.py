"""The whole-answer grammar of fieldstudio's judge-free matcher: what an answer must be, in full, to be decided.

A matcher that looks for a value inside free text can be fooled by any word it does not know ("12 m, just
kidding", "<reference>ではない", a Cyrillic "о" in "Nоt"). This grammar works the other way round: it reads
the WHOLE answer and recognises only a closed set of shapes; anything else is not recognised, and the caller
leaves it to a judge. Nothing here looks for negations.

1. :func:`normalise`: casefold, every run of white space one space, strip, then one final period removed (and
   the space before it). No Unicode compatibility folding (NFKC): it turns superscripts into digits ("1²" → "12")
   and "№"/"º" into letters ("№" → "no"), so a different value would read as the reference; an answer in
   full-width or other compatibility characters is left to a judge unless it is the reference as written.
2. :data:`FRAMES`: the only words allowed around a reference or a value, as a prefix, at most one:
   "the answer is X", "the answer is: X", "answer: X", "final answer: X". X is read as it stands and
   normalised again, so "The answer is 3.0 meters." (normalised "... 3.0 meters") reads as "3.0 meters".
3. One plain value of a kind, ASCII only (``[0-9]``, never Unicode ``\\d``, so other scripts' digits are no
   number), the whole text and nothing else:

   ========  =========================================================================================
   count     ``3``, ``12``, ``three``, ``twenty-one``, ``twenty one``
   length    a number then a unit: ``12 m``, ``12m``, ``12 meters``, ``3.5 metres``, ``30 cm``, ``2 ft``
   time      a number then a unit of time (``0.4 s``, ``80 seconds``, ``2 min``, ``1 hour``) or a clock
             reading from the video's start: ``01:20`` (M:SS), ``00:01:20`` (H:MM:SS), ``00:01:20.5``
   range     two times: ``00:00:10 to 00:02:36``, ``from 10 s to 156 s``, ``00:00:10 - 00:02:36``
   yesno     ``yes`` or ``no``
   ========  =========================================================================================

Values: counts are ints, lengths metres and times seconds as exact :class:`fractions.Fraction`, ranges a
pair of times, yes/no a bool. :func:`parse_value` returns None for anything else; a None is never a "no".
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["FRAMES", "KINDS", "normalise", "unframed", "parse_value", "describe_value"]

FRAMES: tuple[str, ...] = ("the answer is: ", "the answer is ", "final answer: ", "answer: ")
"""The closed list of affirmative frames (normalised prefixes) allowed around a reference or a value."""

KINDS = ("count", "length", "time", "range", "yesno")
"""The kinds of plain value the grammar reads."""


def normalise(text: Any) -> str:
    """``text`` casefolded, white space runs as one space, stripped, one final period removed (no NFKC: see
    the module docstring)."""
    t = " ".join(str(text).casefold().split())
    if t.endswith("."):
        t = t[:-1].rstrip()
    return t


def unframed(answer: Any) -> list[tuple[str, str | None]]:
    """The readings of an answer: ``[(normalised answer, None)]`` plus ``(X, frame)`` when it is ``frame + X``
    (X as it stands and X normalised again, when they differ).

    At most one frame comes off: "answer: the answer is 3" gives "the answer is 3" as its inner text, which
    is no value and no reference."""
    text = normalise(answer)
    readings: list[tuple[str, str | None]] = [(text, None)]
    for frame in FRAMES:
        if text.startswith(frame):
            inner = text[len(frame):]
            readings += [(x, frame.strip()) for x in dict.fromkeys((inner, normalise(inner)))]
    return readings


_NUM = r"(?P<num>[0-9]+(?:\.[0-9]+)?)"
_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_COUNT_RE = re.compile(r"(?P<digits>[0-9]+)|(?P<tens>" + "|".join(_TENS) + r")(?:[- ](?P<unit>"
                       + "|".join(_UNITS[1:10]) + r"))?|(?P<word>" + "|".join(_UNITS) + r")")
_METRES = {"m": Fraction(1), "meter": Fraction(1), "meters": Fraction(1), "metre": Fraction(1), "metres": Fraction(1),
           "cm": Fraction(1, 100), "centimeter": Fraction(1, 100), "centimeters": Fraction(1, 100),
           "centimetre": Fraction(1, 100), "centimetres": Fraction(1, 100),
           "mm": Fraction(1, 1000), "millimeter": Fraction(1, 1000), "millimeters": Fraction(1, 1000),
           "millimetre": Fraction(1, 1000), "millimetres": Fraction(1, 1000),
           "km": Fraction(1000), "kilometer": Fraction(1000), "kilometers": Fraction(1000),
           "kilometre": Fraction(1000), "kilometres": Fraction(1000),
           "ft": Fraction(3048, 10000), "foot": Fraction(3048, 10000), "feet": Fraction(3048, 10000),
           "in": Fraction(254, 10000), "inch": Fraction(254, 10000), "inches": Fraction(254, 10000)}
_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60,
            "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600}
_LENGTH_RE = re.compile(_NUM + r" ?(?P<unit>" + "|".join(sorted(_METRES, key=len, reverse=True)) + r")")
_DURATION_RE = re.compile(_NUM + r" ?(?P<unit>" + "|".join(sorted(_SECONDS, key=len, reverse=True)) + r")")
_CLOCK_RE = re.compile(r"(?:(?P<h>[0-9]{1,2}):)?(?P<m>[0-9]{1,2}):(?P<s>[0-5][0-9](?:\.[0-9]+)?)")
_RANGE_RE = re.compile(r"(?:from )?(?P<a>[0-9][0-9:. a-z]*?)(?: to | - | – |-|–)(?P<b>[0-9][0-9:. a-z]*)")


def _count(text: str) -> int | None:
    m = _COUNT_RE.fullmatch(text)
    if m is None:
        return None
    if m.group("digits"):
        return int(m.group("digits"))
    if m.group("tens"):
        return _TENS[m.group("tens")] + (_UNITS.index(m.group("unit")) if m.group("unit") else 0)
    return _UNITS.index(m.group("word"))


def _length(text: str) -> Fraction | None:
    m = _LENGTH_RE.fullmatch(text)
    return Fraction(m.group("num")) * _METRES[m.group("unit")] if m else None


def _time(text: str) -> Fraction | None:
    m = _DURATION_RE.fullmatch(text)
    if m:
        return Fraction(m.group("num")) * _SECONDS[m.group("unit")]
    m = _CLOCK_RE.fullmatch(text)
    if m is None or (m.group("h") is not None and int(m.group("m")) > 59):
        return None
    return int(m.group("h") or 0) * 3600 + int(m.group("m")) * 60 + Fraction(m.group("s"))


def _range(text: str) -> tuple[Fraction, Fraction] | None:
    m = _RANGE_RE.fullmatch(text)
    if m is None:
        return None
    start, end = _time(m.group("a").strip()), _time(m.group("b").strip())
    return (start, end) if start is not None and end is not None else None


def _yes_no(text: str) -> bool | None:
    return {"yes": True, "no": False}.get(text)


_PARSERS = {"count": _count, "length": _length, "time": _time, "range": _range, "yesno": _yes_no}


def parse_value(kind: str, text: str) -> Any | None:
    """The one value of ``kind`` (see :data:`KINDS`) that ``text``, already normalised, is in full; else None.

    Raises KeyError for an unknown kind."""
    return _PARSERS[kind](text)


def describe_value(kind: str, value: Any) -> str:
    """A value as the user reads it: "12 m", "80 s", "10-156 s", "3", "yes"."""
    if kind == "length":
        return f"{float(value):g} m"
    if kind == "time":
        return f"{float(value):g} s"
    if kind == "range":
        return f"{float(value[0]):g}-{float(value[1]):g} s"
    if kind == "yesno":
        return "yes" if value else "no"
    return str(value)
