"""The lean long table ``fieldstudio score`` summarises (``answer_table.load_summary_columns``, issue 37 item 4):
the same values, in the same order, as the columns of the full long table ``fieldstudio report`` and the Compare
tab read (``load_answers``), and therefore the same summary and the same printed lines; a failed model call is
not counted as answered by the official figure of either."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from rich.console import Console
from sqlalchemy import select

from fieldstudio.cli.score_report import print_summary
from fieldstudio.compare import answer_table, summaries
from fieldstudio.scoring import service
from fieldstudio.store.models import Answer, Score
from tests.support import sample_sources
from tests.support.scoring_fixtures import add_run, add_task


def _plain(values) -> list:
    """A column's values with every kind of missing value (None, NaN, pandas' NA) read as None."""
    return [None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v for v in values]


def _printed(summary: pd.DataFrame, scorer: str) -> str:
    console = Console(record=True, width=250)
    print_summary(summary, console, scorer)
    return console.export_text()


def _same_summary(project, scorer: str) -> pd.DataFrame:
    """Check the lean table against the full one column by column and summary by summary; returns the lean
    summary."""
    full = answer_table.load_answers(project, scorer)
    lean = answer_table.load_summary_columns(project, scorer)
    assert list(lean.columns) == answer_table.SUMMARY_COLUMNS
    for column in answer_table.SUMMARY_COLUMNS:
        if column not in ("answer", "error"):
            assert _plain(lean[column]) == _plain(full[column]), column
    failed = full["answer"].isna() & full["error"].notna()
    assert _plain(lean["error"]) == _plain(full["error"].where(failed, None))
    assert lean["answer"].isna().all()
    ours = summaries.summarise(lean, scorer=scorer, tasks=answer_table.load_scope(project, lean))[0]
    theirs = summaries.summarise(full, scorer=scorer, tasks=answer_table.load_scope(project, full))[0]
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True, check_dtype=False)
    assert _printed(ours, scorer) == _printed(theirs, scorer)
    return ours


@pytest.fixture
def mixed(project):
    """Two runs named alike and a third answering four tasks of ten: known and unknown costs and tokens, a
    failed model call, a task without a category, two tasks sharing an external id; scored by fs-match, then one
    score overridden by a person and one answer changed (its score stale)."""
    tasks = [add_task(project, f"1.{1 + i % 2}.{i:04d}", str(i), answer_type="count") for i in range(8)]
    tasks.append(add_task(project, "9.9.0001", "yes", category="", answer_type="yes_no"))
    tasks.append(add_task(project, "1.1.0001", "3", answer_type="count"))        # the external id of tasks[1]
    first = add_run(project, "m", {t: {"raw_text": str(i if i % 3 else i + 1), "cost_usd": 0.01 * i or None,
                                       "prompt_tokens": 100 + i, "completion_tokens": 5}
                                   for i, t in enumerate(tasks)})
    second = add_run(project, "m", {t: {"raw_text": None, "error": "timeout"} if i == 4 else f"about {i}"
                                    for i, t in enumerate(tasks)})
    add_run(project, "partial", {t: str(i) for i, t in enumerate(tasks[:4])})
    service.score_answers(project, "fs-match")
    with project.read() as s:
        score_of = dict(s.execute(select(Score.answer_id, Score.id)).all())
        answer_of = {(r.run_id, r.task_id): r.id for r in s.scalars(select(Answer))}
    service.override_score(project, score_of[answer_of[(first, tasks[3])]], 1.0, "same count", "ana")
    with project.write() as s:
        s.get(Answer, answer_of[(first, tasks[5])]).raw_text = "7"              # its score is now stale
    return project, first, second


def test_summary_columns_give_the_long_tables_summary(mixed):
    project, first, second = mixed
    lean = answer_table.load_summary_columns(project, "fs-match")
    assert set(lean["source"]) == {f"m ({first[:6]})", f"m ({second[:6]})", "partial"}
    assert (lean["stale_reason"].notna().sum(), lean["overridden"].sum(), lean["error"].notna().sum()) == (1, 1, 1)
    summary = _same_summary(project, "fs-match")
    # the failed call is an answer, but not an answered task for FieldWorkArena's own figure: 9 of its 10
    assert summary.loc[f"m ({second[:6]})", "answers"] == 10
    assert summary.loc[f"m ({second[:6]})", "official_answered"] == 9
    assert summary.loc["partial", "official_answered"] == 4


def test_summary_columns_of_judged_scores_keep_the_judges_cost(project):
    ids = sample_sources.build(project)
    sample_sources.add_judged_scores(project, ids)
    summary = _same_summary(project, "fwa-official")
    # 42 judged answers per source at 0.001 USD each, by hand
    assert summary["judge_cost_usd"].tolist() == pytest.approx([0.042, 0.042])


def test_summary_columns_of_a_run_without_scores(project):
    tasks = [add_task(project, f"1.1.{i:04d}", str(i), answer_type="count") for i in range(3)]
    add_run(project, "m", {t: str(i) for i, t in enumerate(tasks)})
    lean = answer_table.load_summary_columns(project, "fs-match")
    assert len(lean) == 3 and lean["value"].isna().all() and not lean["overridden"].any()
    _same_summary(project, "fs-match")
