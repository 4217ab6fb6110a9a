"""A judge that does not answer stops the scoring after a few answers; a failed judge call scores as each
benchmark says (FieldWorkArena: 0, "judge failed"; OpenEQA / IndustryEQA: the item is left unscored).

The dead judge is a loopback port that was just closed (connection refused at once); the live one is
tests/support/fake_openai.py.
"""

from __future__ import annotations

import math
import socket

import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.cli.score_report import register
from fieldstudio.inference import client as model_client
from fieldstudio.inference import profiles
from fieldstudio.inference.call_errors import ModelCallError
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.scoring import judging
from fieldstudio.scoring.judging import UNREACHABLE_ANSWERS, JudgeUnreachable
from fieldstudio.scoring.service import current_scores, score_answers
from fieldstudio.store.project import Project
from tests.support.fake_openai import Reply
from tests.support.scoring_fixtures import add_run, add_task


def _closed_port() -> int:
    """A loopback port nothing listens on: bound by the OS, then released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dead_judge() -> ModelProfile:
    return ModelProfile(name="dead-judge", base_url=f"http://127.0.0.1:{_closed_port()}/v1", model="j", retries=0)


def _fwa_free_text(project, n: int) -> list[str]:
    tasks = [add_task(project, f"2.1.{i:04d}", f"The worker carries box {i}", eval_func="fuzzy_match")
             for i in range(n)]
    add_run(project, "m", {t: f"box {i} is carried" for i, t in enumerate(tasks)})
    return tasks


def test_a_dead_judge_stops_after_a_few_answers_and_keeps_what_was_scored(project):
    _fwa_free_text(project, 8)
    profile = _dead_judge()
    with pytest.raises(JudgeUnreachable) as err:
        score_answers(project, "fwa-logic+fs-prompt", judge_profile=profile)
    message = str(err.value)
    assert "'dead-judge'" in message and profile.base_url in message and "is the server running?" in message
    assert f"{UNREACHABLE_ANSWERS} answers in a row" in message
    kept = current_scores(project, "fwa-logic+fs-prompt")
    # the answers before the stop are stored as FieldWorkArena scores a failed call: 0, "judge failed"
    assert len(kept) == UNREACHABLE_ANSWERS - 1
    assert (kept["value"] == 0.0).all() and kept["explanation"].str.startswith("judge failed").all()


def test_the_cli_prints_the_stop_and_exits_non_zero(tmp_path):
    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as p:
        _fwa_free_text(p, 6)
    profile = _dead_judge()
    profiles.add_profile(profile)
    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, ["score", str(path), "--scorer", "fwa-logic+fs-prompt", "--judge", "dead-judge"])
    assert result.exit_code != 0
    flat = " ".join(result.output.split())
    assert "does not answer: is the server running?" in flat and f"127.0.0.1:{profile.base_url.split(':')[2]}" in flat


def test_a_reply_between_failures_resets_the_count(project, fake_openai):
    """Two refused answers, one answered, two refused, ...: never three in a row, so every answer is scored."""
    tasks = _fwa_free_text(project, 9)
    fake_openai.responder = lambda request: Reply(text="correct")
    calls = []

    def chat(profile, messages, **kw):          # one call per answer: calls 1, 2 refused, 3 answered, ...
        calls.append(1)
        if len(calls) % 3 != 0:
            raise ModelCallError("connection", "cannot connect to the server")
        return model_client.chat(profile, messages, **kw)

    judge = ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0)
    report = score_answers(project, "fwa-logic+fs-prompt", judge_profile=judge, chat=chat)
    assert report.answers == 9 and report.judge_failed == 6 and report.judge_calls == 3
    assert len(current_scores(project, "fwa-logic+fs-prompt")) == len(tasks)


def _error_with_cause(kind: str, cause_name: str) -> ModelCallError:
    cause = type(cause_name, (Exception,), {})("boom")
    try:
        try:
            raise cause
        except Exception:
            raise ModelCallError(kind, "x") from None
    except ModelCallError as exc:
        return exc


def test_only_a_call_that_never_reached_the_server_counts():
    assert judging._cannot_connect(ModelCallError("connection", "refused"))
    assert judging._cannot_connect(_error_with_cause("timeout", "ConnectTimeout"))
    assert not judging._cannot_connect(_error_with_cause("timeout", "ReadTimeout"))   # slow, not dead
    assert not judging._cannot_connect(ModelCallError("server_error", "503"))


@pytest.mark.parametrize("scorer, expected", [
    ("fwa-logic+fs-prompt", 0.0),          # FieldWorkArena: the official call returns "" and scores 0
    ("llm-match+fs-prompt", None),         # OpenEQA / IndustryEQA: the item is left out, unscored
    ("eqa-direct+fs-prompt", None),
    ("eqa-reasoning+fs-prompt", None),
])
def test_a_failed_judge_call_scores_as_the_benchmark_says(project, fake_openai, scorer, expected):
    fwa = add_task(project, "2.1.0001", "The worker carries a box", eval_func="fuzzy_match")
    q1 = add_task(project, "q1", "Air conditioning unit", source="openeqa", category="object recognition")
    q2 = add_task(project, "5", "Two pallets", source="industryeqa", category="count",
                  ground_truth_extra={"reasoning_answer": "I see two pallets"}, extra={"reasoning_status": "1"})
    run = add_run(project, "m", {fwa: "a box is carried", q1: "An AC unit.",
                                 q2: {"raw_text": "Two", "parsed": {"direct_answer": "Two",
                                                                    "reasoning_answer": "two pallets"}}})
    fake_openai.responder = lambda request: Reply(status=500, error_message="internal error")
    judge = ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0)
    score_answers(project, scorer, [run], judge_profile=judge)
    rows = current_scores(project, scorer)
    task = {"fwa-logic+fs-prompt": fwa, "llm-match+fs-prompt": q1}.get(scorer, q2)
    row = rows[rows["task_id"] == task].iloc[0]
    assert "judge failed" in row["explanation"]
    if expected is None:
        assert math.isnan(row["value"])
    else:
        assert row["value"] == expected
