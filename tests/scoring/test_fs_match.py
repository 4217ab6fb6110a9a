"""fs-match decides only what it can prove (issue 31 item 1): copies and framed copies of all 886 FieldWorkArena
references are decided and correct; no wrong answer of our own generator (``tests/support/wrong_answers.py``,
written as people and models write, not against the grammar) is ever accepted; a wrong value scores 0."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from fieldstudio.core import answer_grammar as grammar
from fieldstudio.scoring.scorers import fs_match as fm
from tests.support.shared_data import SHARED_DATA
from tests.support.wrong_answers import UNDECIDABLE_FORMS, WRONG_FORMS, fieldworkarena_references

GROUND_TRUTH = SHARED_DATA / "fieldworkarena" / "ground_truth"
REFERENCES = fieldworkarena_references(GROUND_TRUTH) if GROUND_TRUTH.is_dir() else []
needs_references = pytest.mark.skipif(len(REFERENCES) != 886, reason="FieldWorkArena's ground_truth is not there")


@needs_references
@pytest.mark.parametrize("frame", ["{g}", "The answer is {g}.", "Answer: {g}", "  {upper}  ", "Final answer: {g}"])
def test_every_reference_copied_or_framed_is_decided_and_correct(frame):
    results = [fm.score(g, frame.format(g=g, upper=g.upper()), ev) for _, ev, g in REFERENCES]
    wrong = [(g, r.explanation) for (_, _, g), r in zip(REFERENCES, results) if r.value != 1.0 or not r.correct]
    assert wrong == [] and len(results) == 886


@needs_references
def test_no_wrong_answer_of_the_generator_is_accepted():
    false_accepts: Counter[str] = Counter()
    decided = 0
    for form, make in WRONG_FORMS.items():
        for _, ev, g in REFERENCES:
            r = fm.score(g, make(g), ev)
            decided += r.value is not None
            if r.value is not None and (r.value > 0 or r.correct):
                false_accepts[form] += 1
    assert len(WRONG_FORMS) > 30
    assert sum(false_accepts.values()) == 0, false_accepts
    assert decided > 0                      # "another value" forms of plain-value references are decided as 0


@needs_references
@pytest.mark.parametrize("form", sorted(UNDECIDABLE_FORMS))
def test_symbols_homoglyphs_and_other_scripts_are_left_to_a_judge(form):
    make = UNDECIDABLE_FORMS[form]
    changed = [(g, ev, make(g)) for _, ev, g in REFERENCES if make(g) != g]
    assert changed
    results = [(g, a, fm.score(g, a, ev)) for g, ev, a in changed]
    assert [(g, a) for g, a, r in results if r.correct] == []
    # a report is compared field by field: a changed one-word field is a decided mismatch (0), never a match
    assert [(g, a) for (g, ev, a), (_, _, r) in zip(changed, results) if ev != "json_match" and r.value is not None] \
        == []


@pytest.mark.parametrize("reference, answer, value", [
    ("12 meters", "12 m", 1.0), ("12 meters", "12m", 1.0), ("12 meters", "1200 cm", 1.0),
    ("12 meters", "The answer is 12 meters.", 1.0), ("12 meters", "13 m", 0.0), ("12 meters", "11 m", 0.0),
    ("There were four.", "4", 1.0), ("There were four.", "four", 1.0), ("There were four.", "Answer: 4", 1.0),
    ("There were four.", "5", 0.0), ("There were four.", "twenty-one", 0.0),
    ("0.4 seconds.", "0.4 s", 1.0), ("0.4 seconds.", "00:00:00.4", 1.0), ("0.4 seconds.", "1 s", 0.0),
    ("The duration time is 00:00:47.", "47 seconds", 1.0), ("The duration time is 00:00:47.", "00:01:17", 0.0),
    ("00:00:10 to 00:02:36", "from 10 s to 156 s", 1.0), ("00:00:10 to 00:02:36", "00:00:10 - 00:02:37", 0.0),
    ("No", "no", 1.0), ("No", "Yes", 0.0), ("Yes.", "yes", 1.0),
    ("１２ meters", "12 m", 1.0),                                         # NFKC: full-width digits
])
def test_one_plain_value_of_the_references_kind_is_decided(reference, answer, value):
    r = fm.score(reference, answer, "numerical_match")
    assert r.value == value and r.correct is (value == 1.0), r.explanation
    assert r.details["stage"] == "matcher"


@pytest.mark.parametrize("reference, answer", [
    ("12 meters", "12"), ("12 meters", "12 seconds"), ("12 meters", "about 12 m"), ("12 meters", "12 m or 13 m"),
    ("12 meters", "12 meters (just kidding)."), ("There were four.", "4 people"), ("There were four.", "There were five."),
    ("No", "No. The opposite is true."), ("No", "Nope"), ("No", "No, because it is not."), ("Yes", "Yes!"),
    ("00:12:30", "12:30 PM"), ("12 meters", "١٢ m"), ("12 meters", "-12 m"), ("12 meters", "12 m."  ".")
    , ("The specified motion was detected at 00:00:14.", "00:00:14"),
    ("No, there are no workers in the designated area.", "Yes."),
])
def test_anything_else_needs_a_judge(reference, answer):
    r = fm.score(reference, answer, "numerical_match")
    assert r.value is None and r.correct is None and r.explanation.startswith("needs a judge"), r.explanation


def test_a_different_value_is_zero_never_a_half_and_names_the_official_step():
    r = fm.score("12 meters", "11 m", "numerical_match")
    assert r.value == 0.0 and r.correct is False
    assert "FieldWorkArena's distance step would give 1" in r.explanation and r.details["official_step"] == 1.0
    r = fm.score("0.0 seconds.", "30 seconds", "numerical_match")
    assert r.value == 0.0 and r.details["official_step"] == pytest.approx(0.4)
    assert fm.score("120", "1", "numerical_match").value == 0.0        # far off: 0, not 0.5 + 0.5 x 0


def test_json_reports_are_decided_only_when_the_whole_answer_is_one_json_value():
    gt = json.dumps([{"ID": "0000", "Category": "incident", "Filename": "a.jpg", "Short description": "Two men"}])
    assert fm.score(gt, gt, "json_match").value == 1.0
    assert fm.score(gt, f"```json\n{gt}\n```", "json_match").value == 1.0
    assert fm.score(gt, gt.replace("0000", "0"), "json_match").value == 1.0          # the same ID as a number
    assert fm.score(gt, "[]", "json_match").value == 0.0
    assert fm.score(gt, gt.replace("a.jpg", "b.jpg"), "json_match").value == 0.0
    assert fm.score(gt, "I found one incident", "json_match").value is None
    assert fm.score(gt, f"Not this one: {gt}", "json_match").value is None
    assert fm.score(gt, f"{gt} {gt}", "json_match").value is None
    assert fm.score(gt, gt.replace("Two men", "Not two men"), "json_match").value is None
    length = json.dumps([{"ID": "1", "Distance": "5 meters"}])
    assert fm.score(length, length.replace("5 meters", "500 cm"), "json_match").value == 1.0
    assert fm.score(length, length.replace("5 meters", "not 5 meters"), "json_match").value is None


def test_the_grammar_is_closed():
    assert grammar.normalise("  The  ANSWER is 3.0 Meters. ") == "the answer is 3.0 meters"
    assert grammar.normalise("3..") == "3."                                           # one final period only
    assert grammar.unframed("Answer: the answer is 3") == [("answer: the answer is 3", None),
                                                           ("the answer is 3", "answer:")]
    assert grammar.parse_value("count", "٣") is None and grammar.parse_value("count", "3") == 3
    assert grammar.parse_value("time", "01:20") == 80 and grammar.parse_value("time", "00:61:00") is None
    assert grammar.parse_value("range", "00:00:10 to 00:02:36") == (10, 156)
    assert grammar.parse_value("yesno", "yes.") is None


@pytest.mark.parametrize("reference, answer", [
    ("12 meters", "1² m"), ("12 meters", "1² meters"), ("16 meters", "1⁶ m"),
    ("The duration time is 00:00:53.", "5³ s"), ("10.0 seconds.", "1⁰ s"), ("No", "№"), ("No.", "Nº"),
])
def test_compatibility_characters_never_become_the_reference(reference, answer):
    """Found by an independent review of fs-match 2.0: Unicode NFKC read "1²" (1 m) as "12" and "№" as "no"."""
    result = fm.score(reference, answer, "fuzzy_match")
    assert not (result.value or result.correct), result.explanation


def test_a_json_answer_with_a_repeated_key_or_other_digits_in_an_id_needs_a_judge_and_never_crashes():
    """A repeated key says two things (json.loads would keep the last); "④".isdigit() is True but int("④") raises."""
    gt = json.dumps([{"ID": "4", "Category": "incident", "Filename": "a.jpg"}])
    repeated = '[{"ID": "4", "Category": "no incident", "Category": "incident", "Filename": "a.jpg"}]'
    assert fm.score(gt, repeated, "json_match").value is None
    for digit in ("④", "⓪", "⁰"):
        result = fm.score(gt, gt.replace('"4"', f'"{digit}"'), "json_match")
        assert not (result.value or result.correct)
