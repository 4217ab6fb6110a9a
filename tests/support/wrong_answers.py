"""Wrong answers built around a reference, for checking that fs-match never accepts one (issue 31 item 1).

Each form takes a FieldWorkArena reference (ground truth) and returns an answer that holds the reference's
own words or value but means something else, or says it in a way no matcher may read as the reference.
None of these forms was written against fs-match's grammar: they are what people and models write
(negations in several languages, jokes, hedges, second values, units of another kind, reversed yes/no with
a reason, symbols, homoglyphs). Used by ``tests/scoring/test_fs_match.py`` and ``benchmarks/bench_fs_match.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

__all__ = ["WRONG_FORMS", "UNDECIDABLE_FORMS", "fieldworkarena_references", "homoglyph"]

_CYRILLIC = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і",
                           "A": "А", "E": "Е", "O": "О", "P": "Р", "C": "С", "T": "Т", "H": "Н", "M": "М"})


def homoglyph(text: str) -> str:
    """``text`` with its first letter that has a Cyrillic look-alike replaced by it (unchanged if none)."""
    for i, ch in enumerate(text):
        swapped = ch.translate(_CYRILLIC)
        if swapped != ch:
            return text[:i] + swapped + text[i + 1:]
    return text


def _other_unit(g: str) -> str:
    """The reference with its unit of one kind swapped for a unit of another (metres <-> seconds)."""
    swapped = re.sub(r"\b(meters?|metres?|m)\b", "seconds", g, count=1, flags=re.I)
    if swapped == g:
        swapped = re.sub(r"\b(seconds?|secs?|s|minutes?|min)\b", "meters", g, count=1, flags=re.I)
    return swapped if swapped != g else f"{g} kg"


def _shifted(g: str) -> str:
    """The reference with every digit run replaced by a larger number (a different value)."""
    return re.sub(r"\d+", lambda m: str(int(m.group()) + 7), g) if re.search(r"\d", g) else f"{g} 7"


def _reversed_yes_no(g: str) -> str:
    """The opposite yes/no with a reason, or a negated reference when it has none."""
    if re.match(r"\W*yes\b", g, re.I):
        return "No, because the worker did not do it."
    if re.match(r"\W*no\b", g, re.I):
        return "Yes, because it happened twice in the clip."
    return f"Yes, but not {g}"


WRONG_FORMS: dict[str, Callable[[str], str]] = {
    # negations, in English and other languages
    "it is not": lambda g: f"It is not {g}",
    "the answer is not": lambda g: f"The answer is not {g}.",
    "homoglyph not": lambda g: f"Nоt {g}",                               # Cyrillic о
    "japanese negation": lambda g: f"{g}ではない。",
    "chinese negation": lambda g: f"不是{g}",
    "german negation": lambda g: f"Nicht {g}.",
    "french negation": lambda g: f"Ce n'est pas {g}.",
    "spanish negation": lambda g: f"No es {g}.",
    "russian negation": lambda g: f"Не {g}",
    "arabic negation": lambda g: f"ليس {g}",
    "no, the opposite": lambda g: "No. The opposite is true.",
    "value then denial": lambda g: f"{g}. Actually, no.",
    "anything but": lambda g: f"Anything but {g}",
    "double frame negated": lambda g: f"Answer: the answer is not {g}",
    # jokes and retractions
    "just kidding": lambda g: f"{g} (just kidding).",
    "lol": lambda g: f"{g} lol",
    "not!": lambda g: f"{g}... NOT!",
    "sarcasm": lambda g: f"Sure, {g}, and pigs fly.",
    # symbols and emoji
    "cross mark": lambda g: f"❌ {g}",
    "thumbs down": lambda g: f"{g} 👎",
    "no entry": lambda g: f"🚫{g}",
    "strike": lambda g: f"~~{g}~~",
    "not-equal": lambda g: f"≠ {g}",
    # hedges and questions
    "question": lambda g: f"{g}?",
    "maybe": lambda g: f"Maybe {g}",
    "i think, unsure": lambda g: f"I think {g}, but I'm not sure.",
    "cannot tell": lambda g: f"I cannot tell; possibly {g}",
    # second values and ranges
    "or zero": lambda g: f"{g} or 0",
    "and another": lambda g: f"{g}, or {_shifted(g)}",
    "between": lambda g: f"between 0 and {g}",
    "range to": lambda g: f"{g} to {_shifted(g)}",
    "at least": lambda g: f"at least {g}",
    # other values and kinds
    "another value": _shifted,
    "another value framed": lambda g: f"The answer is {_shifted(g)}.",
    "unit of another kind": _other_unit,
    "reversed yes/no with reason": _reversed_yes_no,
    "yes and no": lambda g: "Yes and no.",
    # a copy with a hidden change
    "zero-width space": lambda g: "\u200b".join(g.split(" ", 1)) + "\u200b not",
    "homoglyph copy + not": lambda g: f"{homoglyph(g)} not",
    "trailing denial after frame": lambda g: f"The answer is {g}. Not really.",
}
"""Forms that are wrong whatever the reference: no fs-match verdict of 'correct' is allowed for any of them."""

UNDECIDABLE_FORMS: dict[str, Callable[[str], str]] = {
    "homoglyph copy": homoglyph,
    "parenthesised": lambda g: f"({g})",
    "quoted": lambda g: f"“{g}”",
    "exclaimed": lambda g: f"{g}!",
    "another script's digits": lambda g: g.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")),
}
"""Forms that may or may not mean the reference: fs-match must leave each to a judge (no value at all),
unless the form left the text unchanged or only the reference's own non-value text is changed."""


def fieldworkarena_references(ground_truth: Path) -> list[tuple[str, str, str]]:
    """(task id, eval_func, reference) of every task in FieldWorkArena's ``ground_truth/*.json`` files."""
    rows = []
    for f in sorted(ground_truth.glob("*.json")):
        for t in json.loads(f.read_text(encoding="utf-8")):
            rows.append((t["id"], t["eval_func"], t["conversations"][1]["value"]))
    return rows
