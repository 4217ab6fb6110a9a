"""An answer a run never sent (pending: no text, no error) is not scored as a "no prediction" 0: the scoring
skips it, the summaries count its task as missing for that run, and resuming the run sends it. A model's real
empty reply is still scored as the benchmark says (FieldWorkArena: 0)."""

from __future__ import annotations

from sqlalchemy import select

from fieldstudio.compare.comparison import build_comparison
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.scoring.service import score_answers
from fieldstudio.store.models import Answer, Score
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import fake_profile
from tests.support.scoring_fixtures import add_run, add_task


def _tasks(project) -> list[str]:
    return [add_task(project, "2.3.0001", "12 meters", eval_func="numerical_match"),
            add_task(project, "2.3.0002", "5 meters", eval_func="numerical_match")]


def _row(comparison, source: str) -> dict:
    table = comparison.summary
    return table.loc[source].to_dict() if source in table.index else {}


def test_a_run_stopped_by_the_privacy_gate_is_not_scored_and_counts_as_missing(project, fake_openai):
    tasks = _tasks(project)
    add_run(project, "replied", {tasks[0]: "12 meters", tasks[1]: ""})        # a real, empty reply to the second
    remote = fake_profile(fake_openai, name="remote", base_url="http://10.254.254.254:9/v1", privacy="local-only")
    gated = run_queue.create_run(project, remote, tasks, name="remote")
    summary = run_queue.execute_run(project, gated, profile=remote)
    assert summary.status == "failed" and summary.pending == 2
    report = score_answers(project, "fs-match")
    # by hand: 2 answers were sent (the "replied" run); the gated run's 2 were never asked
    assert (report.answers, report.scored, report.unscored) == (2, 1, 1)     # fs-match leaves an empty reply unscored
    assert report.never_sent == 2
    with project.read() as s:
        pending = s.scalars(select(Answer.id).where(Answer.run_id == gated)).all()
        assert s.scalars(select(Score.id).where(Score.answer_id.in_(pending))).all() == []
    comparison = build_comparison(project, "fs-match")
    replied = _row(comparison, "replied")      # the real empty reply counts as FieldWorkArena's 0, not as missing
    assert (replied["answers"], replied["n"], replied["missing"], replied["headline"]) == (2, 1, 0, 0.5)
    gated_row = _row(comparison, "remote")
    assert not gated_row or (gated_row["n"], gated_row["answers"], gated_row["missing"]) == (0, 0, 2)

    # Resuming through a profile the gate allows sends the two answers; then they are scored.
    fake_openai.responder = lambda request: Reply(text="12 meters")
    allowed = fake_profile(fake_openai, name="remote", privacy="local-only")
    assert run_queue.execute_run(project, gated, profile=allowed).answered == 2
    report = score_answers(project, "fs-match")
    assert (report.answers, report.scored, report.unscored, report.never_sent) == (4, 3, 1, 0)
    row = _row(build_comparison(project, "fs-match"), "remote")
    assert (row["n"], row["missing"], row["mean"]) == (2, 0, 0.5)        # 12 m right, 5 m wrong (by hand)
