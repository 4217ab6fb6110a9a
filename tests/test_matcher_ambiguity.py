"""Judge-free matchers never pass a wrong answer: negated, hedged, approximate and range answers defer.

The adversarial answers are built from every FieldWorkArena ground truth in ../shared/data (886); each
holds the reference's own value but means something else, so no deterministic accept is allowed.
"""

from __future__ import annotations

import json

import pytest

from fieldstudio.core import matchers
from fieldstudio.scoring.scorers import fwa_official as off
from tests.shared_data import SHARED_DATA

GROUND_TRUTH = sorted((SHARED_DATA / "fieldworkarena" / "ground_truth").glob("*.json"))

ADVERSARIAL = {
    "negated": lambda g: f"It is not {g}.",
    "no longer": lambda g: f"It is no longer {g}",
    "hedged": lambda g: f"{g}? I'm not sure",
    "maybe": lambda g: f"Maybe {g}",
    "range": lambda g: f"between 0 and {g}",
    "second value": lambda g: f"{g} or 0",
}


def _references() -> list[tuple[str, str]]:
    rows = []
    for f in GROUND_TRUTH:
        rows += [(t["conversations"][1]["value"], t["eval_func"]) for t in json.loads(f.read_text(encoding="utf-8"))]
    return rows


@pytest.mark.skipif(not GROUND_TRUTH, reason="../shared/data/fieldworkarena/ground_truth is not there")
@pytest.mark.parametrize("form", sorted(ADVERSARIAL))
def test_no_adversarial_answer_is_decided_without_a_judge(form):
    rows = _references()
    assert len(rows) == 886
    decided = [(gt, off.score(gt, ADVERSARIAL[form](gt), ev)) for gt, ev in rows]
    accepted = [gt for gt, r in decided if r.correct]
    assert accepted == []
    assert all(r.value is None and "judge" in r.explanation for _gt, r in decided)


@pytest.mark.skipif(not GROUND_TRUTH, reason="../shared/data/fieldworkarena/ground_truth is not there")
def test_a_copy_of_the_ground_truth_is_still_decided_where_it_was():
    """The check defers only the ambiguous: the 205 plain-value references still match their own copy."""
    rows = _references()
    results = [off.score(gt, gt, ev) for gt, ev in rows]
    assert sum(r.value is not None for r in results) == 205
    assert all(r.correct for r in results if r.value is not None)


@pytest.mark.parametrize("answer, reason", [
    ("It isn't 3 m.", "negated"),
    ("3 m, I think", "hedged or a question"),
    ("about 4", "approximate"),
    ("3 to 4 people", "a range or a second value"),
    ("No, it was never opened.", None),   # a leading no fixes the polarity: the negation is the answer's own
    ("3 people", None),
])
def test_ambiguity_reasons(answer, reason):
    assert matchers.ambiguity(answer) == reason


def test_no_before_a_noun_is_not_a_no_answer():
    assert matchers.parse_yes_no("No person.") is None
    assert matchers.parse_yes_no("There is no helmet, yes.") is True
    assert matchers.parse_yes_no("No.") is False and matchers.parse_yes_no("No, nobody.") is False


def test_approximate_is_fine_where_the_rule_has_a_tolerance():
    """numerical_match lengths have the official ladder: "about 11 m" against 12 m is judged as 11 m."""
    assert off.score("12 meters", "about 11 m", "numerical_match").value == 1.0
    assert off.score("3", "about 3", "fuzzy_match").value is None   # counts are exact: "about" defers
