"""Runs read through their owner, inference/runs/run_records.py (issue 35 item 3): found by an id prefix,
resumed only over the same tasks, counted."""

from __future__ import annotations

import pytest

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs import run_records
from fieldstudio.tasks import task_records


def test_runs_are_found_by_a_prefix_and_resumed_only_over_the_same_tasks(project):
    t1 = task_records.create_task(project, query="How many?", answer_type="count", ground_truth="3")
    t2 = task_records.create_task(project, query="How far?", answer_type="distance", ground_truth="2 m")
    profile = ModelProfile(name="local", base_url="http://127.0.0.1:9/v1", model="m")
    run_id = run_records.create_run(project, profile, [t1, t2], "fieldworkarena")
    assert run_records.find_run(project, run_id[:6].upper()) == run_id
    with pytest.raises(FieldstudioError, match="no run 'abc'"):
        run_records.find_run(project, "abc")
    assert run_records.find_resumable_run(project, "local", "fieldworkarena", [t2, t1]) == run_id
    assert run_records.find_resumable_run(project, "local", "fieldworkarena", [t1]) is None
    assert run_records.find_resumable_run(project, "local", "fieldworkarena") == run_id
    assert (run_records.count_runs(project), run_records.count_answers(project)) == (1, 2)
    assert task_records.count_tasks(project) == 2
