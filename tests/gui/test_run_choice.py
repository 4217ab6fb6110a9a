"""The Runs tab's estimate (``gui.panels.run_choice.estimate_for``) and the strategy the chosen tasks propose
(``inference.strategies.default_strategy_for``) at the sizes where they were read twice (issue 37 item 2)."""

from __future__ import annotations

import pytest

from fieldstudio import benchmarks
from fieldstudio.gui.panels import run_choice
from fieldstudio.gui.panels.run_choice import EstimateAsk, estimate_for
from fieldstudio.inference import strategies
from fieldstudio.inference.runs import run_records
from fieldstudio.tasks import task_records


def _tasks(project, sources: list[str]) -> list[str]:
    return [task_records.create_task(project, query=f"q{k}", source=source, answer_type="free_text", ground_truth="a")
            for k, source in enumerate(sources)]


@pytest.mark.parametrize("in_limit", [0, 900])   # ids kept in Python (any list longer than 0) / bound in SQL
def test_the_strategy_proposed_is_the_one_of_the_chosen_tasks_sources(project, monkeypatch, in_limit):
    monkeypatch.setattr(strategies, "_IN_LIMIT", in_limit)
    eqa = _tasks(project, ["industryeqa", "industryeqa", "openeqa"])
    fwa = _tasks(project, ["fieldworkarena", "fieldworkarena"])
    # the rule (benchmarks.default_strategy) of the sources named here by hand
    assert strategies.default_strategy_for(project, eqa) == benchmarks.default_strategy({"industryeqa", "openeqa"}) \
        == "industryeqa"
    assert strategies.default_strategy_for(project, eqa + fwa[:1]) == "fieldworkarena"
    assert strategies.default_strategy_for(project, fwa) == "fieldworkarena"
    assert strategies.default_strategy_for(project, eqa[2:]) == "industryeqa"
    assert strategies.default_strategy_for(project, []) == benchmarks.default_strategy(set())


def _ask(strategy: str, category: str | None = None) -> EstimateAsk:
    return EstimateAsk(None, category, None, None, False, False, False, [], strategy, False, {})


def test_a_proposal_is_estimated_without_reading_the_tasks_again_until_the_project_changes(project, monkeypatch):
    """The first estimate proposes the tasks' strategy; the second (the strategy shown changed) reuses the tasks
    read and their proposal; a commit, or another selection, reads them again."""
    _tasks(project, ["industryeqa", "industryeqa"])
    reads: list[str] = []
    select, propose = run_records.select_tasks, strategies.default_strategy_for
    monkeypatch.setattr(run_choice, "select_tasks", lambda *a, **k: reads.append("tasks") or select(*a, **k))
    monkeypatch.setattr(strategies, "default_strategy_for", lambda *a, **k: reads.append("strategy") or propose(*a, **k))
    run_choice._KEPT.clear()

    first = estimate_for(project, _ask("fieldworkarena"))
    assert (first.propose, len(first.base), reads) == ("industryeqa", 2, ["tasks", "strategy"])
    second = estimate_for(project, _ask("industryeqa"))
    assert (second.propose, second.base, second.error, reads) == (None, first.base, None, ["tasks", "strategy"])

    _tasks(project, ["fieldworkarena"])                     # a commit: the tasks and their proposal change
    third = estimate_for(project, _ask("industryeqa"))
    assert (third.propose, len(third.base), reads[2:]) == ("fieldworkarena", 3, ["tasks", "strategy"])
    other = estimate_for(project, _ask("fieldworkarena", category="nothing-here"))
    assert (other.base, other.propose, reads[4:]) == ([], None, ["tasks"])
