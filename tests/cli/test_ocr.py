"""`fieldstudio add` reads a scanned manual's page with OCR, `info` says so, `ocr` finds nothing left (issue 34)."""

from __future__ import annotations

from typer.testing import CliRunner

from fieldstudio.cli.app import app
from tests.support.scanned_manual import scan_first_page


def test_add_reads_scanned_pages_and_ocr_reads_the_rest(tmp_path, wide_console):
    pdf, _ = scan_first_page(tmp_path)
    project = str(tmp_path / "p.fieldstudio")
    runner = CliRunner()
    assert runner.invoke(app, ["new", project]).exit_code == 0
    added = runner.invoke(app, ["add", project, str(pdf), "--no-ocr"])
    assert added.exit_code == 0, added.output
    assert "OCR" not in added.output
    info = runner.invoke(app, ["info", project]).output
    assert "scanned lockout.pdf: 1 page; scanned, needs OCR: page 1" in info
    read = runner.invoke(app, ["ocr", project, "--media", "scanned lockout.pdf"])
    assert read.exit_code == 0, read.output
    assert "OCR (rapidocr " in read.output and "read 1 page, " in read.output
    info = runner.invoke(app, ["info", project]).output
    assert "scanned lockout.pdf: 1 page; text read by OCR: page 1" in info
    again = runner.invoke(app, ["ocr", project])
    assert again.exit_code == 0 and "no scanned page waits to be read" in again.output
    missing = runner.invoke(app, ["ocr", project, "--media", "nothing.pdf"])
    assert missing.exit_code == 2


def test_add_reads_the_new_scanned_pages(tmp_path, wide_console):
    pdf, _ = scan_first_page(tmp_path, "scan two.pdf")
    project = str(tmp_path / "p.fieldstudio")
    runner = CliRunner()
    assert runner.invoke(app, ["new", project]).exit_code == 0
    added = runner.invoke(app, ["add", project, str(pdf)])
    assert added.exit_code == 0, added.output
    assert "read 1 page, " in added.output


def test_ocr_answers_makes_the_baseline_source(tmp_path, wide_console):
    from tests.support.text_photo import write_text_photo

    photo = write_text_photo(tmp_path / "gauge.png")
    project = str(tmp_path / "p.fieldstudio")
    runner = CliRunner()
    assert runner.invoke(app, ["new", project]).exit_code == 0
    assert runner.invoke(app, ["add", project, str(photo)]).exit_code == 0
    none = runner.invoke(app, ["ocr-answers", project])
    assert none.exit_code == 1 and "no task has a photo or a video" in none.output
    from fieldstudio.media.library import find_media
    from fieldstudio.store.project import Project
    from fieldstudio.tasks.task_records import create_task

    with Project.open(project) as p:
        create_task(p, query="Gauge?", external_id="G-1", ground_truth="4.2 bar",
                    inputs=[{"name": "gauge.png", "media_id": find_media(p, "gauge.png").id}])
    made = runner.invoke(app, ["ocr-answers", project, "--task", "G-1"])
    assert made.exit_code == 0, made.output
    assert "OCR only (run " in made.output and "1 answer written" in made.output
    assert runner.invoke(app, ["ocr-answers", project, "--task", "nope"]).exit_code == 2
