"""OpenEQA's official figure (issue 31 item 4): the declaration's aggregation against ``evaluate-predictions.py
--force`` itself, run on the same marks under a fake judge (``tests/support/official_tools``; skipped unless
FIELDSTUDIO_TEST_OPENEQA_DIR names an open-eqa checkout), and the issue's 64-of-80 figures by hand."""

from __future__ import annotations

import json
import random

import pytest

from fieldstudio.benchmarks import openeqa
from fieldstudio.benchmarks.declaration import OfficialItem
from fieldstudio.scoring.scorers.llm_match import openeqa_percent
from tests.support.official_tools import openeqa_folder, run_openeqa
from tests.support.shared_data import SHARED_DATA

DATASET = SHARED_DATA / "openeqa" / "open-eqa-v0.json"
DECLARED = openeqa.DECLARATION


def test_by_hand_the_mean_over_the_answered_questions():
    # 64 of 80 answered: marks giving a mean of 51.953125 over the 64; the headline over 80 would be 41.5625
    marks = [5] * 20 + [3] * 20 + [1] * 21 + [4] * 3
    items = [OfficialItem(f"q{k}", openeqa_percent(m)) for k, m in enumerate(marks)]
    f = DECLARED.official_figure("llm-match", items)
    assert f.value == pytest.approx(100 * (20 * 1 + 20 * 0.5 + 3 * 0.75) / 64)              # 50.390625
    assert (f.printed, f.answered, f.name) == ("50.4", 64, "final score")
    items = [OfficialItem(f"q{k}", openeqa_percent(m)) for k, m in enumerate([5] * 25 + [3] * 16 + [1] * 22 + [2])]
    f = DECLARED.official_figure("llm-match", items)
    assert f.value == pytest.approx(51.953125) and f.printed == "52.0"
    assert f.value * 64 / 80 == pytest.approx(41.5625)                   # the headline counts 16 missing as 0
    unscored = DECLARED.official_figure("llm-match", [OfficialItem("a", 100.0), OfficialItem("b", None)])
    assert unscored.value == 50.0 and "lowest mark" in unscored.notes[0]


@pytest.mark.skipif(openeqa_folder() is None, reason="FIELDSTUDIO_TEST_OPENEQA_DIR is not set")
@pytest.mark.skipif(not DATASET.is_file(), reason="OpenEQA's dataset is not there")
def test_the_same_final_score_as_evaluate_predictions(tmp_path):
    dataset = json.loads(DATASET.read_text(encoding="utf-8"))[:80]
    rng = random.Random(31)
    answered = rng.sample([q["question_id"] for q in dataset], 64)
    marks = {q: rng.choice([0, 1, 2, 3, 4, 5, 6]) for q in answered}     # 0 and 6: the tool clips them
    final, metrics = run_openeqa(openeqa_folder(), dataset, marks, tmp_path)
    f = DECLARED.official_figure("llm-match", [OfficialItem(q, openeqa_percent(m)) for q, m in marks.items()])
    assert final == f"final score: {f.printed}"
    assert metrics == marks and f.answered == 64
    tool_mean = sum(100 * (min(5, max(1, m)) - 1) / 4 for m in metrics.values()) / len(metrics)
    assert f.value == pytest.approx(tool_mean, abs=1e-12)
