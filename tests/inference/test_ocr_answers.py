"""The OCR-only baseline answer source (issue 34 item 2): each task with a photo is answered with the text OCR reads
in it, as the run "OCR only", updated in place when made again; tasks without a photo or video get no answer."""

from __future__ import annotations

from sqlalchemy import select

from fieldstudio.inference.runs.ocr_answers import SOURCE_NAME, answer_by_ocr
from fieldstudio.store.models import Answer, Run
from tests.support.run_fixtures import add_media, add_task
from tests.support.text_photo import write_text_photo


def test_photos_are_answered_with_their_text(project, tmp_path):
    photo = write_text_photo(tmp_path / "gauge.png")
    media = add_media(project, photo)
    reading = add_task(project, "What does the gauge read?", [("gauge.png", media["gauge.png"])],
                       ground_truth="4.2 bar")
    add_task(project, "How many metres is 12 feet?")           # no media: no answer
    steps = []
    run_id, written, failed = answer_by_ocr(project, progress=lambda d, t: steps.append((d, t)))
    assert (written, failed, steps) == (1, [], [(0, 1), (1, 1)])
    with project.read() as s:
        run = s.get(Run, run_id)
        answers = list(s.scalars(select(Answer).where(Answer.run_id == run_id)))
    assert (run.name, run.kind, run.status, run.params["source"]) == (SOURCE_NAME, "import", "done", "ocr-only")
    assert [a.task_id for a in answers] == [reading]
    text = answers[0].raw_text
    assert [" ".join(line.split()) for line in text.splitlines()][1] == "4.2 bar"   # the drawn lines, in order
    assert "".join(text.split()) == "PUMP74.2bar" and answers[0].parsed["answer"] == text
    assert answers[0].parsed["frames"] == [{"media_id": media["gauge.png"], "frame_index": 0, "text": text}]
    again, written, _ = answer_by_ocr(project, [reading])
    with project.read() as s:
        assert again == run_id and written == 1
        assert s.scalars(select(Answer).where(Answer.run_id == run_id)).all()[0].id == answers[0].id
