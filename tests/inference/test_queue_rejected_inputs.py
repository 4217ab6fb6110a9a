"""A task whose input was rejected at import is refused by the run, with the reason, and costs nothing (item 7a)."""

from __future__ import annotations

from sqlalchemy import select

from fieldstudio.inference.runs import estimate
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.store.models import Answer, Task
from fieldstudio.tasks import importing
from tests.conftest import SAMPLE
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_media, fake_profile

PHOTO = "retail_grocery_Bravo-Orange-Juice_024.jpg"


def test_rejected_input_is_refused_in_the_run_and_not_sent(project, tmp_path, fake_openai):
    add_media(project, SAMPLE / "images" / PHOTO)
    csv_file = tmp_path / "tasks.csv"
    csv_file.write_text("task_id,query,inputs\n"
                        f"good,How many cartons?,{PHOTO}\n"
                        f"escapes,How many bottles?,{PHOTO};../../secret/plan.pdf\n", encoding="utf-8")
    report = importing.import_tasks(project, [csv_file])
    assert any("rejected" in p.message for p in report.problems)
    with project.read() as s:
        ids = {t.external_id: t.id for t in s.scalars(select(Task))}
    fake_openai.responder = lambda request: Reply(text="3", prompt_tokens=500, completion_tokens=5)
    profile = fake_profile(fake_openai)
    est = estimate.estimate_run(project, profile, [ids["good"], ids["escapes"]], "fieldworkarena")
    run_id = run_queue.create_run(project, profile, [ids["good"], ids["escapes"]], "fieldworkarena")
    summary = run_queue.execute_run(project, run_id, profile=profile)
    assert len(fake_openai.chat_requests()) == 1  # only the good task was sent (paid for)
    assert (summary.answered, summary.failed) == (1, 1)
    with project.read() as s:
        answers = {a.task_id: a for a in s.scalars(select(Answer).where(Answer.run_id == run_id))}
    bad = answers[ids["escapes"]]
    assert bad.error.startswith("rejected_input: ")
    assert "'../../secret/plan.pdf'" in bad.error and "'..' segment" in bad.error
    assert bad.raw_text is None and bad.prompt_tokens is None and not bad.trace[:1]
    assert answers[ids["good"]].raw_text == "3"
    assert est.tasks_missing_media == 1
