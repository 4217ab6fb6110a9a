"""OpenEQA LLM-Match and IndustryEQA direct/reasoning rules over fieldstudio's own prompt (the +fs-prompt
scorers): benchmarks.md §2.5, §3.2 and §3.4 vectors. The official prompts: test_official_sources.py."""

from __future__ import annotations

import pytest

from fieldstudio.scoring.scorers import llm_match as lm


def fixed(reply):
    def ask(prompt):
        ask.prompts.append(prompt)
        return reply
    ask.prompts = []
    return ask


@pytest.mark.parametrize("mark, openeqa, industry", [
    (5, 100, 100), (4, 75, 75), (3, 50, 50), (2, 25, 25), (1, 0, 0), (0, 0, -25), (6, 100, 125)])
def test_percentages(mark, openeqa, industry):
    assert lm.openeqa_percent(mark) == openeqa
    assert lm.industryeqa_percent(mark) == industry


def test_openeqa_truncation():
    assert lm.openeqa_truncate("An AC unit. It looks white") == ("An AC unit.", True)
    assert lm.openeqa_truncate("Yes. The unit is white") == ("Yes.", True)
    assert lm.openeqa_truncate("Air conditioning unit") == ("Air conditioning unit", False)


def test_llm_match_score_uses_the_truncated_prediction_and_clips():
    ask = fixed("Mark: 4")
    r = lm.score_fs_prompt("What is on the wall?", "Air conditioning unit", "An AC unit. It looks white", judge=ask)
    assert r.value == 75 and r.details["judged_prediction"] == "An AC unit."
    assert "It looks white" not in ask.prompts[0]
    assert lm.score_fs_prompt("q", "a", "b.", judge=fixed("7")).value == 100            # clipped at 5
    assert lm.score_fs_prompt("q", "a", None, judge=fixed("5")).value == 0               # prediction None -> mark 0
    assert lm.score_fs_prompt("q", "a", "b.", judge=fixed("no idea")).value is None      # unparsed: no score, raw kept
    assert lm.score_fs_prompt("q", "a", "b.").value is None                              # no judge


def test_llm_match_extra_answers_reach_the_prompt():
    ask = fixed("5")
    lm.score_fs_prompt("q", "Air conditioning unit", "AC.", ["air conditioner", "AC unit"], judge=ask)
    assert "air conditioner" in ask.prompts[0] and "AC unit" in ask.prompts[0]


def test_openeqa_final():
    assert lm.openeqa_final([5, 3, 0, 6]) == pytest.approx((100 + 50 + 0 + 100) / 4)
    assert lm.openeqa_final([]) is None


def test_eqa_direct_and_reasoning():
    assert lm.score_eqa_direct_fs_prompt("q", "No", "No", judge=fixed("0")).value == -25    # no clip in IndustryEQA
    assert lm.score_eqa_direct_fs_prompt("q", "No", "Yes", judge=fixed("1")).value == 0
    ask = fixed("Mark: 3")
    r = lm.score_eqa_reasoning_fs_prompt("q", "No", "flush against the wall", "No", "no gap to the wall", "1", judge=ask)
    assert r.value == 50 and "flush against the wall" in ask.prompts[0] and "no gap to the wall" in ask.prompts[0]
    out = lm.score_eqa_reasoning_fs_prompt("q", "No", "r", "No", "r", "0", judge=fixed("5"))
    assert out.value is None and "reasoning subset" in out.explanation
    assert lm.score_eqa_reasoning_fs_prompt("q", "No", "r", "No", "r", 1, judge=fixed("5")).value == 100   # int 1 not dropped


def test_derived_attributes():
    assert lm.scale_of(971) == "small" and lm.scale_of(972) == "large" and lm.scale_of(1344) == "large"
    assert lm.human_presence_of("data/small/no_human/small_03/video_01.mp4") == "no_human"
    assert lm.human_presence_of("data/small/human_1/small_01/video_01.mp4") == "human"


def test_industryeqa_aggregation_by_hand():
    items = [
        lm.EqaItemScore(1, "Human Safety", "data/small/human_1/a.mp4", "1", 5, 3),     # 100, 50
        lm.EqaItemScore(2, "Human Safety", "data/small/no_human/b.mp4", "0", 3, 5),    # 50, (not in subset)
        lm.EqaItemScore(1000, "Object Recognition", "data/large/human/c.mp4", "1", 1, 2),  # 0, 25
        lm.EqaItemScore(1001, "Object Recognition", "data/large/no_human/d.mp4", "1", None, None),  # judge failed
    ]
    agg = lm.aggregate_industryeqa(items)
    total = agg["all"]["all"]
    assert total.avg_direct == pytest.approx((100 + 50 + 0) / 3)
    assert total.avg_reasoning == pytest.approx((50 + 25) / 2)
    assert (total.items, total.direct_scored, total.reasoning_items, total.reasoning_scored) == (4, 3, 3, 2)
    assert agg["type"]["Human Safety"].avg_direct == 75 and agg["type"]["Human Safety"].avg_reasoning == 50
    assert agg["scale"]["large"].avg_direct == 0 and agg["scale"]["small"].avg_direct == 75
    assert agg["human"]["no_human"].avg_direct == 50 and agg["human"]["no_human"].avg_reasoning is None
    assert agg["human"]["human"].avg_reasoning == pytest.approx(37.5)
