"""Headless services behind the Run panel: the cost estimate, tasks x profiles batches, run lists and live totals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fieldstudio.inference.runs import batch as run_batch
from fieldstudio.inference.runs import estimate as run_estimate
from fieldstudio.inference.runs import views as run_views
from fieldstudio.inference.runs.run_records import select_tasks
from fieldstudio.inference.sampling import fwa_indices
from fieldstudio.inference.strategies.base import template
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import fake_profile


# -- the estimate ---------------------------------------------------------------------------------


def test_image_tokens_follow_openais_published_examples():
    """OpenAI's vision pricing examples: 1024 x 1024 high = 765 tokens, 2048 x 4096 high = 1105, low = 85."""
    assert run_estimate.image_tokens(1024, 1024, "high") == 765
    assert run_estimate.image_tokens(2048, 4096, "high") == 1105
    assert run_estimate.image_tokens(4096, 8192, "low") == 85
    assert run_estimate.image_tokens(576, 324, "auto") == 85 + 170 * 2      # 2 x 1 tiles, no scaling


@pytest.mark.parametrize("length_s", [0.5, 4.7, 10.0, 29.0, 29.5, 30.0, 45.0, 60.0, 226.0])
def test_frame_count_matches_the_sampler_on_real_timestamps(length_s):
    """The estimate's frame count equals the number of frames `sampling.fwa_indices` picks on a 10 fps clip."""
    seconds = np.arange(0, length_s, 0.1)
    picked = fwa_indices(seconds)
    measured = seconds[-1] - seconds[0] + 0.1                 # the sampler's length: last PTS + one frame
    assert run_estimate.fwa_frame_count(float(measured)) == len(picked)


def test_estimate_of_the_demo_photos_by_hand(fwa_project, fake_openai):
    """Four demo photos, FieldWorkArena strategy, default longest side 1024, detail high:
    worksite_a/c 576x324 and b 768x432 -> 2 tiles = 425 tokens each; d 1152x648 -> 1024x576 -> 4 tiles = 765."""
    profile = fake_profile(fake_openai)          # $2 / $8 per million
    ids = select_tasks(fwa_project, category="demo")
    est = run_estimate.estimate_run(fwa_project, profile, ids, "fieldworkarena")
    assert (est.tasks, est.tasks_missing_media, est.requests, est.images) == (4, 0, 4, 4)
    from fieldstudio.inference.inputs import load_tasks
    templates = len(template("strategy_fieldworkarena")) + len(template("strategy_fieldworkarena_goal"))
    text = sum(math.ceil((len(t.query) + templates) / 4) for t in load_tasks(fwa_project, ids))
    assert est.prompt_tokens == text + 425 * 3 + 765
    assert est.completion_tokens == 4 * 200
    assert est.cost_usd == pytest.approx((est.prompt_tokens * 2 + 800 * 8) / 1e6)
    assert est.basis == "heuristic"

    eqa = run_estimate.estimate_run(fwa_project, profile, ids, "industryeqa", params={"detail": "low"})
    assert eqa.prompt_tokens - 4 * 85 == sum(math.ceil((len(t.query) + len(template("strategy_industryeqa"))) / 4)
                                             for t in load_tasks(fwa_project, ids))
    missing = run_estimate.estimate_run(fwa_project, profile, select_tasks(fwa_project, category="2.1"),
                                        "fieldworkarena")
    assert (missing.tasks, missing.tasks_missing_media, missing.requests, missing.cost_usd) == (80, 80, 0, 0.0)
    unpriced = run_estimate.estimate_run(fwa_project, fake_profile(fake_openai, price_input_per_mtok=None), ids,
                                         "blind")
    assert unpriced.cost_usd is None and unpriced.images == 0 and unpriced.requests == 4


def test_estimate_uses_the_mean_usage_of_earlier_answers(fwa_project, fake_openai):
    fake_openai.queue(*(Reply(text="x", prompt_tokens=p, completion_tokens=c)
                        for p, c in ((1000, 10), (2000, 30), (3000, 50), (4000, 70))))
    profile = fake_profile(fake_openai)
    ids = select_tasks(fwa_project, category="demo")
    plan = run_batch.plan_batch(fwa_project, [profile], ids, "fieldworkarena")
    run_batch.execute_batch(fwa_project, run_batch.create_batch(fwa_project, plan, "fieldworkarena"), [profile],
                            use_cache=False)
    est = run_estimate.estimate_run(fwa_project, profile, ids[:2], "fieldworkarena")
    assert (est.basis, est.history_answers) == ("history", 4)
    assert (est.prompt_tokens, est.completion_tokens) == (2 * 2500, 2 * 40)     # means 2500 and 40 per answer
    assert est.cost_usd == pytest.approx((5000 * 2 + 80 * 8) / 1e6)


# -- batches --------------------------------------------------------------------------------------


def test_two_profiles_one_batch_progress_totals_and_resume(fwa_project, fake_openai):
    fake_openai.responder = lambda request: Reply(text="ok", prompt_tokens=500, completion_tokens=20)
    a = fake_profile(fake_openai, name="a")                               # $2 / $8
    b = fake_profile(fake_openai, name="b", price_input_per_mtok=1.0, price_output_per_mtok=4.0)
    ids = select_tasks(fwa_project, category="demo") + select_tasks(fwa_project, ids=["2.1.0001"])
    plan = run_batch.plan_batch(fwa_project, [a, b], ids, "fieldworkarena")
    assert [(i.profile.name, i.run_id, len(i.pending_task_ids)) for i in plan] == [("a", None, 5), ("b", None, 5)]
    run_ids = run_batch.create_batch(fwa_project, plan, "fieldworkarena")
    seen = []
    stop_after = 7

    def progress(done, total):  # noqa: ANN001
        seen.append((done, total))

    result = run_batch.execute_batch(fwa_project, run_ids, [a, b], progress=progress,
                                     cancelled=lambda: len(seen) > stop_after, use_cache=False)
    assert result.cancelled and seen[0] == (0, 10) and all(t == 10 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    totals = run_views.live_totals(fwa_project, run_ids)
    assert totals.total == 10 and totals.finished < 10 and totals.finished == seen[-1][0]

    # profile a finished its 5 answers before the stop (6 reports: 0..5); b was stopped midway
    assert [s.status for s in result.summaries] == ["done", "cancelled"]
    again = run_batch.plan_batch(fwa_project, [a, b], ids, "fieldworkarena")
    assert again[0].run_id is None and again[1].run_id == run_ids[1]      # only the unfinished run is resumed
    pending = len(again[1].pending_task_ids)
    assert pending == 10 - totals.finished
    asked_before = len(fake_openai.chat_requests())
    result = run_batch.execute_batch(fwa_project, run_ids, [a, b], use_cache=False)
    assert not result.cancelled and [s.status for s in result.summaries] == ["done", "done"]
    asked = sum(1 for t in again[1].pending_task_ids if t != ids[-1])     # 2.1.0001 fails without a request
    assert len(fake_openai.chat_requests()) - asked_before == asked

    totals = run_views.live_totals(fwa_project, run_ids)
    # per profile: 4 answered x 500 in / 20 out; 2.1.0001 fails (missing media) at no cost
    assert (totals.answered, totals.failed, totals.prompt_tokens, totals.completion_tokens) == (8, 2, 4000, 160)
    assert totals.cost_usd == pytest.approx(4 * (500 * 2 + 20 * 8) / 1e6 + 4 * (500 * 1 + 20 * 4) / 1e6)
    assert {e[0] for e in totals.errors} == {"2.1.0001"} and {e[2] for e in totals.errors} == {"missing_media"}
    rows = {r.profile_name: r for r in run_views.list_runs(fwa_project)}
    assert rows["a"].answered == 4 and rows["a"].failed == 1 and rows["a"].pending == 0
    assert rows["b"].cost_usd == pytest.approx(4 * 580 / 1e6) and rows["b"].duration_s is not None
    answers = run_views.list_answers(fwa_project, rows["a"].id)
    assert [x.task_label for x in answers] == ["2.1.0001", "demo.1", "demo.2", "demo.3", "demo.4"]
    assert answers[1].state == "answered" and answers[1].answer == "ok" and answers[1].frames == 1
    assert answers[0].state == "failed" and answers[0].error_kind == "missing_media"
    facets = run_views.task_facets(fwa_project)
    assert facets.total == 84 and ("2.1", 80) in facets.categories and ("demo", 4) in facets.categories


def test_a_finished_run_is_not_resumed_and_new_forces_a_new_run(fwa_project, fake_openai):
    profile = fake_profile(fake_openai)
    ids = select_tasks(fwa_project, category="demo")
    first = run_batch.create_batch(fwa_project, run_batch.plan_batch(fwa_project, [profile], ids, "blind"), "blind")
    run_batch.execute_batch(fwa_project, first, [profile])
    plan = run_batch.plan_batch(fwa_project, [profile], ids, "blind")
    assert plan[0].run_id is None
    with pytest.raises(Exception, match="no task selected"):
        run_batch.plan_batch(fwa_project, [profile], [], "blind")


def test_outcome_lines_sum_the_runs_and_say_why_a_run_stopped():
    """Two runs: 3+1 answered, 0+2 failed, 1+0 pending; costs $0.01 over 3 priced answers and one unpriced
    answer, so the sum is a lower bound stated with its coverage (fieldstudio.core.costs)."""
    from fieldstudio.inference.runs.run_records import RunSummary

    a = RunSummary("r1", total=4, answered=3, pending=1, cost_usd=0.01)
    b = RunSummary("r2", total=3, answered=1, failed=2, cost_unknown=1, stopped="cannot connect to the server")
    lines = run_batch.BatchResult([a, b], cancelled=True).outcome_lines()
    assert lines[0].startswith("Stopped early: cannot connect to the server.")
    assert lines[1] == ("Stopped: 1 answer(s) still pending; Resume continues without paying again for the "
                        "finished ones.")
    assert lines[-1] == "4 answered, 2 failed, 1 pending; cost ≥ $0.0100 (5 of 6 answers priced)"


def test_describe_states_each_figure_and_its_basis():
    """One heuristic estimate without prices: its figures as given, cost "?" and the unknown-cost note."""
    est = run_estimate.RunEstimate(profile_name="p", tasks=2, requests=2, images=6, prompt_tokens=1234,
                                   completion_tokens=512, cost_usd=None)
    text = run_estimate.describe([est], as_batch=True)
    assert "p: 2 task(s) → 2 request(s), 6 image(s), ≈ 1,234 in / 512 out tokens, ≈ ? (" in text
    assert "A profile without prices has an unknown cost (?)." in text
    assert text.endswith("Costs at the batch price (the profile's batch discount; unknown without one).")
