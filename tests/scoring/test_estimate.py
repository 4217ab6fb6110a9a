"""The scoring estimate (issue 19 §2): judge calls, tokens and cost before scoring, checked against what
``score_answers`` then does with a fake OpenAI-compatible judge; unchanged answers come from the cache. The
official scorer is estimated with the benchmark's own prompts and settings: stand-in files
(tests/support/official_standins.py) whose token cap (99) and seed (7) are not fieldstudio's."""

from __future__ import annotations

import pytest

from fieldstudio.inference import profiles
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.scoring.estimate import DEFAULT_COMPLETION_TOKENS, estimate_scoring, judge_use
from fieldstudio.scoring.official.reading import OfficialSourceError
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.scoring.service import score_answers
from fieldstudio.store.models import Answer
from tests.support.fake_openai import Reply
from tests.support.scoring_fixtures import add_run, add_task

SCORER = "fwa-logic+fs-prompt"
"""FieldWorkArena's rules over fieldstudio's own prompts: needs a judge, no benchmark files."""


@pytest.fixture
def judged_project(project, fake_openai):
    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0,
                                      price_input_per_mtok=2.0, price_output_per_mtok=4.0))
    fake_openai.responder = lambda request: Reply(text="correct", prompt_tokens=300, completion_tokens=20)
    tasks = [add_task(project, f"1.1.000{i}", f"A worker carries box {i}", eval_func="fuzzy_match") for i in range(3)]
    add_run(project, "a", {t: f"box {i} is carried" for i, t in enumerate(tasks)})
    add_run(project, "b", {tasks[0]: "box 0 is carried", tasks[1]: {"raw_text": None, "error": "timeout"},
                           tasks[2]: "nothing"})
    return project, tasks


def test_estimate_counts_the_calls_the_scoring_makes(judged_project, fake_openai):
    project, tasks = judged_project
    est = estimate_scoring(project, SCORER, None, "judge")
    # 6 answers: 1 failed model call (no text) is not judged; a/t0 and b/t0 send the same prompt: 4 distinct
    assert (est.answers, est.failed, est.kept, est.judged, est.prompts, est.cached, est.calls) == (6, 1, 0, 5, 4, 0, 4)
    assert est.completion_basis == "default" and est.completion_tokens == 4 * DEFAULT_COMPLETION_TOKENS
    assert est.prompt_tokens > 0
    assert est.cost_usd == pytest.approx((est.prompt_tokens * 2.0 + est.completion_tokens * 4.0) / 1e6)
    report = score_answers(project, SCORER, None, "judge")
    assert (report.judge_calls, report.judge_cache_hits) == (4, 1)          # what was estimated: 4 requests
    assert len(fake_openai.chat_requests()) == 4
    # every prompt was sent once; its characters / 4 is the estimate's prompt tokens
    sent = sum(-(-len(r.body["messages"][-1]["content"]) // 4) for r in fake_openai.chat_requests())
    assert est.prompt_tokens == sent
    # every score stands now: nothing goes to the judge again
    again = estimate_scoring(project, SCORER, None, "judge")
    assert (again.current, again.judged, again.prompts, again.calls, again.cost_usd) == (5, 0, 0, 0, 0.0)
    assert again.completion_basis == "cache" and "5 already scored and current are not judged again" in again.text()
    # one answer changes: its score is stale, only it goes to the judge, with a new prompt
    with project.write() as s:
        s.query(Answer).filter(Answer.raw_text == "nothing").one().raw_text = "box 2 is carried by a worker"
    changed = estimate_scoring(project, SCORER, None, "judge")
    assert (changed.current, changed.judged, changed.prompts, changed.cached, changed.calls) == (4, 1, 1, 0, 1)
    assert changed.completion_tokens == 20                                 # the cached replies' mean: 20
    assert "1 judge calls" in changed.text()


def test_judge_use_comes_from_the_registry():
    for name, info in REGISTRY.items():
        assert judge_use(name) == ("required" if info.needs_judge else "optional" if info.judge_optional
                                   else "none"), name
    assert judge_use("llm-match") == judge_use("fwa-official") == judge_use("fwa-logic+fs-prompt") == "required"
    assert judge_use("fwa-paper") == "optional"
    assert judge_use("fs-match") == judge_use("acceptability") == "none"


def test_estimate_without_judge(judged_project):
    project, _ = judged_project
    est = estimate_scoring(project, "fs-match", None, None)
    assert (est.answers, est.calls, est.judge) == (6, 0, None) and "No model is called" in est.text()
    assert "deterministic matchers decide" in est.text()
    needs = estimate_scoring(project, SCORER, None, None)
    assert "needs a judge: without one nothing is scored" in needs.text()


def test_official_estimate_uses_the_located_files_settings(judged_project, fake_openai, standin_fwa):
    project, tasks = judged_project
    with pytest.raises(OfficialSourceError, match="not located"):
        estimate_scoring(project, "fwa-official", None, "judge")
    est = estimate_scoring(project, "fwa-official", None, "judge", official_source=standin_fwa)
    # the same 4 distinct prompts, now the stand-in's text; the stand-in's token cap 99 caps the completion
    assert (est.answers, est.failed, est.judged, est.prompts, est.calls) == (6, 1, 5, 4, 4)
    assert est.max_tokens == 99 and "at most 99 per call" in est.text()
    assert est.prompt_source.startswith("FieldWorkArena judge prompts from ")
    report = score_answers(project, "fwa-official", None, "judge", official_source=standin_fwa)
    sent = fake_openai.chat_requests()
    assert (report.judge_calls, len(sent)) == (4, 4)
    assert {r.body["max_tokens"] for r in sent} == {99} and {r.body["seed"] for r in sent} == {7}
    assert all(r.body["messages"][-1]["content"].startswith("Stand-in grading request.") for r in sent)
    # the estimate's prompts were the ones sent: characters / 4, and every one is now in the cache
    assert est.prompt_tokens == sum(-(-len(r.body["messages"][-1]["content"]) // 4) for r in sent)
    again = estimate_scoring(project, "fwa-official", None, "judge", official_source=standin_fwa)
    assert (again.current, again.prompts, again.calls) == (5, 0, 0)
    # fieldstudio's prompts are other prompts: nothing of the official scoring's cache is reused
    assert estimate_scoring(project, SCORER, None, "judge").cached == 0
