"""Issue 34 item 4: two agent runs on the same tasks, one with the local tools (``local_tools=on``) and one without,
are two sources in Compare, and their paired difference is the mean of the per-task score differences computed
here from the scores themselves; its 95 % interval agrees with SciPy's percentile bootstrap of those differences
(another implementation, other random draws: agreement within the resampling noise, not equality)."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select

from fieldstudio.compare.answer_table import load_answers
from fieldstudio.compare.summaries import paired
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.scoring.service import score_answers
from fieldstudio.store.models import Answer, Score
from tests.support.fake_openai import tool_reply
from tests.support.run_fixtures import add_task, fake_profile

# which of the 12 tasks each arm answers right (the fake planner's reply); the others get a wrong count
RIGHT_WITH_TOOLS = {0, 1, 2, 3, 5, 6, 8, 9, 11}
RIGHT_WITHOUT = {0, 2, 4, 6, 9}
COUNTS = [str(n + 3) for n in range(12)]


def _planner(arm: set[int]):
    def reply(request):
        query = next(m["content"] for m in request.body["messages"] if m["role"] == "user")
        text = query if isinstance(query, str) else " ".join(p.get("text", "") for p in query)
        n = next(i for i in range(len(COUNTS)) if f"task {i:02d}:" in text)
        return tool_reply("send_msg_to_user", text=COUNTS[n] if n in arm else "40")
    return reply


def test_with_and_without_tools_are_two_sources_and_their_paired_difference_is_the_per_task_mean(project, fake_openai):
    tasks = [add_task(project, f"task {i:02d}: how many boxes are on the pallet?", ground_truth=COUNTS[i],
                      eval_func="numerical_match", category="counts") for i in range(len(COUNTS))]
    profile = fake_profile(fake_openai)
    runs = {}
    for arm, local_tools, right in (("with", "on", RIGHT_WITH_TOOLS), ("without", "off", RIGHT_WITHOUT)):
        fake_openai.responder = _planner(right)
        runs[arm] = run_queue.create_run(project, profile, tasks, "agent", params={"local_tools": local_tools})
        run_queue.execute_run(project, runs[arm], profile=profile)
    score_answers(project, "fs-match", None, None)

    # the per-task scores, read from the score rows (not through Compare)
    with project.read() as s:
        rows = s.execute(select(Answer.run_id, Answer.task_id, Score.value)
                         .join(Score, Score.answer_id == Answer.id).where(Score.scorer == "fs-match")).all()
    value = {(run, task): v for run, task, v in rows}
    assert {value[(run, t)] for run in runs.values() for t in tasks} == {0.0, 1.0}
    differences = np.array([value[(runs["with"], t)] - value[(runs["without"], t)] for t in tasks])
    by_hand = (len(RIGHT_WITH_TOOLS) - len(RIGHT_WITHOUT)) / len(COUNTS)          # 9/12 - 5/12 = 1/3
    assert differences.mean() == pytest.approx(by_hand)

    answers = load_answers(project, "fs-match")
    sources = {run: answers.loc[answers["run_id"] == run, "source"].iloc[0] for run in runs.values()}
    assert len(set(sources.values())) == 2                                          # two sources in Compare
    d = paired(answers, sources[runs["with"]], sources[runs["without"]], n_resamples=4000, seed=1)
    assert d.n_shared == len(COUNTS) and d.difference == pytest.approx(by_hand)

    from scipy import stats

    scipy_ci = stats.bootstrap((differences,), np.mean, n_resamples=4000, method="percentile",
                               confidence_level=0.95, random_state=np.random.default_rng(7)).confidence_interval
    # a mean of 12 differences in {-1, 0, 1} lies on a grid of 1/12: two bootstraps' percentiles can fall one grid
    # step apart (seen: -1/12 against 0), never more at 4,000 draws (the half-width of this interval is ~0.25)
    step = 1 / len(differences) + 1e-9
    assert d.ci_low == pytest.approx(scipy_ci.low, abs=step) and d.ci_high == pytest.approx(scipy_ci.high, abs=step)
    assert d.ci_low <= by_hand <= d.ci_high
