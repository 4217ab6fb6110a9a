"""`fieldstudio tasks import|export`: the issue's command names, with a format check on import."""

from __future__ import annotations

import csv
import json
from typer.testing import CliRunner

from fieldstudio.cli.app import app
from tests.support.shared_data import SHARED_DATA

OPENEQA = SHARED_DATA / "openeqa" / "open-eqa-v0.json"
FWA_GT = SHARED_DATA / "fieldworkarena" / "ground_truth"


def test_tasks_import_checks_the_format_then_export_round_trips(tmp_path):
    runner = CliRunner()
    project = tmp_path / "p.fieldstudio"
    assert runner.invoke(app, ["new", str(tmp_path / "p")]).exit_code == 0
    wrong = runner.invoke(app, ["tasks", "import", str(project), str(OPENEQA), "--format", "fieldworkarena"])
    assert wrong.exit_code == 2 and "is not fieldworkarena: it looks like openeqa" in wrong.output
    ok = runner.invoke(app, ["tasks", "import", str(project), str(OPENEQA), "--format", "openeqa"])
    questions = json.loads(OPENEQA.read_text(encoding="utf-8"))
    assert ok.exit_code == 0 and f"tasks: {len(questions)} created" in ok.output
    out = tmp_path / "tasks.csv"
    done = runner.invoke(app, ["tasks", "export", str(project), "--format", "csv", "--out", str(out)])
    assert done.exit_code == 0
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(questions)
    assert {r["query"] for r in rows} == {q["question"] for q in questions}


def test_answers_import_and_answers_still_lists(tmp_path):
    runner = CliRunner()
    project = tmp_path / "p.fieldstudio"
    assert runner.invoke(app, ["new", str(tmp_path / "p")]).exit_code == 0
    assert runner.invoke(app, ["tasks", "import", str(project), str(OPENEQA)]).exit_code == 0
    questions = json.loads(OPENEQA.read_text(encoding="utf-8"))[:5]
    answers = tmp_path / "answers.csv"
    with answers.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task_id", "answer"])
        for q in questions:
            w.writerow([q["question_id"], "a chair"])
    done = runner.invoke(app, ["answers", "import", str(project), str(answers), "--model", "my-vlm"])
    assert done.exit_code == 0 and "answers: 5 imported" in done.output
    listing = runner.invoke(app, ["answers", str(project), "--json"])  # the old form still lists
    assert listing.exit_code == 0
    (run,) = json.loads(listing.output)
    assert (run["name"], run["kind"], run["answered"]) == ("my-vlm", "import", 5)


def test_tasks_link_media_after_adding_the_folder(tmp_path):
    # FieldWorkArena's demo tasks name the four published photos; imported first, they are linked after `add`
    fwa = SHARED_DATA / "fieldworkarena"
    names = sorted(n for r in json.loads((fwa / "tasks_v2" / "tasks_demo.json").read_text("utf-8"))
                   for n in r["input_data"])
    runner = CliRunner()
    project = tmp_path / "p.fieldstudio"
    assert runner.invoke(app, ["new", str(tmp_path / "p")]).exit_code == 0
    imported = runner.invoke(app, ["tasks", "import", str(project), str(fwa / "tasks_v2" / "tasks_demo.json")])
    assert f"{len(names)} task(s) name media that are not in the project" in imported.output
    assert "fieldstudio tasks link-media" in imported.output
    before = runner.invoke(app, ["tasks", "link-media", str(project)])
    assert before.exit_code == 0 and "0 task input(s) linked; 0 task(s) now have all their media" in before.output
    assert f"{len(names)} task(s) still name media that are not in the project" in before.output
    assert runner.invoke(app, ["add", str(project), str(fwa / "demo_images")]).exit_code == 0
    after = runner.invoke(app, ["tasks", "link-media", str(project)])
    assert after.exit_code == 0
    assert f"{len(names)} task input(s) linked; {len(names)} task(s) now have all their media" in after.output
    assert "still name" not in after.output


def test_a_whole_file_refused_by_an_import_exits_2_with_one_line_naming_it(tmp_path):
    runner = CliRunner()
    project = tmp_path / "p.fieldstudio"
    assert runner.invoke(app, ["new", str(tmp_path / "p")]).exit_code == 0
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"x\xff\n")                                  # neither tasks nor answers, not even UTF-8
    for command in (["tasks", "import", str(project), str(bad)],
                    ["answers", "import", str(project), str(bad), "--model", "m"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert "bad.csv" in result.output and "Traceback" not in result.output
    nothing = tmp_path / "empty.csv"
    nothing.write_text("task_id,query\n", encoding="utf-8")      # a readable file that holds no task
    assert runner.invoke(app, ["tasks", "import", str(project), str(nothing)]).exit_code == 1


def test_ctrl_c_cancels_a_tasks_import_after_the_batch_being_written_and_says_what_was_saved(tmp_path, monkeypatch):
    import os
    import signal

    from fieldstudio.cli.app import app as whole_app
    from fieldstudio.scoring import imported_tasks
    from sqlalchemy import func, select

    from fieldstudio.store.models import Task
    from fieldstudio.store.project import Project
    from fieldstudio.tasks import importing

    monkeypatch.setattr(importing, "BATCH", 250)           # 886 tasks: four batches
    # Python's own handler, or SIG_IGN when the tests run as a background job (a shell without job control starts
    # those with SIGINT ignored, and Python then keeps it so)
    before = signal.getsignal(signal.SIGINT)
    real = importing.import_tasks

    def ctrl_c_after_the_first_batch(project, paths, *, progress, **options):  # noqa: ANN001, ANN202
        def progress_then_ctrl_c(done: int, total: int) -> None:
            progress(done, total)
            if done == 250:
                os.kill(os.getpid(), signal.SIGINT)       # the user's Ctrl-C, to this process's own handler
        return real(project, paths, progress=progress_then_ctrl_c, **options)

    monkeypatch.setattr(imported_tasks.importing, "import_tasks", ctrl_c_after_the_first_batch)
    runner = CliRunner()
    project = tmp_path / "p.fieldstudio"
    assert runner.invoke(whole_app, ["new", str(tmp_path / "p")]).exit_code == 0
    done = runner.invoke(whole_app, ["tasks", "import", str(project), str(FWA_GT)])
    assert done.exit_code == 1, done.output
    assert "cancelling: the batch being written is saved" in done.output
    assert "cancelled (Ctrl-C): the 250 task(s) above were saved" in done.output
    with Project.open(project) as p, p.read() as s:
        assert s.scalar(select(func.count()).select_from(Task)) == 250
    assert signal.getsignal(signal.SIGINT) is before   # the handler put back
