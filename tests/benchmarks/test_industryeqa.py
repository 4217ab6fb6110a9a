"""IndustryEQA's official averages (issue 31 item 4), as score2.py (ad3ab29) computes and prints them: per
warehouse size apart, the direct mean over every scored item, the reasoning mean over the reasoning subset;
values by hand (score2.py reads files this repository cannot hold, so it is not run here)."""

from __future__ import annotations

import pytest

from fieldstudio.benchmarks import industryeqa
from fieldstudio.benchmarks.declaration import OfficialItem
from fieldstudio.scoring.scorers.llm_match import industryeqa_percent

DECLARED = industryeqa.DECLARATION


def test_direct_per_warehouse_size_never_pooled():
    # small: marks 5, 3, 1 -> 100, 50, 0 -> 50.00 %; large (ids from 972): 4, 6 -> 75, 125 -> 100.00 %
    items = [OfficialItem(str(q), industryeqa_percent(m)) for q, m in ((1, 5), (2, 3), (971, 1), (972, 4), (1344, 6))]
    items.append(OfficialItem("3", None))                            # its judge call failed: not in the score file
    f = DECLARED.official_figure("eqa-direct", items)
    assert f.printed == "Small 50.00%, Large 100.00%" and f.value is None and f.scorer_is_official
    assert [dict(line.fields) for line in f.lines] == [
        {"Dataset": "Small", "Total Samples": 3, "Avg Direct Score": "50.00%"},
        {"Dataset": "Large", "Total Samples": 2, "Avg Direct Score": "100.00%"}]
    assert f.answered == 6 and "1 answered item(s) without a score" in f.notes[0]
    only_small = DECLARED.official_figure("eqa-direct", items[:3])
    assert only_small.value == pytest.approx(50.0) and only_small.printed == "Small 50.00%"


def test_reasoning_over_the_reasoning_subset():
    # eqa-reasoning scores only reasoning_status "1" items; the others come unscored and stay out
    items = [OfficialItem("1", industryeqa_percent(2)), OfficialItem("2", None), OfficialItem("5", industryeqa_percent(4))]
    f = DECLARED.official_figure("eqa-reasoning", items)
    assert f.printed == "Small 50.00%" and f.name == "Avg Reasoning Score" and f.scorer_is_official
    assert dict(f.lines[0].fields) == {"Dataset": "Small", "Reasoning Status=1 Count": 2,
                                       "Avg Reasoning Score": "50.00%"}
    fs = DECLARED.official_figure("eqa-reasoning+fs-prompt", items)
    assert not fs.scorer_is_official and "its aggregation, not its judge" in fs.text
    assert DECLARED.official_figure("eqa-direct", [OfficialItem("1", None)]) is None
