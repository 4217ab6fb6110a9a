"""A scanned manual's OCR'd text goes to the model as the document's text, and the request's trace says which pages
OCR read and with what (issue 34 item 2), in the FieldWorkArena strategy and the agent's document reading."""

from __future__ import annotations

from sqlalchemy import select

from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.media import document_ocr
from fieldstudio.store.models import Answer
from tests.support.run_fixtures import add_media, add_task, fake_profile, parts
from tests.support.scanned_manual import scan_first_page


def test_fieldworkarena_sends_ocr_text_and_its_trace_says_so(project, tmp_path, fake_openai):
    pdf, _ = scan_first_page(tmp_path)
    media = add_media(project, pdf)
    task = add_task(project, "What does the standard cover?", [(pdf.name, media[pdf.name])])
    before = run_queue.create_run(project, fake_profile(fake_openai), [task], "fieldworkarena")
    run_queue.execute_run(project, before, profile=fake_profile(fake_openai))
    first = parts(fake_openai.chat_requests()[0])
    assert "hazardous energy" not in " ".join(p.get("text", "") for p in first).casefold()

    report = document_ocr.read_pages(project)
    assert len(report.read) == 1
    after = run_queue.create_run(project, fake_profile(fake_openai), [task], "fieldworkarena")
    run_queue.execute_run(project, after, profile=fake_profile(fake_openai))
    sent = " ".join(p.get("text", "") for p in parts(fake_openai.chat_requests()[-1])).casefold()
    assert "text extracted from the provided document scanned lockout.pdf" in sent
    assert "hazardous energy" in sent and "lockout" in sent
    with project.read() as s:
        traces = {a.run_id: a.trace for a in s.scalars(select(Answer))}
    assert all("documents_ocr" not in t for t in traces[before] if t["type"] == "request")
    request = next(t for t in traces[after] if t["type"] == "request")
    assert request["documents_ocr"] == [{"document": pdf.name, "media_id": media[pdf.name], "ocr_pages": [1],
                                         "ocr_engine": document_ocr.ocr_pages_of(project, media[pdf.name])[1]}]
    assert request["documents_ocr"][0]["ocr_engine"].startswith("rapidocr ")


def test_the_agent_reads_the_ocr_text_and_its_trace_says_so(project, tmp_path, fake_openai):
    from tests.support.fake_openai import Reply

    pdf, _ = scan_first_page(tmp_path)
    media = add_media(project, pdf)
    assert len(document_ocr.read_pages(project).read) == 1
    task = add_task(project, "What does the standard cover?", [(pdf.name, media[pdf.name])])
    fake_openai.queue(Reply(text=f'analyze_document("{pdf.name}", "what is covered?")'),
                      Reply(text="hazardous energy"), Reply(text='send_msg_to_user("Hazardous energy.")'))
    run_id = run_queue.create_run(project, fake_profile(fake_openai), [task], "agent",
                                  params={"tool_calling": "off"})
    run_queue.execute_run(project, run_id, profile=fake_profile(fake_openai))
    doc = parts(fake_openai.chat_requests()[1])[0]["text"]
    assert doc.startswith(f"Text of the document {pdf.name}:") and "hazardous energy" in doc.casefold()
    with project.read() as s:
        trace = s.scalars(select(Answer).where(Answer.run_id == run_id)).one().trace
    requests = [t for t in trace if t["type"] == "request"]
    assert [("documents_ocr" in r) for r in requests] == [False, True, False]
    assert requests[1]["documents_ocr"][0]["ocr_pages"] == [1]
