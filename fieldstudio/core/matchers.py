"""Deterministic answer matchers: yes/no, counts, lengths, times, time ranges, choices, JSON reports.

Each matcher compares a model's prediction with a reference (ground truth) and returns a
:class:`MatchResult` whose ``matched`` is True, False, or None when the matcher cannot decide (the
text holds no value of the wanted kind, or more than one). They are used alone or as the first stage
of a scorer, before any LLM judge. Source of the answer forms: benchmarks.md §1.2 (ground-truth values:
number words, numbers with units, times such as ``00:00:53``) and §1.4 (the time formats
``hh:mm:ss``, ``mm:ss`` and ``ss`` of FieldWorkArena's evaluator).

Units: lengths are returned in metres as exact :class:`fractions.Fraction` values (so tolerance
boundaries do not suffer from float rounding, benchmarks.md §4.2); times in seconds (float).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

__all__ = [
    "MatchResult", "JsonReportMatch", "parse_yes_no", "parse_count", "parse_lengths_m", "parse_length_m",
    "parse_times_s", "parse_time_s", "parse_time_range_s", "clock_times_of_day", "time_of_day_issue",
    "parse_choice", "extract_json",
    "match_yes_no", "match_count", "match_length", "match_time", "match_time_range", "match_choice",
    "match_json_report", "normalise_text", "report_items", "normalise_id",
]


@dataclass(frozen=True)
class MatchResult:
    """Outcome of one deterministic matcher.

    ``matched`` is True/False when decided and None when the matcher cannot decide; ``value`` is the
    value parsed from the prediction, ``reference`` the one parsed from the ground truth (units as in
    the module docstring), ``explanation`` one plain sentence for the user.
    """

    matched: bool | None
    value: Any = None
    reference: Any = None
    explanation: str = ""

    @property
    def decided(self) -> bool:
        """True when the matcher reached a verdict (``matched`` is not None)."""
        return self.matched is not None


def normalise_text(text: Any) -> str:
    """Lower-case, collapse whitespace and strip surrounding quotes and trailing punctuation."""
    s = re.sub(r"\s+", " ", str(text)).strip().lower()
    return s.strip("\"'` ").rstrip(".!;, ").strip()


# ---------------------------------------------------------------- yes / no
_YES = {"yes", "true", "yeah", "yep", "affirmative"}
_NO = {"no", "false", "nope", "nah", "negative"}


def parse_yes_no(text: str) -> bool | None:
    """True for a yes answer, False for no, None when absent or both.

    A leading yes/no word followed by punctuation or the end decides ("Yes, it is 0.7 meters." -> True,
    "No, there is no violation." -> False); otherwise the text must contain yes-words or no-words but
    not both ("yes and no" -> None).
    """
    t = str(text).lower()
    lead = re.match(r"\W*([a-z]+)\s*(?:[,.!;:\-]|$)", t)
    if lead and lead.group(1) in _YES | _NO:
        return lead.group(1) in _YES
    # "no" before another word is a determiner ("No person.", "there is no helmet"), not a no-answer
    words = re.findall(r"[a-z]+", re.sub(r"\bno\s+(?=[a-z])", " ", t))
    has_yes, has_no = any(w in _YES for w in words), any(w in _NO for w in words)
    if has_yes != has_no:
        return has_yes
    return None


def match_yes_no(prediction: str, reference: str) -> MatchResult:
    """Compare the yes/no polarity of prediction and reference; undecided if either has none."""
    p, r = parse_yes_no(prediction), parse_yes_no(reference)
    if p is None or r is None:
        return MatchResult(None, p, r, "no yes/no answer found in the " + ("prediction" if p is None else "reference"))
    return MatchResult(p == r, p, r, f"prediction says {'yes' if p else 'no'}, reference says {'yes' if r else 'no'}")


# ---------------------------------------------------------------- counts
_UNITS_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                "nineteen"]
_TENS_WORDS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
               "eighty": 80, "ninety": 90}
_WORD_VALUE = {w: i for i, w in enumerate(_UNITS_WORDS)} | _TENS_WORDS | {"none": 0, "no": 0, "a dozen": 12}
_NUMBER_WORD_RE = re.compile(
    r"\b(?:(?P<tens>" + "|".join(_TENS_WORDS) + r")(?:[- ](?P<unit>" + "|".join(_UNITS_WORDS[1:10]) + r"))?"
    r"|(?P<word>" + "|".join(_UNITS_WORDS) + r"|a dozen))\b")
_INT_RE = re.compile(r"(?<![\d.:/,])\d+(?![\d:/]|[.,]\d)")


def parse_count(text: str) -> int | None:
    """The one whole number in ``text`` (digits or English number words up to ninety-nine).

    Digits that belong to decimals, times, fractions or coordinates are ignored. Returns None when the
    text holds no count or several different ones ("one cycle ... seven cycles").
    """
    t = str(text).lower()
    values = {int(m.group()) for m in _INT_RE.finditer(t)}
    for m in _NUMBER_WORD_RE.finditer(t):
        if m.group("tens"):
            values.add(_TENS_WORDS[m.group("tens")] + (_WORD_VALUE[m.group("unit")] if m.group("unit") else 0))
        else:
            values.add(_WORD_VALUE[m.group("word")])
    return values.pop() if len(values) == 1 else None


def match_count(prediction: str, reference: str) -> MatchResult:
    """Exact comparison of the counts in prediction and reference (see :func:`parse_count`)."""
    p, r = parse_count(prediction), parse_count(reference)
    if p is None or r is None:
        return MatchResult(None, p, r, "no single count found in the " + ("prediction" if p is None else "reference"))
    return MatchResult(p == r, p, r, f"count {p} vs reference {r}")


# ---------------------------------------------------------------- lengths
_M_PER_UNIT = {"m": Fraction(1), "cm": Fraction(1, 100), "mm": Fraction(1, 1000),
               "ft": Fraction(3048, 10000), "in": Fraction(254, 10000)}
_UNIT_ALIASES = [
    (r"millimet(?:er|re)s?|mm", "mm"), (r"centimet(?:er|re)s?|cm", "cm"),
    (r"met(?:er|re)s?|m(?![a-z/])", "m"), (r"feet|foot|ft|'", "ft"),
    (r"inch(?:es)?|in(?![a-z])(?!\s+[a-z])|\"|''", "in"),
]
_NUM = r"\d+(?:\.\d+)?(?:\s+\d+/\d+)?|\d+/\d+|\.\d+"
_LENGTH_RE = re.compile(r"(?P<num>" + _NUM + r")\s*(?P<unit>" + "|".join(f"(?:{a})" for a, _ in _UNIT_ALIASES) + r")",
                        re.IGNORECASE)
_FT_IN_RE = re.compile(r"(?P<ft>\d+)\s*(?:feet|foot|ft|')\s*(?P<inch>" + _NUM + r")\s*(?:inch(?:es)?|in\b|\"|'')",
                       re.IGNORECASE)


def _to_fraction(num: str) -> Fraction:
    """'3', '3.25', '5/8', '3 5/8' -> exact Fraction."""
    parts = num.split()
    return sum((Fraction(p) for p in parts), Fraction(0))


def _unit_of(token: str) -> str:
    for alias, unit in _UNIT_ALIASES:
        if re.fullmatch(alias, token, re.IGNORECASE):
            return unit
    raise ValueError(token)


def parse_lengths_m(text: str) -> list[Fraction]:
    """Every length in ``text``, in order, converted to metres (m, cm, mm, ft, in; '5 ft 3 in' is one)."""
    t = str(text)
    found: list[tuple[int, Fraction]] = []
    taken: list[tuple[int, int]] = []
    for m in _FT_IN_RE.finditer(t):
        found.append((m.start(), int(m.group("ft")) * _M_PER_UNIT["ft"] + _to_fraction(m.group("inch")) * _M_PER_UNIT["in"]))
        taken.append(m.span())
    for m in _LENGTH_RE.finditer(t):
        if any(a <= m.start() < b for a, b in taken):
            continue
        found.append((m.start(), _to_fraction(m.group("num")) * _M_PER_UNIT[_unit_of(m.group("unit"))]))
    return [v for _, v in sorted(found, key=lambda x: x[0])]


def parse_length_m(text: str) -> Fraction | None:
    """The one length in ``text`` in metres, or None when there is none or several different ones."""
    values = set(parse_lengths_m(text))
    return values.pop() if len(values) == 1 else None


def match_length(prediction: str, reference: str, *, tolerance_m: float | Fraction = 0,
                 relative_tolerance: float = 0.0) -> MatchResult:
    """Lengths equal within ``tolerance_m`` metres or ``relative_tolerance`` x reference (inclusive)."""
    p, r = parse_length_m(prediction), parse_length_m(reference)
    if p is None or r is None:
        return MatchResult(None, p, r, "no single length found in the " + ("prediction" if p is None else "reference"))
    limit = max(Fraction(tolerance_m), Fraction(relative_tolerance) * abs(r))
    return MatchResult(abs(p - r) <= limit, p, r, f"{float(p):g} m vs reference {float(r):g} m")


# ---------------------------------------------------------------- times
_CLOCK_RE = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(?![\d:])")
_AM_PM_RE = re.compile(r"\s*[ap]\.?\s?m\b\.?", re.IGNORECASE)  # right after a clock match: "12:30 PM", "9:05 a.m."
_VERBAL_RE = re.compile(
    r"(?<![\w.])(?:(?P<h>\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?)\b\s*(?:and\s+)?)?"
    r"(?:(?P<m>\d+(?:\.\d+)?)\s*(?:min|mins|minutes?|m(?=\s*\d))\b\s*(?:and\s+)?)?"
    r"(?:(?P<s>\d+(?:\.\d+)?)\s*(?:s|secs?|seconds?)\b)?", re.IGNORECASE)


def clock_times_of_day(text: str) -> list[str]:
    """The times of day written with AM or PM in ``text`` ("12:30 PM", "9:05 a.m."), as written.

    A time in a video counts from the start of the video; "12:30 PM" is a wall-clock reading, and reading
    its digits as 12 min 30 s would be a guess, so :func:`parse_times_s` reads no time from these.
    """
    t = str(text)
    return [t[m.start():suffix.end()].strip() for m, suffix in _clocks(t) if suffix is not None]


def _clocks(t: str):  # noqa: ANN202 - an iterator of (re.Match, re.Match | None)
    """Each H:MM(:SS) reading in ``t`` with the AM/PM suffix that follows it (None when none does)."""
    for m in _CLOCK_RE.finditer(t):
        yield m, _AM_PM_RE.match(t, m.end())


def time_of_day_issue(text: str) -> str | None:
    """Why ``text`` cannot be entered as a time in a video because it is a time of day ("12:30 PM"), or None.

    The message is the one the task editor and Go to show."""
    clocks = clock_times_of_day(text)
    if not clocks:
        return None
    return (f"{clocks[0]!r} is a time of day (AM/PM), not a time in the video: give the time from the start of "
            "the video, e.g. 00:01:05 (H:MM:SS), 1:05 (M:SS) or 65 s")


def parse_times_s(text: str) -> list[float]:
    """Every time in ``text`` in seconds, in order: HH:MM:SS, MM:SS, '65 s', '1 min 5 s', '2 hours'.

    A time of day with AM or PM ("12:30 PM", :func:`clock_times_of_day`) is no time from the video's start
    and gives nothing (a matcher then defers rather than compare 12:30 PM with 00:12:30)."""
    t = str(text)
    found: list[tuple[int, float]] = []
    spans: list[tuple[int, int]] = []
    for m, suffix in _clocks(t):
        if suffix is not None:
            spans.append((m.start(), suffix.end()))  # nothing else is read inside it either
            continue
        a, b, c = m.groups()
        seconds = int(a) * 3600 + int(b) * 60 + float(c) if c is not None else int(a) * 60 + int(b)
        found.append((m.start(), float(seconds)))
        spans.append(m.span())
    for m in _VERBAL_RE.finditer(t):
        if not (m.group("h") or m.group("m") or m.group("s")) or any(a <= m.start() < b for a, b in spans):
            continue
        h, mi, s = (float(m.group(k)) if m.group(k) else 0.0 for k in ("h", "m", "s"))
        found.append((m.start(), h * 3600 + mi * 60 + s))
    return [v for _, v in sorted(found)]


def parse_time_s(text: str) -> float | None:
    """The one time in ``text`` in seconds, or None when there is none or several different ones."""
    values = set(parse_times_s(text))
    return values.pop() if len(values) == 1 else None


def parse_time_range_s(text: str) -> tuple[float, float] | None:
    """(start, end) in seconds from 'from A to B', 'A - B', 'between A and B'; None unless exactly two times."""
    times = parse_times_s(text)
    return (times[0], times[1]) if len(times) == 2 else None


def match_time(prediction: str, reference: str, *, tolerance_s: float = 0.0) -> MatchResult:
    """Times equal within ``tolerance_s`` seconds (inclusive)."""
    p, r = parse_time_s(prediction), parse_time_s(reference)
    if p is None or r is None:
        return MatchResult(None, p, r, "no single time found in the " + ("prediction" if p is None else "reference"))
    return MatchResult(abs(p - r) <= tolerance_s, p, r, f"{p:g} s vs reference {r:g} s (off by {abs(p - r):g} s)")


def match_time_range(prediction: str, reference: str, *, tolerance_s: float = 0.0) -> MatchResult:
    """Both ends of the time ranges equal within ``tolerance_s`` seconds."""
    p, r = parse_time_range_s(prediction), parse_time_range_s(reference)
    if p is None or r is None:
        return MatchResult(None, p, r, "no time range found in the " + ("prediction" if p is None else "reference"))
    ok = abs(p[0] - r[0]) <= tolerance_s and abs(p[1] - r[1]) <= tolerance_s
    return MatchResult(ok, p, r, f"{p[0]:g}-{p[1]:g} s vs reference {r[0]:g}-{r[1]:g} s")


# ---------------------------------------------------------------- choices
_LETTERS = "ABCDE"


def parse_choice(text: str, options: Sequence[str] | None = None) -> str | None:
    """The chosen letter A-E: 'B', '(B)', 'B.', 'Answer: B', 'option B', or the text of exactly one option."""
    t = str(text).strip()
    m = re.fullmatch(r"\(?([A-Ea-e])[).:]?(?:\s.*)?", t, re.DOTALL)
    if m and (len(t) <= 3 or t[1:2] in ").:" or t[0] == "("):
        return m.group(1).upper()
    m = re.search(r"\b(?:answer|option|choice)\s*(?:is)?\s*[:=]?\s*\(?([A-E])\b\)?", t, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    if options:
        low = normalise_text(t)
        hits = [i for i, o in enumerate(options) if normalise_text(o) and normalise_text(o) in low]
        if len(hits) == 1:
            return _LETTERS[hits[0]]
    return None


def match_choice(prediction: str, reference: str, options: Sequence[str] | None = None) -> MatchResult:
    """Same option chosen; ``options`` (in letter order A, B, ...) lets option text stand for its letter."""
    p, r = parse_choice(prediction, options), parse_choice(reference, options)
    if p is None or r is None:
        return MatchResult(None, p, r, "no choice found in the " + ("prediction" if p is None else "reference"))
    return MatchResult(p == r, p, r, f"chose {p}, reference {r}")


# ---------------------------------------------------------------- JSON reports
def extract_json(text: str) -> Any | None:
    """Parse ``text`` as JSON: whole text, else a fenced ```json block, else the first balanced {...} or [...]."""
    s = str(text).strip()
    try:
        return json.loads(s)
    except ValueError:
        pass
    m = re.search(r"```(?:json)?\s*(.*?)```", s, re.DOTALL | re.IGNORECASE)
    if m:
        try:
            return json.loads(m.group(1))
        except ValueError:
            pass
    decoder = json.JSONDecoder()
    for i, ch in enumerate(s):
        if ch in "[{":
            try:
                return decoder.raw_decode(s, i)[0]
            except ValueError:
                continue
    return None


@dataclass(frozen=True)
class JsonReportMatch(MatchResult):
    """Per-element comparison of two incident reports (benchmarks.md §1.2 JSON ground truths).

    ``count`` (predicted, reference) incidents; ``ids`` (predicted, reference) ID sequences;
    ``key_differences`` per matched pair: keys missing and extra; ``field_results`` per matched
    reference incident: {key: True/False/None}; ``missing`` reference incidents with no partner and
    ``extra`` predicted incidents with no partner (indices).
    """

    count: tuple[int, int] = (0, 0)
    ids: tuple[tuple, tuple] = ((), ())
    key_differences: list[dict[str, list[str]]] = field(default_factory=list)
    field_results: list[dict[str, bool | None]] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)


def report_items(obj: Any) -> tuple[list[dict], int | None]:
    """(incidents, declared total) of a parsed JSON report: a list, {"total_...": n, "details": [...]}, or one
    incident object (a value that is neither becomes one incident ``{"value": ...}``)."""
    if isinstance(obj, dict):
        lists = [v for v in obj.values() if isinstance(v, list)]
        totals = [v for k, v in obj.items() if str(k).lower().startswith("total") and isinstance(v, (int, float))]
        if lists:
            items = lists[0]
            return [x if isinstance(x, dict) else {"value": x} for x in items], (int(totals[0]) if totals else None)
        return [obj], None
    if isinstance(obj, list):
        return [x if isinstance(x, dict) else {"value": x} for x in obj], None
    return [{"value": obj}], None


def _norm_key(k: Any) -> str:
    return _norm_key_text(str(k))


@functools.lru_cache(maxsize=4096)
def _norm_key_text(k: str) -> str:
    return re.sub(r"[\s_]+", " ", k).strip().lower()


def normalise_id(v: Any) -> Any:
    """An incident ID as reports compare it: an int when it is all digits ("0007" -> 7), else lower-case text."""
    s = str(v).strip()
    return int(s) if s.isascii() and s.isdigit() else s.lower()   # "④".isdigit() is True, int("④") raises


def compare_field(pred: Any, ref: Any) -> bool | None:
    """One field: equal after normalisation, or equal numbers/lengths/times; None for differing free text.

    A reference of one token (a category, a file name, a number) is decided; a differing multi-word
    reference ("Workers with both hand full") cannot be judged without a judge and gives None.
    """
    return _compare_text(str(pred), str(ref))


@functools.lru_cache(maxsize=65536)
def _compare_text(pred: str, ref: str) -> bool | None:
    """``compare_field`` on the two values' text, which is all it reads: remembered, because pairing the
    incidents of two reports compares every field of every pair, and many answers repeat the same fields."""
    if normalise_text(pred) == normalise_text(ref):
        return True
    p_len, r_len = parse_length_m(pred), parse_length_m(ref)
    if p_len is not None and r_len is not None:
        return p_len == r_len
    p_t, r_t = parse_time_s(pred), parse_time_s(ref)
    if p_t is not None and r_t is not None and re.search(r"[:a-z]", ref, re.I):
        return p_t == r_t
    try:
        return Fraction(pred.strip()) == Fraction(ref.strip())
    except (ValueError, ZeroDivisionError):
        pass
    return None if len(normalise_text(ref).split()) > 1 else False


def _similarity(p: dict, r: dict) -> int:
    pk = {_norm_key(k): v for k, v in p.items()}
    return sum(1 for k, v in r.items() if _norm_key(k) != "id" and _norm_key(k) in pk
               and compare_field(pk[_norm_key(k)], v) is True)


def match_json_report(prediction: str | Any, reference: str | Any) -> JsonReportMatch:
    """Match two JSON incident reports element by element: count, keys, fields of each incident, IDs.

    Incidents are paired greedily by the number of equal fields (IDs excluded, so a renumbered report
    still pairs), ties in order. ``matched`` is False when any decided check fails (count, declared
    total, ID sequence, keys, a one-token field), True when all pass, None when only free-text fields
    differ or the prediction holds no JSON.
    """
    ref_obj = extract_json(reference) if isinstance(reference, str) else reference
    pred_obj = extract_json(prediction) if isinstance(prediction, str) else prediction
    if ref_obj is None:
        return JsonReportMatch(None, None, None, "the reference is not JSON")
    if pred_obj is None:
        return JsonReportMatch(None, None, ref_obj, "no JSON found in the prediction")
    r_items, r_total = report_items(ref_obj)
    p_items, p_total = report_items(pred_obj)
    problems: list[str] = []
    undecided: list[str] = []
    if len(p_items) != len(r_items):
        problems.append(f"{len(p_items)} incidents, reference has {len(r_items)}")
    if r_total is not None and p_total != r_total:
        problems.append(f"declared total {p_total}, reference {r_total}")

    def ids(items: list[dict]) -> tuple:
        return tuple(normalise_id(v) for it in items for k, v in it.items() if _norm_key(k) == "id")

    p_ids, r_ids = ids(p_items), ids(r_items)
    if sorted(map(str, p_ids)) != sorted(map(str, r_ids)):
        problems.append(f"ID sequence {list(p_ids)}, reference {list(r_ids)}")

    pairs = sorted(((-_similarity(p, r), ri, pi) for ri, r in enumerate(r_items) for pi, p in enumerate(p_items)))
    used_r: dict[int, int] = {}
    used_p: set[int] = set()
    for _, ri, pi in pairs:
        if ri not in used_r and pi not in used_p:
            used_r[ri] = pi
            used_p.add(pi)
    key_diffs, field_results = [], []
    for ri, r in enumerate(r_items):
        if ri not in used_r:
            field_results.append({})
            key_diffs.append({})
            continue
        p = {_norm_key(k): v for k, v in p_items[used_r[ri]].items()}
        rk = {_norm_key(k): v for k, v in r.items()}
        diff = {"missing": sorted(set(rk) - set(p)), "extra": sorted(set(p) - set(rk))}
        key_diffs.append(diff)
        if diff["missing"] or diff["extra"]:
            problems.append(f"incident {ri}: keys missing {diff['missing']}, extra {diff['extra']}")
        results = {k: (compare_field(p[k], v) if k in p else False) for k, v in rk.items() if k != "id"}
        field_results.append(results)
        for k, ok in results.items():
            if ok is False and k in p:
                problems.append(f"incident {ri}: {k!r} is {p[k]!r}, reference {rk[k]!r}")
            elif ok is None:
                undecided.append(f"incident {ri}: {k!r}")
    missing = [ri for ri in range(len(r_items)) if ri not in used_r]
    extra = [pi for pi in range(len(p_items)) if pi not in used_p]
    if problems:
        matched, text = False, "; ".join(problems)
    elif undecided:
        matched, text = None, "free-text fields differ and need a judge: " + ", ".join(undecided)
    else:
        matched, text = True, f"all {len(r_items)} incidents match"
    return JsonReportMatch(matched, pred_obj, ref_obj, text, count=(len(p_items), len(r_items)),
                           ids=(p_ids, r_ids), key_differences=key_diffs, field_results=field_results,
                           missing=missing, extra=extra)
