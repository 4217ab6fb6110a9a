"""The benchmark declarations (fieldstudio/benchmarks/) against the registries they name, and their rules
against the behaviour they replaced (issue 35 items 1-2).

A declaration names formats, strategies and scorers by registry name (its package sits below the
registries), so this file is what keeps the names true: every name a declaration uses resolves, and
every registered format, strategy and scorer belongs to a declared benchmark. The expected defaults and
unscored rules are the tables cli/run.py, cli/score_report.py and compare/coverage.py held before the move.
"""

from __future__ import annotations

import inspect

import pytest

from fieldstudio import benchmarks
from fieldstudio.inference.strategies import REGISTRY as STRATEGIES
from fieldstudio.scoring.official import known
from fieldstudio.scoring.official.source import BENCHMARK_TITLES
from fieldstudio.scoring.scorers import REGISTRY as SCORERS
from fieldstudio.tasks import formats
from fieldstudio.tasks.formats import csv_table, fieldworkarena, industryeqa, openeqa
from fieldstudio.tasks.task_records import create_task

DECLARED = benchmarks.all_benchmarks()


@pytest.mark.parametrize("b", DECLARED, ids=lambda b: b.name)
def test_every_name_a_declaration_uses_resolves(b):
    assert benchmarks.get(b.name) is b
    assert b.task_format in formats.names(formats.TASKS)
    assert b.answer_format in formats.names(formats.ANSWERS)
    assert b.format_choice in formats.choices()
    for name in (b.task_format, b.answer_format):   # the format and the declaration name the same benchmark
        assert (formats.get(name).choice, formats.get(name).benchmark) == (b.format_choice, b.format_title)
    assert set(b.strategies) <= set(STRATEGIES) and b.default_strategy in b.strategies
    assert set(b.scorers) <= set(SCORERS)
    for scorer in (b.official_scorer, b.judge_free_scorer):
        assert scorer is None or scorer in SCORERS
    for source in b.sources:
        assert benchmarks.for_source(source) is b


def test_every_registered_format_strategy_and_scorer_belongs_to_a_benchmark():
    assert set(formats.names(formats.TASKS)) == {b.task_format for b in DECLARED}
    assert set(formats.names(formats.ANSWERS)) == {b.answer_format for b in DECLARED}
    assert set(formats.choices()) == {b.format_choice for b in DECLARED}
    assert set(STRATEGIES) == {s for b in DECLARED for s in b.strategies}
    owners = {name: [b.name for b in DECLARED if name in b.scorers] for name in SCORERS}
    assert all(len(found) == 1 for found in owners.values()), owners      # each scorer: exactly one benchmark


def test_a_scorer_reading_a_benchmarks_files_belongs_to_that_benchmark():
    for name, info in SCORERS.items():
        if info.benchmark is not None:
            assert benchmarks.for_scorer(name).name == info.benchmark, name
    for b in DECLARED:
        if b.official_scorer is not None:
            assert SCORERS[b.official_scorer].benchmark == b.name
    official = {b.name for b in benchmarks.official_benchmarks()}
    assert set(known.BENCHMARKS) == {k.benchmark for k in known.KNOWN} == official == set(BENCHMARK_TITLES)


def test_every_task_source_the_code_writes_is_declared():
    written = {fieldworkarena.SOURCE, industryeqa.SOURCE, openeqa.SOURCE, csv_table.SOURCE,
               inspect.signature(create_task).parameters["source"].default}
    assert written == {s for b in DECLARED for s in b.sources}


@pytest.mark.parametrize("sources, expected", [
    (set(), "fieldworkarena"), ({"fieldworkarena"}, "fieldworkarena"), ({"industryeqa"}, "industryeqa"),
    ({"openeqa"}, "industryeqa"), ({"industryeqa", "openeqa"}, "industryeqa"),
    ({"industryeqa", "fieldworkarena"}, "fieldworkarena"), ({"openeqa", "csv"}, "fieldworkarena"),
    ({"csv", "manual"}, "fieldworkarena"), ({"somewhere-else"}, "fieldworkarena"),
    ({"industryeqa", "somewhere-else"}, "fieldworkarena"),
])
def test_default_strategy_is_the_rule_the_fronts_copied(sources, expected):
    """cli/run.py and gui/panels/runs.py both held: industryeqa when every task is IndustryEQA or OpenEQA."""
    assert benchmarks.default_strategy(sources) == expected


@pytest.mark.parametrize("counts, judged, expected", [
    ([], False, "fs-match"), ([], True, "fs-match"),
    ([("fieldworkarena", 3)], False, "fs-match"), ([("fieldworkarena", 3)], True, "fwa-official"),
    ([("industryeqa", 3)], False, "eqa-direct"), ([("industryeqa", 3)], True, "eqa-direct"),
    ([("openeqa", 3)], False, "llm-match"), ([("openeqa", 3)], True, "llm-match"),
    ([("csv", 3)], True, "fs-match"), ([("manual", 3)], False, "fs-match"), ([("elsewhere", 3)], True, "fs-match"),
    ([("fieldworkarena", 2), ("openeqa", 5)], True, "llm-match"),
    ([("fieldworkarena", 5), ("openeqa", 5)], True, "fwa-official"),    # equal counts: the first one given
])
def test_default_scorer_is_the_rule_the_cli_held(counts, judged, expected):
    assert benchmarks.default_scorer(counts, judged) == expected
    assert benchmarks.default_scorer(dict(counts), judged) == expected


@pytest.mark.parametrize("scorer, counts_as, names", [
    ("fwa-official", 0.0, "FieldWorkArena"), ("fwa-paper", 0.0, "FieldWorkArena"), ("fs-match", 0.0, "FieldWorkArena"),
    ("fwa-logic+fs-prompt", 0.0, "FieldWorkArena"), ("llm-match", 0.0, "OpenEQA"),
    ("llm-match+fs-prompt", 0.0, "OpenEQA"), ("eqa-direct", None, "IndustryEQA"), ("eqa-reasoning", None, "IndustryEQA"),
    ("eqa-direct+fs-prompt", None, "IndustryEQA"), ("acceptability", 0.0, None), ("documentation", 0.0, None),
    ("not-a-scorer", 0.0, None), (None, 0.0, None),
])
def test_unscored_rule_is_the_one_coverage_held(scorer, counts_as, names):
    rule = benchmarks.unscored_rule(scorer)
    assert rule.counts_as == counts_as
    if names is None:
        assert rule.text == "unscored, failed and missing answers count 0"
    else:
        assert names in rule.text


def test_headline_mean_counts_or_drops_the_unscored():
    """31 of 42 scored, all correct: 31/42 when unscored count 0, 1.0 when they are dropped, None with none scored."""
    counting, dropping = benchmarks.get("fieldworkarena").unscored, benchmarks.get("industryeqa").unscored
    assert counting.headline_mean(31.0, 31, 42) == pytest.approx(31 / 42)
    assert dropping.headline_mean(31.0, 31, 42) == 1.0
    assert counting.headline_mean(0.0, 0, 42) is None and dropping.headline_mean(0.0, 0, 42) is None


def test_a_declaration_refuses_a_default_strategy_it_does_not_list():
    with pytest.raises(ValueError, match="default strategy"):
        benchmarks.Benchmark("x", "X", ("x",), "x", "x-answers", "x", ("a",), "b", (), None, None,
                             benchmarks.UnscoredRule(0.0, "count 0"))
