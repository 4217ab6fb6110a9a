"""A judge behind a hostile server: a verdict that never ends is cut at the profile's cap and counts as a
failed judge call (never cached), a judge past its deadline fails the same way; scoring ends and goes on."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import func, select

from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.scoring.service import current_scores, score_answers
from fieldstudio.store.models import ResponseCache
from tests.support.scoring_fixtures import add_run, add_task


@pytest.mark.parametrize("behaviour", ["endless", "silent"])
def test_a_hostile_judge_fails_each_call_and_the_scoring_ends(project, hostile_openai, behaviour):
    tasks = [add_task(project, f"2.1.{i:04d}", f"The worker carries box {i}", eval_func="fuzzy_match")
             for i in range(2)]
    add_run(project, "m", {t: f"box {i} is carried" for i, t in enumerate(tasks)})
    hostile_openai.behaviour = behaviour
    judge = ModelProfile(name="judge", base_url=hostile_openai.base_url, model="j", retries=0, timeout_s=10,
                         deadline_s=1, max_reply_bytes=20_000)
    started = time.monotonic()
    report = score_answers(project, "fwa-logic+fs-prompt", judge_profile=judge)
    assert time.monotonic() - started < 8
    assert report.answers == 2 and report.judge_failed == 2
    rows = current_scores(project, "fwa-logic+fs-prompt")
    assert list(rows["value"]) == [0.0, 0.0]                  # FieldWorkArena scores a failed judge call 0
    reason = "reply cut at the profile's size cap of 20,000 bytes" if behaviour == "endless" \
        else "overall deadline of 1 s"
    assert all("judge failed" in e and reason in e for e in rows["explanation"])
    with project.read() as s:
        assert s.scalar(select(func.count()).select_from(ResponseCache)) == 0
