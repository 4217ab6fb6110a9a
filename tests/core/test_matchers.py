"""Deterministic matchers: values worked out by hand, and JSON reports on real FieldWorkArena ground truth."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

from tests.support.shared_data import SHARED_DATA

import pytest

from fieldstudio.core import matchers as m

GT_DIR = (SHARED_DATA / "fieldworkarena/ground_truth")


@pytest.mark.parametrize("text, expected", [
    ("Yes.", True), ("No", False), ("yes, it is 0.7 meters.", True), ("No, there is no violation.", False),
    ("The forklift is empty", None), ("yes and no", None),
])
def test_yes_no(text, expected):
    assert m.parse_yes_no(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("four", 4), ("There are 3 workers.", 3), ("twenty-one boxes", 21), ("The counted number is 16.", 16),
    ("one cycle at the start and seven full cycles", None), ("0.7 meters", None), ("at 00:00:14", None),
])
def test_count(text, expected):
    assert m.parse_count(text) == expected


@pytest.mark.parametrize("text, metres", [
    ("12 meters", Fraction(12)), ("3.0 metres.", Fraction(3)), ("0.7meters", Fraction(7, 10)),
    ("50 cm", Fraction(1, 2)), ("250 mm", Fraction(1, 4)), ("2 ft", Fraction(6096, 10000)),
    ("10 in", Fraction(254, 1000)), ('3 5/8"', Fraction(29, 8) * Fraction(254, 10000)),
    ("5 ft 3 in", 5 * Fraction(3048, 10000) + 3 * Fraction(254, 10000)),
])
def test_length_in_metres(text, metres):
    assert m.parse_length_m(text) == metres


def test_length_ignores_in_as_a_word_and_typos():
    assert m.parse_lengths_m("5 in the box") == []
    assert m.parse_length_m("13 metes") is None           # a typo in FWA task 2.1.0010 is not guessed


@pytest.mark.parametrize("text, seconds", [
    ("00:00:53", 53), ("01:02:03", 3723), ("12:30", 750), ("65 seconds", 65), ("65 s", 65),
    ("1 min 5 s", 65), ("2 hours", 7200), ("The duration time is 00:00:47.", 47), ("0.4 seconds.", 0.4),
])
def test_time_seconds(text, seconds):
    assert m.parse_time_s(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["12:30 PM", "12:30pm", "at 3:15 p.m.", "12:30:05 AM", "9:05 a.m."])
def test_a_time_of_day_is_no_time_from_the_videos_start(text):
    # "12:30 PM" is a wall-clock reading; taking its digits for 12 min 30 s (750 s) would be a guess
    assert m.parse_times_s(text) == [] and m.parse_time_s(text) is None
    assert m.clock_times_of_day(text) == [text.removeprefix("at ")]
    assert "is a time of day (AM/PM), not a time in the video" in m.time_of_day_issue(text)
    assert m.match_time(text, "00:12:30").matched is None                   # undecided, never "equal"
    # while the video times themselves keep their meaning, "a m" of a following word included
    assert m.parse_time_s("12:30") == 750 and m.parse_time_s("1:02:03.5") == pytest.approx(3723.5)
    assert m.parse_time_s("at 12:30 a man enters") == 750 and m.time_of_day_issue("12:30") is None


def test_fs_match_defers_a_time_of_day_answer():
    from fieldstudio.scoring.scorers import fs_match

    for eval_func in ("numerical_match", "fuzzy_match"):
        r = fs_match.score("00:12:30", "12:30 PM", eval_func)
        assert r.value is None and r.explanation.startswith("needs a judge"), (eval_func, r.explanation)
        assert fs_match.score("00:12:30", "12:30", eval_func).value == 1.0


def test_time_range():
    gt = "The specified motion start and end times are from 00:00:08 to 00:02:43."
    assert m.parse_time_range_s(gt) == (8, 163)
    assert m.parse_time_range_s("0:08 - 2:43") == (8, 163)
    assert m.parse_time_range_s("at 00:00:14") is None
    assert m.match_time_range("from 8 s to 2 min 43 s", gt).matched is True
    assert m.match_time_range("from 00:00:09 to 00:02:43", gt, tolerance_s=1).matched is True
    assert m.match_time_range("from 00:00:10 to 00:02:43", gt, tolerance_s=1).matched is False


def test_matchers_undecided_and_decided():
    assert m.match_yes_no("Yes.", "No.").matched is False
    assert m.match_yes_no("the box is red", "No.").matched is None
    assert m.match_count("4 people", "four").matched is True
    assert m.match_count("5 people", "four").matched is False
    assert m.match_length("1200 cm", "12 meters").matched is True
    assert m.match_length("11 m", "12 meters", relative_tolerance=0.1).matched is True
    assert m.match_length("10 m", "12 meters", relative_tolerance=0.1).matched is False
    assert m.match_time("1 min 5 s", "00:01:05").matched is True
    assert m.match_time("00:01:06", "00:01:05").matched is False
    r = m.match_count("many", "four")
    assert r.matched is None and not r.decided and "prediction" in r.explanation


@pytest.mark.parametrize("text, letter", [
    ("B", "B"), ("(c)", "C"), ("Answer: D", "D"), ("A. the forklift", "A"), ("I think the answer is (E).", "E"),
    ("pears, clearly", "B"), ("something else", None),
])
def test_choice(text, letter):
    assert m.parse_choice(text, ["apples", "pears", "plums"]) == letter


def test_choice_match_by_option_text():
    assert m.match_choice("plums", "C", ["apples", "pears", "plums"]).matched is True
    assert m.match_choice("B", "C").matched is False


def test_extract_json_from_prose_and_fences():
    assert m.extract_json('Here it is: [{"ID": "0000"}] done') == [{"ID": "0000"}]
    assert m.extract_json('```json\n{"total_violations": 0, "details": []}\n```') == {"total_violations": 0, "details": []}
    assert m.extract_json("no json here") is None


# ---------------------------------------------------------------- JSON reports on the real ground truth
def _gt(task_id: str) -> str:
    for f in ("Tasks_3.2.json", "Tasks_3.4.json", "Tasks_4.1.json", "Tasks_4.2.json"):
        for t in json.loads((GT_DIR / f).read_text(encoding="utf-8")):
            if t["id"] == task_id:
                return t["conversations"][1]["value"]
    raise KeyError(task_id)


def _incidents(obj):
    if isinstance(obj, dict):
        return obj.get("details", [obj])
    return obj


# tasks with several incidents, in both layouts (list; {"total_violations", "details"})
MULTI = ["3.2.0001", "3.2.0011", "3.4.0003", "3.4.0008", "4.2.0019", "4.2.0020"]


def _all_report_ids() -> list[str]:
    out = []
    for f in ("Tasks_3.2.json", "Tasks_3.4.json", "Tasks_4.1.json", "Tasks_4.2.json"):
        out += [t["id"] for t in json.loads((GT_DIR / f).read_text(encoding="utf-8"))]
    return out


@pytest.mark.parametrize("task_id", _all_report_ids())
def test_every_report_ground_truth_matches_itself_reordered(task_id):
    gt = _gt(task_id)
    obj = json.loads(gt)
    shuffled = copy.deepcopy(obj)
    items = _incidents(shuffled)
    if isinstance(items, list):
        items.reverse()
    # keys re-ordered and the answer wrapped in prose, as a model would write it
    text = "Report:\n```json\n" + json.dumps(shuffled, indent=1, sort_keys=True) + "\n```"
    r = m.match_json_report(text, gt)
    assert r.matched is True, r.explanation
    assert r.missing == [] and r.extra == []


@pytest.mark.parametrize("task_id", MULTI)
def test_report_with_one_incident_missing(task_id):
    gt = _gt(task_id)
    obj = json.loads(gt)
    n = len(_incidents(obj))
    _incidents(obj).pop(1)
    r = m.match_json_report(json.dumps(obj), gt)
    assert r.matched is False
    assert r.count == (n - 1, n)
    assert r.missing == [1]                  # the removed incident is the one left without a partner
    assert r.extra == []


@pytest.mark.parametrize("task_id", MULTI)
def test_report_with_one_extra_incident(task_id):
    gt = _gt(task_id)
    obj = json.loads(gt)
    items = _incidents(obj)
    n = len(items)
    extra = dict(items[0], ID="9999", Filename="made_up_frame.jpg")
    items.append(extra)
    r = m.match_json_report(json.dumps(obj), gt)
    assert r.matched is False
    assert r.count == (n + 1, n)
    assert r.extra == [n] and r.missing == []
    assert "9999" in r.explanation


@pytest.mark.parametrize("task_id", MULTI)
def test_report_with_wrong_id_sequence(task_id):
    gt = _gt(task_id)
    obj = json.loads(gt)
    items = _incidents(obj)
    for i, it in enumerate(items):                 # renumbered from 0001 instead of the reference's start
        it["ID"] = f"{i + 1:04d}"
    r = m.match_json_report(json.dumps(obj), gt)
    assert r.matched is False
    assert "ID sequence" in r.explanation
    assert r.missing == [] and r.extra == []       # incidents still pair up on their other fields
    assert r.ids[0] == tuple(range(1, len(items) + 1))


def test_report_declared_total_and_wrong_field():
    gt = _gt("3.4.0003")                            # total_violations 2, two details
    obj = json.loads(gt)
    obj["total_violations"] = 3
    assert "declared total 3" in m.match_json_report(json.dumps(obj), gt).explanation
    obj = json.loads(gt)
    obj["details"][0]["Filename"] = "North1_C3_187_3_09.30.10_99_99.jpg"
    r = m.match_json_report(json.dumps(obj), gt)
    assert r.matched is False and r.field_results[0]["filename"] is False
    obj = json.loads(gt)
    obj["details"][0]["Description"] = "0.7 m"       # "0.7meters" in the reference: same length
    assert m.match_json_report(json.dumps(obj), gt).matched is True


def test_report_free_text_differences_need_a_judge():
    gt = _gt("3.2.0001")
    obj = json.loads(gt)
    obj[0]["Short description"] = "Worker carrying loads in both hands"
    r = m.match_json_report(json.dumps(obj), gt)
    assert r.matched is None and "short description" in r.explanation


def test_report_key_typo_in_ground_truth_is_reported():
    gt = _gt("3.2.0017")                             # the reference spells the key "Fuilename"
    obj = json.loads(gt)
    for it in obj:
        it["Filename"] = it.pop("Fuilename")
    r = m.match_json_report(json.dumps(obj), gt)
    assert r.matched is False
    assert r.key_differences[0] == {"missing": ["fuilename"], "extra": ["filename"]}


def test_report_single_object_and_empty_list():
    gt = _gt("4.1.0039")                             # one object, integer ID 1060
    obj = json.loads(gt)
    obj["ID"] = "1060"
    assert m.match_json_report(json.dumps(obj), gt).matched is True
    assert m.match_json_report("[]", _gt("3.2.0004")).matched is True
    assert m.match_json_report('[{"ID": "0000"}]', "[]").matched is False
    assert m.match_json_report("No incidents were found.", "[]").matched is None


def test_fwa_judge_reply_is_quoted_as_read():
    """The judge's reply in the explanation on one line, without repr's escapes (a reader saw You\\'re and a
    literal \\n and took them for the judge's)."""
    from fieldstudio.scoring.scorers import fwa_official

    reply = "You're right,\n\nthe answer is correct."
    r = fwa_official._judged("fwa-official", "t", "Yes", "fuzzy_match", lambda: (reply, {}), "official")
    assert r.explanation == "judge reply “You're right, the answer is correct.” -> 1"
    long = "x" * 100
    r = fwa_official._judged("fwa-official", "t", "Yes", "fuzzy_match", lambda: (long, {}), "official")
    assert r.explanation == f"judge reply “{'x' * 80}…” -> 0"
