"""FieldWorkArena's official figure (issue 31 item 4): the declaration's aggregation against FWA_evaluator.py and
calc_category.py themselves, run on the same per-task scores under a fake judge (``tests/support/official_tools``;
skipped unless FIELDSTUDIO_TEST_FWA_DIR names a checkout holding tools/evaluation at 8ebe8dae), and by hand."""

from __future__ import annotations

import json
import random

import pytest

from fieldstudio.benchmarks import fieldworkarena as fwa
from fieldstudio.benchmarks.declaration import OfficialItem
from fieldstudio.tasks.formats.fieldworkarena import bucket_of, load_subcategory_csvs
from tests.support.official_tools import fwa_tools_folder, run_calc_category, run_fwa_evaluator
from tests.support.shared_data import SHARED_DATA

GROUND_TRUTH = SHARED_DATA / "fieldworkarena" / "ground_truth"
DECLARED = fwa.DECLARATION


def _tasks() -> list[dict]:
    return [t for f in sorted(GROUND_TRUTH.glob("*.json")) for t in json.loads(f.read_text(encoding="utf-8"))]


def test_by_hand_over_the_answered_tasks_only():
    items = [OfficialItem("1.1.0001", 1.0), OfficialItem("1.1.0002", 0.5), OfficialItem("1.1.0003", None),
             OfficialItem("2.1.0001", 0.75, sub_category="01_abstract_images"),
             OfficialItem("2.1.0002", 1.0, query="line one\rline two", sub_category="01_abstract_images")]
    f = DECLARED.official_figure("fwa-official", items)
    assert (f.value, f.printed, f.answered, f.scorer_is_official) == (3 / 5, "0.6000", 5, True)
    lines = {(line.group, line.name): dict(line.fields) for line in f.lines}
    assert lines["FWA_evaluator.py", "total"] == {"totalTaskNum": 5, "correctNum": 3, "correctRate": "0.6000",
                                                  "totalScore": 3.25}          # the unscored one counts 0
    assert lines["FWA_evaluator.py", "1.1"]["correctRate"] == "0.3333"        # 0.5 is not > 0.5
    # the carriage return splits 2.1.0002's detail line: calc_category.py never reads it
    assert lines["calc_category.py", "01_abstract_images"] == {"Task Count": 1, "Total Score": "1.0000",
                                                              "Average Score": "1.0000"}
    assert lines["calc_category.py", "03_reporting"] == {"Task Count": 0, "Total Score": "0.0000",
                                                        "Average Score": "0.0000"}
    assert any("drops 1 answered task" in n and "2.1.0002" in n for n in f.notes)
    assert f.text.startswith("official FieldWorkArena correctRate 0.6000 over 5 answered (FWA_evaluator.py")
    judge_free = DECLARED.official_figure("fs-match", items)
    assert not judge_free.scorer_is_official and "of fs-match scores (its aggregation, not its judge)" in judge_free.text
    assert DECLARED.official_figure("fwa-official", []) is None


@pytest.mark.skipif(fwa_tools_folder() is None, reason="FIELDSTUDIO_TEST_FWA_DIR holds no tools/evaluation")
@pytest.mark.skipif(not GROUND_TRUTH.is_dir(), reason="FieldWorkArena's ground truth is not there")
def test_the_same_figures_as_fwa_evaluator_and_calc_category(tmp_path):
    tools = fwa_tools_folder()
    tasks = _tasks()
    rng = random.Random(31)
    answered = [t for t in tasks if rng.random() > 0.055]          # about 837 of 886 answered
    # dyadic scores, so that the tool's sum in its own order is exact; 0.5 sits on the threshold
    scores = {t["id"]: rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]) for t in answered}
    unscored = set(rng.sample(sorted(scores), 12))                  # judge failed: the tool's judge returns 0
    official, detail = run_fwa_evaluator(tools, GROUND_TRUTH, {k: 0.0 if k in unscored else v
                                                               for k, v in scores.items()}, tmp_path)
    csvs = sorted((tools / "Sample_Data").glob("category_*.csv"))
    taxonomy = load_subcategory_csvs(csvs)
    items = [OfficialItem(t["id"], None if t["id"] in unscored else scores[t["id"]],
                          query=t["conversations"][0]["value"], reference=t["conversations"][1]["value"],
                          sub_category=bucket_of(taxonomy.get(t["id"]))) for t in answered]
    figure = DECLARED.official_figure("fwa-official", items)
    ours = {line.name: dict(line.fields) for line in figure.lines if line.group == "FWA_evaluator.py"}
    assert ours == official                                     # every category and the total, field for field
    assert figure.printed == official["total"]["correctRate"] and figure.answered == len(answered)
    # calc_category.py reads one category file at a time: all three joined give the table of all tasks
    joined = tmp_path / "category_all.csv"
    joined.write_bytes(b"".join(p.read_bytes() for p in csvs))
    printed = run_calc_category(tools, joined, detail)
    ours = [[line.name, str(line.fields["Task Count"]), line.fields["Total Score"], line.fields["Average Score"]]
            for line in figure.lines if line.group == "calc_category.py"]
    assert ours == printed
    dropped = [t["id"] for t in answered if "\r" in t["conversations"][0]["value"]]
    assert dropped and any(f"drops {len(dropped)} answered task" in n for n in figure.notes)


def test_official_figures_of_a_long_table_read_only_the_columns_they_need():
    """``compare.official.official_figures`` over a long table with every other column beside (as
    ``load_answers`` gives it): source a answered 1.1.0001 (1.0) and 1.1.0002 (0.25), its failed call to
    1.1.0003 (no text, an error) is not answered; source b answered 1.1.0001 (0.75) and scored nothing else:
    correctRate 1/2 = 0.5000 and 1/1 = 1.0000."""
    import pandas as pd

    from fieldstudio.compare.official import official_figures

    table = pd.DataFrame({
        "source": ["a", "a", "a", "b"], "task_id": ["t1", "t2", "t3", "t1"],
        "external_id": ["1.1.0001", "1.1.0002", "1.1.0003", "1.1.0001"], "value": [1.0, 0.25, float("nan"), 0.75],
        "sub_category": ["(none)"] * 4, "query": [None] * 4, "ground_truth": [None] * 4,
        "answer": ["x", "y", None, "z"], "error": [None, None, "timeout", None],
        "cost_usd": [0.1, 0.2, 0.3, 0.4], "judge_raw": [None] * 4})
    figures = official_figures(table, "fs-match")
    assert {s: (f.printed, f.answered) for s, f in figures.items()} == {"a": ("0.5000", 2), "b": ("1.0000", 1)}
