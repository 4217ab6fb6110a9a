"""Judge-free matchers never pass a wrong answer: negated, hedged, approximate and range answers defer.

The adversarial answers are built from every FieldWorkArena ground truth in ../shared/data (886); each
holds the reference's own value but means something else, so no deterministic accept is allowed.
"""

from __future__ import annotations

import json

import pytest

from fieldstudio.core import matchers
from fieldstudio.scoring.scorers import fs_match as off
from tests.support.shared_data import SHARED_DATA

GROUND_TRUTH = sorted((SHARED_DATA / "fieldworkarena" / "ground_truth").glob("*.json"))

ADVERSARIAL = {
    "negated": lambda g: f"It is not {g}.",
    "no longer": lambda g: f"It is no longer {g}",
    "hedged": lambda g: f"{g}? I'm not sure",
    "maybe": lambda g: f"Maybe {g}",
    "range": lambda g: f"between 0 and {g}",
    "second value": lambda g: f"{g} or 0",
    "dash range": lambda g: f"0-{g}",
    "from-to range": lambda g: f"from {g} to {g} and more",
    "at least": lambda g: f"at least {g}",
    "never": lambda g: f"never {g}",
    "isn't": lambda g: f"It isn't {g}",
    "question": lambda g: f"Is it {g}?",
    # a leading or trailing no, and words that reject the value (issue 18: each was accepted 160-205 times)
    "no, it is not": lambda g: f"No, it is not {g}.",
    "no, it isn't": lambda g: f"No, it isn't {g}.",
    "would be wrong": lambda g: f"{g} would be wrong.",
    "is wrong": lambda g: f"{g} is wrong.",
    "is incorrect": lambda g: f"{g} is incorrect.",
    "is untrue": lambda g: f"{g} is untrue.",
    "nope, is false": lambda g: f"Nope, {g} is false.",
    "is false": lambda g: f"{g} is false.",
    "no, value": lambda g: f"No, {g}.",
    "no. value": lambda g: f"No. {g}.",
    "no value": lambda g: f"No {g}",
    "nope, value": lambda g: f"Nope, {g}.",
    "nah value": lambda g: f"Nah {g}",
    "negative, value": lambda g: f"Negative, {g}.",
    "false, value": lambda g: f"False, {g}.",
    "wrong: value": lambda g: f"Wrong: {g}.",
    "value (wrong)": lambda g: f"{g} (wrong)",
    "value, no": lambda g: f"{g}, no.",
    "value? no": lambda g: f"{g}? No.",
    "not": lambda g: f"not {g}",
    "definitely not": lambda g: f"definitely not {g}",
    "anything but": lambda g: f"Anything but {g}.",
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
def test_a_copy_of_the_ground_truth_is_accepted():
    """Every reference matches its own copy (886 of 886, value 1), re-cased and re-spaced too; the ambiguity
    checks defer only answers that differ from the reference."""
    rows = _references()
    results = [off.score(gt, gt, ev) for gt, ev in rows]
    assert len(results) == 886 and all(r.value == 1.0 and r.correct for r in results)
    recased = [off.score(gt, "  " + " ".join(gt.upper().split()) + ". ", ev) for gt, ev in rows
               if not gt.lstrip().startswith(("{", "["))]
    assert all(r.value == 1.0 for r in recased)


@pytest.mark.parametrize("answer", ["Yes, not really", "Yes. Not really.", "Yes, but not always", "Yes, sometimes",
                                    "No, except on Mondays", "Yes, though it isn't his", "No, only if asked"])
def test_a_qualified_yes_or_no_is_deferred(answer):
    for reference in ("Yes", "No"):
        result = off.score(reference, answer, "fuzzy_match")
        assert result.value is None and "qualified" in result.explanation


def test_a_plain_yes_with_its_reason_is_still_decided():
    assert off.score("Yes", "Yes, the worker wears a hard hat.", "fuzzy_match").value == 1.0


def test_a_near_copy_is_not_verbatim():
    assert off.score("3 people", "3 people?", "numerical_match").value is None
    assert off.score("No", "no.", "fuzzy_match").value == 1.0
    assert off.score("The worker is not wearing a helmet", "The worker is wearing a helmet", "fuzzy_match").value \
        is None


@pytest.mark.parametrize("answer, reason", [
    ("It isn't 3 m.", "negated"),
    ("3 m, I think", "hedged or a question"),
    ("about 4", "approximate"),
    ("3 to 4 people", "a range or a second value"),
    ("No, it was never opened.", None),   # a leading no fixes the polarity: the negation is the answer's own
    ("3 people", None),
    ("12 meters would be wrong.", "negated (a word rejects the value)"),
    ("Nope, 12 meters is false.", "negated (a word rejects the value)"),
    ("No, yes.", "a second yes or no"),
])
def test_ambiguity_reasons(answer, reason):
    assert matchers.ambiguity(answer) == reason


@pytest.mark.parametrize("answer, reason", [
    ("No, it is not 12 meters.", "negated (a no before or after the value)"),
    ("No, 12 meters.", "negated (a no before or after the value)"),
    ("12 meters, no.", "negated (a no before or after the value)"),
    ("No there were 3.", "negated (a no before or after the value)"),
    ("Yes, it is not 12 meters.", "negated (a no before or after the value)"),
    ("There are no workers.", None),     # "no" before a noun is a determiner: a count of 0
    ("It is 12 meters.", None),
])
def test_against_a_value_reference_a_no_rejects_the_value(answer, reason):
    """Only a yes/no reference lets a leading no fix the polarity; before a value it negates it."""
    assert matchers.ambiguity(answer, yes_no=False) == reason


def test_a_plain_no_still_answers_a_no_reference():
    assert off.score("No", "No.", "fuzzy_match").value == 1.0
    assert off.score("No", "Nah.", "fuzzy_match").value == 1.0
    assert off.score("Yes", "Nope.", "fuzzy_match").value == 0.0
    assert off.score("No", "False.", "fuzzy_match").value == 1.0
    assert off.score("0", "There were zero.", "fuzzy_match").value == 1.0


NO_NOUN_REFERENCES = ["No person.", "No helmet", "No forklift is in the aisle.", "No one", "No workers were present."]


@pytest.mark.parametrize("reference", NO_NOUN_REFERENCES)
@pytest.mark.parametrize("answer", ["No.", "Yes.", "No", "yes", "No, it is not.", "Yes, there is."])
def test_a_no_before_a_noun_reference_is_never_decided_as_yes_no(reference, answer):
    """"No person." answers what there is, not yes or no: no deterministic verdict either way."""
    r = off.score(reference, answer, "fuzzy_match")
    assert r.value is None and "judge" in r.explanation


@pytest.mark.skipif(not GROUND_TRUTH, reason="../shared/data/fieldworkarena/ground_truth is not there")
@pytest.mark.parametrize("form", ["No {g}", "No {g}."])
def test_no_noun_forms_of_every_ground_truth_decide_nothing(form):
    """Every ground truth turned into a "No <noun>" reference, answered "No." and "Yes.": zero verdicts."""
    rows = _references()
    decided = [gt for gt, ev in rows for ans in ("No.", "Yes.")
               if off.score(form.format(g=gt), ans, ev).value is not None and ev != "json_match"]
    assert decided == []


@pytest.mark.parametrize("answer", ["Yes? I'm not sure", "Yes, maybe", "Maybe yes.", "yes, I think", "Yes?"])
def test_a_hedged_contradicting_yes_no_is_deferred_not_scored_zero(answer):
    """The gap of the polarity rule running before the ambiguity check: a hedged "yes" against a "No, ..."
    reference got a deterministic 0; now it is unscored like every other ambiguous answer."""
    r = off.score("No, there are no workers in the designated area.", answer, "fuzzy_match")
    assert r.value is None and "hedged" in r.explanation


def test_a_plain_contradicting_yes_no_still_scores_zero():
    r = off.score("No, there are no workers in the designated area.", "Yes.", "fuzzy_match")
    assert r.value == 0.0 and r.correct is False


@pytest.mark.parametrize("reference, answer", [
    ("00:00:10 - 00:00:20", "00:00:10 - 00:00:20?"),      # a range reference, hedged answer
    ("00:00:10 - 00:00:20", "not from 00:00:10 to 00:00:20"),
    ("12 meters", "12 or 13 meters"),
    ("12 meters", "12-13 meters"),
    ("3", "3 to 4"),
])
def test_ranges_and_second_values_are_deferred(reference, answer):
    assert off.score(reference, answer, "numerical_match").value is None


def test_no_before_a_noun_is_not_a_no_answer():
    assert matchers.parse_yes_no("No person.") is None
    assert matchers.parse_yes_no("There is no helmet, yes.") is True
    assert matchers.parse_yes_no("No.") is False and matchers.parse_yes_no("No, nobody.") is False


def test_approximate_is_fine_where_the_rule_has_a_tolerance():
    """numerical_match lengths have the official ladder: "about 11 m" against 12 m is judged as 11 m."""
    assert off.score("12 meters", "about 11 m", "numerical_match").value == 1.0
    assert off.score("3", "about 3", "fuzzy_match").value is None   # counts are exact: "about" defers
